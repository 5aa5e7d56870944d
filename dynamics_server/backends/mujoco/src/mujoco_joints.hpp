#pragma once
/// @file
/// The scene joint values of a MuJoCo state, by the joint rule of cosim::mjcf (a hinge or slide
/// joint is one scene joint, a free joint six, a ball joint three; MODEL.md §2).

#include <span>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "cosim/dynamics/backend.hpp"
#include "cosim/mjcf/mjcf.hpp"

namespace cosim::dynamics::mujoco {

/// The model's scene joints and their kinds, in joint order.
struct JointMap {
  std::string model_name;                 ///< <mujoco model="...">
  std::vector<std::string> scene_names;   ///< "<model>/<joint>", "<model>/<free joint>/yaw", ...
  std::vector<mjcf::SceneJoint> entries;  ///< scene_names order
  std::vector<JointKind> kinds;           ///< scene_names order
};

/// Maps the joints of `m`, loaded from `file`: mjcf::scene_joints, its ModelError as a
/// ParamError.
JointMap map_joints(const mjModel* m, const std::string& file);

/// Scene joint values of the state `qpos` into `q` (joint order). The angles of free and ball
/// joints are unwrapped to lie within π of `near` (the previous sample), so they are continuous
/// in time. Does not allocate.
void scene_joint_values(const JointMap& map, const mjModel* m, const mjtNum* qpos, std::span<const double> near,
                        std::span<double> q);

}  // namespace cosim::dynamics::mujoco
