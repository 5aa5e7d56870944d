#include "loader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <numbers>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

namespace cosim::scene::detail {
namespace {

namespace fs = std::filesystem;
using std::string_view;

constexpr int kMaxDepth = 128;             // nested joints + instances, bounds our recursion
constexpr std::size_t kMaxFrames = 100000;  // bounds instance fan-out ("billion laughs")
constexpr std::size_t kMaxPlaced = 1000000;  // geometries placed by all assemblies + renders
constexpr std::size_t kMaxElements = 1000000;  // geometries + assemblies + renders + probes
constexpr int kMinResolution = 3;
constexpr int kMaxResolution = 1024;

std::string in_quotes(string_view s) { return "'" + std::string(s) + "'"; }
std::string tag(pugi::xml_node el) { return "<" + std::string(el.name()) + ">"; }

std::string location_text(const SourceLocation& where) {
  return where.file.string() + ":" + std::to_string(where.line);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

string_view trim(string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<string_view> split(string_view s) {
  std::vector<string_view> out;
  s = trim(s);
  while (!s.empty()) {
    std::size_t n = 0;
    while (n < s.size() && !is_space(s[n])) ++n;
    out.push_back(s.substr(0, n));
    s = trim(s.substr(n));
  }
  return out;
}

// Names become file names and scope prefixes: keep them to a portable, slash-free set.
bool valid_name(string_view s) {
  if (s.empty() || s.front() == '.') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
  });
}

// Strict decimal: the whole text is one finite number.
enum class NumberStatus { ok, syntax, range };
NumberStatus parse_double(string_view text, double& value) {
  string_view s = trim(text);
  if (s.size() > 1 && s.front() == '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return NumberStatus::syntax;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::range;
  if (ec != std::errc() || end != s.data() + s.size()) return NumberStatus::syntax;
  if (!std::isfinite(value)) return NumberStatus::syntax;  // "inf", "nan"
  return NumberStatus::ok;
}

// The attributes of one element: unknown and repeated names are rejected up front, so every
// attribute written is either used or reported.
class Attrs {
 public:
  Attrs(const XmlFile& file, pugi::xml_node el, std::initializer_list<string_view> allowed)
      : file_(file), el_(el) {
    for (pugi::xml_attribute a = el.first_attribute(); a; a = a.next_attribute()) {
      const string_view name = a.name();
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        std::string list;
        for (string_view ok : allowed) list += (list.empty() ? "" : ", ") + std::string(ok);
        file.fail(a, el,
                  "unknown attribute " + in_quotes(name) + " on " + tag(el) +
                      (list.empty() ? " (it takes none)" : " (allowed: " + list + ")"));
      }
      for (pugi::xml_attribute b = el.first_attribute(); b != a; b = b.next_attribute()) {
        if (name == b.name()) file.fail(a, el, "repeated attribute " + in_quotes(name));
      }
    }
  }

  bool has(string_view name) const { return attr(name); }
  pugi::xml_attribute attr(string_view name) const {
    return el_.attribute(std::string(name).c_str());
  }
  [[noreturn]] void fail(string_view name, const std::string& message) const {
    file_.fail(attr(name), el_, message);
  }

  string_view str(string_view name) const {
    const pugi::xml_attribute a = attr(name);
    if (!a) {
      file_.fail(el_, "missing required attribute " + in_quotes(name) + " on " + tag(el_));
    }
    return a.value();
  }
  std::optional<string_view> opt_str(string_view name) const {
    const pugi::xml_attribute a = attr(name);
    if (!a) return std::nullopt;
    return string_view(a.value());
  }

  // A name (joint, id, probe, instance, file).
  std::string name(string_view key) const {
    const string_view s = str(key);
    if (!valid_name(s)) {
      fail(key, "bad name " + in_quotes(s) + " in attribute " + in_quotes(key) +
                    ": use letters, digits, '_', '-', '.' (not first)");
    }
    return std::string(s);
  }

  double number(string_view key) const { return to_number(key, str(key)); }
  double number(string_view key, double fallback) const {
    const auto s = opt_str(key);
    return s ? to_number(key, *s) : fallback;
  }
  // Strictly positive length or factor.
  double positive(string_view key) const { return check_positive(key, number(key)); }
  double positive(string_view key, double fallback) const {
    return has(key) ? check_positive(key, number(key)) : fallback;
  }
  double unit_interval(string_view key, double fallback) const {
    const double v = number(key, fallback);
    if (v < 0 || v > 1) fail(key, bad_number(key, str(key), "must be in [0, 1]"));
    return v;
  }
  int resolution(int fallback) const {
    const auto s = opt_str("resolution");
    if (!s) return fallback;
    int v = 0;
    const string_view t = trim(*s);
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || t.empty()) {
      fail("resolution", bad_number("resolution", *s, "expected an integer"));
    }
    if (v < kMinResolution || v > kMaxResolution) {
      fail("resolution", bad_number("resolution", *s,
                                    "must be in [" + std::to_string(kMinResolution) + ", " +
                                        std::to_string(kMaxResolution) + "]"));
    }
    return v;
  }

  // deg= or rad= [rad out]; exactly one when required, at most one otherwise.
  std::optional<double> angle(bool required) const {
    const bool deg = has("deg"), rad = has("rad");
    if (deg && rad) fail("rad", "both deg and rad given on " + tag(el_) + "; use one");
    if (deg) return number("deg") * std::numbers::pi / 180.0;
    if (rad) return number("rad");
    if (required) file_.fail(el_, "missing required attribute 'deg' or 'rad' on " + tag(el_));
    return std::nullopt;
  }

  // "x" | "y" | "z" | "ax ay az" -> unit vector.
  Eigen::Vector3d axis(string_view key) const {
    const string_view s = trim(str(key));
    if (s == "x") return Eigen::Vector3d::UnitX();
    if (s == "y") return Eigen::Vector3d::UnitY();
    if (s == "z") return Eigen::Vector3d::UnitZ();
    const std::vector<string_view> parts = split(s);
    Eigen::Vector3d v;
    bool ok = parts.size() == 3;
    for (int i = 0; ok && i < 3; ++i) ok = parse_double(parts[i], v[i]) == NumberStatus::ok;
    if (!ok || !(v.norm() > 1e-12) || !std::isfinite(v.norm())) {
      fail(key, "bad axis " + in_quotes(str(key)) + ": expected x, y, z or three numbers, not all 0");
    }
    return v.normalized();
  }

  // 'x' | 'y' | 'z' for shapes (default when absent).
  char shape_axis(char fallback) const {
    const auto s = opt_str("axis");
    if (!s) return fallback;
    const string_view t = trim(*s);
    if (t != "x" && t != "y" && t != "z") {
      fail("axis", "bad axis " + in_quotes(*s) + " on " + tag(el_) + ": expected x, y or z");
    }
    return t.front();
  }

 private:
  static std::string bad_number(string_view key, string_view text, const std::string& why) {
    return "bad number " + in_quotes(text) + " in attribute " + in_quotes(key) + ": " + why;
  }
  double to_number(string_view key, string_view text) const {
    double v = 0;
    switch (parse_double(text, v)) {
      case NumberStatus::ok: return v;
      case NumberStatus::range: fail(key, bad_number(key, text, "out of range"));
      case NumberStatus::syntax: break;
    }
    fail(key, bad_number(key, text, "expected a finite decimal number"));
  }
  double check_positive(string_view key, double v) const {
    if (!(v > 0)) fail(key, bad_number(key, str(key), "must be > 0"));
    return v;
  }

  const XmlFile& file_;
  pugi::xml_node el_;
};

// The element children of `el`, in order; text inside scene elements is an error.
std::vector<pugi::xml_node> elements(const XmlFile& file, pugi::xml_node el) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c : el.children()) {
    if (c.type() == pugi::node_element) {
      out.push_back(c);
    } else {
      file.fail(c, "unexpected text inside " + tag(el));
    }
  }
  return out;
}

[[noreturn]] void unknown_element(const XmlFile& file, pugi::xml_node child,
                                  pugi::xml_node parent, string_view expected) {
  file.fail(child, "unknown element " + tag(child) + " in " + tag(parent) + " (expected " +
                       std::string(expected) + ")");
}

void expect_no_children(const XmlFile& file, pugi::xml_node el) {
  for (pugi::xml_node c : elements(file, el)) unknown_element(file, c, el, "no children");
}

// <translate> or <rotate>: right-multiplies X and returns true; false for other elements.
bool apply_transform(const XmlFile& file, pugi::xml_node el, Eigen::Isometry3d& X) {
  const string_view name = el.name();
  if (name == "translate") {
    const Attrs a(file, el, {"x", "y", "z"});
    expect_no_children(file, el);
    X.translate(Eigen::Vector3d(a.number("x", 0), a.number("y", 0), a.number("z", 0)));
    return true;
  }
  if (name == "rotate") {
    const Attrs a(file, el, {"axis", "deg", "rad"});
    expect_no_children(file, el);
    const Eigen::Vector3d axis = a.axis("axis");
    X.rotate(Eigen::AngleAxisd(*a.angle(true), axis));
    return true;
  }
  return false;
}

// An element holding only a translate/rotate list (<pre>, <post>, <base>).
Eigen::Isometry3d transform_list(const XmlFile& file, pugi::xml_node el) {
  const Attrs a(file, el, {});
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (pugi::xml_node c : elements(file, el)) {
    if (!apply_transform(file, c, X)) unknown_element(file, c, el, "<translate>, <rotate>");
  }
  return X;
}

bool inside(const fs::path& root, const fs::path& p) {
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end() && q != p.end();
}

}  // namespace

SceneModel Loader::load(const fs::path& given) {
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
  return std::move(loader.model_);
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
  model_.name_ = a.name("name");
  if (model_.name_ != path.stem().string()) {
    a.fail("name", "project name " + in_quotes(model_.name_) + " does not match its file name " +
                       in_quotes(path.filename().string()));
  }
  model_.root_ = root_;

  for (pugi::xml_node c : elements(file, root)) {
    const string_view name = c.name();
    if (name == "robot") {
      instantiate(file, c, Kind::robot, -1, "", -1, 0);
    } else if (name == "object") {
      instantiate(file, c, Kind::object, -1, "", -1, 0);
    } else if (name == "tool") {
      instantiate(file, c, Kind::tool, -1, "", -1, 0);
    } else {
      unknown_element(file, c, root, "<robot>, <object>, <tool>");
    }
  }
  for (int i : top_instances_) order_joints(i);
}

// <robot|object|tool name [file]> [<base>]: loads <folder>/<file or name>.xml as a new
// instance whose root frame hangs from parent_frame.
void Loader::instantiate(const XmlFile& file, pugi::xml_node el, Kind kind, int parent_frame,
                         const std::string& parent_path, int parent_instance, int depth) {
  static constexpr const char* kElement[] = {"robot", "object", "tool"};
  static constexpr const char* kFolder[] = {"robots", "objects", "tools"};
  const char* element = kElement[static_cast<int>(kind)];
  const char* folder = kFolder[static_cast<int>(kind)];

  if (depth > kMaxDepth) file.fail(el, "nesting deeper than " + std::to_string(kMaxDepth));
  const Attrs a(file, el, {"name", "file"});
  const std::string name = a.name("name");
  const std::string stem = a.has("file") ? a.name("file") : name;

  Frame root_frame;
  root_frame.name = parent_path.empty() ? name : parent_path + "/" + name;
  root_frame.parent = parent_frame;
  root_frame.where = file.at(el);
  bool have_base = false;
  for (pugi::xml_node c : elements(file, el)) {
    if (string_view(c.name()) != "base") unknown_element(file, c, el, "<base>");
    if (have_base) file.fail(c, "more than one <base> in " + tag(el));
    have_base = true;
    root_frame.X_PJ = transform_list(file, c);
  }

  const fs::path path = root_ / folder / (stem + ".xml");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    file.fail(a.attr(a.has("file") ? "file" : "name"), el,
              std::string(element) + " file not found: " + path.string());
  }
  const fs::path canonical = fs::canonical(path, ec);
  if (ec) file.fail(el, "cannot resolve " + path.string() + ": " + ec.message());
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

  const int frame = add_frame(file, el, std::move(root_frame), "instance");
  const int instance = static_cast<int>(instances_.size());
  instances_.emplace_back();
  if (parent_instance < 0) {
    top_instances_.push_back(instance);
  } else {
    instances_[parent_instance].children.push_back(instance);
  }

  Scope scope{&inner, model_.frames_[frame].name, instance, {}};
  stack_.push_back(canonical);
  parse_body(scope, root, frame, depth + 1);
  stack_.pop_back();
}

// Children of an instance root or of a joint (after its <link>): what hangs on `frame`.
void Loader::parse_body(Scope& scope, pugi::xml_node el, int frame, int depth) {
  const XmlFile& file = *scope.file;
  const bool is_joint = string_view(el.name()) == "joint";
  bool first = true;
  for (pugi::xml_node c : elements(file, el)) {
    const string_view name = c.name();
    const bool skip_link = is_joint && first;  // the joint's <link>, parsed by parse_joint
    first = false;
    if (skip_link) continue;
    if (name == "joint") {
      parse_joint(scope, c, frame, depth + 1);
    } else if (name == "cuboid" || name == "cylinder" || name == "cone" || name == "sphere" ||
               name == "revolution" || name == "part") {
      parse_geometry(scope, c, frame);
    } else if (name == "assembly") {
      parse_assembly(scope, c, frame);
    } else if (name == "render") {
      parse_render(scope, c, frame);
    } else if (name == "probe") {
      parse_probe(scope, c, frame);
    } else if (name == "object") {
      instantiate(file, c, Kind::object, frame, scope.path, scope.instance, depth + 1);
    } else if (name == "tool") {
      instantiate(file, c, Kind::tool, frame, scope.path, scope.instance, depth + 1);
    } else if (name == "link") {
      file.fail(c, "<link> must be the first child of a <joint>");
    } else {
      unknown_element(file, c, el,
                      "<joint>, <cuboid>, <cylinder>, <cone>, <sphere>, <revolution>, <part>, "
                      "<assembly>, <render>, <probe>, <object>, <tool>");
    }
  }
}

void Loader::parse_joint(Scope& scope, pugi::xml_node el, int parent_frame, int depth) {
  const XmlFile& file = *scope.file;
  if (depth > kMaxDepth) file.fail(el, "nesting deeper than " + std::to_string(kMaxDepth));
  const Attrs a(file, el, {"name"});
  Frame frame;
  frame.name = scope.path + "/" + a.name("name");
  frame.parent = parent_frame;
  frame.where = file.at(el);

  const pugi::xml_node link = el.find_child([](pugi::xml_node n) {
    return n.type() == pugi::node_element;
  });
  if (!link || string_view(link.name()) != "link") {
    file.fail(link ? link : el, "the first child of <joint> must be <link>");
  }
  bool driven = false;
  parse_link(file, link, frame, driven);

  const int index = add_frame(file, el, std::move(frame), "joint");
  if (driven) instances_[scope.instance].joint_frames.push_back(index);
  parse_body(scope, el, index, depth);
}

// <link>: [<pre>] <drive> [<post>], in this order.
void Loader::parse_link(const XmlFile& file, pugi::xml_node link, Frame& frame, bool& driven) {
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
    if (my_stage == 1) frame.X_PJ = transform_list(file, c);
    if (my_stage == 2) parse_drive(file, c, frame, driven);
    if (my_stage == 3) frame.X_DC = transform_list(file, c);
  }
  if (stage < 2) file.fail(link, "missing <drive> in <link>");
}

void Loader::parse_drive(const XmlFile& file, pugi::xml_node el, Frame& frame, bool& driven) {
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
    frame.drive = DriveType::fixed;
    driven = false;
    return;
  }
  if (type == "revolute") {
    reject("offset", ": give the angle offset with deg= or rad=");
    frame.drive = DriveType::revolute;
    frame.offset = a.angle(false).value_or(0.0);
  } else if (type == "prismatic") {
    reject("deg", ": give the offset in metres with offset=");
    reject("rad", ": give the offset in metres with offset=");
    frame.drive = DriveType::prismatic;
    frame.offset = a.number("offset", 0.0);
  } else {
    a.fail("type", "bad drive type " + in_quotes(type) + ": expected revolute, prismatic or fixed");
  }
  frame.axis_J = a.axis("axis");
  const string_view d = a.opt_str("driven").value_or("true");
  if (d != "true" && d != "false") {
    a.fail("driven", "bad value " + in_quotes(d) + " for 'driven': expected true or false");
  }
  driven = d == "true";
}

void Loader::parse_geometry(Scope& scope, pugi::xml_node el, int frame) {
  const XmlFile& file = *scope.file;
  count_element(file, el);
  const string_view kind = el.name();
  Geometry g;
  g.frame = frame;
  g.where = file.at(el);
  std::string id;
  std::vector<Eigen::Vector2d> profile;

  if (kind == "cuboid") {
    const Attrs a(file, el, {"id", "lx", "ly", "lz"});
    id = a.name("id");
    g.shape = Cuboid{a.positive("lx"), a.positive("ly"), a.positive("lz")};
  } else if (kind == "cylinder" || kind == "cone") {
    const Attrs a(file, el, {"id", "radius", "height", "axis", "resolution"});
    id = a.name("id");
    const double r = a.positive("radius"), h = a.positive("height");
    const char axis = a.shape_axis('z');
    const int res = a.resolution(32);
    if (kind == "cylinder") {
      g.shape = Cylinder{r, h, axis, res};
    } else {
      g.shape = Cone{r, h, axis, res};
    }
  } else if (kind == "sphere") {
    const Attrs a(file, el, {"id", "radius", "resolution"});
    id = a.name("id");
    g.shape = Sphere{a.positive("radius"), a.resolution(24)};
  } else if (kind == "revolution") {
    const Attrs a(file, el, {"id", "axis", "resolution"});
    id = a.name("id");
    if (!a.has("axis")) a.str("axis");  // required here: throws "missing required attribute"
    g.shape = Revolution{{}, a.shape_axis('z'), a.resolution(32)};
  } else {  // part
    const Attrs a(file, el, {"id", "file", "scale"});
    id = a.name("id");
    g.shape = parse_part(file, el, a.positive("scale", 1.0));
  }

  // Placement (and, for a revolution, its profile points).
  for (pugi::xml_node c : elements(file, el)) {
    if (apply_transform(file, c, g.X_FG)) continue;
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
  if (auto* rev = std::get_if<Revolution>(&g.shape)) {
    if (profile.size() < 2) {
      file.fail(el, "<revolution> needs at least 2 <point> children, got " +
                        std::to_string(profile.size()));
    }
    rev->profile_m = std::move(profile);
  }

  g.id = scope.path + "/" + id;
  const int index = static_cast<int>(model_.geometries_.size());
  add_id(scope, el, id, RefKind::geometry, index);
  model_.geometries_.push_back(std::move(g));
}

// file= is relative to the scene root; after resolving ".." and symlinks it must stay inside.
Part Loader::parse_part(const XmlFile& file, pugi::xml_node el, double scale) {
  const Attrs a(file, el, {"id", "file", "scale"});
  const string_view raw = a.str("file");
  if (trim(raw).empty()) a.fail("file", "empty mesh file name");
  const fs::path given(raw);
  const fs::path full = given.is_absolute() ? given : root_ / given;
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(full, ec);
  if (ec) a.fail("file", "cannot resolve mesh path " + in_quotes(raw) + ": " + ec.message());
  if (!inside(root_, resolved)) {
    a.fail("file", "mesh path " + in_quotes(raw) + " resolves to " + resolved.string() +
                       ", outside the scene root " + root_.string());
  }
  if (!fs::exists(resolved, ec)) a.fail("file", "mesh file not found: " + resolved.string());
  if (!fs::is_regular_file(resolved, ec)) {
    a.fail("file", "mesh path is not a regular file: " + resolved.string());
  }
  return Part{resolved, scale};
}

void Loader::parse_assembly(Scope& scope, pugi::xml_node el, int frame) {
  const XmlFile& file = *scope.file;
  count_element(file, el);
  const Attrs a(file, el, {"id", "refs"});
  Assembly asm_;
  const std::string id = a.name("id");
  asm_.id = scope.path + "/" + id;
  asm_.frame = frame;
  asm_.where = file.at(el);
  for (pugi::xml_node c : elements(file, el)) {
    if (!apply_transform(file, c, asm_.X_FA)) {
      unknown_element(file, c, el, "<translate>, <rotate>");
    }
  }

  const std::vector<string_view> refs = split(a.str("refs"));
  if (refs.empty()) a.fail("refs", "empty 'refs': name at least one geometry or assembly id");
  for (string_view ref : refs) {
    const auto it = scope.ids.find(ref);
    if (it == scope.ids.end()) {
      a.fail("refs", "unresolved ref " + in_quotes(ref) + " in instance " + in_quotes(scope.path) +
                         " (refs name a geometry or assembly defined earlier in the same "
                         "instance)");
    }
    asm_.refs.push_back(scope.path + "/" + std::string(ref));
    // Assemblies of assemblies can double at each level: bound the flattened size.
    const std::size_t adding = it->second.kind == RefKind::geometry
                                   ? 1
                                   : model_.assemblies_[it->second.index].parts.size();
    if (placed_ + asm_.parts.size() + adding > kMaxPlaced) {
      file.fail(el, "assemblies place more than " + std::to_string(kMaxPlaced) +
                        " geometries in total");
    }
    if (it->second.kind == RefKind::geometry) {
      const Geometry& g = model_.geometries_[it->second.index];
      asm_.parts.push_back({it->second.index, asm_.X_FA * g.X_FG});
    } else {
      for (const PlacedGeometry& p : model_.assemblies_[it->second.index].parts) {
        asm_.parts.push_back({p.geometry, asm_.X_FA * p.X_FG});
      }
    }
  }

  placed_ += asm_.parts.size();
  const int index = static_cast<int>(model_.assemblies_.size());
  add_id(scope, el, id, RefKind::assembly, index);
  model_.assemblies_.push_back(std::move(asm_));
}

void Loader::parse_render(Scope& scope, pugi::xml_node el, int frame) {
  const XmlFile& file = *scope.file;
  count_element(file, el);
  const Attrs a(file, el, {"ref", "color", "opacity"});
  expect_no_children(file, el);
  Render r;
  r.frame = frame;
  r.where = file.at(el);

  const string_view ref = trim(a.str("ref"));
  const auto it = scope.ids.find(ref);
  if (it == scope.ids.end()) {
    a.fail("ref", "unresolved ref " + in_quotes(ref) + " in instance " + in_quotes(scope.path) +
                      " (a render names a geometry or assembly defined earlier in the same "
                      "instance)");
  }
  r.ref = scope.path + "/" + std::string(ref);
  r.ref_kind = it->second.kind;
  r.ref_index = it->second.index;
  if (r.ref_kind == RefKind::geometry) {
    r.parts.push_back({r.ref_index, model_.geometries_[r.ref_index].X_FG});
  } else {
    const std::vector<PlacedGeometry>& parts = model_.assemblies_[r.ref_index].parts;
    if (placed_ + parts.size() > kMaxPlaced) {
      file.fail(el, "renders place more than " + std::to_string(kMaxPlaced) +
                        " geometries in total");
    }
    r.parts = parts;
  }
  placed_ += r.parts.size();

  // color="name" (CSS, any case) or color="r g b" in [0, 1].
  const string_view color = trim(a.str("color"));
  const std::vector<string_view> parts = split(color);
  if (parts.size() == 3) {
    double c[3];
    for (int i = 0; i < 3; ++i) {
      if (parse_double(parts[i], c[i]) != NumberStatus::ok || c[i] < 0 || c[i] > 1) {
        a.fail("color", "bad colour " + in_quotes(color) + ": each of r g b must be a number in "
                                                        "[0, 1]");
      }
    }
    r.rgb = {c[0], c[1], c[2]};
  } else {
    std::string lower(color);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const std::optional<Color> named = parts.size() == 1 ? css_color(lower) : std::nullopt;
    if (!named) {
      a.fail("color", "unknown colour name " + in_quotes(color) +
                          ": use a CSS colour name (e.g. steelblue) or \"r g b\" in [0, 1]");
    }
    r.rgb = *named;
    r.color_name = std::move(lower);
  }
  r.opacity = a.unit_interval("opacity", 1.0);
  model_.renders_.push_back(std::move(r));
}

void Loader::parse_probe(Scope& scope, pugi::xml_node el, int frame) {
  const XmlFile& file = *scope.file;
  count_element(file, el);
  const Attrs a(file, el, {"name", "x", "y", "z"});
  expect_no_children(file, el);
  Probe p;
  p.name = scope.path + "/" + a.name("name");
  p.frame = frame;
  p.p_FP_m = {a.number("x", 0), a.number("y", 0), a.number("z", 0)};
  p.where = file.at(el);
  const int index = static_cast<int>(model_.probes_.size());
  const auto [it, inserted] = model_.probe_index_.try_emplace(p.name, index);
  if (!inserted) {
    a.fail("name", "duplicate probe name " + in_quotes(p.name) + " (first at " +
                       location_text(model_.probes_[it->second].where) + ")");
  }
  model_.probes_.push_back(std::move(p));
}

// Instances multiply what their files hold: bound the total.
void Loader::count_element(const XmlFile& file, pugi::xml_node el) {
  if (++elements_ > kMaxElements) {
    file.fail(el, "more than " + std::to_string(kMaxElements) +
                      " geometry, assembly, render and probe elements in the scene");
  }
}

int Loader::add_frame(const XmlFile& file, pugi::xml_node el, Frame frame, const char* what) {
  if (model_.frames_.size() >= kMaxFrames) {
    file.fail(el, "more than " + std::to_string(kMaxFrames) + " frames in the scene");
  }
  const int index = static_cast<int>(model_.frames_.size());
  const auto [it, inserted] = model_.frame_index_.try_emplace(frame.name, index);
  if (!inserted) {
    file.fail(el.attribute("name"), el,
              std::string("duplicate ") + what + " name " + in_quotes(frame.name) + " (first at " +
                  location_text(model_.frames_[it->second].where) + ")");
  }
  model_.frames_.push_back(std::move(frame));
  return index;
}

void Loader::add_id(Scope& scope, pugi::xml_node el, string_view id, RefKind kind, int index) {
  const auto [it, inserted] = scope.ids.try_emplace(std::string(id), IdEntry{kind, index});
  if (!inserted) {
    const SourceLocation& first = it->second.kind == RefKind::geometry
                                      ? model_.geometries_[it->second.index].where
                                      : model_.assemblies_[it->second.index].where;
    scope.file->fail(el.attribute("id"), el,
                     "duplicate id " + in_quotes(id) + " in instance " + in_quotes(scope.path) +
                         " (first at " + location_text(first) + ")");
  }
}

// Joint order: an instance's own joints in document order, then its child instances.
void Loader::order_joints(int instance) {
  for (int f : instances_[instance].joint_frames) {
    Frame& frame = model_.frames_[f];
    frame.joint_index = static_cast<int>(model_.joint_names_.size());
    model_.joint_index_.emplace(frame.name, frame.joint_index);
    model_.joint_names_.push_back(frame.name);
    model_.joint_frames_.push_back(f);
  }
  for (int child : instances_[instance].children) order_joints(child);
}

}  // namespace cosim::scene::detail
