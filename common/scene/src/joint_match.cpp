#include "cosim/scene/joint_match.hpp"

#include <algorithm>

namespace cosim::scene {

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

std::string JointMatch::describe(const std::string& not_listed_phrase) const {
  std::string out;
  if (!missing_in_scene.empty()) out += "not in the scene: " + join(missing_in_scene);
  if (!missing_in_list.empty()) {
    if (!out.empty()) out += "; ";
    out += not_listed_phrase + ": " + join(missing_in_list);
  }
  return out;
}

JointMatch match_joints(std::span<const std::string> names, const SceneModel& scene) {
  JointMatch match;
  match.scene_index.reserve(names.size());
  for (const auto& name : names) {
    const int index = scene.find_joint(name);
    if (index < 0) match.missing_in_scene.push_back(name);
    match.scene_index.push_back(index);
  }
  for (const auto& name : scene.joint_names()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) match.missing_in_list.push_back(name);
  }
  return match;
}

}  // namespace cosim::scene
