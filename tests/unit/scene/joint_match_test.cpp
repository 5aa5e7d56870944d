// match_joints: a list of joint names against a scene's driven joints, both ways, and the
// drives where the list's owner knows them (a slide joint is not a revolute one).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cosim/scene/joint_match.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "scene_test_support.hpp"

namespace {

using namespace cosim::scene;
using namespace cosim::scene::test;

// Arm/shoulder revolute (written at arm.xml:7), Arm/slider prismatic.
SceneModel arm_with_slider() {
  SceneBuilder b;
  b.set_name("Arm");
  b.set_root(fs::current_path().root_path() / "scene");
  const int arm = b.add_instance(-1, "Arm", Isometry3d::Identity());
  const int shoulder = b.add_joint(arm, {.name = "shoulder", .drive = DriveType::revolute, .driven = true,
                                         .where = SourceLocation{"/scene/arm.xml", 7}});
  b.add_joint(shoulder, {.name = "slider", .drive = DriveType::prismatic, .driven = true});
  return std::move(b).build();
}

const std::vector<std::string> kNames{"Arm/slider", "Arm/shoulder"};

TEST(JointMatch, NamesMatchInAnyOrder) {
  const JointMatch match = match_joints(kNames, arm_with_slider());
  EXPECT_TRUE(match.ok()) << match.describe("not sent");
  EXPECT_EQ(match.scene_index, (std::vector<int>{1, 0}));
}

TEST(JointMatch, NamesMissingEitherWayAreListed) {
  const std::vector<std::string> names{"Arm/shoulder", "Arm/elbow"};
  const JointMatch match = match_joints(names, arm_with_slider());
  EXPECT_FALSE(match.ok());
  EXPECT_EQ(match.describe("not sent"), "not in the scene: Arm/elbow; not sent: Arm/slider");
}

TEST(JointMatch, KnownDrivesMustBeTheScenes) {
  using Drives = std::vector<std::optional<DriveType>>;
  const SceneModel scene = arm_with_slider();
  EXPECT_TRUE(match_joints(kNames, scene, Drives{DriveType::prismatic, DriveType::revolute}).ok());
  EXPECT_TRUE(match_joints(kNames, scene, Drives{std::nullopt, std::nullopt}).ok()) << "not known: names only";
  EXPECT_TRUE(match_joints(kNames, scene, Drives{}).ok());

  const JointMatch swapped = match_joints(kNames, scene, Drives{std::nullopt, DriveType::prismatic});
  ASSERT_EQ(swapped.drive_mismatch.size(), 1u);
  EXPECT_EQ(swapped.drive_mismatch[0].name, "Arm/shoulder");
  EXPECT_EQ(swapped.drive_mismatch[0].listed, DriveType::prismatic);
  EXPECT_EQ(swapped.drive_mismatch[0].scene, DriveType::revolute);
  EXPECT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.describe("not sent", "the backend"),
            "joint Arm/shoulder is prismatic in the backend, revolute in the scene (/scene/arm.xml:7)");
}

}  // namespace
