#include "mujoco_joints.hpp"

#include <cmath>
#include <numbers>

#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::mujoco {
namespace {

// Shortest signed difference a − b of two angles [rad], in [−π, π].
double angle_difference(double a, double b) { return std::remainder(a - b, 2.0 * std::numbers::pi); }

}  // namespace

JointMap map_joints(const mjModel* m, const std::string& file) {
  mjcf::SceneJoints joints;
  try {
    joints = mjcf::scene_joints(m, file);
  } catch (const mjcf::ModelError& e) {
    throw ParamError(e.what());
  }
  JointMap map;
  map.model_name = std::move(joints.model_name);
  for (mjcf::SceneJoint& joint : joints.joints) {
    map.scene_names.push_back(joint.name);
    map.kinds.push_back(joint.prismatic ? JointKind::prismatic : JointKind::revolute);
    map.entries.push_back(std::move(joint));
  }
  return map;
}

void scene_joint_values(const JointMap& map, const mjModel* m, const mjtNum* qpos, std::span<const double> near,
                        std::span<double> q) {
  for (std::size_t i = 0; i < map.entries.size(); ++i) {
    const mjcf::SceneJoint& e = map.entries[i];
    const auto angle = [&](const mjtNum* quat) {
      const double a = mjcf::yaw_pitch_roll_rad({quat[0], quat[1], quat[2], quat[3]})[static_cast<std::size_t>(e.axis)];
      return near[i] + angle_difference(a, near[i]);
    };
    switch (e.part) {
      case mjcf::JointPart::scalar:
        q[i] = qpos[e.qpos_adr] - m->qpos0[e.qpos_adr];  // 0 in the model's reference pose
        break;
      case mjcf::JointPart::free_position:
        q[i] = qpos[e.qpos_adr + e.axis];
        break;
      case mjcf::JointPart::free_angle:
        q[i] = angle(qpos + e.qpos_adr + 3);
        break;
      case mjcf::JointPart::ball_angle:  // MuJoCo turns the body by qpos itself, not by qpos − qpos0
        q[i] = angle(qpos + e.qpos_adr);
        break;
    }
  }
}

}  // namespace cosim::dynamics::mujoco
