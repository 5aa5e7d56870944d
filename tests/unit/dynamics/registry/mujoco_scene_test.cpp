// The mujoco backend's default scene draws its default model: the scene's probe at the bob is
// where MuJoCo puts the bob, over a whole swing. Only in a build with MuJoCo.
#ifdef COSIM_HAVE_MUJOCO
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

}  // namespace
}  // namespace cosim::dynamics::registry
#endif  // COSIM_HAVE_MUJOCO
