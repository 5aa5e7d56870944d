// The example arm's MJCF (examples/urdf_arm/mujoco/arm.xml) against its URDF scene
// (examples/urdf_arm/arm.urdf): the mujoco backend's joints are the scene's driven joints, and
// for random joint vectors MuJoCo puts every body where the scene puts the link (origin probe
// and frame orientation) and the site `tip` at the probe arm/tip. Catches an MJCF that drifts
// from the URDF. Only in a build with MuJoCo; skipped without the URDF reader.
#ifdef COSIM_HAVE_MUJOCO
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/scene/scene.hpp"

namespace cosim::dynamics::registry {
namespace {

const std::filesystem::path kArmDir = std::filesystem::path(COSIM_EXAMPLES_DIR) / "urdf_arm";

// MuJoCo's pose of what a scene probe of the arm marks: "arm/base_link" is the world body (the
// URDF's root link is fixed to the world), a link "arm/L" the body L, any other probe a site.
struct MujocoPose {
  const double* p_W;  // position [m], 3 values
  const double* R_W;  // rotation, 9 values row-major
};
MujocoPose mujoco_pose(const mjModel* m, const mjData* d, const std::string& probe) {
  const std::string name = probe.substr(probe.find('/') + 1);
  const int body = name == "base_link" ? 0 : mj_name2id(m, mjOBJ_BODY, name.c_str());
  if (body >= 0) return {d->xpos + 3 * body, d->xmat + 9 * body};
  const int site = mj_name2id(m, mjOBJ_SITE, name.c_str());
  if (site >= 0) return {d->site_xpos + 3 * site, d->site_xmat + 9 * site};
  return {nullptr, nullptr};
}

TEST(MujocoArm, TheMjcfHasTheUrdfsJointsAndKinematics) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without the URDF reader (urdfdom)";
  const auto model_file = kArmDir / "mujoco" / "arm.xml";
  const auto scene = scene::SceneModel::load(kArmDir / "arm.urdf");

  // The backend's joints, as the server matches them: the scene's driven joints, in order.
  const BackendEntry& entry = find_backend("mujoco");
  const std::vector<std::string> cli{"model=" + model_file.string()};
  const auto backend = entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, cli), 0.0);
  const std::vector<std::string> scene_joints(scene.joint_names().begin(), scene.joint_names().end());
  ASSERT_EQ(backend->joint_names(), scene_joints);
  ASSERT_EQ(scene.probes().size(), 6u) << "five link origins and the tip";

  char error[1000] = "";
  mjModel* m = mj_loadXML(model_file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  // qpos address of each scene joint, by name (arm/yaw -> MuJoCo joint yaw).
  std::vector<int> qpos_of_joint;
  for (const auto& joint : scene_joints) {
    const int id = mj_name2id(m, mjOBJ_JOINT, joint.substr(joint.find('/') + 1).c_str());
    ASSERT_GE(id, 0) << joint;
    qpos_of_joint.push_back(m->jnt_qposadr[id]);
  }

  // Joint vectors across the URDF's limits (yaw is continuous: a full turn either way).
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> yaw(-std::numbers::pi, std::numbers::pi), shoulder(-2.0, 2.0),
      elbow(-2.5, 2.5);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());
  double worst_p_m = 0.0, worst_R = 0.0;  // largest difference of a position [m], of a rotation entry
  std::string worst_p_where, worst_R_where;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<double> q = trial == 0 ? std::vector<double>{0, 0, 0}
                                             : std::vector<double>{yaw(rng), shoulder(rng), elbow(rng)};
    for (std::size_t j = 0; j < q.size(); ++j) {
      d->qpos[qpos_of_joint[j]] = m->qpos0[qpos_of_joint[j]] + q[j];  // the backend's value: qpos − qpos0
    }
    mj_kinematics(m, d);
    scene.world_transforms(q, X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (std::size_t k = 0; k < scene.probes().size(); ++k) {
      const auto& probe = scene.probes()[k];
      const MujocoPose pose = mujoco_pose(m, d, probe.name);
      ASSERT_NE(pose.p_W, nullptr) << probe.name << " has no body or site in " << model_file;
      const Eigen::Matrix3d& R_WF = X_WF[static_cast<std::size_t>(probe.frame)].linear();
      const std::string where = probe.name + " in trial " + std::to_string(trial);
      for (int a = 0; a < 3; ++a) {
        if (const double diff = std::abs(p_WP[k](a) - pose.p_W[a]); diff > worst_p_m) {
          worst_p_m = diff;
          worst_p_where = where + ", axis " + std::to_string(a);
        }
        for (int b = 0; b < 3; ++b) {
          if (const double diff = std::abs(R_WF(a, b) - pose.R_W[3 * a + b]); diff > worst_R) {
            worst_R = diff;
            worst_R_where = where + ", R" + std::to_string(a) + std::to_string(b);
          }
        }
      }
    }
  }
  // Both sides compose the same few rotations and translations (lengths < 1 m) in double: they
  // differ by rounding, ~1e-16; a wrong offset (0.1 mm) or a turned site (1 mrad) is > 1e-7.
  EXPECT_LE(worst_p_m, 1e-12) << worst_p_where;
  EXPECT_LE(worst_R, 1e-12) << worst_R_where;
  char figures[96];
  std::snprintf(figures, sizeof figures, "position %.3g m, rotation %.3g", worst_p_m, worst_R);
  RecordProperty("max_difference", figures);
  mj_deleteData(d);
  mj_deleteModel(m);
}

}  // namespace
}  // namespace cosim::dynamics::registry
#endif  // COSIM_HAVE_MUJOCO
