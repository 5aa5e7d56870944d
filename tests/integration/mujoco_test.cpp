// The mujoco backend through the real programs: the default pendulum co-simulated with its
// scene by cosim-recorder (the probes agree), its text parameters in run.json, a model whose
// joints the scene does not drive (or drives as another kind) refused with one line naming
// both files, and the example URDF arm driven by its MJCF and trajectory, recorded with its
// URDF scene. Skipped in a build without MuJoCo (cosim-dynamics --list-backends does not name it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

#include <signal.h>

#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

const std::filesystem::path kExamplesDir = COSIM_EXAMPLES_DIR;
const std::string kPendulumScene = COSIM_SCENES_DIR "/pendulum";


class MujocoRun : public LoopTest {
 protected:
  void SetUp() override {
    if (!dynamics_has_backend("mujoco")) GTEST_SKIP() << "cosim-dynamics was built without MuJoCo";
  }

  // cosim-dynamics --backend mujoco --channel none with `extra` arguments.
  std::unique_ptr<Process> run_alone(std::vector<std::string> extra) {
    std::vector<std::string> args{"--backend", "mujoco", "--channel", "none", "--out", run_dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto logs = tmp_.path() / ("alone" + std::to_string(++runs_));
    return std::make_unique<Process>(kBinDir / "cosim-dynamics", args, logs);
  }

  // An MJCF model named Pendulum: a chain of the given joints of one `type`, one body each.
  std::filesystem::path write_model(const std::string& name, const std::vector<std::string>& joints,
                                    const std::string& type = "hinge") const {
    std::string bodies, close;
    for (const auto& joint : joints) {
      bodies += "<body name=\"" + joint + "_link\" pos=\"0 0 -0.5\"><joint name=\"" + joint +
                "\" type=\"" + type + "\" axis=\"0 1 0\"/><geom type=\"sphere\" size=\"0.05\" mass=\"1\"/>";
      close += "</body>";
    }
    const auto path = tmp_.path() / name;
    std::ofstream(path) << "<mujoco model=\"Pendulum\">\n<worldbody>" << bodies << close << "</worldbody></mujoco>\n";
    return path;
  }

  int runs_ = 0;
};

TEST_F(MujocoRun, DefaultPendulumCoSimulatesWithItsScene) {
  auto dynamics = start_dynamics({"--backend", "mujoco", "--duration", "5", "--fps", "50"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();

  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(json.get<std::string>("model"), "Pendulum");
  EXPECT_EQ(json.get<std::string>("parameters.model.value"), "pendulum/mujoco/pendulum.xml");  // as given
  EXPECT_EQ(json.get<std::string>("parameters.model.origin"), "default");
  EXPECT_EQ(json.get<std::string>("parameters.model.unit"), "path");
  EXPECT_EQ(json.get<std::string>("parameters.trajectory.value"), "");
  EXPECT_EQ(json.get<int>("summary.reports_received"), 250);

  // The recorder's probe from the scene equals the dynamics' at every frame, and the bob swings.
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 250u);
  for (const double d : probes.values("Pendulum/bob/diff_same_time_m")) EXPECT_LE(d, 1e-12);
  const Csv dynamics_csv = read_csv(run_dir() / "dynamics.csv");
  const auto swing = dynamics_csv.values("Pendulum/swing_rad");
  ASSERT_FALSE(swing.empty());
  EXPECT_EQ(swing.front(), 0.6);
  EXPECT_NEAR(*std::min_element(swing.begin(), swing.end()), -0.6, 1e-3) << "it swings to the other side";
}

// A model given with a hand-written scene (here the pendulum's) that does not draw it.
TEST_F(MujocoRun, JointsTheSceneDoesNotDriveAreOneLineNamingBothFiles) {
  const auto double_pendulum = write_model("double.xml", {"swing", "elbow"});
  auto p = run_alone({"--param", "model=" + double_pendulum.string(), "--scene", kPendulumScene});
  EXPECT_EQ(finish(*p, "cosim-dynamics", 10), util::kExitBadInput);
  std::string err = p->err();
  EXPECT_TRUE(contains(err, "backend mujoco (model " + double_pendulum.string() + ") and scene ")) << err;
  EXPECT_TRUE(contains(err, "scenes/pendulum disagree on joints: not in the scene: Pendulum/elbow")) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line:\n" << err;

  const auto renamed = write_model("renamed.xml", {"hinge"});
  auto q = run_alone({"--param", "model=" + renamed.string(), "--scene", kPendulumScene});
  EXPECT_EQ(finish(*q, "cosim-dynamics", 10), util::kExitBadInput);
  err = q->err();
  EXPECT_TRUE(contains(err, "not in the scene: Pendulum/hinge; driven by the scene but not by the backend: "
                            "Pendulum/swing")) << err;
  EXPECT_FALSE(std::filesystem::exists(run_dir())) << "bad input leaves no run folder";
}

// Without --scene a model= is its own scene (the MJCF reader): the same double pendulum runs.
TEST_F(MujocoRun, WithoutASceneTheModelIsItsOwnScene) {
  const auto double_pendulum = write_model("double.xml", {"swing", "elbow"});
  auto p = run_alone({"--param", "model=" + double_pendulum.string(), "--duration", "0.2"});
  ASSERT_EQ(finish(*p, "cosim-dynamics", 10), 0) << p->err();
  EXPECT_NE(read_file(run_dir() / "dynamics.log").find("scene Pendulum from " + double_pendulum.string()),
            std::string::npos);
}

// cosim --package-path goes to both sides: each loads the URDF scene with its package:// mesh.
TEST_F(MujocoRun, TheLauncherPassesPackagePathToBothSides) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without urdfdom";
  const auto urdf = write_package_urdf(tmp_.path() / "urdf");
  const auto model = tmp_.path() / "pkgbot.xml";
  std::ofstream(model) << R"(<mujoco model="pkgbot"><worldbody><body name="arm"><joint name="turn" type="hinge"/>
    <geom type="box" size="0.25 0.025 0.025" mass="1"/></body></worldbody></mujoco>
)";
  Process cosim(kBinDir / "cosim",
                {"--recorder", "--backend", "mujoco", "--param", "model=" + model.string(), "--scene", urdf.string(),
                 "--package-path", (tmp_.path() / "urdf" / "packages").string(), "--duration", "0.2", "--out",
                 run_dir().string()},
                tmp_.path() / "cosim");
  ASSERT_EQ(finish(cosim, "cosim", 60), 0) << cosim.err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "ok");
  EXPECT_EQ(read_csv(run_dir() / "probes.csv").rows.size(), 4u) << "20 fps for 0.2 s";
}

// A frame of 1e8 MuJoCo steps (1 us timestep, one frame and one output row per 100 s: minutes
// of stepping) is cut short by SIGINT: exit 130 within seconds, run.json "interrupted" (before, the first
// signal waited for the frame's end and a second one left run.json "running").
TEST_F(MujocoRun, SigintEndsAFrameOfManyStepsAndTheRunSaysInterrupted) {
  const auto model = tmp_.path() / "fine_steps.xml";
  std::ofstream(model) << "<mujoco model=\"Pendulum\"><option timestep=\"1e-6\"/><worldbody><body pos=\"0 0 1\">"
                          "<joint name=\"swing\" type=\"hinge\" axis=\"0 1 0\"/>"
                          "<geom type=\"sphere\" pos=\"0 0 -0.5\" size=\"0.05\" mass=\"1\"/></body></worldbody></mujoco>\n";
  auto dynamics = run_alone({"--param", "model=" + model.string(), "--duration", "1000", "--fps", "0.01",
                             "--output-step", "100", "--progress", "never"});
  // The row at t = 0 is written before the first frame's steps begin.
  const auto table = run_dir() / "dynamics.csv";
  for (int i = 0; i < 400 && !(std::filesystem::exists(table) && std::filesystem::file_size(table) > 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the first frame's steps
  dynamics->kill(SIGINT);
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics", 10), util::kExitInterrupted) << dynamics->err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "interrupted");
}

TEST_F(MujocoRun, AJointOfAnotherKindIsOneLineNamingBothKindsAndFiles) {
  const auto slide = write_model("slide.xml", {"swing"}, "slide");  // the scene's swing is revolute
  auto p = run_alone({"--param", "model=" + slide.string(), "--scene", kPendulumScene});
  EXPECT_EQ(finish(*p, "cosim-dynamics", 10), util::kExitBadInput);
  const std::string err = p->err();
  EXPECT_TRUE(contains(err, "backend mujoco (model " + slide.string() + ") and scene ")) << err;
  EXPECT_TRUE(contains(err, "scenes/pendulum disagree on joints: joint Pendulum/swing is prismatic in the backend, "
                            "revolute in the scene (")) << err;
  EXPECT_TRUE(contains(err, "scenes/pendulum/robots/Pendulum.xml:9)")) << "where the scene joint is written:\n" << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line:\n" << err;
  EXPECT_FALSE(std::filesystem::exists(run_dir())) << "bad input leaves no run folder";
}

// The example URDF arm: its MJCF (examples/urdf_arm/mujoco/arm.xml) driven by its trajectory,
// drawn by its URDF (the scene both sides are given): the loop runs, the recorder's probes equal
// the dynamics' at every frame, and the joints follow the reference.
TEST_F(MujocoRun, UrdfArmFollowsItsTrajectoryWithItsUrdfScene) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without the URDF reader (urdfdom)";
  const auto arm = kExamplesDir / "urdf_arm";
  const std::string scene = (arm / "arm.urdf").string();
  auto dynamics = start_dynamics({"--backend", "mujoco", "--param", "model=" + (arm / "mujoco" / "arm.xml").string(),
                                  "--param", "trajectory=" + (arm / "mujoco" / "arm_trajectory.csv").string(),
                                  "--scene", scene, "--duration", "6", "--fps", "50", "--probe", "arm/base_link",
                                  "--probe", "arm/turret", "--probe", "arm/upper_arm", "--probe", "arm/forearm",
                                  "--probe", "arm/gripper", "--probe", "arm/tip"});  // every link, not only the default tip
  auto recorder = start_recorder({"--scene", scene});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();

  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(json.get<std::string>("model"), "arm");
  EXPECT_EQ(json.get<int>("summary.reports_received"), 300);

  // Both sides compute the probes from the same URDF at the same joint values: equal.
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 300u);
  for (const char* probe : {"base_link", "turret", "upper_arm", "forearm", "gripper", "tip"}) {
    const auto diffs = probes.values(std::string("arm/") + probe + "/diff_same_time_m");
    ASSERT_EQ(diffs.size(), 300u) << probe;
    for (const double d : diffs) EXPECT_LE(d, 1e-12) << probe;
  }

  // Each joint against the reference row at its frame time (rows every 10 ms, frames every
  // 20 ms). Bound 0.08 rad: the servo analysis of the unit test
  // MujocoArm.FollowsItsTrajectoryAsItsServosPredict puts the lag below 0.037 (yaw), 0.024
  // (shoulder) and 0.074 rad (elbow); a reference missed or shifted by a frame is off by more.
  const Csv reference = read_csv(arm / "mujoco" / "arm_trajectory.csv");
  const Csv motion = read_csv(run_dir() / "dynamics.csv");
  const auto t_s = motion.values("t_s");
  ASSERT_EQ(t_s.size(), 301u) << "t = 0 and 300 frames";
  for (const char* joint : {"yaw", "shoulder", "elbow"}) {
    const auto q = motion.values(std::string("arm/") + joint + "_rad");
    const auto r = reference.values(joint);
    double worst_rad = 0.0, reach_rad = 0.0;
    for (std::size_t k = 0; k < t_s.size(); ++k) {
      const auto row = static_cast<std::size_t>(std::lround(t_s[k] / 0.01));
      ASSERT_LT(row, r.size());
      worst_rad = std::max(worst_rad, std::abs(q[k] - r[row]));
      reach_rad = std::max(reach_rad, std::abs(q[k]));
    }
    EXPECT_LE(worst_rad, 0.08) << joint;
    EXPECT_GE(reach_rad, 0.8) << joint << " moves (amplitudes 1.5, 0.9, 1.4 rad)";
  }
}


// The README's way to move a URDF robot in MuJoCo, as a user types it: cosim-urdf-mjcf writes
// the diffbot's MJCF (its package:// chassis mesh, a floating base, a floor, wheel servos), and
// cosim co-simulates it headless with its drive CSV, the model its own scene: the base drives
// off, and both sides agree on it at every frame.
TEST_F(MujocoRun, AUrdfRobotConvertedByCosimUrdfMjcfDrivesOnItsWheelServos) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without the URDF reader (urdfdom)";
  if (!std::filesystem::exists(kBinDir / "cosim-urdf-mjcf")) GTEST_SKIP() << "built without the tools (COSIM_BUILD_TOOLS)";
  const auto diffbot = kExamplesDir / "diffbot";
  const auto model = tmp_.path() / "diffbot.xml";
  Process convert(kBinDir / "cosim-urdf-mjcf",
                  {(diffbot / "diffbot_description" / "urdf" / "diffbot.urdf").string(), "--package-path",
                   diffbot.string(), "--floating-base", "--floor", "--velocity", "left_wheel=0.2", "--velocity",
                   "right_wheel=0.2", "--timestep", "0.001", "-o", model.string()},
                  tmp_.path() / "convert");
  ASSERT_EQ(finish(convert, "cosim-urdf-mjcf", 30), 0) << convert.err();
  Process cosim(kBinDir / "cosim",
                {"--recorder", "--backend", "mujoco", "--param", "model=" + model.string(), "--param",
                 "trajectory=" + (diffbot / "drive.csv").string(), "--out", run_dir().string()},
                tmp_.path() / "cosim");
  ASSERT_EQ(finish(cosim, "cosim", 60), 0) << cosim.err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(json.get<int>("summary.reports_received"), 180) << "the CSV's 9 s at 20 fps";
  const Csv motion = read_csv(run_dir() / "dynamics.csv");
  const auto x = motion.values("diffbot/floating_base/x_m"), y = motion.values("diffbot/floating_base/y_m");
  ASSERT_FALSE(x.empty());
  EXPECT_GT(std::hypot(x.back(), y.back()), 1.0) << "straight, an arc and a turn: 1.2 m out";
  const Csv probes = read_csv(run_dir() / "probes.csv");
  const auto diffs = probes.values("diffbot/base_footprint/diff_same_time_m");  // the first moving body
  ASSERT_EQ(diffs.size(), 180u);
  for (const double d : diffs) EXPECT_LE(d, 1e-12);
}

// The URDF itself as the model: its package:// mesh is found through --package-path (the
// scene's too); without it, one line names the package and the file, exit 2.
TEST_F(MujocoRun, AUrdfModelFindsItsPackageMeshesThroughThePackagePath) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without the URDF reader (urdfdom)";
  const auto diffbot = kExamplesDir / "diffbot";
  const std::string urdf = (diffbot / "diffbot_description" / "urdf" / "diffbot.urdf").string();
  auto p = run_alone({"--param", "model=" + urdf, "--package-path", diffbot.string(), "--duration", "0.2"});
  ASSERT_EQ(finish(*p, "cosim-dynamics", 10), 0) << p->err();
  EXPECT_NE(read_file(run_dir() / "dynamics.csv").find("diffbot/left_wheel_rad"), std::string::npos);
  auto missing = run_alone({"--param", "model=" + urdf, "--duration", "0.2"});
  EXPECT_EQ(finish(*missing, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_NE(missing->err().find(urdf + ":22: link 'base_link': package 'diffbot_description' of mesh"),
            std::string::npos)
      << missing->err();
}

// The Robotino in MuJoCo (scenes/robotino/mujoco/robotino.xml) with the robotino scene, recorded:
// its 24 scoped joints are the scene's (z is internal), the recorder's probes equal the
// dynamics' at every frame, and its model-defined controller keeps it on the rose.
TEST_F(MujocoRun, RobotinoInMujocoCosimulatesWithTheRobotinoScene) {
  const std::string scene = (kScenesDir / "robotino").string();
  auto dynamics = start_dynamics({"--backend", "mujoco", "--param", "model=robotino/mujoco/robotino.xml",
                                  "--scene", scene, "--duration", "2", "--fps", "25"});
  auto recorder = start_recorder({"--scene", scene});
  ASSERT_EQ(finish(*recorder, "cosim-recorder", 60), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics", 60), 0) << dynamics->err();

  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(json.get<std::string>("model"), "Robotino");
  EXPECT_EQ(json.get<int>("summary.reports_received"), 50);
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 50u);
  std::size_t probe_columns = 0;
  for (const std::string& column : probes.columns) {
    if (!column.ends_with("/diff_same_time_m")) continue;
    ++probe_columns;
    for (const double d : probes.values(column)) EXPECT_LE(d, 1e-12) << column;
  }
  EXPECT_GT(probe_columns, 0u);
  // On the rose within what MuJoCo's contacts slip in 2 s (RobotinoMujoco.* unit tests: < 2 cm).
  const Csv motion = read_csv(run_dir() / "dynamics.csv");
  for (const char* deviation : {"dx_m", "dy_m"}) {
    for (const double d : motion.values(deviation)) EXPECT_LE(std::abs(d), 0.02) << deviation;
  }
}

}  // namespace
}  // namespace cosim::test
