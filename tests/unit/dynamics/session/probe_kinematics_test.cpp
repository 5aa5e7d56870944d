// ProbeKinematics' joint check: the backend's joints against the scene's driven joints, by
// name and, where the backend knows it, by kind.
#include "cosim/dynamics/session/probe_kinematics.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/scene/scene_builder.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::dynamics::session {
namespace {

using ::testing::HasSubstr;

// Arm/swing revolute, written at /scene/arm.xml:3.
scene::SceneModel arm() {
  scene::SceneBuilder b;
  b.set_name("Arm");
  b.set_root(std::filesystem::current_path().root_path() / "scene");
  const int arm = b.add_instance(-1, "Arm", Eigen::Isometry3d::Identity());
  b.add_joint(arm, {.name = "swing", .drive = scene::DriveType::revolute, .driven = true,
                    .where = scene::SourceLocation{"/scene/arm.xml", 3}});
  return std::move(b).build();
}

// The message of the BadInputError building ProbeKinematics throws, or "".
std::string refusal(const scene::SceneModel& scene, std::vector<JointKind> kinds) {
  const std::vector<std::string> joints{"Arm/swing"};
  try {
    ProbeKinematics(scene, joints, {}, "/scene", "backend mujoco (model /x/slide.xml)", kinds);
  } catch (const util::BadInputError& e) {
    return e.what();
  }
  return "";
}

TEST(ProbeKinematics, AJointKindTheBackendKnowsMustBeTheScenes) {
  const scene::SceneModel scene = arm();
  EXPECT_EQ(refusal(scene, {}), "") << "a backend that does not say";
  EXPECT_EQ(refusal(scene, {JointKind::unknown}), "");
  EXPECT_EQ(refusal(scene, {JointKind::revolute}), "");
  const std::string message = refusal(scene, {JointKind::prismatic});
  EXPECT_EQ(message,
            "backend mujoco (model /x/slide.xml) and scene /scene disagree on joints: joint Arm/swing is prismatic "
            "in the backend, revolute in the scene (/scene/arm.xml:3)");
}

}  // namespace
}  // namespace cosim::dynamics::session
