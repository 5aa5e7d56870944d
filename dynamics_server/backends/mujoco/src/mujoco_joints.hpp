#pragma once
/// @file
/// MuJoCo joints as scene joints: a hinge or slide joint is one scene joint, a free joint six
/// (x, y, z, yaw, pitch, roll), a ball joint is refused (MODEL.md §2).

#include <span>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "cosim/dynamics/backend.hpp"

namespace cosim::dynamics::mujoco {

/// Where each scene joint's value comes from in qpos.
struct JointMap {
  enum class Source {
    kScalar = 1,    ///< hinge or slide: qpos[adr] − qpos0[adr]
    kFreePosition,  ///< free joint: qpos[adr + axis] (world x, y, z [m])
    kFreeAngle,     ///< free joint: yaw, pitch or roll of the quaternion at qpos[adr + 3]
  };
  struct Entry {
    Source source;
    int qpos_adr;  ///< the joint's first qpos index
    int axis;      ///< free joint: 0..2 (x, y, z or yaw, pitch, roll)
  };

  std::string model_name;                 ///< <mujoco model="...">
  std::vector<std::string> scene_names;   ///< "<model>/<joint>", "<model>/<free joint>/yaw", ...
  std::vector<Entry> entries;             ///< scene_names order
  std::vector<JointKind> kinds;           ///< scene_names order: hinge and free angles revolute, slide and free positions prismatic
};

/// <custom> text of the model listing joints that are simulated but are not scene joints.
inline constexpr const char* kInternalJointsText = "cosim.internal_joints";

/// The data of the model's <custom><text name="`name`">, empty if it has none.
std::string model_text(const mjModel* m, const char* name);

/// Maps the joints of `m`, loaded from `file` (named in messages). Throws ParamError for a
/// model or joint name that is not a scene name (joint names may be scoped by '/': a joint
/// "Wheel_1/roller1" is the scene joint "<model>/Wheel_1/roller1"), an unnamed joint, or a ball
/// joint. The joints kInternalJointsText lists are left out (a name it lists that is not a
/// joint of the model is a ParamError).
JointMap map_joints(const mjModel* m, const std::string& file);

/// Scene joint values of the state `qpos` into `q` (joint order). A free joint's angles are
/// unwrapped to lie within π of `near` (the previous sample), so they are continuous in time.
/// Does not allocate.
void scene_joint_values(const JointMap& map, const mjModel* m, const mjtNum* qpos, std::span<const double> near,
                  std::span<double> q);

}  // namespace cosim::dynamics::mujoco
