#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cosim/scene/scene.hpp"

namespace cosim::scene {

/// A listed joint whose drive is not the scene joint's.
struct DriveMismatch {
  std::string name;
  DriveType listed;      ///< what the list says
  DriveType scene;       ///< the scene joint's drive
  SourceLocation where;  ///< the scene joint's file and line
};

/// How a list of joint names (a backend's, a Hello's) maps onto a scene's driven joints.
struct JointMatch {
  std::vector<int> scene_index;               ///< per listed name: index into joint_names(), -1 if absent
  std::vector<std::string> missing_in_scene;  ///< listed, but not a driven joint of the scene
  std::vector<std::string> missing_in_list;   ///< driven by the scene, but not listed
  std::vector<DriveMismatch> drive_mismatch;  ///< in both, but revolute in one and prismatic in the other
  bool ok() const { return missing_in_scene.empty() && missing_in_list.empty() && drive_mismatch.empty(); }
  /// "not in the scene: a, b; driven by the scene but not sent: c; joint d is prismatic in
  /// <list_owner>, revolute in the scene (<file>:<line>)" (empty when ok()).
  std::string describe(const std::string& not_listed_phrase, const std::string& list_owner = "the list") const;
};

/// Both directions matter: a listed joint the scene lacks cannot be shown, and a driven scene
/// joint nobody sends would silently stay at zero. `drives`, if not empty, gives per listed
/// name the drive its owner knows (revolute or prismatic) or std::nullopt where it does not
/// say; a known drive must be the scene joint's (a slide joint is not a revolute one).
JointMatch match_joints(std::span<const std::string> names, const SceneModel& scene,
                        std::span<const std::optional<DriveType>> drives = {});

/// "fixed", "revolute", "prismatic".
const char* drive_type_name(DriveType drive);

}  // namespace cosim::scene
