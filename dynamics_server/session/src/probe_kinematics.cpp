#include "cosim/dynamics/session/probe_kinematics.hpp"

#include <limits>
#include <optional>

#include "cosim/scene/joint_match.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::dynamics::session {

ProbeKinematics::ProbeKinematics(const scene::SceneModel& scene, std::span<const std::string> backend_joints,
                                 std::vector<std::string> probe_names, const std::string& scene_label,
                                 const std::string& backend_label, std::span<const JointKind> backend_kinds)
    : scene_(scene), probe_names_(std::move(probe_names)), computed_at_s_(std::numeric_limits<double>::quiet_NaN()) {
  // Every backend joint must be a driven scene joint and the reverse (docs/protocol.md), of
  // the same kind where the backend knows it.
  std::vector<std::optional<scene::DriveType>> drives(backend_kinds.size());
  for (std::size_t i = 0; i < backend_kinds.size(); ++i) {
    if (backend_kinds[i] == JointKind::revolute) drives[i] = scene::DriveType::revolute;
    if (backend_kinds[i] == JointKind::prismatic) drives[i] = scene::DriveType::prismatic;
  }
  const scene::JointMatch match = scene::match_joints(backend_joints, scene_, drives);
  if (!match.ok()) {
    throw util::BadInputError(backend_label + " and scene " + scene_label + " disagree on joints: " +
                              match.describe("driven by the scene but not by the backend", "the backend"));
  }
  scene_index_of_joint_ = match.scene_index;
  if (probe_names_.empty()) {
    for (const auto& probe : scene_.probes()) probe_names_.push_back(probe.name);
  }
  for (const auto& name : probe_names_) {
    const int index = scene_.find_probe(name);
    if (index < 0) throw util::BadInputError("--probe " + name + ": no such probe in scene " + scene_label);
    probe_index_.push_back(index);
  }
  q_scene_.assign(scene_.joint_names().size(), 0.0);
  X_WF_.assign(scene_.frames().size(), Eigen::Isometry3d::Identity());
  p_WP_all_.assign(scene_.probes().size(), Eigen::Vector3d::Zero());
  p_WP_.assign(probe_names_.size(), Eigen::Vector3d::Zero());
}

std::vector<std::string> ProbeKinematics::joint_columns(std::span<const std::string> backend_joints) const {
  std::vector<std::string> columns;
  for (const auto& name : backend_joints) {
    const int frame = scene_.find_frame(name);
    const bool prismatic = frame >= 0 && scene_.frames()[static_cast<std::size_t>(frame)].drive == scene::DriveType::prismatic;
    columns.push_back(name + (prismatic ? "_m" : "_rad"));
  }
  return columns;
}

std::span<const Eigen::Vector3d> ProbeKinematics::positions(double t_s, std::span<const double> q) {
  if (t_s != computed_at_s_) {
    for (std::size_t i = 0; i < q.size(); ++i) q_scene_[static_cast<std::size_t>(scene_index_of_joint_[i])] = q[i];
    scene_.world_transforms(q_scene_, X_WF_);
    scene_.probe_positions(X_WF_, p_WP_all_);
    for (std::size_t i = 0; i < probe_index_.size(); ++i) p_WP_[i] = p_WP_all_[static_cast<std::size_t>(probe_index_[i])];
    computed_at_s_ = t_s;
  }
  return p_WP_;
}

}  // namespace cosim::dynamics::session
