#include "cosim/scene/joint_match.hpp"

#include <algorithm>

#include "cosim/util/text.hpp"

namespace cosim::scene {

const char* drive_type_name(DriveType drive) {
  switch (drive) {
    case DriveType::fixed:
      return "fixed";
    case DriveType::revolute:
      return "revolute";
    case DriveType::prismatic:
      return "prismatic";
  }
  return "?";
}

std::string JointMatch::describe(const std::string& not_listed_phrase, const std::string& list_owner) const {
  std::string out;
  if (!missing_in_scene.empty()) out += "not in the scene: " + util::join(missing_in_scene);
  if (!missing_in_list.empty()) {
    if (!out.empty()) out += "; ";
    out += not_listed_phrase + ": " + util::join(missing_in_list);
  }
  for (const DriveMismatch& m : drive_mismatch) {
    if (!out.empty()) out += "; ";
    std::string where = m.where.file.string();
    if (m.where.line > 0) {
      where += ':';  // two steps: GCC 12 warns falsely (-Wrestrict) on ':' + std::to_string(n)
      where += std::to_string(m.where.line);
    }
    out += "joint " + m.name + " is " + drive_type_name(m.listed) + " in " + list_owner + ", " +
           drive_type_name(m.scene) + " in the scene (" + where + ")";
  }
  return out;
}

JointMatch match_joints(std::span<const std::string> names, const SceneModel& scene,
                        std::span<const std::optional<DriveType>> drives) {
  JointMatch match;
  match.scene_index.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const int index = scene.find_joint(name);
    if (index < 0) match.missing_in_scene.push_back(name);
    match.scene_index.push_back(index);
    // A known drive must be the scene's: a slide joint named like a revolute one moves another way.
    const int frame = index < 0 || i >= drives.size() || !drives[i] ? -1 : scene.find_frame(name);
    if (frame >= 0) {
      const Frame& f = scene.frames()[static_cast<std::size_t>(frame)];
      if (f.drive != *drives[i]) match.drive_mismatch.push_back({name, *drives[i], f.drive, f.where});
    }
  }
  for (const auto& name : scene.joint_names()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) match.missing_in_list.push_back(name);
  }
  return match;
}

}  // namespace cosim::scene
