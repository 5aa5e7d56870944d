// The MJCF scene reader against MuJoCo itself: for random joint vectors, every body the scene
// has a probe for sits where MuJoCo's mj_kinematics puts its centre of mass (xipos), and every
// drawn geometry where MuJoCo puts that geom (geom_xpos, geom_xmat), on two models written for
// these tests: an arm with every geom type and hinge, slide and ball joints
// (examples/mjcf_arm/), and a floating omni-wheel base whose robot is an included file
// (tests/data/scenes/mjcf/omnibase/).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <mujoco/mujoco.h>
#include <unistd.h>

#include "cosim/scene/scene.hpp"
#include "scene_test_support.hpp"

namespace {

using namespace cosim::scene;
using namespace cosim::scene::test;

// Two kinematic chains of the same doubles agree to rounding: a few 1e-16 m per joint.
constexpr double kPositionTolerance_m = 1e-9;
constexpr double kRotationTolerance = 1e-9;

fs::path mjcf_dir() { return fixtures_dir() / "mjcf"; }
fs::path examples_arm() { return fs::path(COSIM_EXAMPLES_DIR) / "mjcf_arm" / "arm.xml"; }

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

std::unique_ptr<mjModel, MjModelDeleter> load_mujoco(const fs::path& file) {
  char error[1000] = "";
  std::unique_ptr<mjModel, MjModelDeleter> m(mj_loadXML(file.string().c_str(), nullptr, error, sizeof error));
  EXPECT_TRUE(m) << error;
  return m;
}

// Quaternion (w, x, y, z) of R = Rz(yaw)·Ry(pitch)·Rx(roll).
Eigen::Quaterniond ypr_quat(double yaw, double pitch, double roll) {
  return Eigen::AngleAxisd(yaw, Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Vector3d::UnitY()) *
         Eigen::AngleAxisd(roll, Vector3d::UnitX());
}

// MuJoCo's qpos for scene joint values q (the inverse of the backend's map, MODEL.md §2): a
// hinge or slide qpos0 + q; a free joint's position as it is and its quaternion from the three
// angles after it; a ball joint's quaternion from its three angles.
std::vector<mjtNum> qpos_of(const mjModel* m, const SceneModel& scene, const std::vector<double>& q) {
  std::vector<mjtNum> qpos(m->qpos0, m->qpos0 + m->nq);
  const std::string model = scene.name() + "/";
  for (int j = 0; j < m->njnt; ++j) {
    const std::string name = model + mj_id2name(m, mjOBJ_JOINT, j);
    const auto value = [&](const std::string& part) {
      const int index = scene.find_joint(part.empty() ? name : name + "/" + part);
      EXPECT_GE(index, 0) << name << " " << part;
      return q[static_cast<std::size_t>(index)];
    };
    mjtNum* at = qpos.data() + m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        at[0] = m->qpos0[m->jnt_qposadr[j]] + value("");
        break;
      case mjJNT_FREE:
      case mjJNT_BALL: {
        if (m->jnt_type[j] == mjJNT_FREE) {
          at[0] = value("x");
          at[1] = value("y");
          at[2] = value("z");
          at += 3;
        }
        const Eigen::Quaterniond r = ypr_quat(value("yaw"), value("pitch"), value("roll"));
        at[0] = r.w();
        at[1] = r.x();
        at[2] = r.y();
        at[3] = r.z();
        break;
      }
    }
  }
  return qpos;
}

Isometry3d mj_pose(const mjtNum* pos, const mjtNum* mat) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(pos[0], pos[1], pos[2]);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) X.linear()(r, c) = mat[3 * r + c];
  }
  return X;
}

// Every probe and drawn geometry of the scene at 20 random joint vectors, against MuJoCo.
void expect_same_kinematics_as_mujoco(const fs::path& file) {
  const SceneModel scene = SceneModel::load(file);
  const auto m = load_mujoco(file);
  ASSERT_TRUE(m);
  std::unique_ptr<mjData, MjDataDeleter> d(mj_makeData(m.get()));
  std::mt19937 random(20261127);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), pitch(-1.5, 1.5), length(-0.3, 0.3);
  std::vector<Isometry3d> X_WF(scene.frames().size());
  std::vector<Vector3d> p_WP(scene.probes().size());
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> q(scene.joint_names().size());
    for (std::size_t i = 0; i < q.size(); ++i) {
      const Frame& joint = scene.frames()[static_cast<std::size_t>(scene.joint_frames()[i])];
      const std::string& name = scene.joint_names()[i];
      q[i] = joint.drive == DriveType::prismatic            ? length(random)
             : name.ends_with("/pitch")                      ? pitch(random)
                                                             : angle(random);
    }
    const std::vector<mjtNum> qpos = qpos_of(m.get(), scene, q);
    std::copy(qpos.begin(), qpos.end(), d->qpos);
    mj_kinematics(m.get(), d.get());
    scene.world_transforms(q, X_WF);
    scene.probe_positions(X_WF, p_WP);

    for (std::size_t p = 0; p < p_WP.size(); ++p) {
      const int body = mj_name2id(m.get(), mjOBJ_BODY, scene.probes()[p].name.substr(scene.name().size() + 1).c_str());
      ASSERT_GE(body, 0) << scene.probes()[p].name;
      const Vector3d mujoco(d->xipos[3 * body], d->xipos[3 * body + 1], d->xipos[3 * body + 2]);
      EXPECT_LT((p_WP[p] - mujoco).norm(), kPositionTolerance_m) << scene.probes()[p].name << " trial " << trial;
    }
    for (const Render& render : scene.renders()) {
      const Geometry& g = scene.geometries()[static_cast<std::size_t>(render.parts.at(0).geometry)];
      const int geom = mj_name2id(m.get(), mjOBJ_GEOM, g.id.substr(scene.name().size() + 1).c_str());
      ASSERT_GE(geom, 0) << g.id;
      Isometry3d X_WG = X_WF[static_cast<std::size_t>(render.frame)] * render.parts[0].X_FG;
      if (m->geom_type[geom] == mjGEOM_PLANE) {  // drawn as a thin box whose top face is the plane
        X_WG = X_WG * Eigen::Translation3d(0, 0, std::get<Cuboid>(g.shape).lz / 2);
      }
      const Isometry3d mujoco = mj_pose(d->geom_xpos + 3 * geom, d->geom_xmat + 9 * geom);
      EXPECT_LT((X_WG.translation() - mujoco.translation()).norm(), kPositionTolerance_m) << g.id << " trial " << trial;
      EXPECT_LT((X_WG.linear() - mujoco.linear()).cwiseAbs().maxCoeff(), kRotationTolerance) << g.id << " trial " << trial;
    }
  }
}

TEST(MjcfScene, AnArmWithEveryGeomTypeIsWhereMujocoPutsIt) {
  expect_same_kinematics_as_mujoco(examples_arm());
}

TEST(MjcfScene, AFloatingOmniBaseFromAnIncludedFileIsWhereMujocoPutsIt) {
  expect_same_kinematics_as_mujoco(mjcf_dir() / "omnibase" / "scene.xml");
}

TEST(MjcfScene, JointsAreNamedAsTheMujocoBackendNamesThem) {
  const SceneModel arm = SceneModel::load(examples_arm());
  EXPECT_EQ(arm.name(), "MjArm");
  EXPECT_EQ(std::vector<std::string>(arm.joint_names().begin(), arm.joint_names().end()),
            (std::vector<std::string>{"MjArm/yaw", "MjArm/shoulder", "MjArm/elbow", "MjArm/extend", "MjArm/wrist/yaw",
                                      "MjArm/wrist/pitch", "MjArm/wrist/roll"}));
  EXPECT_EQ(arm.frames()[static_cast<std::size_t>(arm.joint_frames()[3])].drive, DriveType::prismatic);
  // Scoped by the top file's model name, not the included file's; "wheel1/roller2" as written.
  const SceneModel base = SceneModel::load(mjcf_dir() / "omnibase" / "scene.xml");
  EXPECT_EQ(base.joint_names().size(), 6u + 3u * 5u);
  EXPECT_EQ(base.joint_names()[0], "OmniBase/base/x");
  EXPECT_EQ(base.joint_names()[5], "OmniBase/base/roll");
  EXPECT_GE(base.find_joint("OmniBase/wheel1/roller2"), 0);
  EXPECT_GE(base.find_joint("OmniBase/wheel3/axle"), 0);
}

TEST(MjcfScene, ProbesAreTheMovingBodiesFirstTheOneNearestTheRoot) {
  const SceneModel arm = SceneModel::load(examples_arm());
  std::vector<std::string> probes;
  for (const Probe& p : arm.probes()) probes.push_back(p.name);
  // base does not move: no probe; tool has no joint but moves with the hand.
  EXPECT_EQ(probes, (std::vector<std::string>{"MjArm/turret", "MjArm/upper", "MjArm/fore", "MjArm/hand", "MjArm/tool"}));
  const SceneModel base = SceneModel::load(mjcf_dir() / "omnibase" / "scene.xml");
  EXPECT_EQ(base.probes()[0].name, "OmniBase/chassis") << "a floating robot is followed by its base";
  EXPECT_EQ(arm.default_probes(), std::vector<int>{0}) << "compared by default: the first moving body only";
  EXPECT_EQ(base.default_probes(), std::vector<int>{0});
}

TEST(MjcfScene, DrawsWhatMujocosViewerDraws) {
  const SceneModel arm = SceneModel::load(examples_arm());
  std::vector<std::string> drawn;
  for (const Render& r : arm.renders()) drawn.push_back(r.ref);
  EXPECT_EQ(drawn, (std::vector<std::string>{"MjArm/floor", "MjArm/base_box", "MjArm/turret_cylinder",
                                             "MjArm/upper_capsule", "MjArm/fore_mesh", "MjArm/fore_ellipsoid",
                                             "MjArm/hand_sphere", "MjArm/tool_box"}))
      << "hand_collision is in group 3, which MuJoCo's viewer hides";
  const auto render = [&](const char* ref) {
    for (const Render& r : arm.renders()) {
      if (r.ref == ref) return r;
    }
    return Render{};
  };
  EXPECT_NEAR(render("MjArm/base_box").rgb.g, 0.65, 1e-6) << "the material's colour: the geom has none of its own";
  EXPECT_NEAR(render("MjArm/hand_sphere").rgb.r, 0.8, 1e-6);
  // The mesh is MuJoCo's compiled one: its 6 vertices, recentred on its centre of mass.
  const auto& mesh = std::get<TriangleMesh>(arm.geometries()[static_cast<std::size_t>(render("MjArm/fore_mesh").ref_index)].shape);
  EXPECT_EQ(mesh.data->triangles.size(), 8u);
  Eigen::Vector3f mean = Eigen::Vector3f::Zero();
  for (const auto& v : mesh.data->vertices_m) mean += v / static_cast<float>(mesh.data->vertices_m.size());
  EXPECT_LT(mean.norm(), 0.02f) << "recentred (the file's origin is a corner, 0.07 m away)";
}

TEST(MjcfScene, AModelMujocoRefusesIsASceneErrorNamingItsFile) {
  const fs::path dir = fs::temp_directory_path() / ("cosim_mjcf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path bad = dir / "bad.xml";
  std::ofstream(bad) << "<mujoco model=\"Bad\">\n  <option integrator=\"implicitfast\"/>\n</mujoco>\n";
  try {
    SceneModel::load(bad);
    ADD_FAILURE() << "loaded " << bad;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().file, fs::canonical(bad));
    EXPECT_NE(std::string(e.what()).find("invalid keyword: 'implicitfast'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cosim uses MuJoCo 2."), std::string::npos) << e.what();
  }
  const fs::path still = dir / "still.xml";
  std::ofstream(still) << "<mujoco model=\"Still\"><worldbody><geom type=\"sphere\" size=\"1\"/></worldbody></mujoco>\n";
  expect_scene_error(still, fs::canonical(still), 0, "the model has no joint");
  fs::remove_all(dir);
}

TEST(MjcfScene, AnXmlSceneProjectIsStillReadByTheXmlReader) {
  // Both take .xml files; the root element tells them apart.
  const SceneModel two_link = SceneModel::load(fixtures_dir() / "two_link" / "projects" / "TwoLink.xml");
  EXPECT_EQ(two_link.name(), "TwoLink");
}

}  // namespace
