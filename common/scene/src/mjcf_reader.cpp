// The MJCF scene reader (docs/scenes.md "MuJoCo models"): MuJoCo compiles the model through
// cosim::mjcf, the loader the mujoco backend uses, and the scene is built from the compiled
// mjModel, so what is drawn is what is simulated: bodies at their compiled poses, meshes as
// MuJoCo recentred them, the joints named by the backend's own rule (mjcf::scene_joints).
// Internal to cosim::scene, built only where MuJoCo is.
//
// Kinematics, as MuJoCo's mj_kinematics: a body's frame is its parent's times (body_pos,
// body_quat) at qpos0; then each of its joints in order turns or slides it about the joint's
// anchor (jnt_pos) and axis (jnt_axis), both in the body frame as it stands after the joints
// before. A hinge is therefore the scene joint X_PJ = X_prev·T(anchor), rotation about the
// axis, X_DC = T(−anchor); a free joint sets the body's world pose (x, y, z, then yaw, pitch,
// roll) and a ball joint turns it about the anchor by R = Rz(yaw)·Ry(pitch)·Rx(roll).

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numbers>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <mujoco/mujoco.h>

#include "cosim/mjcf/mjcf.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "path_util.hpp"
#include "readers.hpp"
#include "xml_file.hpp"

namespace cosim::scene::detail {
namespace {

namespace fs = std::filesystem;

// Segments of each quarter circle of a capsule's profile; rings and sectors of an ellipsoid.
constexpr int kCapsuleArcSegments = 8;
constexpr int kEllipsoidRings = 12;
constexpr int kEllipsoidSectors = 24;
// MuJoCo's viewer shows geom groups 0, 1 and 2 and hides 3 to 5, where models keep their
// collision geoms: the scene draws what MuJoCo's viewer draws.
constexpr int kLastVisibleGroup = 2;
// A plane of size 0 is infinite in MuJoCo; drawn as a square this many model extents wide
// (at least kMinPlaneHalf_m on each side), kPlaneThickness of its half-width thick.
constexpr double kPlaneExtents = 4.0;
constexpr double kMinPlaneHalf_m = 5.0;
constexpr double kPlaneThickness = 1e-3;

bool accepts_mjcf(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && lower_case(path.extension().string()) == ".xml" &&
         xml_root_element(path) == "mujoco";
}

Eigen::Isometry3d pose(const mjtNum* pos, const mjtNum* quat_wxyz) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(pos[0], pos[1], pos[2]);
  X.linear() = Eigen::Quaterniond(quat_wxyz[0], quat_wxyz[1], quat_wxyz[2], quat_wxyz[3]).normalized().toRotationMatrix();
  return X;
}

Eigen::Isometry3d translation(const Eigen::Vector3d& p) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = p;
  return X;
}

std::string name_of(const mjModel* m, mjtObj type, int id) {
  const char* name = mj_id2name(m, type, id);
  return name != nullptr ? name : "";
}

// A name for an element: its own when it is a usable, unused local name, else "<kind><id>".
std::string local_name(std::string own, const char* kind, int id, std::set<std::string>& used) {
  const bool usable = !own.empty() && own.find('/') == std::string::npos;
  std::string name = usable && !used.contains(own) ? std::move(own) : kind + std::to_string(id);
  while (used.contains(name)) name += '_';
  used.insert(name);
  return name;
}

// A capsule along z: a cylinder of half-length `half_m` with hemispherical ends of `radius_m`.
Revolution capsule(double radius_m, double half_m) {
  Revolution r{{}, 'z', kDefaultResolution};
  for (int i = 0; i <= kCapsuleArcSegments; ++i) {  // bottom end, from the pole to the rim
    const double a = -std::numbers::pi / 2 + std::numbers::pi / 2 * i / kCapsuleArcSegments;
    r.profile_m.emplace_back(radius_m * std::cos(a), -half_m + radius_m * std::sin(a));
  }
  for (int i = 0; i <= kCapsuleArcSegments; ++i) {  // top end, from the rim to the pole
    const double a = std::numbers::pi / 2 * i / kCapsuleArcSegments;
    r.profile_m.emplace_back(radius_m * std::cos(a), half_m + radius_m * std::sin(a));
  }
  r.profile_m.front().x() = 0;  // exactly on the axis: a closed solid
  r.profile_m.back().x() = 0;
  return r;
}

// An ellipsoid of semi-axes `radii_m`, centred, as triangles counter-clockwise from outside.
TriangleMesh ellipsoid(const Eigen::Vector3d& radii_m) {
  auto data = std::make_shared<TriangleMesh::Data>();
  data->vertices_m.emplace_back(0.0f, 0.0f, static_cast<float>(-radii_m.z()));  // south pole
  for (int ring = 1; ring < kEllipsoidRings; ++ring) {
    const double polar = std::numbers::pi * ring / kEllipsoidRings;  // from the south pole
    for (int sector = 0; sector < kEllipsoidSectors; ++sector) {
      const double azimuth = 2 * std::numbers::pi * sector / kEllipsoidSectors;
      data->vertices_m.emplace_back(static_cast<float>(radii_m.x() * std::sin(polar) * std::cos(azimuth)),
                                    static_cast<float>(radii_m.y() * std::sin(polar) * std::sin(azimuth)),
                                    static_cast<float>(-radii_m.z() * std::cos(polar)));
    }
  }
  const int north = static_cast<int>(data->vertices_m.size());
  data->vertices_m.emplace_back(0.0f, 0.0f, static_cast<float>(radii_m.z()));
  const auto at = [](int ring, int sector) { return 1 + (ring - 1) * kEllipsoidSectors + sector % kEllipsoidSectors; };
  for (int s = 0; s < kEllipsoidSectors; ++s) {
    data->triangles.push_back({0, at(1, s + 1), at(1, s)});
    data->triangles.push_back({north, at(kEllipsoidRings - 1, s), at(kEllipsoidRings - 1, s + 1)});
    for (int ring = 1; ring + 1 < kEllipsoidRings; ++ring) {
      data->triangles.push_back({at(ring, s), at(ring, s + 1), at(ring + 1, s + 1)});
      data->triangles.push_back({at(ring, s), at(ring + 1, s + 1), at(ring + 1, s)});
    }
  }
  return {std::move(data)};
}

// Mesh `id` as MuJoCo compiled it (recentred and turned to its inertial frame; the geom's
// pose accounts for that).
TriangleMesh compiled_mesh(const mjModel* m, int id) {
  auto data = std::make_shared<TriangleMesh::Data>();
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  for (int v = 0; v < m->mesh_vertnum[id]; ++v) data->vertices_m.emplace_back(vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]);
  const int* face = m->mesh_face + 3 * m->mesh_faceadr[id];
  for (int f = 0; f < m->mesh_facenum[id]; ++f) data->triangles.push_back({face[3 * f], face[3 * f + 1], face[3 * f + 2]});
  return {std::move(data)};
}

// A ModelError as a SceneError about `file` (its message names the file first, or not at all).
SceneError scene_error(const fs::path& file, const mjcf::ModelError& e) {
  const std::string what = e.what(), prefix = file.string() + ": ";
  return SceneError({file, 0}, what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
}

class MjcfReader {
 public:
  MjcfReader(const fs::path& file, const mjModel* m) : file_(file), m_(m) {}

  SceneModel read() && {
    try {
      joints_ = mjcf::scene_joints(m_, file_.string());
    } catch (const mjcf::ModelError& e) {
      throw scene_error(file_, e);
    }
    for (const mjcf::SceneJoint& joint : joints_.joints) scene_joint_ids_.insert(joint.joint);
    for (int j = 0; j < m_->njnt; ++j) frame_names_.insert(name_of(m_, mjOBJ_JOINT, j));  // body frames take other names
    builder_.set_name(joints_.model_name);
    builder_.set_root(file_.parent_path());
    body_frame_.assign(static_cast<std::size_t>(m_->nbody), -1);
    body_moves_.assign(static_cast<std::size_t>(m_->nbody), 0);
    body_frame_[0] = builder_.add_instance(-1, joints_.model_name, Eigen::Isometry3d::Identity(), {{file_, 0}});
    for (int b = 1; b < m_->nbody; ++b) add_body(b);
    for (int g = 0; g < m_->ngeom; ++g) add_geom(g);
    for (int b = 1; b < m_->nbody && probes_ < kMaxProbes; ++b) {
      if (!body_moves_[static_cast<std::size_t>(b)]) continue;
      // At the body's centre of mass (MuJoCo's xipos): a body's origin is often on its joint's
      // axis (a pendulum's pivot), which does not move.
      const mjtNum* ipos = m_->body_ipos + 3 * b;
      builder_.add_probe(body_frame_[static_cast<std::size_t>(b)], local_name(name_of(m_, mjOBJ_BODY, b), "body", b, probe_names_),
                         Eigen::Vector3d(ipos[0], ipos[1], ipos[2]), {{file_, 0}}, /*generated=*/true);
      ++probes_;
    }
    return std::move(builder_).build();
  }

 private:
  // Adds the frames of body `b`: one per scene joint part of its joints, or one fixed frame.
  void add_body(int b) {
    const int parent_body = m_->body_parentid[b];
    int frame = body_frame_[static_cast<std::size_t>(parent_body)];
    bool moves = body_moves_[static_cast<std::size_t>(parent_body)] != 0;
    Eigen::Isometry3d pending = pose(m_->body_pos + 3 * b, m_->body_quat + 4 * b);  // X_PB at qpos0
    const SourceLocation where{file_, 0};
    for (int j = m_->body_jntadr[b]; j < m_->body_jntadr[b] + m_->body_jntnum[b]; ++j) {
      const std::string name = name_of(m_, mjOBJ_JOINT, j);
      const Eigen::Vector3d anchor(m_->jnt_pos[3 * j], m_->jnt_pos[3 * j + 1], m_->jnt_pos[3 * j + 2]);
      const Eigen::Vector3d axis = Eigen::Vector3d(m_->jnt_axis[3 * j], m_->jnt_axis[3 * j + 1], m_->jnt_axis[3 * j + 2]).normalized();
      const bool driven = scene_joint_ids_.contains(j);
      const auto [group, leaf] = split_scope(name);
      const auto add = [&](std::string part_group, std::string part, DriveType drive, const Eigen::Vector3d& axis_J,
                           const Eigen::Isometry3d& X_PJ, const Eigen::Isometry3d& X_DC) {
        frame = builder_.add_joint(frame, {.name = std::move(part), .group = std::move(part_group), .X_PJ = X_PJ,
                                           .drive = drive, .axis_J = drive == DriveType::fixed ? Eigen::Vector3d::UnitZ() : axis_J,
                                           .X_DC = X_DC, .driven = drive != DriveType::fixed, .where = where});
        pending = Eigen::Isometry3d::Identity();
      };
      switch (m_->jnt_type[j]) {
        case mjJNT_HINGE:
        case mjJNT_SLIDE:
          add(group, leaf, !driven ? DriveType::fixed : m_->jnt_type[j] == mjJNT_HINGE ? DriveType::revolute : DriveType::prismatic,
              axis, pending * translation(anchor), translation(-anchor));
          break;
        case mjJNT_FREE: {
          // The body's world pose: MuJoCo allows free joints in bodies of the world only.
          if (parent_body != 0) throw SceneError(where, "free joint '" + name + "' is not in a body of the world");
          const Eigen::Isometry3d X_WB0 = pending;
          const Eigen::Vector3d axes[3] = {Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitY(), Eigen::Vector3d::UnitZ()};
          const char* parts[6] = {"x", "y", "z", "yaw", "pitch", "roll"};
          for (int p = 0; p < 6; ++p) {
            add(name, parts[p], !driven ? DriveType::fixed : p < 3 ? DriveType::prismatic : DriveType::revolute,
                p < 3 ? axes[p] : axes[5 - p], Eigen::Isometry3d::Identity(), Eigen::Isometry3d::Identity());
          }
          if (!driven) frame = add_fixed_pose(frame, leaf + ".pose", X_WB0, where);  // held where the file puts it
          break;
        }
        case mjJNT_BALL: {
          const Eigen::Vector3d axes[3] = {Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitY(), Eigen::Vector3d::UnitX()};
          const char* parts[3] = {"yaw", "pitch", "roll"};
          for (int p = 0; p < 3; ++p) {
            add(name, parts[p], driven ? DriveType::revolute : DriveType::fixed, axes[p],
                p == 0 ? pending * translation(anchor) : Eigen::Isometry3d::Identity(),
                p == 2 ? translation(-anchor) : Eigen::Isometry3d::Identity());
          }
          break;
        }
        default:
          throw SceneError(where, "joint '" + name + "' has MuJoCo joint type " + std::to_string(m_->jnt_type[j]) +
                                      ", which this build does not know");
      }
      moves = moves || driven;
    }
    if (m_->body_jntnum[b] == 0) {
      frame = add_fixed_pose(frame, local_name(name_of(m_, mjOBJ_BODY, b), "body", b, frame_names_), pending, where);
    }
    body_frame_[static_cast<std::size_t>(b)] = frame;
    body_moves_[static_cast<std::size_t>(b)] = moves ? 1 : 0;
  }

  int add_fixed_pose(int parent, std::string name, const Eigen::Isometry3d& X_PJ, const SourceLocation& where) {
    return builder_.add_joint(parent, {.name = std::move(name), .X_PJ = X_PJ, .where = where});
  }

  // "Wheel_1/roller1" -> {"Wheel_1", "roller1"}; "hip" -> {"", "hip"}.
  static std::pair<std::string, std::string> split_scope(const std::string& name) {
    const std::size_t slash = name.rfind('/');
    if (slash == std::string::npos) return {"", name};
    return {name.substr(0, slash), name.substr(slash + 1)};
  }

  void add_geom(int g) {
    const float* geom_rgba = m_->geom_rgba + 4 * g;
    // A geom's own rgba wins over its material's unless it is MuJoCo's default (MJCF reference, geom/rgba).
    const bool default_rgba = geom_rgba[0] == 0.5f && geom_rgba[1] == 0.5f && geom_rgba[2] == 0.5f && geom_rgba[3] == 1.0f;
    const int material = m_->geom_matid[g];
    const float* rgba = material >= 0 && default_rgba ? m_->mat_rgba + 4 * material : geom_rgba;
    if (m_->geom_group[g] > kLastVisibleGroup || rgba[3] <= 0.0f) return;
    const mjtNum* size = m_->geom_size + 3 * g;
    Eigen::Isometry3d X_FG = pose(m_->geom_pos + 3 * g, m_->geom_quat + 4 * g);
    Shape shape;
    switch (m_->geom_type[g]) {
      case mjGEOM_PLANE: {
        const double fallback = std::max(kMinPlaneHalf_m, kPlaneExtents * m_->stat.extent);
        const double hx = size[0] > 0 ? size[0] : fallback, hy = size[1] > 0 ? size[1] : fallback;
        const double thickness = kPlaneThickness * std::max(hx, hy);
        shape = Cuboid{2 * hx, 2 * hy, thickness};
        X_FG = X_FG * translation({0, 0, -thickness / 2});  // its top face is the plane
        break;
      }
      case mjGEOM_SPHERE: shape = Sphere{size[0], kDefaultSphereResolution}; break;
      case mjGEOM_CAPSULE: shape = capsule(size[0], size[1]); break;
      case mjGEOM_ELLIPSOID: shape = ellipsoid({size[0], size[1], size[2]}); break;
      case mjGEOM_CYLINDER: shape = Cylinder{size[0], 2 * size[1], 'z', kDefaultResolution}; break;
      case mjGEOM_BOX: shape = Cuboid{2 * size[0], 2 * size[1], 2 * size[2]}; break;
      case mjGEOM_MESH: {
        const int id = m_->geom_dataid[g];
        auto [it, added] = meshes_.try_emplace(id);
        if (added) it->second = compiled_mesh(m_, id);
        shape = it->second;
        break;
      }
      default:
        return;  // a height field: not drawn (docs/scenes.md)
    }
    const int frame = body_frame_[static_cast<std::size_t>(m_->geom_bodyid[g])];
    const std::string id = local_name(name_of(m_, mjOBJ_GEOM, g), "geom", g, geom_ids_);
    const SourceLocation where{file_, 0};
    builder_.add_geometry(frame, id, std::move(shape), X_FG, where);
    builder_.add_render(frame, {.ref = id, .rgb = {rgba[0], rgba[1], rgba[2]}, .opacity = rgba[3], .where = where});
  }

  fs::path file_;
  const mjModel* m_;
  mjcf::SceneJoints joints_;
  std::set<int> scene_joint_ids_;  // MuJoCo joints that are scene joints (not cosim.internal_joints)
  SceneBuilder builder_;
  std::vector<int> body_frame_;   // per body: the frame its geoms and children hang from
  std::vector<char> body_moves_;  // per body: a driven joint moves it
  std::map<int, TriangleMesh> meshes_;  // MuJoCo mesh id -> its triangles, shared by its geoms
  std::set<std::string> frame_names_, probe_names_, geom_ids_;
  std::size_t probes_ = 0;
};

SceneModel read_mjcf(const fs::path& given, const LoadOptions& /*options*/) {
  std::error_code ec;
  const fs::path file = fs::canonical(given, ec);
  if (ec) throw SceneError({given, 0}, "cannot read file: " + ec.message());
  mjcf::ModelPtr model;
  try {
    model = mjcf::load_model(file);
  } catch (const mjcf::ModelError& e) {
    throw scene_error(file, e);
  }
  return MjcfReader(file, model.get()).read();
}

}  // namespace

const SceneReader kMjcfSceneReader{"MuJoCo model", "an .xml file whose root element is <mujoco>", &accepts_mjcf, &read_mjcf};

}  // namespace cosim::scene::detail
