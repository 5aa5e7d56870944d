#include "mujoco_joints.hpp"

#include <cmath>
#include <numbers>

#include "cosim/dynamics/mujoco_backend.hpp"

namespace cosim::dynamics {
namespace {

constexpr const char* kFreeAxes[6] = {"x", "y", "z", "yaw", "pitch", "roll"};

// The scene's name rule (docs/scenes.md "Names and scopes"): names become path segments.
bool is_scene_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.front() == '-') return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string body_name(const mjModel* m, int joint) {
  const char* name = mj_id2name(m, mjOBJ_BODY, m->jnt_bodyid[joint]);
  return name != nullptr && *name != '\0' ? "'" + std::string(name) + "'"
                                          : "#" + std::to_string(m->jnt_bodyid[joint]);
}

// The joint's name, checked to be usable as a scene name.
std::string joint_name(const mjModel* m, int joint, const std::string& file) {
  const char* name = mj_id2name(m, mjOBJ_JOINT, joint);
  if (name == nullptr || *name == '\0') {
    throw ParamError(file + ": joint #" + std::to_string(joint) + " (in body " + body_name(m, joint) +
                     ") has no name; name every joint: it becomes a scene joint");
  }
  if (!is_scene_name(name)) {
    throw ParamError(file + ": joint name '" + std::string(name) +
                     "' is not a scene name: use letters, digits, '_', '-', '.' (not first)");
  }
  return name;
}

// Shortest signed difference a − b of two angles [rad], in [−π, π].
double angle_difference(double a, double b) { return std::remainder(a - b, 2.0 * std::numbers::pi); }

}  // namespace

std::array<double, 3> yaw_pitch_roll_rad(const std::array<double, 4>& quat_wxyz) {
  const double norm = std::sqrt(quat_wxyz[0] * quat_wxyz[0] + quat_wxyz[1] * quat_wxyz[1] +
                                quat_wxyz[2] * quat_wxyz[2] + quat_wxyz[3] * quat_wxyz[3]);
  const double w = quat_wxyz[0] / norm, x = quat_wxyz[1] / norm, y = quat_wxyz[2] / norm, z = quat_wxyz[3] / norm;
  // The rotation matrix entries that Rz(ψ)·Ry(θ)·Rx(φ) determines the angles from.
  const double r00 = 1.0 - 2.0 * (y * y + z * z);
  const double r10 = 2.0 * (x * y + w * z);
  const double r20 = 2.0 * (x * z - w * y);  // −sin θ
  const double r21 = 2.0 * (y * z + w * x);
  const double r22 = 1.0 - 2.0 * (x * x + y * y);
  // atan2 rather than asin: accurate near θ = ±π/2 too.
  return {std::atan2(r10, r00), std::atan2(-r20, std::hypot(r00, r10)), std::atan2(r21, r22)};
}

JointMap map_joints(const mjModel* m, const std::string& file) {
  JointMap map;
  map.model_name = m->names;  // the model's name is the first of m->names
  if (!is_scene_name(map.model_name)) {
    throw ParamError(file + ": model name '" + map.model_name +
                     "' is not a scene name: write <mujoco model=\"Name\"> with letters, digits, '_', '-', '.'");
  }
  for (int j = 0; j < m->njnt; ++j) {
    const std::string name = joint_name(m, j, file);
    const std::string scoped = map.model_name + "/" + name;
    const int adr = m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        map.scene_names.push_back(scoped);
        map.entries.push_back({JointMap::Source::kScalar, adr, 0});
        break;
      case mjJNT_FREE:
        for (int axis = 0; axis < 6; ++axis) {
          map.scene_names.push_back(scoped + "/" + kFreeAxes[axis]);
          const auto source = axis < 3 ? JointMap::Source::kFreePosition : JointMap::Source::kFreeAngle;
          map.entries.push_back({source, adr, axis % 3});
        }
        break;
      default:
        throw ParamError(file + ": joint '" + name + "' (in body " + body_name(m, j) +
                         ") is a ball joint, which has no scene joint: use three hinges instead");
    }
  }
  if (map.entries.empty()) throw ParamError(file + ": the model has no joint: nothing to drive in a scene");
  return map;
}

void scene_joint_values(const JointMap& map, const mjModel* m, const mjtNum* qpos, std::span<const double> near,
                  std::span<double> q) {
  for (std::size_t i = 0; i < map.entries.size(); ++i) {
    const JointMap::Entry& e = map.entries[i];
    switch (e.source) {
      case JointMap::Source::kScalar:
        q[i] = qpos[e.qpos_adr] - m->qpos0[e.qpos_adr];  // 0 in the model's reference pose
        break;
      case JointMap::Source::kFreePosition:
        q[i] = qpos[e.qpos_adr + e.axis];
        break;
      case JointMap::Source::kFreeAngle: {
        const mjtNum* quat = qpos + e.qpos_adr + 3;
        const double angle = yaw_pitch_roll_rad({quat[0], quat[1], quat[2], quat[3]})[static_cast<std::size_t>(e.axis)];
        q[i] = near[i] + angle_difference(angle, near[i]);
        break;
      }
    }
  }
}

}  // namespace cosim::dynamics
