// The URDF scene reader (docs/scenes.md "URDF scenes"): urdfdom parses the robot; pugixml
// (XmlFile) finds the line of every link, joint and material, which urdfdom does not report;
// SceneBuilder checks what comes out. Internal to cosim::scene, built only with urdfdom.
//
// Both parsers must read the same links and joints by the same names: urdfdom's names are
// looked up among pugixml's elements. Their XML parsers differ (urdfdom 3 uses TinyXML, which
// drops the '&' of an unknown entity, decodes character references by its own rules and ends
// a processing instruction or <!DOCTYPE> at its first '>'), so the reader refuses what they
// could read differently: names and link references written other than as plain scene names,
// processing instructions and <!DOCTYPE>.

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include "cosim/scene/scene_builder.hpp"
#include "cosim/util/package_path.hpp"
#include "cosim/util/text.hpp"
#include "path_util.hpp"
#include "readers.hpp"
#include "xml_attributes.hpp"
#include "xml_file.hpp"

namespace cosim::scene::detail {
namespace {

namespace fs = std::filesystem;
using std::string_view;

// A visual without a colour of its own.
constexpr const char* kDefaultColor = "gray";

constexpr std::array<string_view, 6> kJointTypes{"fixed",     "revolute", "continuous",
                                                 "prismatic", "planar",   "floating"};

struct MeshExtension {
  string_view extension;  // lower case, with the dot
  MeshFormat format;
};
constexpr std::array<MeshExtension, 4> kMeshExtensions{{{".stl", MeshFormat::stl},
                                                        {".obj", MeshFormat::obj},
                                                        {".ply", MeshFormat::ply},
                                                        {".dae", MeshFormat::dae}}};

// A regular file named *.urdf, in any case.
bool accepts_urdf(const fs::path& path) {
  std::error_code ec;
  return lower_case(path.extension().string()) == ".urdf" && fs::is_regular_file(path, ec);
}

std::string place(const SourceLocation& where) {
  return where.file.string() + ":" + std::to_string(where.line);
}

Eigen::Isometry3d pose_of(const urdf::Pose& pose) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(pose.position.x, pose.position.y, pose.position.z);
  // urdfdom turned rpy into this quaternion: R = Rz(yaw) Ry(pitch) Rx(roll).
  X.linear() = Eigen::Quaterniond(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z)
                   .toRotationMatrix();
  return X;
}

// Two unit axes spanning the plane normal to the unit vector n, with (u, v, n) right-handed:
// u is the coordinate axis after n's largest component (z -> x, x -> y, y -> z) projected
// onto the plane, so that n = z gives u = x, v = y.
std::pair<Eigen::Vector3d, Eigen::Vector3d> plane_axes(const Eigen::Vector3d& n) {
  Eigen::Index largest = 0;
  n.cwiseAbs().maxCoeff(&largest);
  const Eigen::Vector3d e = Eigen::Vector3d::Unit((largest + 1) % 3);
  const Eigen::Vector3d u = (e - e.dot(n) * n).normalized();
  return {u, n.cross(u)};
}

// Gathers urdfdom's console_bridge messages while alive instead of letting them reach stderr.
// console_bridge has one handler per process: the reader holds urdfdom_mutex() meanwhile.
class UrdfdomErrors final : public console_bridge::OutputHandler {
 public:
  UrdfdomErrors() { console_bridge::useOutputHandler(this); }
  ~UrdfdomErrors() override { console_bridge::restorePreviousOutputHandler(); }
  UrdfdomErrors(const UrdfdomErrors&) = delete;
  UrdfdomErrors& operator=(const UrdfdomErrors&) = delete;

  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

std::mutex& urdfdom_mutex() {
  static std::mutex mutex;
  return mutex;
}

// One URDF file read into a SceneModel.
class UrdfReader {
 public:
  UrdfReader(fs::path file, const LoadOptions& options);
  SceneModel read() &&;

 private:
  using ElementMap = std::map<std::string, pugi::xml_node, std::less<>>;

  static util::PackagePath package_path(std::span<const fs::path> given);
  void refuse_markup_read_differently() const;
  void index_elements();
  string_view written(pugi::xml_node el, pugi::xml_attribute attr) const;
  void check_name(pugi::xml_node el, const char* what) const;
  void add_named(ElementMap& map, pugi::xml_node el, const char* what, bool scene_name);
  void check_joint(pugi::xml_node el, ElementMap& parent_joint);
  void refuse_cycles(pugi::xml_node robot, const ElementMap& parent_joint) const;
  urdf::ModelInterfaceSharedPtr parse_model() const;
  [[noreturn]] void fail_urdfdom(const std::vector<std::string>& errors) const;
  void check_same_elements(const urdf::ModelInterface& model) const;
  void add_tree(const urdf::ModelInterface& model);
  int add_link(const urdf::Link& link, int frame);
  int add_joint(const urdf::Joint& joint, int parent_frame);
  // One axis of a planar or floating joint.
  struct Axis {
    const char* name;
    DriveType drive;
    Eigen::Vector3d axis_J;
  };
  int add_axes(int parent_frame, const JointSpec& joint, std::span<const Axis> axes);
  Eigen::Vector3d unit_axis(const urdf::Joint& joint) const;
  void add_visuals(const urdf::Link& link, int frame);
  Shape shape_of(const urdf::Geometry& geometry, pugi::xml_node visual, const std::string& link) const;
  fs::path resolve_mesh(const std::string& uri, pugi::xml_node el, const std::string& link) const;
  RenderSpec color_of(pugi::xml_node visual, const std::string& link) const;
  void add_side_probes();

  [[noreturn]] void fail(pugi::xml_node el, const std::string& what, const std::string& message) const {
    throw SceneError(xml_.at(el), what + ": " + message);
  }
  ElementLocation located(pugi::xml_node el) const {
    return {xml_.at(el), xml_.at(el.attribute("name"), el)};
  }

  fs::path file_;    // canonical
  fs::path folder_;  // the URDF's folder: the scene root
  std::string text_;                // what urdfdom parses
  XmlFile xml_;                     // the same text, for lines
  util::PackagePath packages_;      // where package:// meshes are
  std::string robot_;
  ElementMap links_, joints_, materials_;
  std::map<std::string, int, std::less<>> joint_position_;  // document order of the joints
  std::map<std::string, int, std::less<>> link_frames_;     // frame of each link added
  SceneBuilder builder_;
};

UrdfReader::UrdfReader(fs::path file, const LoadOptions& options)
    : file_(std::move(file)),
      folder_(file_.parent_path()),
      text_(read_scene_file(file_)),
      xml_(file_, text_),
      packages_(package_path(options.package_path)) {
  builder_.set_root(folder_);
  for (const fs::path& folder : packages_.folders()) builder_.add_mesh_folder(folder);  // meshes may lie in them too
}

// The folders given (each must exist), then those of $COSIM_PACKAGE_PATH.
util::PackagePath UrdfReader::package_path(std::span<const fs::path> given) {
  try {
    return util::PackagePath(given);
  } catch (const util::PackagePathError& e) {
    throw SceneError({e.folder(), 0}, e.message());
  }
}

SceneModel UrdfReader::read() && {
  refuse_markup_read_differently();
  index_elements();
  const urdf::ModelInterfaceSharedPtr model = parse_model();
  check_same_elements(*model);
  builder_.set_name(robot_);
  add_tree(*model);
  add_side_probes();
  return std::move(builder_).build();
}

// TinyXML ends a processing instruction and a <!DOCTYPE> at their first '>', pugixml at their
// real end: what lies between is markup to one parser and skipped by the other (a <link>
// urdfdom reads and pugixml does not). Neither belongs in a URDF: only the XML declaration is
// allowed, without '>' in its values. XmlFile's parse skips all three; a second one keeps them.
void UrdfReader::refuse_markup_read_differently() const {
  const auto where = [&](std::ptrdiff_t offset) {
    const auto end = text_.begin() + std::clamp<std::ptrdiff_t>(offset, 0, std::ssize(text_));
    return SourceLocation{file_, 1 + static_cast<int>(std::count(text_.begin(), end, '\n'))};
  };
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text_.data(), text_.size(),
                      pugi::parse_default | pugi::parse_pi | pugi::parse_declaration | pugi::parse_doctype,
                      pugi::encoding_utf8);
  // XmlFile parsed the rest: only a declaration below the top level or a malformed processing
  // instruction (parsed rather than skipped now) fails here.
  if (!parsed) throw SceneError(where(parsed.offset), std::string("malformed XML: ") + parsed.description());

  struct Walker final : pugi::xml_tree_walker {
    pugi::xml_node found;
    bool for_each(pugi::xml_node& node) override {
      bool bad = node.type() == pugi::node_pi || node.type() == pugi::node_doctype;
      if (node.type() == pugi::node_declaration) {
        for (const pugi::xml_attribute a : node.attributes()) {
          bad = bad || string_view(a.value()).find('>') != string_view::npos;
        }
      }
      if (bad) found = node;
      return !bad;
    }
  } walker;
  doc.traverse(walker);
  if (walker.found.type() == pugi::node_doctype) {
    throw SceneError(where(walker.found.offset_debug()), "<!DOCTYPE> is not read in a URDF");
  }
  if (walker.found.type() == pugi::node_pi) {
    throw SceneError(where(walker.found.offset_debug()),
                     "processing instruction <?" + std::string(walker.found.name()) +
                         " ...?> is not read in a URDF (only the XML declaration <?xml ...?>)");
  }
  if (walker.found) {
    throw SceneError(where(walker.found.offset_debug()), "'>' inside the XML declaration");
  }
}

// An attribute's value as written, before pugixml replaced references and white space:
// XmlFile parsed its copy of text_ in place, so the value starts at the same offset in text_,
// right after its opening quote.
string_view UrdfReader::written(pugi::xml_node el, pugi::xml_attribute attr) const {
  if (!attr) return {};
  const std::ptrdiff_t element = el.offset_debug();  // offset of el.name()
  const auto address = [](const char* p) { return static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(p)); };
  const std::ptrdiff_t at = element + (address(attr.value()) - address(el.name()));
  if (element < 0 || at < 1 || at > std::ssize(text_) || (text_[at - 1] != '"' && text_[at - 1] != '\'')) {
    return attr.value();
  }
  const std::size_t end = std::min(text_.find(text_[at - 1], static_cast<std::size_t>(at)), text_.size());
  return string_view(text_).substr(static_cast<std::size_t>(at), end - static_cast<std::size_t>(at));
}

// The robot's, a link's or a joint's name becomes a scene name (docs/scenes.md "Names and
// scopes"), written as is: plain name characters read alike in TinyXML and pugixml.
void UrdfReader::check_name(pugi::xml_node el, const char* what) const {
  const pugi::xml_attribute name = el.attribute("name");
  const string_view as_written = written(el, name);
  if (!valid_name(as_written)) {
    xml_.fail(name, el, std::string("bad ") + what + " name " + in_quotes(as_written) +
                            ": use letters, digits, '_', '-', '.' (not first), written as is (no entity or "
                            "character references)");
  }
}

// Every link, joint and top-level material by name, with the checks whose urdfdom messages
// would carry no line. Other elements (<transmission>, <gazebo>, ...) are for other tools.
void UrdfReader::index_elements() {
  const pugi::xml_node robot = xml_.root();
  if (string_view(robot.name()) != "robot") {
    xml_.fail(robot, "root element must be <robot>, not " + tag(robot));
  }
  const pugi::xml_attribute name = robot.attribute("name");
  if (!name || util::trim(name.value()).empty()) {
    xml_.fail(robot, "missing required attribute 'name' on <robot>");
  }
  check_name(robot, "robot");
  robot_ = name.value();
  for (pugi::xml_node el : robot.children()) {
    const string_view kind = el.name();
    if (kind == "link") add_named(links_, el, "link", true);
    if (kind == "joint") add_named(joints_, el, "joint", true);
    if (kind == "material") add_named(materials_, el, "material", false);
  }
  if (links_.empty()) xml_.fail(robot, "robot " + in_quotes(robot_) + " has no <link>");
  // Every <visual> becomes a rendered geometry: the scene's limit, before urdfdom reads them.
  std::size_t visuals = 0;
  for (const auto& [name, link] : links_) {
    for (pugi::xml_node visual : link.children("visual")) {
      if (++visuals > kMaxPlacedGeometries) {
        xml_.fail(visual, "more than " + std::to_string(kMaxPlacedGeometries) + " <visual> elements in the robot");
      }
    }
  }
  ElementMap parent_joint;  // child link -> its joint
  for (pugi::xml_node el : robot.children("joint")) {
    joint_position_.emplace(el.attribute("name").value(), static_cast<int>(joint_position_.size()));
    check_joint(el, parent_joint);
  }
  refuse_cycles(robot, parent_joint);
}

// Here rather than after urdfdom: urdfdom links a cycle's links to each other by shared_ptr,
// so a model read from such a file is never freed.
void UrdfReader::refuse_cycles(pugi::xml_node robot, const ElementMap& parent_joint) const {
  const auto parent_of = [&](const std::string& link) -> const char* {
    const auto it = parent_joint.find(link);
    return it == parent_joint.end() ? nullptr : it->second.child("parent").attribute("link").value();
  };
  std::string root;
  for (pugi::xml_node el : robot.children("link")) {
    if (parent_of(el.attribute("name").value()) == nullptr) {
      root = el.attribute("name").value();
      break;
    }
  }
  // Each link's way up is walked once (linear in the links: a 20 000-link chain took 30 s
  // when every link walked its whole chain): a link met again on the same walk is a cycle.
  enum class Way : std::uint8_t { kUnknown, kOnThisWalk, kReachesTheTop };
  std::map<std::string, Way, std::less<>> way;
  std::vector<std::string> walk;
  for (pugi::xml_node el : robot.children("link")) {
    walk.clear();
    bool cycle = false;
    for (const char* at = el.attribute("name").value(); at != nullptr; at = parent_of(at)) {
      Way& here = way[at];
      if (here == Way::kReachesTheTop) break;
      if (here == Way::kOnThisWalk) {
        cycle = true;
        break;
      }
      here = Way::kOnThisWalk;
      walk.emplace_back(at);
    }
    for (const std::string& link : walk) way[link] = Way::kReachesTheTop;
    if (cycle) {
      fail(el, "link " + in_quotes(el.attribute("name").value()),
           (root.empty() ? std::string("no link is the root") : "not connected to the root link " + in_quotes(root)) +
               " (its joints form a cycle)");
    }
  }
}

// Links and joints have scene names (check_name); materials any name: only pugixml's reading
// of those is used.
void UrdfReader::add_named(ElementMap& map, pugi::xml_node el, const char* what, bool scene_name) {
  const pugi::xml_attribute name = el.attribute("name");
  if (!name) xml_.fail(el, std::string("missing required attribute 'name' on <") + what + ">");
  if (scene_name) check_name(el, what);
  const auto [it, added] = map.try_emplace(name.value(), el);
  if (!added) {
    xml_.fail(name, el, std::string("duplicate ") + what + " " + in_quotes(name.value()) +
                            " (first at " + place(xml_.at(it->second)) + ")");
  }
}

// Type, parent and child: known, present, and every link the child of at most one joint.
void UrdfReader::check_joint(pugi::xml_node el, ElementMap& parent_joint) {
  const std::string what = "joint " + in_quotes(el.attribute("name").value());
  const pugi::xml_attribute type = el.attribute("type");
  if (!type) fail(el, what, "missing required attribute 'type'");
  if (std::find(kJointTypes.begin(), kJointTypes.end(), type.value()) == kJointTypes.end()) {
    throw SceneError(xml_.at(type, el),
                     what + ": unknown type " + in_quotes(type.value()) +
                         " (expected fixed, revolute, continuous, prismatic, planar or floating)");
  }
  for (const char* role : {"parent", "child"}) {
    const pugi::xml_node ref = el.child(role);
    const pugi::xml_attribute link = ref.attribute("link");
    if (!link) fail(ref ? ref : el, what, std::string("missing <") + role + " link=\"...\">");
    // Looked up as written: link names are plain (check_name), so a reference found is plain too
    // and TinyXML reads it the same.
    const string_view as_written = written(ref, link);
    if (links_.find(as_written) == links_.end()) {
      fail(ref, what, std::string(role) + " link " + in_quotes(as_written) + " is not a link of robot " +
                          in_quotes(robot_) +
                          (as_written == link.value() ? "" : " (link names are written as is, without references)"));
    }
  }
  const pugi::xml_node child = el.child("child");
  const auto [it, first] = parent_joint.try_emplace(child.attribute("link").value(), el);
  if (!first) {
    fail(child, what, "link " + in_quotes(it->first) + " is already the child of joint " +
                          in_quotes(it->second.attribute("name").value()) + " (at " +
                          place(xml_.at(it->second)) + ")");
  }
}

urdf::ModelInterfaceSharedPtr UrdfReader::parse_model() const {
  const std::lock_guard<std::mutex> lock(urdfdom_mutex());
  UrdfdomErrors messages;
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(text_);
  } catch (const std::exception& e) {  // urdfdom reports by log and null, but may let one through
    messages.errors.emplace_back(e.what());
  }
  if (!model) fail_urdfdom(messages.errors);
  return model;
}

// What urdfdom refused, at the first link or joint its messages name ("Joint [j] ...",
// "link 'l' ..."), else at the <robot>.
void UrdfReader::fail_urdfdom(const std::vector<std::string>& errors) const {
  std::string all;
  for (const std::string& e : errors) all += (all.empty() ? "" : "; ") + e;
  if (all.empty()) all = "rejected without a message";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const char close = all[i] == '[' ? ']' : all[i] == '\'' ? '\'' : '\0';
    const std::size_t end = close != '\0' ? all.find(close, i + 1) : std::string::npos;
    if (end == std::string::npos) continue;
    const string_view token = string_view(all).substr(i + 1, end - i - 1);
    const std::string before = lower_case(util::trim(string_view(all).substr(0, i)));
    if (!before.ends_with("link")) {
      if (const auto joint = joints_.find(token); joint != joints_.end()) {
        fail(joint->second, "joint " + in_quotes(token), "urdfdom: " + all);
      }
    }
    if (const auto link = links_.find(token); link != links_.end()) {
      fail(link->second, "link " + in_quotes(token), "urdfdom: " + all);
    }
    i = end;
  }
  fail(xml_.root(), "robot " + in_quotes(robot_), "urdfdom: " + all);
}

// What the checks before parsing make so, checked: urdfdom read the links and joints pugixml
// did, by the same names, each joint between the same links. The lookups by urdfdom's names
// below (links_, joints_, joint_position_) rely on it.
void UrdfReader::check_same_elements(const urdf::ModelInterface& model) const {
  const auto differ = [&](pugi::xml_node el, const std::string& what) {
    fail(el, what, "urdfdom (TinyXML) reads it differently from pugixml");
  };
  for (const auto& [name, el] : links_) {
    if (!model.links_.contains(name)) differ(el, "link " + in_quotes(name));
  }
  for (const auto& [name, el] : joints_) {
    const auto joint = model.joints_.find(name);
    if (joint == model.joints_.end() ||
        joint->second->parent_link_name != el.child("parent").attribute("link").value() ||
        joint->second->child_link_name != el.child("child").attribute("link").value()) {
      differ(el, "joint " + in_quotes(name));
    }
  }
  if (model.links_.size() != links_.size() || model.joints_.size() != joints_.size()) {
    fail(xml_.root(), "robot " + in_quotes(robot_),
         "urdfdom (TinyXML) read " + std::to_string(model.links_.size()) + " links and " +
             std::to_string(model.joints_.size()) + " joints, pugixml " + std::to_string(links_.size()) + " and " +
             std::to_string(joints_.size()));
  }
}

// Depth first from the root link, a link's child joints in document order: the joint order
// of SceneModel::joint_names() (parents before children, as in an XML scene).
void UrdfReader::add_tree(const urdf::ModelInterface& model) {
  const int robot =
      builder_.add_instance(-1, robot_, Eigen::Isometry3d::Identity(), located(xml_.root()));
  std::vector<std::pair<const urdf::Joint*, int>> pending;  // joint, parent link's frame
  const auto push_children = [&](const urdf::Link& link, int frame) {
    std::vector<const urdf::Joint*> joints;
    for (const urdf::JointSharedPtr& joint : link.child_joints) joints.push_back(joint.get());
    // The last written first: the stack pops the first written first.
    std::sort(joints.begin(), joints.end(), [&](const urdf::Joint* a, const urdf::Joint* b) {
      return joint_position_.at(a->name) > joint_position_.at(b->name);
    });
    for (const urdf::Joint* joint : joints) pending.emplace_back(joint, frame);
  };
  const urdf::LinkConstSharedPtr root = model.getRoot();
  push_children(*root, add_link(*root, robot));
  while (!pending.empty()) {
    const auto [joint, parent_frame] = pending.back();
    pending.pop_back();
    const urdf::LinkConstSharedPtr child = model.getLink(joint->child_link_name);
    push_children(*child, add_link(*child, add_joint(*joint, parent_frame)));
  }
  // With one root and one parent per link, a link not reached hangs in a cycle of joints.
  for (const auto& [name, el] : links_) {
    if (link_frames_.find(name) == link_frames_.end()) {
      fail(el, "link " + in_quotes(name), "not connected to the root link " + in_quotes(root->name) +
                                              " (its joints form a cycle)");
    }
  }
}

// A link's visuals and its origin probe, in the frame its joint moves.
int UrdfReader::add_link(const urdf::Link& link, int frame) {
  link_frames_.emplace(link.name, frame);
  add_visuals(link, frame);
  builder_.add_probe(frame, link.name, Eigen::Vector3d::Zero(), located(links_.at(link.name)), /*generated=*/true);
  return frame;
}

// Returns the frame of the joint's child link.
int UrdfReader::add_joint(const urdf::Joint& joint, int parent_frame) {
  const ElementLocation where = located(joints_.at(joint.name));
  JointSpec spec{.name = joint.name,
                 .X_PJ = pose_of(joint.parent_to_joint_origin_transform),
                 .where = where};
  switch (joint.type) {
    case urdf::Joint::FIXED:
      return builder_.add_joint(parent_frame, spec);
    case urdf::Joint::REVOLUTE:
    case urdf::Joint::CONTINUOUS:
    case urdf::Joint::PRISMATIC:
      spec.drive = joint.type == urdf::Joint::PRISMATIC ? DriveType::prismatic : DriveType::revolute;
      spec.axis_J = unit_axis(joint);
      spec.driven = !joint.mimic;  // a mimic joint stays at 0: the scene has no joint coupling
      return builder_.add_joint(parent_frame, spec);
    case urdf::Joint::PLANAR: {
      // J/x and J/y slide in the plane normal to the axis, J/phi turns about it.
      const Eigen::Vector3d n = unit_axis(joint);
      const auto [u, v] = plane_axes(n);
      return add_axes(parent_frame, spec, {{{"x", DriveType::prismatic, u},
                                            {"y", DriveType::prismatic, v},
                                            {"phi", DriveType::revolute, n}}});
    }
    case urdf::Joint::FLOATING:
      // T(x, y, z) Rz(yaw) Ry(pitch) Rx(roll): the child's pose as URDF writes xyz and rpy.
      return add_axes(parent_frame, spec, {{{"x", DriveType::prismatic, Eigen::Vector3d::UnitX()},
                                            {"y", DriveType::prismatic, Eigen::Vector3d::UnitY()},
                                            {"z", DriveType::prismatic, Eigen::Vector3d::UnitZ()},
                                            {"yaw", DriveType::revolute, Eigen::Vector3d::UnitZ()},
                                            {"pitch", DriveType::revolute, Eigen::Vector3d::UnitY()},
                                            {"roll", DriveType::revolute, Eigen::Vector3d::UnitX()}}});
    default:
      fail(joints_.at(joint.name), "joint " + in_quotes(joint.name), "joint type not read");
  }
}

// A planar or floating joint J as a chain of one-axis frames "J/<axis>", all driven, the
// first at J's origin. Returns the last frame.
int UrdfReader::add_axes(int parent_frame, const JointSpec& joint, std::span<const Axis> axes) {
  int frame = parent_frame;
  for (const Axis& a : axes) {
    JointSpec part{.name = a.name, .group = joint.name, .drive = a.drive, .axis_J = a.axis_J,
                   .driven = true, .where = joint.where};
    if (frame == parent_frame) part.X_PJ = joint.X_PJ;
    frame = builder_.add_joint(frame, std::move(part));
  }
  return frame;
}

Eigen::Vector3d UrdfReader::unit_axis(const urdf::Joint& joint) const {
  const Eigen::Vector3d axis(joint.axis.x, joint.axis.y, joint.axis.z);
  const double norm = axis.norm();
  if (!(norm > 1e-12) || !std::isfinite(norm)) {
    const pugi::xml_node el = joints_.at(joint.name);
    const pugi::xml_node axis_el = el.child("axis");
    fail(axis_el ? axis_el : el, "joint " + in_quotes(joint.name),
         "axis " + in_quotes(axis_el.attribute("xyz").value()) + " has zero length (or is not finite)");
  }
  return axis / norm;
}

// Every <visual> of the link (urdfdom keeps them in document order), drawn in the link's frame.
void UrdfReader::add_visuals(const urdf::Link& link, int frame) {
  std::vector<pugi::xml_node> elements;
  for (pugi::xml_node el : links_.at(link.name).children("visual")) elements.push_back(el);
  if (elements.size() != link.visual_array.size()) {
    fail(links_.at(link.name), "link " + in_quotes(link.name),
         "urdfdom read " + std::to_string(link.visual_array.size()) + " of its " +
             std::to_string(elements.size()) + " <visual> elements");
  }
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const urdf::Visual& visual = *link.visual_array[i];
    const pugi::xml_node el = elements[i];
    // Ids are unique per link: ".visual<i>" ends every one, and the link name is what precedes.
    const std::string id = link.name + ".visual" + std::to_string(i);
    if (!visual.geometry) fail(el, "link " + in_quotes(link.name), "<visual> without <geometry>");
    builder_.add_geometry(frame, id, shape_of(*visual.geometry, el, link.name), pose_of(visual.origin),
                          xml_.at(el));
    RenderSpec render = color_of(el, link.name);
    render.ref = id;
    render.where = xml_.at(el);
    builder_.add_render(frame, std::move(render));
  }
}

Shape UrdfReader::shape_of(const urdf::Geometry& geometry, pugi::xml_node visual,
                          const std::string& link) const {
  if (const auto* box = dynamic_cast<const urdf::Box*>(&geometry)) {
    return Cuboid{box->dim.x, box->dim.y, box->dim.z};
  }
  if (const auto* cylinder = dynamic_cast<const urdf::Cylinder*>(&geometry)) {
    return Cylinder{cylinder->radius, cylinder->length, 'z', kDefaultResolution};  // URDF's axis
  }
  if (const auto* sphere = dynamic_cast<const urdf::Sphere*>(&geometry)) {
    return Sphere{sphere->radius, kDefaultSphereResolution};
  }
  const pugi::xml_node mesh_el = visual.child("geometry").child("mesh");
  const auto* mesh = dynamic_cast<const urdf::Mesh*>(&geometry);
  if (mesh == nullptr || !mesh_el) fail(visual, "link " + in_quotes(link), "unknown <geometry>");
  // The format is the written name's: a symlink resolved may have none.
  const std::string extension = lower_case(fs::path(mesh->filename).extension().string());
  const auto known = std::find_if(kMeshExtensions.begin(), kMeshExtensions.end(),
                                  [&](const MeshExtension& m) { return m.extension == extension; });
  if (known == kMeshExtensions.end()) {
    fail(mesh_el, "link " + in_quotes(link),
         "mesh " + in_quotes(mesh->filename) +
             " is not of a format read here (.stl, .obj, .ply, .dae)");
  }
  const Eigen::Vector3d scale(mesh->scale.x, mesh->scale.y, mesh->scale.z);
  return Part{resolve_mesh(mesh->filename, mesh_el, link), scale, known->format};
}

// package://, file:// or a plain path (util::PackagePath::resolve_mesh).
fs::path UrdfReader::resolve_mesh(const std::string& uri, pugi::xml_node el,
                                  const std::string& link) const {
  try {
    return packages_.resolve_mesh(uri, folder_);
  } catch (const util::PackagePathError& e) {
    fail(el, "link " + in_quotes(link), e.message());
  }
}

// A visual's colour: the top-level <material> its <material name> refers to, else its own
// <color rgba>; gray without either (a texture is not drawn). Alpha is the opacity.
RenderSpec UrdfReader::color_of(pugi::xml_node visual, const std::string& link) const {
  RenderSpec render{.rgb = *css_color(kDefaultColor), .color_name = kDefaultColor};
  const pugi::xml_node material = visual.child("material");
  if (!material) return render;
  pugi::xml_node color = material.child("color");
  if (const pugi::xml_attribute name = material.attribute("name"); name) {
    if (const auto named = materials_.find(name.value()); named != materials_.end()) {
      color = named->second.child("color");
    } else if (!color) {
      fail(material, "link " + in_quotes(link),
           "material " + in_quotes(name.value()) + " is not defined");
    }
  }
  if (!color) return render;
  const pugi::xml_attribute rgba = color.attribute("rgba");
  const std::vector<string_view> parts = split(rgba.value());
  double c[4] = {0, 0, 0, 0};
  bool ok = parts.size() == 4;
  for (std::size_t i = 0; ok && i < 4; ++i) {
    ok = parse_double(parts[i], c[i]) == NumberStatus::ok && c[i] >= 0 && c[i] <= 1;
  }
  if (!ok) {
    throw SceneError(xml_.at(rgba, color), "link " + in_quotes(link) + ": bad colour rgba " +
                                               in_quotes(rgba.value()) +
                                               ": expected four numbers in [0, 1]");
  }
  return {.rgb = {c[0], c[1], c[2]}, .opacity = c[3]};
}

// <stem>.probes.xml next to the URDF, when there is one:
// <probes> <probe link="LINK" name="NAME" [xyz="x y z"]/> ... </probes>, xyz [m] in the link
// frame.
void UrdfReader::add_side_probes() {
  const fs::path path = folder_ / (file_.stem().string() + ".probes.xml");
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  const XmlFile file(path);
  const pugi::xml_node root = file.root();
  if (string_view(root.name()) != "probes") {
    file.fail(root, "root element must be <probes>, not " + tag(root));
  }
  const Attrs no_attributes(file, root, {});
  for (pugi::xml_node el : elements(file, root)) {
    if (string_view(el.name()) != "probe") unknown_element(file, el, root, "<probe>");
    const Attrs a(file, el, {"link", "name", "xyz"});
    expect_no_children(file, el);
    const std::string name = a.name("name");
    const string_view link = a.str("link");
    const auto frame = link_frames_.find(link);
    if (frame == link_frames_.end()) {
      a.fail("link", "probe " + in_quotes(name) + ": no link " + in_quotes(link) + " in robot " +
                         in_quotes(robot_));
    }
    builder_.add_probe(frame->second, name, a.vector3("xyz", Eigen::Vector3d::Zero()),
                       ElementLocation(file.at(el), file.at(a.attr("name"), el)));
  }
}

SceneModel read_urdf(const fs::path& path, const LoadOptions& options) {
  std::error_code ec;
  fs::path canonical = fs::canonical(path, ec);
  if (ec) throw SceneError({path, 0}, "cannot resolve the URDF file: " + ec.message());
  return UrdfReader(std::move(canonical), options).read();
}

}  // namespace

const SceneReader kUrdfSceneReader{"URDF", "a .urdf file", &accepts_urdf, &read_urdf};

}  // namespace cosim::scene::detail
