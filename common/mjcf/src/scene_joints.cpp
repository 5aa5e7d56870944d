// The one rule naming a MuJoCo model's joints as scene joints (mjcf.hpp).
#include <algorithm>
#include <cmath>

#include <mujoco/mujoco.h>

#include "cosim/mjcf/mjcf.hpp"

namespace cosim::mjcf {
namespace {

constexpr const char* kFreeParts[6] = {"x", "y", "z", "yaw", "pitch", "roll"};

// A joint name may be scoped like a scene joint, "Wheel_1/roller1": scene names joined by '/'.
bool is_scoped_scene_name(std::string_view name) {
  for (std::size_t start = 0;;) {
    const std::size_t slash = name.find('/', start);
    if (!is_scene_name(name.substr(start, slash - start))) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

// The joints the model's <custom><text name="cosim.internal_joints"> lists (separated by
// spaces or commas): simulated, but not scene joints. Each must be a joint of the model.
std::vector<std::string> internal_joints(const mjModel* m, const std::string& file) {
  std::vector<std::string> names;
  const std::string list = model_text(m, kInternalJointsText);
  std::size_t start = 0;
  while ((start = list.find_first_not_of(" ,\t", start)) != std::string::npos) {
    const std::size_t end = list.find_first_of(" ,\t", start);
    names.push_back(list.substr(start, end - start));
    if (mj_name2id(m, mjOBJ_JOINT, names.back().c_str()) < 0) {
      throw ModelError(file + ": <custom> text '" + std::string(kInternalJointsText) + "' names joint '" +
                       names.back() + "', which the model does not have");
    }
    start = end;
  }
  return names;
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
    throw ModelError(file + ": joint #" + std::to_string(joint) + " (in body " + body_name(m, joint) +
                     ") has no name; name every joint: it becomes a scene joint");
  }
  if (!is_scoped_scene_name(name)) {
    throw ModelError(file + ": joint name '" + std::string(name) +
                     "' is not a scene name: use letters, digits, '_', '-', '.' (not first), scoped by '/'");
  }
  return name;
}

}  // namespace

bool is_scene_name(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

std::string model_text(const mjModel* m, const char* name) {
  const int id = mj_name2id(m, mjOBJ_TEXT, name);
  if (id < 0) return {};
  return std::string(m->text_data + m->text_adr[id],
                     static_cast<std::size_t>(m->text_size[id] > 0 ? m->text_size[id] - 1 : 0));
}

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

SceneJoints scene_joints(const mjModel* m, const std::string& file) {
  SceneJoints out;
  out.model_name = m->names;  // the model's name is the first of m->names
  if (!is_scene_name(out.model_name)) {
    throw ModelError(file + ": model name '" + out.model_name +
                     "' is not a scene name: write <mujoco model=\"Name\"> with letters, digits, '_', '-', '.'");
  }
  const std::vector<std::string> internal = internal_joints(m, file);
  for (int j = 0; j < m->njnt; ++j) {
    if (const char* raw = mj_id2name(m, mjOBJ_JOINT, j);
        raw != nullptr && std::find(internal.begin(), internal.end(), raw) != internal.end()) {
      continue;
    }
    const std::string scoped = out.model_name + "/" + joint_name(m, j, file);
    const int adr = m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        out.joints.push_back({scoped, j, adr, JointPart::scalar, 0, m->jnt_type[j] == mjJNT_SLIDE});
        break;
      case mjJNT_FREE:
        for (int part = 0; part < 6; ++part) {
          out.joints.push_back({scoped + "/" + kFreeParts[part], j, adr,
                                part < 3 ? JointPart::free_position : JointPart::free_angle, part % 3, part < 3});
        }
        break;
      case mjJNT_BALL:
        for (int part = 3; part < 6; ++part) {
          out.joints.push_back({scoped + "/" + kFreeParts[part], j, adr, JointPart::ball_angle, part - 3, false});
        }
        break;
      default:
        throw ModelError(file + ": joint '" + scoped + "' has MuJoCo joint type " + std::to_string(m->jnt_type[j]) +
                         ", which this build does not know");
    }
  }
  if (out.joints.empty()) throw ModelError(file + ": the model has no joint: nothing to drive in a scene");
  return out;
}

}  // namespace cosim::mjcf
