#pragma once

#include <span>
#include <string>
#include <vector>

#include "cosim/scene/scene.hpp"

namespace cosim::scene {

/// How a list of joint names (a backend's, a Hello's) maps onto a scene's driven joints.
struct JointMatch {
  std::vector<int> scene_index;               ///< per listed name: index into joint_names(), -1 if absent
  std::vector<std::string> missing_in_scene;  ///< listed, but not a driven joint of the scene
  std::vector<std::string> missing_in_list;   ///< driven by the scene, but not listed
  bool ok() const { return missing_in_scene.empty() && missing_in_list.empty(); }
  /// "not in the scene: a, b; driven by the scene but not sent: c" (empty when ok()).
  std::string describe(const std::string& not_listed_phrase) const;
};

/// Both directions matter: a listed joint the scene lacks cannot be shown, and a driven scene
/// joint nobody sends would silently stay at zero.
JointMatch match_joints(std::span<const std::string> names, const SceneModel& scene);

}  // namespace cosim::scene
