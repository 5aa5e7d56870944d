#include "cosim/dynamics/session/probe_kinematics.hpp"

#include <limits>
#include <optional>

#include "cosim/scene/joint_match.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::dynamics::session {

ProbeKinematics::ProbeKinematics(const scene::SceneModel& scene, std::span<const std::string> backend_joints,
                                 std::vector<std::string> probe_names, const std::string& scene_label,
                                 const std::string& backend_label, std::span<const JointKind> backend_kinds)
    : scene_(scene),
      scene_index_of_joint_(joint_indices(scene, backend_joints, scene_label, backend_label, backend_kinds)),
      probe_names_(std::move(probe_names)),
      probes_(scene, probe_indices(scene, probe_names_, scene_label)),
      q_scene_(scene.joint_names().size(), 0.0),
      computed_at_s_(std::numeric_limits<double>::quiet_NaN()) {}

std::vector<int> ProbeKinematics::joint_indices(const scene::SceneModel& scene,
                                                std::span<const std::string> backend_joints,
                                                const std::string& scene_label, const std::string& backend_label,
                                                std::span<const JointKind> backend_kinds) {
  // Every backend joint must be a driven scene joint and the reverse (docs/protocol.md), of
  // the same kind where the backend knows it.
  std::vector<std::optional<scene::DriveType>> drives(backend_kinds.size());
  for (std::size_t i = 0; i < backend_kinds.size(); ++i) {
    if (backend_kinds[i] == JointKind::revolute) drives[i] = scene::DriveType::revolute;
    if (backend_kinds[i] == JointKind::prismatic) drives[i] = scene::DriveType::prismatic;
  }
  const scene::JointMatch match = scene::match_joints(backend_joints, scene, drives);
  if (!match.ok()) {
    throw util::BadInputError(backend_label + " and scene " + scene_label + " disagree on joints: " +
                              match.describe("driven by the scene but not by the backend", "the backend"));
  }
  return match.scene_index;
}

std::vector<int> ProbeKinematics::probe_indices(const scene::SceneModel& scene, std::vector<std::string>& names,
                                                const std::string& scene_label) {
  if (names.empty()) {
    for (const int p : scene.default_probes()) names.push_back(scene.probes()[static_cast<std::size_t>(p)].name);
  }
  std::vector<int> indices;
  for (const auto& name : names) {
    const int index = scene.find_probe(name);
    if (index < 0) throw util::BadInputError("--probe " + name + ": no such probe in scene " + scene_label);
    indices.push_back(index);
  }
  return indices;
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
    probes_.set_joints(q_scene_);
    probes_.locate();
    computed_at_s_ = t_s;
  }
  return probes_.reported();
}

}  // namespace cosim::dynamics::session
