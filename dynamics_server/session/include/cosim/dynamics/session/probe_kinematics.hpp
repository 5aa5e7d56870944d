#pragma once
/// \file
/// The dynamic side of the probe comparison: backend joint values through the scene's
/// kinematic tree to world probe positions.

#include <span>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/dynamics/backend.hpp"
#include "cosim/scene/probe_set.hpp"
#include "cosim/scene/scene.hpp"

namespace cosim::dynamics::session {

/// Maps a backend's joint values onto a scene and computes the probes' world positions (the
/// scene's ProbeSet, as every side). Holds preallocated state: positions() does not allocate.
class ProbeKinematics {
 public:
  /// `backend_joints` must equal the scene's driven joints (in any order), and where
  /// `backend_kinds` (empty, or one per joint: Backend::joint_kinds()) knows a joint's kind,
  /// it must be the scene joint's drive; `probe_names` empty means every probe of the scene.
  /// `scene_label` names the scene in messages, `backend_label` the backend ("backend mujoco
  /// (model /x/arm.xml)"). Throws util::BadInputError naming the joints that differ (for a
  /// kind: both kinds and the scene joint's file and line) or the unknown probe.
  ProbeKinematics(const scene::SceneModel& scene, std::span<const std::string> backend_joints,
                  std::vector<std::string> probe_names, const std::string& scene_label,
                  const std::string& backend_label = "backend", std::span<const JointKind> backend_kinds = {});

  const scene::SceneModel& scene() const { return scene_; }
  /// The compared probes, in report order.
  const std::vector<std::string>& probe_names() const { return probe_names_; }
  /// dynamics.csv column name of each backend joint: name + "_m" (prismatic) or "_rad".
  std::vector<std::string> joint_columns(std::span<const std::string> backend_joints) const;

  /// World positions p_WP [m] of probe_names() for backend joint values q at time t_s.
  /// An output step and a frame often fall on one time: the kinematics run once per t_s.
  std::span<const Eigen::Vector3d> positions(double t_s, std::span<const double> q);

 private:
  // Backend joint → scene joint; throws naming the joints that differ.
  static std::vector<int> joint_indices(const scene::SceneModel& scene, std::span<const std::string> backend_joints,
                                        const std::string& scene_label, const std::string& backend_label,
                                        std::span<const JointKind> backend_kinds);
  // The scene's default probes when `names` is empty (then filled); throws for an unknown name.
  static std::vector<int> probe_indices(const scene::SceneModel& scene, std::vector<std::string>& names,
                                        const std::string& scene_label);

  const scene::SceneModel& scene_;
  std::vector<int> scene_index_of_joint_;  // backend joint -> scene joint
  std::vector<std::string> probe_names_;
  scene::ProbeSet probes_;                 // the compared probes, in probe_names_ order
  std::vector<double> q_scene_;
  double computed_at_s_;
};

}  // namespace cosim::dynamics::session
