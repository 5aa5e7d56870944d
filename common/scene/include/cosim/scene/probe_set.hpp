#pragma once
/// @file
/// The one frame pipeline every side runs: joint values → X_WF of every frame → p_WP of every
/// probe → the probes a program reports, in its order. cosim-dynamics (ProbeKinematics), the
/// recorder and both viewer loops use it; the viewer measures every probe on its rendered
/// actors instead of the tree (all_probes() to write, then pick()).

#include <span>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/scene/scene.hpp"

namespace cosim::scene {

/// The preallocated per-frame state of one scene and one choice of reported probes: after
/// construction nothing here allocates.
class ProbeSet {
 public:
  /// `reported`: indices into scene.probes(), in report order. Throws std::out_of_range for an
  /// index that is not a probe of `scene`. `scene` must outlive the set.
  ProbeSet(const SceneModel& scene, std::span<const int> reported);

  /// X_WF of every frame for joint values q in scene order (scene.joint_names()).
  std::span<const Eigen::Isometry3d> set_joints(std::span<const double> q_scene);
  /// p_WP [m] of the reported probes by the scene's own kinematics, from the last set_joints().
  std::span<const Eigen::Vector3d> locate();
  /// p_WP of every probe, for a caller that measures them itself (then pick()); after locate(),
  /// the tree's.
  std::span<Eigen::Vector3d> all_probes() { return p_WP_all_; }
  std::span<const Eigen::Vector3d> all_probes() const { return p_WP_all_; }
  /// The reported probes taken from all_probes().
  std::span<const Eigen::Vector3d> pick();

  /// The last results.
  std::span<const Eigen::Isometry3d> frames() const { return X_WF_; }
  std::span<const Eigen::Vector3d> reported() const { return p_WP_; }
  std::span<const int> reported_indices() const { return reported_; }

 private:
  const SceneModel* scene_;
  std::vector<int> reported_;
  std::vector<Eigen::Isometry3d> X_WF_;
  std::vector<Eigen::Vector3d> p_WP_all_;
  std::vector<Eigen::Vector3d> p_WP_;
};

}  // namespace cosim::scene
