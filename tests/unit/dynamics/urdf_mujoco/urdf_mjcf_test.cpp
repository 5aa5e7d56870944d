// cosim-urdf-mjcf (tools/urdf_mjcf/) on the example diffbot (examples/diffbot/): the committed
// MJCF is the converter's output; MuJoCo places every body of the converted model where the
// URDF scene reader places the link, over random joint vectors and base poses; driven by its
// wheel servos it goes where its wheels say (odometry); bad servos and bases are refused.
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/mjcf/mjcf.hpp"
#include "cosim/scene/scene.hpp"
#include "cosim/test/scratch_dir.hpp"
#include "cosim/urdf_mjcf/urdf_mjcf.hpp"

namespace cosim::urdf_mjcf {
namespace {

namespace fs = std::filesystem;

const fs::path kDiffbotDir = fs::path(COSIM_EXAMPLES_DIR) / "diffbot";
const fs::path kUrdf = kDiffbotDir / "diffbot_description" / "urdf" / "diffbot.urdf";
const fs::path kMjcf = kDiffbotDir / "diffbot.xml";

// The options of the command examples/diffbot/README.md gives.
Options example_options() {
  Options o;
  o.package_path = {kDiffbotDir};
  o.floating_base = true;
  o.floor = true;
  o.servos = {parse_servo("left_wheel=0.2", Servo::Kind::velocity), parse_servo("right_wheel=0.2", Servo::Kind::velocity)};
  o.timestep_s = 0.001;
  o.output_folder = kDiffbotDir;
  return o;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(UrdfMjcf, TheCommittedExampleIsTheConvertersOutput) {
  const std::string committed = read_file(kMjcf);
  ASSERT_FALSE(committed.empty()) << kMjcf;
  EXPECT_TRUE(committed == urdf_to_mjcf(kUrdf, example_options()))
      << kMjcf << " differs from the converter's output; regenerate it with the command in "
      << "examples/diffbot/README.md";
}

TEST(UrdfMjcf, MujocoPutsEveryBodyWhereTheUrdfScenePutsItsLink) {
  const auto scene = scene::SceneModel::load(kUrdf, {.package_path = {kDiffbotDir}});
  const std::string mjcf_text = urdf_to_mjcf(kUrdf, example_options());
  const mjcf::ModelPtr model = mjcf::load_model_text(kMjcf, mjcf_text);
  const mjModel* m = model.get();
  mjData* d = mj_makeData(m);
  const std::vector<std::string> scene_joints(scene.joint_names().begin(), scene.joint_names().end());
  ASSERT_EQ(scene_joints, (std::vector<std::string>{"diffbot/left_wheel", "diffbot/right_wheel", "diffbot/caster_roll",
                                                     "diffbot/caster_pitch"}));
  std::vector<int> qpos_of_joint;
  for (const auto& joint : scene_joints) {
    const int id = mj_name2id(m, mjOBJ_JOINT, joint.substr(joint.find('/') + 1).c_str());
    ASSERT_GE(id, 0) << joint;
    qpos_of_joint.push_back(m->jnt_qposadr[id]);
  }
  const int base = m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, kFloatingBaseJoint)];

  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi), offset(-2.0, 2.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());
  double worst_p_m = 0.0, worst_R = 0.0;
  std::string worst_where;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> q(scene_joints.size());
    for (double& v : q) v = trial == 0 ? 0.0 : angle(rng);
    // The base: anywhere, turned any way (the scene's links are then that pose times the URDF's).
    Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
    if (trial > 0) {
      X_WB.translation() = Eigen::Vector3d(offset(rng), offset(rng), offset(rng));
      X_WB.linear() = (Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitZ()) *
                       Eigen::AngleAxisd(angle(rng) / 2, Eigen::Vector3d::UnitY()) *
                       Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitX())).toRotationMatrix();
    }
    const Eigen::Quaterniond quat(X_WB.linear());
    for (int a = 0; a < 3; ++a) d->qpos[base + a] = X_WB.translation()(a);
    d->qpos[base + 3] = quat.w();
    d->qpos[base + 4] = quat.x();
    d->qpos[base + 5] = quat.y();
    d->qpos[base + 6] = quat.z();
    for (std::size_t j = 0; j < q.size(); ++j) d->qpos[qpos_of_joint[j]] = m->qpos0[qpos_of_joint[j]] + q[j];
    mj_kinematics(m, d);
    scene.world_transforms(q, X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (std::size_t k = 0; k < scene.probes().size(); ++k) {
      const auto& probe = scene.probes()[k];  // "diffbot/<link>": the link's origin
      const int body = mj_name2id(m, mjOBJ_BODY, probe.name.substr(probe.name.find('/') + 1).c_str());
      ASSERT_GE(body, 1) << probe.name << " is no body of the converted model";
      const Eigen::Vector3d p_W = X_WB * p_WP[k];
      const Eigen::Matrix3d R_W = X_WB.linear() * X_WF[static_cast<std::size_t>(probe.frame)].linear();
      for (int a = 0; a < 3; ++a) {
        if (const double diff = std::abs(p_W(a) - d->xpos[3 * body + a]); diff > worst_p_m) {
          worst_p_m = diff;
          worst_where = probe.name + " in trial " + std::to_string(trial);
        }
        for (int b = 0; b < 3; ++b) worst_R = std::max(worst_R, std::abs(R_W(a, b) - d->xmat[9 * body + 3 * a + b]));
      }
    }
  }
  // Both compose the same rotations and translations (lengths < 3 m) in double: ~1e-15. The
  // converter writes MuJoCo's compiled frames at full precision; MuJoCo's own 6-digit writer
  // alone would leave ~1e-6 (a quaternion 0.707107), which this bound catches.
  EXPECT_LE(worst_p_m, 1e-12) << worst_where;
  EXPECT_LE(worst_R, 1e-12);
  char figures[96];
  std::snprintf(figures, sizeof figures, "position %.3g m, rotation %.3g", worst_p_m, worst_R);
  RecordProperty("max_difference", figures);
  mj_deleteData(d);
}

// Frames turned by rpy and a tilted axis: MuJoCo writes quaternions to 6 digits (0.707107),
// ~1e-6 m on these links; the converter writes them again at full precision.
using UrdfMjcfScratch = cosim::test::ScratchDirTest;
TEST_F(UrdfMjcfScratch, TurnedFramesKeepFullPrecision) {
  const fs::path urdf = write("turned.urdf", R"(<robot name="turned">
  <link name="base"/>
  <link name="upper"><inertial><mass value="1"/><inertia ixx="0.02" iyy="0.025" izz="0.03" ixy="0.001" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.3 0 0" rpy="0.2 0 0"/><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0.1 0.2 0.3" rpy="0.7 -0.4 1.1"/>
    <axis xyz="0 1 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="prismatic"><parent link="upper"/><child link="lower"/><origin xyz="0.9 -0.3 0.2" rpy="-1.2 0.5 0.3"/>
    <axis xyz="1 2 3"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
)");
  const auto scene = scene::SceneModel::load(urdf);
  const mjcf::ModelPtr model = mjcf::load_model_text(dir_ / "turned.xml", urdf_to_mjcf(urdf, {.output_folder = dir_}));
  const mjModel* m = model.get();
  mjData* d = mj_makeData(m);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());
  double worst_m = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const std::vector<double> q{3 * value(rng), value(rng)};
    d->qpos[0] = m->qpos0[0] + q[0];
    d->qpos[1] = m->qpos0[1] + q[1];
    mj_kinematics(m, d);
    scene.world_transforms(q, X_WF);
    scene.probe_positions(X_WF, p_WP);
    for (std::size_t k = 0; k < scene.probes().size(); ++k) {
      const std::string& name = scene.probes()[k].name;  // turned/base (the world), turned/upper, turned/lower
      const int body = name == "turned/base" ? 0 : mj_name2id(m, mjOBJ_BODY, name.substr(7).c_str());
      ASSERT_GE(body, 0) << name;
      for (int a = 0; a < 3; ++a) worst_m = std::max(worst_m, std::abs(p_WP[k](a) - d->xpos[3 * body + a]));
    }
  }
  EXPECT_LE(worst_m, 1e-12) << "1e-6 would be MuJoCo's 6-digit quaternions";
  mj_deleteData(d);
}

// Downloaded robots often draw COLLADA meshes, which MuJoCo 2.2.2 cannot read: such a visual
// is left out with a note naming it, and the rest converts.
TEST_F(UrdfMjcfScratch, AVisualMeshMujocoCannotReadIsLeftOutWithANote) {
  write("meshes/arm.dae", "<COLLADA/>\n");  // never opened: its extension decides
  const fs::path urdf = write("dae.urdf", R"(<robot name="dae">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="meshes/arm.dae"/></geometry></visual>
    <visual><geometry><box size="0.3 0.05 0.05"/></geometry></visual>
    <collision><geometry><box size="0.3 0.05 0.05"/></geometry></collision></link>
  <joint name="turn" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>
</robot>
)");
  std::vector<std::string> notes;
  const std::string text = urdf_to_mjcf(urdf, {.output_folder = dir_}, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], (dir_ / "dae.urdf").string() + ":4: link 'arm': visual mesh 'meshes/arm.dae' left out: MuJoCo " +
                          mj_versionString() + " reads STL, OBJ and MSH meshes only");
  const mjcf::ModelPtr model = mjcf::load_model_text(dir_ / "dae.xml", text);
  EXPECT_EQ(model->nmesh, 0);
  int drawn = 0, colliding = 0;
  for (int g = 0; g < model->ngeom; ++g) {
    drawn += model->geom_group[g] == 1 ? 1 : 0;
    colliding += model->geom_group[g] == 3 ? 1 : 0;
  }
  EXPECT_EQ(drawn, 1) << "the box visual";
  EXPECT_EQ(colliding, 1) << "the collision box";
}

TEST(UrdfMjcf, DrivenByItsWheelServosItGoesWhereItsWheelsSay) {
  // examples/diffbot/drive.csv: straight, an arc, a turn on the spot (9 s). Odometry from the
  // wheel angles (radius r, track b): ds = r·(dθl + dθr)/2, dψ = r·(dθr − dθl)/b, integrated
  // over the 10 ms samples, against MuJoCo's base pose.
  constexpr double kWheelRadius_m = 0.05, kTrack_m = 0.28;
  dynamics::mujoco::MujocoBackend backend(kMjcf, kDiffbotDir / "drive.csv", 0.0);
  const auto column = [&](const std::string& name) { return backend.joint_index(name); };
  const std::size_t x = column("diffbot/floating_base/x"), y = column("diffbot/floating_base/y"),
                    z = column("diffbot/floating_base/z"), yaw = column("diffbot/floating_base/yaw"),
                    pitch = column("diffbot/floating_base/pitch"), roll = column("diffbot/floating_base/roll"),
                    left = column("diffbot/left_wheel"), right = column("diffbot/right_wheel");
  double odo_x = 0, odo_y = 0, odo_psi = 0, last_left = 0, last_right = 0, path_m = 0;
  double worst_position_m = 0, worst_height_m = 0, worst_tilt_rad = 0;
  for (int k = 1; k <= 900; ++k) {
    backend.advance_to(0.01 * k);
    const auto q = backend.joint_values();
    const double dl = kWheelRadius_m * (q[left] - last_left), dr = kWheelRadius_m * (q[right] - last_right);
    last_left = q[left];
    last_right = q[right];
    const double ds = (dl + dr) / 2, dpsi = (dr - dl) / kTrack_m;
    odo_x += ds * std::cos(odo_psi + dpsi / 2);
    odo_y += ds * std::sin(odo_psi + dpsi / 2);
    odo_psi += dpsi;
    path_m += std::abs(dl) + std::abs(dr);
    worst_position_m = std::max(worst_position_m, std::hypot(odo_x - q[x], odo_y - q[y]));
    worst_height_m = std::max(worst_height_m, std::abs(q[z]));
    worst_tilt_rad = std::max({worst_tilt_rad, std::abs(q[pitch]), std::abs(q[roll])});
  }
  path_m /= 2;  // the wheels' mean travel
  const auto q = backend.joint_values();
  // It moved: 1.2 m out, 0.4 m sideways, and turned 260° (the CSV's own integral: 2.6 rad of
  // arc and turn at r/b = 0.18).
  EXPECT_GT(std::hypot(q[x], q[y]), 1.0);
  EXPECT_GT(q[yaw], 4.0);
  // MuJoCo's soft contacts creep (its default contact time constant, 20 ms) and the caster
  // scrubs in the turn: measured 1.0 cm over 1.85 m of wheel travel, 0.09 rad of 4.7. The bound
  // is twice that; a wheel radius or track off by 5 %, or a servo on the wrong wheel, is ≥ 10 cm.
  EXPECT_LE(worst_position_m, 0.02) << "over " << path_m << " m of wheel travel";
  EXPECT_LE(std::abs(odo_psi - q[yaw]), 0.2);
  // It stays on its three wheels: height within the contacts' sink (< 1 mm), tilt < 0.01 rad (a
  // base tipped onto its chassis edge would show 0.26 rad).
  EXPECT_LE(worst_height_m, 1e-3);
  EXPECT_LE(worst_tilt_rad, 0.01);
  char figures[160];
  std::snprintf(figures, sizeof figures, "odometry %.3g m over %.3g m, heading %.3g rad; height %.3g m, tilt %.3g rad",
                worst_position_m, path_m, std::abs(odo_psi - q[yaw]), worst_height_m, worst_tilt_rad);
  RecordProperty("odometry", figures);
}

TEST(UrdfMjcf, BadServosAndBasesAreRefusedNamingWhat) {
  const auto message = [](const Options& o) {
    try {
      (void)urdf_to_mjcf(kUrdf, o);
    } catch (const ConvertError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  Options o = example_options();
  o.servos = {parse_servo("footprint=10", Servo::Kind::position)};  // a fixed joint
  EXPECT_NE(message(o).find("servo on 'footprint': not a revolute, continuous or prismatic joint"), std::string::npos)
      << message(o);
  EXPECT_NE(message(o).find("left_wheel, right_wheel, caster_roll, caster_pitch"), std::string::npos) << message(o);
  o.servos = {parse_servo("left_wheel=1", Servo::Kind::velocity), parse_servo("left_wheel=2", Servo::Kind::velocity)};
  EXPECT_EQ(message(o), "two velocity servos on 'left_wheel'");
  for (const char* bad : {"left_wheel", "=3", "left_wheel=0", "left_wheel=-1", "left_wheel=1,2", "left_wheel=nan"}) {
    EXPECT_THROW((void)parse_servo(bad, Servo::Kind::velocity), ConvertError) << bad;
  }
  EXPECT_EQ(parse_servo("left_wheel=100,3", Servo::Kind::position).damping, 3.0);
  o = example_options();
  o.timestep_s = 0.0;
  EXPECT_EQ(message(o), "--timestep must be a number > 0");
  // Without the package path the chassis mesh is not found: the URDF scene reader's message.
  o = example_options();
  o.package_path.clear();
  try {
    (void)urdf_to_mjcf(kUrdf, o);
    ADD_FAILURE() << "converted without the package path";
  } catch (const mjcf::ModelError& e) {
    // The same words and line as the scene reader's (cosim-visual --scene diffbot.urdf).
    EXPECT_NE(std::string(e.what()).find("diffbot.urdf:22: link 'base_link': package 'diffbot_description' of mesh "
                                         "'package://diffbot_description/meshes/chassis.stl' is in no package-path folder"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cosim::urdf_mjcf
