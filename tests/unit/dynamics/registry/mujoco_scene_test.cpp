// The mujoco backend's default scene draws its default model: the scene's probe at the bob is
// where MuJoCo puts the bob, over a whole swing. And a model read as its own scene (the MJCF
// reader) follows the backend's joint values to where MuJoCo puts every body, ball joint and
// slide included. Only in a build with MuJoCo.
#ifdef COSIM_HAVE_MUJOCO
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_locator.hpp"

namespace cosim::dynamics::registry {
namespace {

TEST(MujocoDefaultScene, TheBobProbeIsWhereMujocoPutsTheBob) {
  const BackendEntry& entry = find_backend("mujoco");
  const auto backend = entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, {}), 0.0);
  const auto scene = scene::SceneModel::load(scene::find_default_scene(entry.default_scene));
  const int probe = scene.find_probe("Pendulum/bob");
  ASSERT_GE(probe, 0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());

  // MuJoCo's kinematics of the same file at the backend's joint values.
  char error[1000] = "";
  mjModel* m = mj_loadXML(backend->model_file().c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  const int bob = mj_name2id(m, mjOBJ_GEOM, "bob");
  ASSERT_GE(bob, 0);
  for (int k = 0; k <= 30; ++k) {  // 1.5 s: the bob goes from +0.6 rad to −0.6 rad and back
    if (k > 0) backend->advance_to(k * 0.05);
    d->qpos[0] = m->qpos0[0] + backend->joint_values()[0];
    mj_kinematics(m, d);
    scene.world_transforms(backend->joint_values(), X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_NEAR(p_WP[static_cast<std::size_t>(probe)](axis), d->geom_xpos[3 * bob + axis], 1e-12)
          << "axis " << axis << " at t = " << backend->time_s();
    }
  }
  mj_deleteData(d);
  mj_deleteModel(m);
}

TEST(MujocoModelAsScene, EveryBodyOfTheSimulatedArmIsWhereMujocoPutsIt) {
  // The example arm (the scene tests' too) falls under gravity for 1 s (hinges, a slide, a ball joint).
  const std::string file = COSIM_EXAMPLES_DIR "/mjcf_arm/arm.xml";
  const BackendEntry& entry = find_backend("mujoco");
  const std::vector<std::string> overrides{"model=" + file};
  const auto backend = entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, overrides), 0.0);
  const auto scene = scene::SceneModel::load(file);
  ASSERT_EQ(std::vector<std::string>(scene.joint_names().begin(), scene.joint_names().end()),
            std::vector<std::string>(backend->joint_names().begin(), backend->joint_names().end()));
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());

  // MuJoCo stepping the same file beside it: 0.05 s is 25 of its 2 ms steps, so the backend
  // reports exactly the state MuJoCo reaches.
  char error[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  const int tool = mj_name2id(m, mjOBJ_BODY, "tool");
  Eigen::Vector3d tool_first;
  for (int k = 1; k <= 20; ++k) {
    backend->advance_to(k * 0.05);
    for (int step = 0; step < 25; ++step) mj_step(m, d);
    mj_kinematics(m, d);
    scene.world_transforms(backend->joint_values(), X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (std::size_t p = 0; p < p_WP.size(); ++p) {
      const int body = mj_name2id(m, mjOBJ_BODY, scene.probes()[p].name.substr(6).c_str());  // after "MjArm/"
      ASSERT_GE(body, 0) << scene.probes()[p].name;
      const Eigen::Vector3d mujoco(d->xipos[3 * body], d->xipos[3 * body + 1], d->xipos[3 * body + 2]);
      // Angles through yaw-pitch-roll and back: rounding of a few 1e-16 per joint, times lever arms < 1 m.
      EXPECT_LT((p_WP[p] - mujoco).norm(), 1e-9) << scene.probes()[p].name << " at t = " << backend->time_s();
    }
    const Eigen::Vector3d tool_now(d->xipos[3 * tool], d->xipos[3 * tool + 1], d->xipos[3 * tool + 2]);
    if (k == 1) tool_first = tool_now;
    if (k == 20) EXPECT_GT((tool_now - tool_first).norm(), 0.01) << "the arm moved: not a check of a pose at rest";
  }
  mj_deleteData(d);
  mj_deleteModel(m);
}

}  // namespace
}  // namespace cosim::dynamics::registry
#endif  // COSIM_HAVE_MUJOCO
