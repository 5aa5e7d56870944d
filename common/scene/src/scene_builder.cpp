#include "cosim/scene/scene_builder.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <variant>

#include "path_util.hpp"

namespace cosim::scene {
namespace {

namespace fs = std::filesystem;
using std::string_view;

constexpr std::size_t kMaxFrames = 100000;    // bounds instance fan-out ("billion laughs")
constexpr std::size_t kMaxPlaced = kMaxPlacedGeometries;  // by all assemblies + renders (each copied with its pose)
constexpr std::size_t kMaxElements = 1000000;  // geometries + assemblies + renders + probes
// |axis| may differ from 1 by rounding of the reader's normalisation (a few ulp); more means
// the reader forgot to normalise.
constexpr double kUnitTolerance = 1e-9;
// Same for R^T R - I of a rotation composed from a handful of angle-axis products.
constexpr double kRotationTolerance = 1e-9;

// Appends, not "'" + std::string(s): GCC 12 warns falsely (-Wrestrict) on the latter.
std::string in_quotes(string_view s) {
  std::string out(1, '\'');
  out += s;
  out += '\'';
  return out;
}

// Shortest text that reads back as the same double.
std::string number_text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string vector_text(const Eigen::Vector3d& v) {
  std::string out(1, '(');
  out += number_text(v.x()) + " " + number_text(v.y()) + " " + number_text(v.z());
  out += ')';
  return out;
}

// " (first at file:line)", or nothing when the first element has no location.
std::string first_at(const SourceLocation& where) {
  if (where.file.empty()) return "";
  std::string out = " (first at " + where.file.string();
  if (where.line > 0) {
    out += ':';
    out += std::to_string(where.line);
  }
  out += ')';
  return out;
}

// Names are scoped with '/': a local name must not contain one.
bool valid_local_name(string_view s) { return !s.empty() && s.find('/') == string_view::npos; }

bool is_rigid(const Eigen::Isometry3d& X) {
  if (!X.matrix().allFinite()) return false;
  if (X.matrix().row(3) != Eigen::RowVector4d(0, 0, 0, 1)) return false;
  const Eigen::Matrix3d R = X.linear();
  const double off = (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  return off <= kRotationTolerance && R.determinant() > 0;
}

[[noreturn]] void fail(const SourceLocation& where, const std::string& message) {
  throw SceneError(where, message);
}

// Where errors about an element's name, or its refs, are reported.
const SourceLocation& name_at(const ElementLocation& where) {
  return where.name.file.empty() ? where.element : where.name;
}
const SourceLocation& refs_at(const ElementLocation& where) {
  return where.refs.file.empty() ? where.element : where.refs;
}

void check_name(string_view what, string_view name, const SourceLocation& where) {
  if (!valid_local_name(name)) {
    fail(where, "bad " + std::string(what) + " name " + in_quotes(name) +
                    ": names are non-empty and contain no '/' (the builder scopes them)");
  }
}

void check_rigid(string_view what, string_view name, const char* transform,
                 const Eigen::Isometry3d& X, const SourceLocation& where) {
  if (!is_rigid(X)) {
    fail(where, std::string(what) + " " + in_quotes(name) + ": " + transform +
                    " is not a finite rigid transform (rotation and translation)");
  }
}

// Checks of one shape; `what` = "geometry 'R/c'".
class ShapeCheck {
 public:
  ShapeCheck(std::string what, const SourceLocation& where) : what_(std::move(what)), where_(where) {}

  void positive(const char* field, double v) const {
    if (!(std::isfinite(v) && v > 0)) bad(field, v, "must be finite and > 0");
  }
  void axis(char a) const {
    if (a != 'x' && a != 'y' && a != 'z') {
      fail(where_, what_ + ": axis " + in_quotes(string_view(&a, 1)) + " must be x, y or z");
    }
  }
  void resolution(int r) const {
    if (r < kMinResolution || r > kMaxResolution) {
      fail(where_, what_ + ": resolution " + std::to_string(r) + " must be in [" +
                       std::to_string(kMinResolution) + ", " + std::to_string(kMaxResolution) +
                       "]");
    }
  }
  void operator()(const Cuboid& s) const {
    positive("lx", s.lx);
    positive("ly", s.ly);
    positive("lz", s.lz);
  }
  void operator()(const Cylinder& s) const { round(s.radius, s.height, s.axis, s.resolution); }
  void operator()(const Cone& s) const { round(s.radius, s.height, s.axis, s.resolution); }
  void operator()(const Sphere& s) const {
    positive("radius", s.radius);
    resolution(s.resolution);
  }
  void operator()(const Revolution& s) const {
    if (s.profile_m.size() < 2) {
      fail(where_, what_ + ": a revolution profile needs at least 2 points, got " +
                       std::to_string(s.profile_m.size()));
    }
    for (const Eigen::Vector2d& p : s.profile_m) {
      if (!p.allFinite() || p.x() < 0) {
        fail(where_, what_ + ": profile point (" + number_text(p.x()) + ", " +
                         number_text(p.y()) + ") must be finite with r >= 0");
      }
    }
    axis(s.axis);
    resolution(s.resolution);
  }
  void operator()(const TriangleMesh& s) const {
    if (s.data == nullptr || s.data->triangles.empty()) fail(where_, what_ + ": a triangle mesh without triangles");
    for (const Eigen::Vector3f& v : s.data->vertices_m) {
      if (!v.allFinite()) fail(where_, what_ + ": a mesh vertex is not finite");
    }
    const auto count = static_cast<long long>(s.data->vertices_m.size());
    for (const auto& t : s.data->triangles) {
      for (const int i : t) {
        if (i < 0 || i >= count) {
          fail(where_, what_ + ": triangle vertex index " + std::to_string(i) + " is not in [0, " +
                           std::to_string(count) + ")");
        }
      }
    }
  }
  void operator()(const Part& s) const {
    if (!s.file.is_absolute()) {
      fail(where_, what_ + ": mesh file " + s.file.string() + " must be an absolute path");
    }
    if (!(s.scale.allFinite() && (s.scale.array() > 0).all())) {
      fail(where_, what_ + ": scale " + vector_text(s.scale) + " must be finite and > 0 on each axis");
    }
    const auto format = static_cast<int>(s.format);
    if (format < static_cast<int>(MeshFormat::stl) || format > static_cast<int>(MeshFormat::dae)) {
      fail(where_, what_ + ": mesh format " + std::to_string(format) + " is not stl, obj, ply or dae");
    }
  }

 private:
  void round(double radius, double height, char a, int res) const {
    positive("radius", radius);
    positive("height", height);
    axis(a);
    resolution(res);
  }
  [[noreturn]] void bad(const char* field, double v, const char* why) const {
    fail(where_, what_ + ": " + field + " = " + number_text(v) + " " + why);
  }

  std::string what_;
  const SourceLocation& where_;
};

}  // namespace

void SceneBuilder::set_name(std::string name) { model_.name_ = std::move(name); }
void SceneBuilder::set_root(fs::path root) { model_.root_ = std::move(root); }
void SceneBuilder::add_mesh_folder(fs::path folder) { mesh_folders_.push_back(std::move(folder)); }

// The frame an element hangs from must exist already: that is what keeps parents first.
int SceneBuilder::check_frame(int frame, string_view what, string_view name,
                              const SourceLocation& where) const {
  const int count = static_cast<int>(model_.frames_.size());
  if (frame < 0 || frame >= count) {
    fail(where, std::string(what) + " " + in_quotes(name) + ": frame index " +
                    std::to_string(frame) + " is not a frame added before it (" +
                    std::to_string(count) + " so far; add parents before children)");
  }
  return frame_instance_[static_cast<std::size_t>(frame)];
}

int SceneBuilder::push_frame(Frame frame, int instance, const char* what,
                             const SourceLocation& name_where) {
  if (model_.frames_.size() >= kMaxFrames) {
    fail(frame.where, "more than " + std::to_string(kMaxFrames) + " frames in the scene");
  }
  const int index = static_cast<int>(model_.frames_.size());
  const auto [it, inserted] = model_.frame_index_.try_emplace(frame.name, index);
  if (!inserted) {
    fail(name_where, std::string("duplicate ") + what + " name " + in_quotes(frame.name) +
                         first_at(model_.frames_[static_cast<std::size_t>(it->second)].where));
  }
  model_.frames_.push_back(std::move(frame));
  frame_instance_.push_back(instance);
  return index;
}

int SceneBuilder::add_instance(int parent_frame, string_view name, const Eigen::Isometry3d& X_PB,
                               ElementLocation where) {
  // -1 = the world; any other index must be a frame added before.
  const int parent_instance =
      parent_frame == -1 ? -1 : check_frame(parent_frame, "instance", name, where.element);
  check_name("instance", name, name_at(where));
  check_rigid("instance", name, "the base placement", X_PB, where.element);

  Frame root;
  root.name = parent_instance < 0
                  ? std::string(name)
                  : instances_[static_cast<std::size_t>(parent_instance)].path + "/" +
                        std::string(name);
  root.parent = parent_frame;
  root.X_PJ = X_PB;
  root.where = where.element;
  const int instance = static_cast<int>(instances_.size());
  const std::string path = root.name;
  const int index = push_frame(std::move(root), instance, "instance", name_at(where));
  instances_.push_back({path, {}, {}});
  if (parent_instance < 0) {
    top_instances_.push_back(instance);
  } else {
    instances_[static_cast<std::size_t>(parent_instance)].children.push_back(instance);
  }
  return index;
}

int SceneBuilder::add_joint(int parent_frame, JointSpec joint) {
  const SourceLocation& where = joint.where.element;
  const int instance = check_frame(parent_frame, "joint", joint.name, where);
  check_name("joint", joint.name, name_at(joint.where));
  std::string name = instances_[static_cast<std::size_t>(instance)].path + "/";
  if (!joint.group.empty()) {  // itself scoped by '/' (a MuJoCo joint "Wheel_1/roller1")
    for (std::size_t start = 0;;) {
      const std::size_t slash = joint.group.find('/', start);
      check_name("joint group", string_view(joint.group).substr(start, slash - start), name_at(joint.where));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    name += joint.group + "/";
  }
  name += joint.name;
  check_rigid("joint", name, "X_PJ", joint.X_PJ, where);
  check_rigid("joint", name, "X_DC", joint.X_DC, where);
  const std::string what = "joint " + in_quotes(name);
  switch (joint.drive) {
    case DriveType::fixed:
      if (joint.driven || joint.offset != 0 || joint.axis_J != Eigen::Vector3d::UnitZ()) {
        fail(where, what + ": a fixed joint takes no axis, offset or driven flag");
      }
      break;
    case DriveType::revolute:
    case DriveType::prismatic: {
      const double norm = joint.axis_J.norm();
      if (!joint.axis_J.allFinite() || !(std::abs(norm - 1) <= kUnitTolerance)) {
        fail(where, what + ": axis " + vector_text(joint.axis_J) +
                        " is not a unit vector (norm " + number_text(norm) + ")");
      }
      if (!std::isfinite(joint.offset)) {
        fail(where, what + ": offset " + number_text(joint.offset) + " is not finite");
      }
      break;
    }
    default:
      fail(where, what + ": drive type " + std::to_string(static_cast<int>(joint.drive)) +
                      " is not fixed, revolute or prismatic");
  }

  Frame frame;
  frame.name = name;
  frame.parent = parent_frame;
  frame.X_PJ = joint.X_PJ;
  frame.drive = joint.drive;
  frame.axis_J = joint.axis_J;
  frame.offset = joint.offset;
  frame.X_DC = joint.X_DC;
  frame.where = where;
  const int index = push_frame(std::move(frame), instance, "joint", name_at(joint.where));
  if (joint.driven) instances_[static_cast<std::size_t>(instance)].joint_frames.push_back(index);
  return index;
}

// Instances multiply what their files hold: bound the total (counted when added).
void SceneBuilder::check_element_cap(const SourceLocation& where) const {
  if (elements_ + 1 > kMaxElements) {
    fail(where, "more than " + std::to_string(kMaxElements) +
                    " geometry, assembly, render and probe elements in the scene");
  }
}

const SceneBuilder::IdEntry& SceneBuilder::resolve(int instance, string_view ref, const char* why,
                                                   const SourceLocation& where) const {
  const std::string& path = instances_[static_cast<std::size_t>(instance)].path;
  // A '/' in a ref would reach into another instance: not an id of this one.
  const auto it = valid_local_name(ref) ? ids_.find(path + "/" + std::string(ref)) : ids_.end();
  if (it == ids_.end()) {
    fail(where, "unresolved ref " + in_quotes(ref) + " in instance " + in_quotes(path) + " (" +
                    why + " a geometry or assembly defined earlier in the same instance)");
  }
  return it->second;
}

void SceneBuilder::add_id(int instance, string_view id, RefKind kind, int index,
                          const SourceLocation& where) {
  const std::string& path = instances_[static_cast<std::size_t>(instance)].path;
  const auto [it, inserted] = ids_.try_emplace(path + "/" + std::string(id), IdEntry{kind, index});
  if (!inserted) {
    const std::size_t first = static_cast<std::size_t>(it->second.index);
    const SourceLocation& first_where = it->second.kind == RefKind::geometry
                                            ? model_.geometries_[first].where
                                            : model_.assemblies_[first].where;
    fail(where, "duplicate id " + in_quotes(id) + " in instance " + in_quotes(path) +
                    first_at(first_where));
  }
}

int SceneBuilder::add_geometry(int frame, string_view id, Shape shape,
                               const Eigen::Isometry3d& X_FG, ElementLocation where) {
  check_element_cap(where.element);
  const int instance = check_frame(frame, "geometry", id, where.element);
  check_name("geometry", id, name_at(where));
  Geometry g;
  g.id = instances_[static_cast<std::size_t>(instance)].path + "/" + std::string(id);
  std::visit(ShapeCheck("geometry " + in_quotes(g.id), where.element), shape);
  check_rigid("geometry", g.id, "the placement", X_FG, where.element);
  g.frame = frame;
  g.shape = std::move(shape);
  g.X_FG = X_FG;
  g.where = where.element;
  const int index = static_cast<int>(model_.geometries_.size());
  add_id(instance, id, RefKind::geometry, index, name_at(where));
  model_.geometries_.push_back(std::move(g));
  ++elements_;
  return index;
}

int SceneBuilder::add_assembly(int frame, string_view id, std::span<const string_view> refs,
                               const Eigen::Isometry3d& X_FA, ElementLocation where) {
  check_element_cap(where.element);
  const int instance = check_frame(frame, "assembly", id, where.element);
  check_name("assembly", id, name_at(where));
  Assembly a;
  a.id = instances_[static_cast<std::size_t>(instance)].path + "/" + std::string(id);
  check_rigid("assembly", a.id, "the placement", X_FA, where.element);
  if (refs.empty()) fail(refs_at(where), "assembly " + in_quotes(a.id) + " has no refs");
  a.frame = frame;
  a.X_FA = X_FA;
  for (string_view ref : refs) {
    const IdEntry& e = resolve(instance, ref, "refs name", refs_at(where));
    a.refs.push_back(instances_[static_cast<std::size_t>(instance)].path + "/" + std::string(ref));
    const std::size_t i = static_cast<std::size_t>(e.index);
    // Assemblies of assemblies can double at each level: bound the flattened size.
    const std::size_t adding =
        e.kind == RefKind::geometry ? 1 : model_.assemblies_[i].parts.size();
    if (placed_ + a.parts.size() + adding > kMaxPlaced) {
      fail(where.element, "assemblies place more than " + std::to_string(kMaxPlaced) +
                      " geometries in total");
    }
    if (e.kind == RefKind::geometry) {
      a.parts.push_back({e.index, a.X_FA * model_.geometries_[i].X_FG});
    } else {
      for (const PlacedGeometry& p : model_.assemblies_[i].parts) {
        a.parts.push_back({p.geometry, a.X_FA * p.X_FG});
      }
    }
  }
  a.where = where.element;
  const int index = static_cast<int>(model_.assemblies_.size());
  add_id(instance, id, RefKind::assembly, index, name_at(where));
  placed_ += a.parts.size();
  model_.assemblies_.push_back(std::move(a));
  ++elements_;
  return index;
}

int SceneBuilder::add_render(int frame, RenderSpec spec) {
  const SourceLocation& where = spec.where.element;
  check_element_cap(where);
  const int instance = check_frame(frame, "render of", spec.ref, where);
  const IdEntry& e = resolve(instance, spec.ref, "a render names", refs_at(spec.where));
  Render r;
  r.ref = instances_[static_cast<std::size_t>(instance)].path + "/" + spec.ref;
  r.frame = frame;
  r.ref_kind = e.kind;
  r.ref_index = e.index;
  const std::size_t i = static_cast<std::size_t>(e.index);
  if (e.kind == RefKind::geometry) {
    // One geometry counts too: a URDF's thousands of <visual>s are each rendered alone.
    if (placed_ + 1 > kMaxPlaced) {
      fail(where, "renders place more than " + std::to_string(kMaxPlaced) + " geometries in total");
    }
    r.parts.push_back({e.index, model_.geometries_[i].X_FG});
  } else {
    const std::vector<PlacedGeometry>& parts = model_.assemblies_[i].parts;
    if (placed_ + parts.size() > kMaxPlaced) {
      fail(where, "renders place more than " + std::to_string(kMaxPlaced) +
                      " geometries in total");
    }
    r.parts = parts;
  }

  const std::string what = "render of " + in_quotes(r.ref);
  for (const double c : {spec.rgb.r, spec.rgb.g, spec.rgb.b}) {
    if (!(c >= 0 && c <= 1)) {
      fail(where, what + ": colour (" + number_text(spec.rgb.r) + " " + number_text(spec.rgb.g) +
                      " " + number_text(spec.rgb.b) + ") must have each of r g b in [0, 1]");
    }
  }
  if (spec.color_name) {
    const std::optional<Color> named = css_color(*spec.color_name);
    if (!named) {
      fail(where, what + ": " + in_quotes(*spec.color_name) + " is not a lower-case CSS colour name");
    }
    if (named->r != spec.rgb.r || named->g != spec.rgb.g || named->b != spec.rgb.b) {
      fail(where, what + ": rgb is not the colour named " + in_quotes(*spec.color_name));
    }
  }
  if (!(spec.opacity >= 0 && spec.opacity <= 1)) {
    fail(where, what + ": opacity " + number_text(spec.opacity) + " must be in [0, 1]");
  }
  r.rgb = spec.rgb;
  r.color_name = std::move(spec.color_name);
  r.opacity = spec.opacity;
  r.where = where;
  placed_ += r.parts.size();
  const int index = static_cast<int>(model_.renders_.size());
  model_.renders_.push_back(std::move(r));
  ++elements_;
  return index;
}

int SceneBuilder::add_probe(int frame, string_view name, const Eigen::Vector3d& p_FP_m,
                            ElementLocation where, bool generated) {
  check_element_cap(where.element);
  if (model_.probes_.size() >= kMaxProbes) {
    fail(where.element, "more than " + std::to_string(kMaxProbes) + " probes in the scene");
  }
  const int instance = check_frame(frame, "probe", name, where.element);
  check_name("probe", name, name_at(where));
  Probe p;
  p.name = instances_[static_cast<std::size_t>(instance)].path + "/" + std::string(name);
  if (!p_FP_m.allFinite()) {
    fail(where.element, "probe " + in_quotes(p.name) + ": position " + vector_text(p_FP_m) +
                    " is not finite");
  }
  p.frame = frame;
  p.p_FP_m = p_FP_m;
  p.where = where.element;
  p.generated = generated;
  const int index = static_cast<int>(model_.probes_.size());
  const auto [it, inserted] = model_.probe_index_.try_emplace(p.name, index);
  if (!inserted) {
    fail(name_at(where), "duplicate probe name " + in_quotes(p.name) +
                      first_at(model_.probes_[static_cast<std::size_t>(it->second)].where));
  }
  model_.probes_.push_back(std::move(p));
  ++elements_;
  return index;
}

SceneModel SceneBuilder::build() && {
  if (model_.name_.empty()) fail({}, "scene name not set (SceneBuilder::set_name)");
  if (!model_.root_.is_absolute()) {
    fail({}, "scene root folder " + in_quotes(model_.root_.string()) +
                 " is not an absolute path (SceneBuilder::set_root)");
  }
  // Compare normal forms: a trailing '/' on a folder must not make every file "outside".
  std::vector<fs::path> folders{model_.root_};
  folders.insert(folders.end(), mesh_folders_.begin(), mesh_folders_.end());
  for (fs::path& folder : folders) {
    folder = folder.lexically_normal();
    if (!folder.has_filename()) folder = folder.parent_path();
  }
  for (const Geometry& g : model_.geometries_) {
    const Part* part = std::get_if<Part>(&g.shape);
    if (part == nullptr) continue;
    const fs::path file = part->file.lexically_normal();
    const bool inside = std::any_of(folders.begin(), folders.end(),
                                    [&](const fs::path& folder) { return detail::is_inside(folder, file); });
    if (!inside) {
      fail(g.where, "geometry " + in_quotes(g.id) + ": mesh file " + part->file.string() +
                        " is outside the scene root " + model_.root_.string() +
                        (mesh_folders_.empty() ? "" : " and the other mesh folders"));
    }
  }

  // Joint order: an instance's own joints, then its child instances (pre-order). Iterative:
  // instances may nest as deep as the frame cap allows.
  std::vector<int> pending(top_instances_.rbegin(), top_instances_.rend());
  while (!pending.empty()) {
    const Instance& instance = instances_[static_cast<std::size_t>(pending.back())];
    pending.pop_back();
    for (int f : instance.joint_frames) {
      Frame& frame = model_.frames_[static_cast<std::size_t>(f)];
      frame.joint_index = static_cast<int>(model_.joint_names_.size());
      model_.joint_index_.emplace(frame.name, frame.joint_index);
      model_.joint_names_.push_back(frame.name);
      model_.joint_frames_.push_back(f);
    }
    pending.insert(pending.end(), instance.children.rbegin(), instance.children.rend());
  }
  return std::move(model_);
}

}  // namespace cosim::scene
