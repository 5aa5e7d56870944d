// A URDF given to the mujoco backend (model=robot.urdf): its package:// meshes are found through
// the same package path as the URDF scene's, with the scene reader's words when they are not;
// a floating joint from the link "world" is MuJoCo's free joint and the scene's floating joint
// at once (same joints, same poses); what MuJoCo and the scene would disagree on, or cannot
// simulate, is refused saying what to write.
#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/mjcf/mjcf.hpp"
#include "cosim/scene/scene.hpp"
#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/test/scratch_dir.hpp"
#include "param_error.hpp"

namespace cosim::dynamics::mujoco {
namespace {

using ::testing::HasSubstr;
using cosim::test::param_error;
namespace fs = std::filesystem;

using UrdfInMujoco = cosim::test::ScratchDirTest;

const fs::path kDiffbotDir = fs::path(COSIM_EXAMPLES_DIR) / "diffbot";
const fs::path kDiffbotUrdf = kDiffbotDir / "diffbot_description" / "urdf" / "diffbot.urdf";

TEST_F(UrdfInMujoco, AUrdfsPackageMeshesAreFoundThroughThePackagePath) {
  const MujocoBackend backend(kDiffbotUrdf, {}, 0.0, {kDiffbotDir});
  const auto scene = scene::SceneModel::load(kDiffbotUrdf, {.package_path = {kDiffbotDir}});
  EXPECT_EQ(backend.model_name(), "diffbot");
  EXPECT_EQ(backend.joint_names(), std::vector<std::string>(scene.joint_names().begin(), scene.joint_names().end()));
  // Without it: the URDF scene reader's message, line and all (UrdfMjcf checks the words).
  const std::string message = param_error([&] { MujocoBackend(kDiffbotUrdf, {}, 0.0); });
  EXPECT_THAT(message, HasSubstr(kDiffbotUrdf.string() + ":22: link 'base_link': package 'diffbot_description'"));
  EXPECT_THAT(param_error([&] { MujocoBackend(kDiffbotUrdf, {}, 0.0, {dir_ / "nowhere"}); }),
              HasSubstr((dir_ / "nowhere").string() + ": package path folder does not exist"));
}

// A body on a floating joint from the world link, and an arm on it.
std::string floating_urdf(const std::string& origin) {
  return "<robot name=\"bot\">\n"
         "  <link name=\"world\"/>\n"
         "  <link name=\"body\"><inertial><mass value=\"2\"/>"
         "<inertia ixx=\"0.1\" iyy=\"0.2\" izz=\"0.3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>"
         "<visual><geometry><box size=\"0.4 0.2 0.1\"/></geometry></visual></link>\n"
         "  <link name=\"arm\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"0.5\"/>"
         "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
         "  <joint name=\"base\" type=\"floating\"><parent link=\"world\"/><child link=\"body\"/>" + origin +
         "</joint>\n"
         "  <joint name=\"shoulder\" type=\"revolute\"><parent link=\"body\"/><child link=\"arm\"/>"
         "<origin xyz=\"0.2 0.1 0.05\" rpy=\"0.3 -0.2 0.1\"/><axis xyz=\"0 1 1\"/>"
         "<limit lower=\"-2\" upper=\"2\" effort=\"1\" velocity=\"1\"/></joint>\n"
         "</robot>\n";
}

TEST_F(UrdfInMujoco, AFloatingJointFromTheWorldLinkIsMujocosFreeJointAndTheScenesFloatingJoint) {
  const fs::path file = write("bot.urdf", floating_urdf(""));
  const auto scene = scene::SceneModel::load(file);
  const MujocoBackend backend(file, {}, 0.0);
  const std::vector<std::string> joints(scene.joint_names().begin(), scene.joint_names().end());
  ASSERT_EQ(backend.joint_names(), joints);
  ASSERT_EQ(joints, (std::vector<std::string>{"bot/base/x", "bot/base/y", "bot/base/z", "bot/base/yaw", "bot/base/pitch",
                                              "bot/base/roll", "bot/shoulder"}));

  // For random poses: the scene's joint values as the backend reports them (mjcf::scene_joints'
  // rule), the scene's links against MuJoCo's bodies.
  const mjcf::ModelPtr model = mjcf::load_model(file);
  const mjModel* m = model.get();
  mjData* d = mj_makeData(m);
  const int free_adr = m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, "base")];
  const int shoulder_adr = m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, "shoulder")];
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi), offset(-2.0, 2.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());
  double worst_m = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    const Eigen::Vector3d p(offset(rng), offset(rng), offset(rng));
    const Eigen::Quaterniond quat = Eigen::Quaterniond::UnitRandom();
    const double shoulder = angle(rng);
    for (int a = 0; a < 3; ++a) d->qpos[free_adr + a] = p(a);
    d->qpos[free_adr + 3] = quat.w();
    d->qpos[free_adr + 4] = quat.x();
    d->qpos[free_adr + 5] = quat.y();
    d->qpos[free_adr + 6] = quat.z();
    d->qpos[shoulder_adr] = m->qpos0[shoulder_adr] + shoulder;
    mj_kinematics(m, d);
    const auto ypr = mjcf::yaw_pitch_roll_rad({quat.w(), quat.x(), quat.y(), quat.z()});
    const std::vector<double> q{p(0), p(1), p(2), ypr[0], ypr[1], ypr[2], shoulder};
    scene.world_transforms(q, X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (std::size_t k = 0; k < scene.probes().size(); ++k) {
      const std::string& name = scene.probes()[k].name;  // bot/world, bot/body, bot/arm
      const int body = name == "bot/world" ? 0 : mj_name2id(m, mjOBJ_BODY, name.substr(4).c_str());
      ASSERT_GE(body, 0) << name;
      for (int a = 0; a < 3; ++a) worst_m = std::max(worst_m, std::abs(p_WP[k](a) - d->xpos[3 * body + a]));
    }
  }
  // The same rotations and translations composed in double (the angles through atan2/asin): 1e-15.
  EXPECT_LE(worst_m, 1e-12);
  mj_deleteData(d);
}

TEST_F(UrdfInMujoco, AUrdfMujocoAndTheSceneWouldReadDifferentlyIsRefusedSayingWhatToWrite) {
  // A floating joint with an origin: MuJoCo's free joint gives the world pose, the scene puts
  // it after the origin; they would draw the robot in two places.
  const fs::path file = write("moved.urdf", floating_urdf("<origin xyz=\"0 0 0.3\"/>"));
  const std::string message = param_error([&] { MujocoBackend(file, {}, 0.0); });
  EXPECT_THAT(message, HasSubstr(file.string() + ":5: floating joint 'base' has an <origin>"));
  EXPECT_THAT(message, HasSubstr("remove the <origin>"));
  // A zero origin is no origin.
  EXPECT_NO_THROW(MujocoBackend(write("zero.urdf", floating_urdf("<origin xyz=\"0 0 0\" rpy=\"0 0 0\"/>")), {}, 0.0));
  // A link that moves without an <inertial>: MuJoCo's words, then what to add.
  const fs::path arm = fs::path(COSIM_EXAMPLES_DIR) / "urdf_arm" / "arm.urdf";
  const std::string massless = param_error([&] { MujocoBackend(arm, {}, 0.0, {fs::path(COSIM_EXAMPLES_DIR) / "urdf_arm"}); });
  EXPECT_THAT(massless, HasSubstr("mass and inertia of moving bodies must be larger than mjMINVAL"));
  EXPECT_THAT(massless, HasSubstr("in a URDF an <inertial> with <mass> and <inertia> on the link"));
}

}  // namespace
}  // namespace cosim::dynamics::mujoco
