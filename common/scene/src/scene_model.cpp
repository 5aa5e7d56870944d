#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/scene/scene.hpp"

namespace cosim::scene {
namespace {

template <class Map>
int find_in(const Map& map, std::string_view key) {
  const auto it = map.find(key);
  return it == map.end() ? -1 : it->second;
}

[[noreturn]] void size_mismatch(const char* what, std::size_t expected, std::size_t got) {
  throw std::invalid_argument("expected " + std::to_string(expected) + " " + what + ", got " +
                              std::to_string(got));
}

}  // namespace

int SceneModel::find_frame(std::string_view scoped_name) const {
  return find_in(frame_index_, scoped_name);
}
int SceneModel::find_joint(std::string_view scoped_name) const {
  return find_in(joint_index_, scoped_name);
}
int SceneModel::find_probe(std::string_view scoped_name) const {
  return find_in(probe_index_, scoped_name);
}

bool SceneModel::frame_moves(int frame) const {
  for (int f = frame; f >= 0; f = frames_[static_cast<std::size_t>(f)].parent) {
    if (frames_[static_cast<std::size_t>(f)].joint_index >= 0) return true;
  }
  return false;
}

std::vector<int> SceneModel::default_probes() const {
  std::vector<int> chosen;
  for (std::size_t p = 0; p < probes_.size(); ++p) {
    if (!probes_[p].generated) chosen.push_back(static_cast<int>(p));
  }
  if (!chosen.empty() || probes_.empty()) return chosen;
  for (std::size_t p = 0; p < probes_.size(); ++p) {
    if (frame_moves(probes_[p].frame)) return {static_cast<int>(p)};
  }
  return {0};
}

void SceneModel::world_transforms(std::span<const double> q,
                                  std::span<Eigen::Isometry3d> X_WF) const {
  if (q.size() != joint_names_.size()) size_mismatch("joint values", joint_names_.size(), q.size());
  if (X_WF.size() != frames_.size()) size_mismatch("frame transforms", frames_.size(), X_WF.size());
  for (std::size_t j = 0; j < q.size(); ++j) {
    if (!std::isfinite(q[j])) {
      throw std::invalid_argument("joint value " + std::to_string(j) + " (" + joint_names_[j] +
                                  ") is not finite");
    }
  }

  // Parents come before children, so one forward pass suffices.
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    const Frame& f = frames_[i];
    const double v = f.offset + (f.joint_index >= 0 ? q[f.joint_index] : 0.0);
    Eigen::Isometry3d X_JD = Eigen::Isometry3d::Identity();
    if (f.drive == DriveType::revolute) {
      X_JD.linear() = Eigen::AngleAxisd(v, f.axis_J).toRotationMatrix();
    } else if (f.drive == DriveType::prismatic) {
      X_JD.translation() = v * f.axis_J;
    }
    const Eigen::Isometry3d X_PC = f.X_PJ * X_JD * f.X_DC;
    X_WF[i] = f.parent < 0 ? X_PC : X_WF[f.parent] * X_PC;
  }
}

void SceneModel::probe_positions(std::span<const Eigen::Isometry3d> X_WF,
                                 std::span<Eigen::Vector3d> p_WP) const {
  if (X_WF.size() != frames_.size()) size_mismatch("frame transforms", frames_.size(), X_WF.size());
  if (p_WP.size() != probes_.size()) size_mismatch("probe positions", probes_.size(), p_WP.size());
  for (std::size_t i = 0; i < probes_.size(); ++i) {
    p_WP[i] = X_WF[probes_[i].frame] * probes_[i].p_FP_m;
  }
}

}  // namespace cosim::scene
