#include "cosim/scene/probe_set.hpp"

#include <stdexcept>
#include <string>

namespace cosim::scene {

ProbeSet::ProbeSet(const SceneModel& scene, std::span<const int> reported)
    : scene_(&scene),
      reported_(reported.begin(), reported.end()),
      X_WF_(scene.frames().size(), Eigen::Isometry3d::Identity()),
      p_WP_all_(scene.probes().size(), Eigen::Vector3d::Zero()),
      p_WP_(reported.size(), Eigen::Vector3d::Zero()) {
  for (const int index : reported_) {
    if (index < 0 || static_cast<std::size_t>(index) >= p_WP_all_.size()) {
      throw std::out_of_range("ProbeSet: probe index " + std::to_string(index) + " of a scene with " +
                              std::to_string(p_WP_all_.size()) + " probes");
    }
  }
}

std::span<const Eigen::Isometry3d> ProbeSet::set_joints(std::span<const double> q_scene) {
  scene_->world_transforms(q_scene, X_WF_);
  return X_WF_;
}

std::span<const Eigen::Vector3d> ProbeSet::locate() {
  scene_->probe_positions(X_WF_, p_WP_all_);
  return pick();
}

std::span<const Eigen::Vector3d> ProbeSet::pick() {
  for (std::size_t i = 0; i < reported_.size(); ++i) p_WP_[i] = p_WP_all_[static_cast<std::size_t>(reported_[i])];
  return p_WP_;
}

}  // namespace cosim::scene
