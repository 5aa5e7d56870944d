#include "loader.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "cosim/util/text.hpp"
#include "path_util.hpp"
#include "readers.hpp"
#include "xml_attributes.hpp"

namespace cosim::scene::detail {
namespace {

namespace fs = std::filesystem;
using std::string_view;

constexpr int kMaxDepth = 128;  // nested joints + instances, bounds our recursion

// A folder (the XML reader is the folder reader) or a file named *.xml, in any case.
bool accepts_xml_scene(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) return true;
  // A MuJoCo model is an .xml file too: the MJCF reader's, by its root element.
  return fs::is_regular_file(st) && lower_case(path.extension().string()) == ".xml" &&
         xml_root_element(path) != "mujoco";
}

// The element's line, and its name and refs attributes' own lines for errors about them.
ElementLocation located(const XmlFile& file, pugi::xml_node el, const char* name_attr,
                        const char* refs_attr = nullptr) {
  return {file.at(el), file.at(el.attribute(name_attr), el),
          refs_attr != nullptr ? file.at(el.attribute(refs_attr), el) : SourceLocation{}};
}

}  // namespace

const SceneReader kXmlSceneReader{"XML scene",
                                  "a scene folder holding projects/, or a project .xml file",
                                  &accepts_xml_scene, &Loader::load};

Loader::Loader(fs::path root) : root_(std::move(root)) { builder_.set_root(root_); }

SceneModel Loader::load(const fs::path& given, const LoadOptions& /*options*/) {
  std::error_code ec;
  // Canonical from the start, so every message names the same absolute paths.
  const fs::path path = fs::exists(given, ec) ? fs::canonical(given, ec) : given;
  const fs::file_status st = fs::status(path, ec);
  fs::path project_file;
  fs::path root;
  if (fs::is_directory(st)) {
    const fs::path projects = path / "projects";
    if (!fs::is_directory(projects, ec)) {
      throw SceneError({path, 0}, "scene folder has no projects/ folder");
    }
    std::vector<fs::path> found;
    for (const fs::directory_entry& e : fs::directory_iterator(projects, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".xml") found.push_back(e.path());
    }
    if (ec) throw SceneError({projects, 0}, "cannot list folder: " + ec.message());
    std::sort(found.begin(), found.end());
    if (found.empty()) throw SceneError({projects, 0}, "no project file (*.xml)");
    if (found.size() > 1) {
      std::string list;
      for (const fs::path& p : found) list += (list.empty() ? "" : ", ") + p.filename().string();
      throw SceneError({projects, 0}, std::to_string(found.size()) + " project files (" + list +
                                          "): pass one of them instead of the folder");
    }
    root = path;
    project_file = found.front().filename();
  } else if (fs::is_regular_file(st)) {
    const fs::path parent = fs::absolute(path, ec).parent_path();
    if (parent.filename() != "projects") {
      throw SceneError({path, 0}, "a project file must be in <scene>/projects/");
    }
    root = parent.parent_path();
    project_file = path.filename();
  } else {
    throw SceneError({path, 0}, "no such scene folder or project file");
  }

  fs::path canonical_root = fs::canonical(root, ec);
  if (ec) throw SceneError({root, 0}, "cannot resolve scene folder: " + ec.message());
  Loader loader(std::move(canonical_root));
  loader.load_project(loader.root_ / "projects" / project_file);
  return std::move(loader.builder_).build();
}

const XmlFile& Loader::open(const fs::path& file) {
  auto& slot = files_[file];
  if (!slot) slot = std::make_unique<XmlFile>(file);
  return *slot;
}

void Loader::load_project(const fs::path& path) {
  const XmlFile& file = open(path);
  const pugi::xml_node root = file.root();
  if (string_view(root.name()) != "project") {
    file.fail(root, "root element must be <project>, not " + tag(root));
  }
  const Attrs a(file, root, {"name"});
  const std::string name = a.name("name");
  if (name != path.stem().string()) {
    a.fail("name", "project name " + in_quotes(name) + " does not match its file name " +
                       in_quotes(path.filename().string()));
  }
  builder_.set_name(name);

  for (pugi::xml_node c : elements(file, root)) {
    const string_view element = c.name();
    if (element == "robot") {
      instantiate(file, c, Kind::robot, -1, 0);
    } else if (element == "object") {
      instantiate(file, c, Kind::object, -1, 0);
    } else if (element == "tool") {
      instantiate(file, c, Kind::tool, -1, 0);
    } else {
      unknown_element(file, c, root, "<robot>, <object>, <tool>");
    }
  }
}

// <robot|object|tool name [file]> [<base>]: loads <folder>/<file or name>.xml as a new
// instance whose root frame hangs from parent_frame.
void Loader::instantiate(const XmlFile& file, pugi::xml_node el, Kind kind, int parent_frame,
                         int depth) {
  static constexpr const char* kElement[] = {"robot", "object", "tool"};
  static constexpr const char* kFolder[] = {"robots", "objects", "tools"};
  const char* element = kElement[static_cast<int>(kind)];
  const char* folder = kFolder[static_cast<int>(kind)];

  if (depth > kMaxDepth) file.fail(el, "nesting deeper than " + std::to_string(kMaxDepth));
  const Attrs a(file, el, {"name", "file"});
  const std::string name = a.name("name");
  const std::string stem = a.has("file") ? a.name("file") : name;

  Eigen::Isometry3d X_PB = Eigen::Isometry3d::Identity();
  bool have_base = false;
  for (pugi::xml_node c : elements(file, el)) {
    if (string_view(c.name()) != "base") unknown_element(file, c, el, "<base>");
    if (have_base) file.fail(c, "more than one <base> in " + tag(el));
    have_base = true;
    X_PB = transform_list(file, c);
  }

  const fs::path path = root_ / folder / (stem + ".xml");
  std::error_code ec;
  const auto where = a.attr(a.has("file") ? "file" : "name");
  if (!fs::exists(path, ec)) file.fail(where, el, std::string(element) + " file not found: " + path.string());
  const fs::path canonical = fs::canonical(path, ec);
  if (ec) file.fail(el, "cannot resolve " + path.string() + ": " + ec.message());
  // Like meshes, object files stay inside the scene root once ".." and symlinks are resolved.
  if (!is_inside(root_, canonical)) {
    file.fail(where, el, std::string(element) + " file " + path.string() + " resolves to " + canonical.string() +
                             ", outside the scene root " + root_.string());
  }
  if (!fs::is_regular_file(canonical, ec)) {
    file.fail(where, el, std::string(element) + " file is not a regular file: " + path.string());
  }
  if (std::find(stack_.begin(), stack_.end(), canonical) != stack_.end()) {
    std::string chain;
    for (const fs::path& p : stack_) chain += p.stem().string() + " -> ";
    file.fail(el, "object recursion: " + path.filename().string() + " instantiates itself (" +
                      chain + stem + ")");
  }

  const XmlFile& inner = open(path);
  const pugi::xml_node root = inner.root();
  if (string_view(root.name()) != element) {
    inner.fail(root, "root element must be <" + std::string(element) + ">, not " + tag(root));
  }
  const Attrs ra(inner, root, {"name"});
  if (ra.name("name") != stem) {
    ra.fail("name", "name " + in_quotes(ra.str("name")) + " does not match the file name " +
                        in_quotes(path.filename().string()));
  }

  const int frame = builder_.add_instance(parent_frame, name, X_PB, located(file, el, "name"));
  stack_.push_back(canonical);
  parse_body(inner, root, frame, depth + 1);
  stack_.pop_back();
}

// Children of an instance root or of a joint (after its <link>): what hangs on `frame`.
void Loader::parse_body(const XmlFile& file, pugi::xml_node el, int frame, int depth) {
  const bool is_joint = string_view(el.name()) == "joint";
  bool first = true;
  for (pugi::xml_node c : elements(file, el)) {
    const string_view name = c.name();
    const bool skip_link = is_joint && first;  // the joint's <link>, parsed by parse_joint
    first = false;
    if (skip_link) continue;
    if (name == "joint") {
      parse_joint(file, c, frame, depth + 1);
    } else if (name == "cuboid" || name == "cylinder" || name == "cone" || name == "sphere" ||
               name == "revolution" || name == "part") {
      parse_geometry(file, c, frame);
    } else if (name == "assembly") {
      parse_assembly(file, c, frame);
    } else if (name == "render") {
      parse_render(file, c, frame);
    } else if (name == "probe") {
      parse_probe(file, c, frame);
    } else if (name == "object") {
      instantiate(file, c, Kind::object, frame, depth + 1);
    } else if (name == "tool") {
      instantiate(file, c, Kind::tool, frame, depth + 1);
    } else if (name == "link") {
      file.fail(c, "<link> must be the first child of a <joint>");
    } else {
      unknown_element(file, c, el,
                      "<joint>, <cuboid>, <cylinder>, <cone>, <sphere>, <revolution>, <part>, "
                      "<assembly>, <render>, <probe>, <object>, <tool>");
    }
  }
}

void Loader::parse_joint(const XmlFile& file, pugi::xml_node el, int parent_frame, int depth) {
  if (depth > kMaxDepth) file.fail(el, "nesting deeper than " + std::to_string(kMaxDepth));
  const Attrs a(file, el, {"name"});
  JointSpec joint;
  joint.name = a.name("name");
  joint.where = located(file, el, "name");

  const pugi::xml_node link = el.find_child([](pugi::xml_node n) {
    return n.type() == pugi::node_element;
  });
  if (!link || string_view(link.name()) != "link") {
    file.fail(link ? link : el, "the first child of <joint> must be <link>");
  }
  parse_link(file, link, joint);

  const int index = builder_.add_joint(parent_frame, std::move(joint));
  parse_body(file, el, index, depth);
}

// <link>: [<pre>] <drive> [<post>], in this order.
void Loader::parse_link(const XmlFile& file, pugi::xml_node link, JointSpec& joint) {
  const Attrs a(file, link, {});
  int stage = 0;  // 0 nothing yet, 1 after pre, 2 after drive, 3 after post
  for (pugi::xml_node c : elements(file, link)) {
    const string_view name = c.name();
    const int my_stage = name == "pre" ? 1 : name == "drive" ? 2 : name == "post" ? 3 : 0;
    if (my_stage == 0) unknown_element(file, c, link, "<pre>, <drive>, <post>");
    if (my_stage <= stage) {
      file.fail(c, tag(c) + " repeated or out of order in <link> (order: <pre> <drive> <post>)");
    }
    if (my_stage == 3 && stage < 2) file.fail(c, "<post> before <drive> in <link>");
    stage = my_stage;
    if (my_stage == 1) joint.X_PJ = transform_list(file, c);
    if (my_stage == 2) parse_drive(file, c, joint);
    if (my_stage == 3) joint.X_DC = transform_list(file, c);
  }
  if (stage < 2) file.fail(link, "missing <drive> in <link>");
}

void Loader::parse_drive(const XmlFile& file, pugi::xml_node el, JointSpec& joint) {
  const Attrs a(file, el, {"type", "axis", "deg", "rad", "offset", "driven"});
  expect_no_children(file, el);
  const string_view type = a.str("type");
  const auto reject = [&](string_view key, const std::string& why) {
    if (a.has(key)) {
      a.fail(key, "unknown attribute " + in_quotes(key) + " on a " + std::string(type) +
                      " <drive>" + why);
    }
  };
  if (type == "fixed") {
    for (string_view key : {"axis", "deg", "rad", "offset", "driven"}) reject(key, "");
    joint.drive = DriveType::fixed;
    joint.driven = false;
    return;
  }
  if (type == "revolute") {
    reject("offset", ": give the angle offset with deg= or rad=");
    joint.drive = DriveType::revolute;
    joint.offset = a.angle(false).value_or(0.0);
  } else if (type == "prismatic") {
    reject("deg", ": give the offset in metres with offset=");
    reject("rad", ": give the offset in metres with offset=");
    joint.drive = DriveType::prismatic;
    joint.offset = a.number("offset", 0.0);
  } else {
    a.fail("type", "bad drive type " + in_quotes(type) + ": expected revolute, prismatic or fixed");
  }
  joint.axis_J = a.axis("axis");
  const string_view d = a.opt_str("driven").value_or("true");
  if (d != "true" && d != "false") {
    a.fail("driven", "bad value " + in_quotes(d) + " for 'driven': expected true or false");
  }
  joint.driven = d == "true";
}

void Loader::parse_geometry(const XmlFile& file, pugi::xml_node el, int frame) {
  const string_view kind = el.name();
  Shape shape;
  std::string id;
  std::vector<Eigen::Vector2d> profile;

  if (kind == "cuboid") {
    const Attrs a(file, el, {"id", "lx", "ly", "lz"});
    id = a.name("id");
    shape = Cuboid{a.positive("lx"), a.positive("ly"), a.positive("lz")};
  } else if (kind == "cylinder" || kind == "cone") {
    const Attrs a(file, el, {"id", "radius", "height", "axis", "resolution"});
    id = a.name("id");
    const double r = a.positive("radius"), h = a.positive("height");
    const char axis = a.shape_axis('z');
    const int res = a.resolution(kDefaultResolution);
    if (kind == "cylinder") {
      shape = Cylinder{r, h, axis, res};
    } else {
      shape = Cone{r, h, axis, res};
    }
  } else if (kind == "sphere") {
    const Attrs a(file, el, {"id", "radius", "resolution"});
    id = a.name("id");
    shape = Sphere{a.positive("radius"), a.resolution(kDefaultSphereResolution)};
  } else if (kind == "revolution") {
    const Attrs a(file, el, {"id", "axis", "resolution"});
    id = a.name("id");
    if (!a.has("axis")) a.str("axis");  // required here: throws "missing required attribute"
    shape = Revolution{{}, a.shape_axis('z'), a.resolution(kDefaultResolution)};
  } else {  // part
    const Attrs a(file, el, {"id", "file", "scale"});
    id = a.name("id");
    shape = parse_part(file, el, a.positive("scale", 1.0));
  }

  // Placement (and, for a revolution, its profile points).
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
  for (pugi::xml_node c : elements(file, el)) {
    if (apply_transform(file, c, X_FG)) continue;
    if (kind == "revolution" && string_view(c.name()) == "point") {
      const Attrs p(file, c, {"r", "a"});
      expect_no_children(file, c);
      const double r = p.number("r");
      if (r < 0) p.fail("r", "bad number " + in_quotes(p.str("r")) + " in attribute 'r': must be >= 0");
      profile.emplace_back(r, p.number("a"));
      continue;
    }
    unknown_element(file, c, el,
                    kind == "revolution" ? "<point>, <translate>, <rotate>"
                                         : "<translate>, <rotate>");
  }
  if (auto* rev = std::get_if<Revolution>(&shape)) {
    if (profile.size() < 2) {
      file.fail(el, "<revolution> needs at least 2 <point> children, got " +
                        std::to_string(profile.size()));
    }
    rev->profile_m = std::move(profile);
  }
  builder_.add_geometry(frame, id, std::move(shape), X_FG, located(file, el, "id"));
}

// file= is relative to the scene root; after resolving ".." and symlinks it must stay inside.
Part Loader::parse_part(const XmlFile& file, pugi::xml_node el, double scale) {
  const Attrs a(file, el, {"id", "file", "scale"});
  const string_view raw = a.str("file");
  if (util::trim(raw).empty()) a.fail("file", "empty mesh file name");
  const fs::path given(raw);
  const fs::path full = given.is_absolute() ? given : root_ / given;
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(full, ec);
  if (ec) a.fail("file", "cannot resolve mesh path " + in_quotes(raw) + ": " + ec.message());
  if (!is_inside(root_, resolved)) {
    a.fail("file", "mesh path " + in_quotes(raw) + " resolves to " + resolved.string() +
                       ", outside the scene root " + root_.string());
  }
  if (!fs::exists(resolved, ec)) a.fail("file", "mesh file not found: " + resolved.string());
  if (!fs::is_regular_file(resolved, ec)) {
    a.fail("file", "mesh path is not a regular file: " + resolved.string());
  }
  return Part{resolved, Eigen::Vector3d::Constant(scale), MeshFormat::stl};
}

void Loader::parse_assembly(const XmlFile& file, pugi::xml_node el, int frame) {
  const Attrs a(file, el, {"id", "refs"});
  const std::string id = a.name("id");
  Eigen::Isometry3d X_FA = Eigen::Isometry3d::Identity();
  for (pugi::xml_node c : elements(file, el)) {
    if (!apply_transform(file, c, X_FA)) unknown_element(file, c, el, "<translate>, <rotate>");
  }
  const std::vector<string_view> refs = split(a.str("refs"));
  if (refs.empty()) a.fail("refs", "empty 'refs': name at least one geometry or assembly id");
  builder_.add_assembly(frame, id, refs, X_FA, located(file, el, "id", "refs"));
}

void Loader::parse_render(const XmlFile& file, pugi::xml_node el, int frame) {
  const Attrs a(file, el, {"ref", "color", "opacity"});
  expect_no_children(file, el);
  RenderSpec r;
  r.ref = std::string(util::trim(a.str("ref")));
  XmlColor color = a.color("color");
  r.rgb = color.rgb;
  r.color_name = std::move(color.name);
  r.opacity = a.unit_interval("opacity", 1.0);
  r.where = located(file, el, "ref", "ref");
  builder_.add_render(frame, std::move(r));
}

void Loader::parse_probe(const XmlFile& file, pugi::xml_node el, int frame) {
  const Attrs a(file, el, {"name", "x", "y", "z"});
  expect_no_children(file, el);
  const std::string name = a.name("name");
  const Eigen::Vector3d p_FP_m(a.number("x", 0), a.number("y", 0), a.number("z", 0));
  builder_.add_probe(frame, name, p_FP_m, located(file, el, "name"));
}

}  // namespace cosim::scene::detail
