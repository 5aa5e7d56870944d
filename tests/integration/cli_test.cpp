// Command-line behaviour of the executables: help, version, bad options and input.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

class CliTest : public LoopTest {
 protected:
  std::unique_ptr<Process> run(const char* exe, std::vector<std::string> args) {
    return std::make_unique<Process>(kBinDir / exe, std::move(args), tmp_.path() / exe);
  }
};

TEST_F(CliTest, HelpAndVersionExitZero) {
  for (const char* exe : {"cosim-dynamics", "cosim-recorder"}) {
    auto help = run(exe, {"--help"});
    EXPECT_EQ(finish(*help, exe, 10), 0);
    EXPECT_TRUE(contains(help->out(), "--channel")) << help->out();
    auto version = run(exe, {"--version"});
    EXPECT_EQ(finish(*version, exe, 10), 0);
    EXPECT_TRUE(contains(version->out(), "protocol 1.1")) << version->out();
  }
}

TEST_F(CliTest, EveryProgramsHelpHasTheOneStyle) {
  // cosim-visual and the tools are built only with VTK and with the tools (the Release tree).
  int checked = 0;
  for (const char* exe : {"cosim", "cosim-dynamics", "cosim-recorder", "cosim-report", "cosim-visual", "cosim-meshgen",
                          "cosim-robotino-mjcf", "cosim-mecanum4-scene", "cosim-urdf-mjcf", "cosim-sweep"}) {
    if (!std::filesystem::exists(kBinDir / exe)) continue;
    auto help = run(exe, {"--help"});
    ASSERT_EQ(finish(*help, exe, 10), 0) << exe;
    // util::HelpFormatter's forms, never CLI11's own ("TEXT:[0, 64]=1", "INT in [200 - 8000]").
    for (const char* raw : {"TEXT:", "FLOAT", "INT:", "UINT", ":[", ":{", " - 8000]", "Excludes:"}) {
      EXPECT_FALSE(contains(help->out(), raw)) << exe << " shows " << raw << ":\n" << help->out();
    }
    EXPECT_TRUE(contains(help->out(), "Example")) << exe << ":\n" << help->out();
    ++checked;
  }
  EXPECT_GE(checked, 4) << "cosim, cosim-dynamics, cosim-recorder and cosim-report are in every build";
}

TEST_F(CliTest, UnknownBackendListsValidOnes) {
  auto p = run("cosim-dynamics", {"--backend", "warp", "--channel", "none", "--out", run_dir().string()});
  EXPECT_EQ(finish(*p, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(p->err(), "warp")) << p->err();
  EXPECT_TRUE(contains(p->err(), "kinematic")) << p->err();
}

TEST_F(CliTest, BadOptionsExitTwo) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"--fps", "0", "--channel", "none"},
           {"--mode", "fast"},
           {"--channel", "carrier-pigeon"},
           {"--no-such-option"},
           {"--param", "wheel_radius_m=-1", "--channel", "none"},
           {"--param", "no_such_key=1", "--channel", "none"}}) {
    static int case_number = 0;
    const auto out = tmp_.path() / ("run" + std::to_string(++case_number));
    args.push_back("--out");
    args.push_back(out.string());
    auto p = run("cosim-dynamics", args);
    EXPECT_EQ(finish(*p, "cosim-dynamics", 10), util::kExitBadInput) << args[0] << ": " << p->err();
    EXPECT_FALSE(p->err().empty());
    EXPECT_FALSE(std::filesystem::exists(out)) << "bad input must not leave a run folder behind";
  }
}

// Windows named pipes on Linux: one line saying so and what works, exit 2, from either side
// (tests/wine checks fifo: on Windows the same way).
TEST_F(CliTest, PipeChannelOnLinuxIsOneClearError) {
  for (const char* exe : {"cosim-dynamics", "cosim-recorder"}) {
    auto p = run(exe, {"--channel", "pipe:cosim-x", "--out", (tmp_.path() / exe).string()});
    EXPECT_EQ(finish(*p, exe, 10), util::kExitBadInput) << p->err();
    const std::string err = p->err();
    EXPECT_NE(err.find("pipe:NAME is Windows only"), std::string::npos) << err;
    EXPECT_NE(err.find("fifo:DIR"), std::string::npos) << "names what works: " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line:\n" << err;
  }
}

TEST_F(CliTest, ChannelNoneWritesTheRunFolderAlone) {
  auto p = run("cosim-dynamics", {"--channel", "none", "--duration", "10", "--out", run_dir().string()});
  ASSERT_EQ(finish(*p, "cosim-dynamics", 30), 0) << p->err();
  EXPECT_EQ(read_csv(run_dir() / "dynamics.csv").rows.size(), 501u);
  EXPECT_TRUE(read_csv(run_dir() / "probes.csv").rows.empty());
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "ok");
}

TEST_F(CliTest, RefusesARunFolderThatHoldsARun) {
  auto first = run("cosim-dynamics", {"--channel", "none", "--duration", "1", "--out", run_dir().string()});
  ASSERT_EQ(finish(*first, "cosim-dynamics", 30), 0) << first->err();
  auto second = run("cosim-dynamics", {"--channel", "none", "--duration", "1", "--out", run_dir().string()});
  EXPECT_EQ(finish(*second, "cosim-dynamics", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(second->err(), "already holds a run")) << second->err();
}

// A run folder someone else can write into may hold links where the run's files go: each is
// refused (exit 2, one line naming it), never written through to its target.
TEST_F(CliTest, ALinkWhereARunFileGoesIsRefusedNotWrittenThrough) {
  const auto target = tmp_.path() / "precious.txt";
  for (const char* file : {"dynamics.csv", "dynamics.log", "probes.csv"}) {
    std::filesystem::remove_all(run_dir());
    std::filesystem::create_directories(run_dir());
    std::filesystem::create_symlink(target, run_dir() / file);  // dangling: exists() says no
    auto p = run("cosim-dynamics", {"--channel", "none", "--duration", "1", "--out", run_dir().string()});
    EXPECT_EQ(finish(*p, "cosim-dynamics", 30), util::kExitBadInput) << file << ": " << p->err();
    const std::string err = p->err();
    EXPECT_TRUE(contains(err, file) && contains(err, "a symbolic link")) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::filesystem::exists(target)) << file << " was written through";
  }
}

// --params is found as --param model= is: the current folder, then the scenes root.
TEST_F(CliTest, AParameterFileIsAlsoLookedForUnderTheScenesRoot) {
  auto p = run("cosim-dynamics", {"--backend", "robotino", "--params", "robotino/params/seed000.params", "--channel",
                                  "none", "--duration", "0.1", "--out", run_dir().string()});
  ASSERT_EQ(finish(*p, "cosim-dynamics", 30), 0) << p->err();
  EXPECT_TRUE(contains(read_file(run_dir() / "run.json"), "robotino/params/seed000.params")) << "the file's origin";
  auto missing = run("cosim-dynamics", {"--params", "nowhere.params", "--channel", "none", "--out",
                                        (tmp_.path() / "missing").string()});
  EXPECT_EQ(finish(*missing, "cosim-dynamics", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(missing->err(), "--params nowhere.params: no parameter file at ")) << missing->err();
  EXPECT_TRUE(contains(missing->err(), " nor ")) << "both places named: " << missing->err();
}

TEST_F(CliTest, BadSceneGivesFileAndLineFromBothSides) {
  const auto scene = tmp_.path() / "scene";
  std::filesystem::copy(kScenesDir / "robotino", scene, std::filesystem::copy_options::recursive);
  // Break the robot file on a known line: an unknown element.
  const auto robot = scene / "robots" / "Robotino.xml";
  std::string xml = read_file(robot);
  const auto at = xml.find("<joint");
  ASSERT_NE(at, std::string::npos);
  xml.insert(at, "<gizmo/>\n");
  const int line = 1 + static_cast<int>(std::count(xml.begin(), xml.begin() + static_cast<long>(at), '\n'));
  std::ofstream(robot) << xml;
  const std::string where = "Robotino.xml:" + std::to_string(line);
  auto recorder = run("cosim-recorder", {"--scene", scene.string(), "--channel", channel()});
  EXPECT_EQ(finish(*recorder, "cosim-recorder", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(recorder->err(), where)) << recorder->err();
  auto dynamics = run("cosim-dynamics", {"--scene", scene.string(), "--channel", "none", "--out", run_dir().string()});
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(dynamics->err(), where)) << dynamics->err();
}

/// Sets an environment variable for the processes a test starts, and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// --package-path: where cosim-dynamics finds a URDF scene's package:// meshes, like
// cosim-visual and cosim-recorder (tests/render/urdf_view_test.cpp, mujoco_test.cpp for cosim).
TEST_F(CliTest, DynamicsFindsPackageMeshesThroughPackagePath) {
  if (!COSIM_HAVE_URDF) GTEST_SKIP() << "built without urdfdom";
  const auto urdf = write_package_urdf(tmp_.path() / "urdf");
  const auto packages = tmp_.path() / "urdf" / "packages";
  auto help = run("cosim-dynamics", {"--help"});
  EXPECT_EQ(finish(*help, "cosim-dynamics", 10), 0);
  EXPECT_TRUE(contains(help->out(), "--package-path")) << help->out();

  // Without it the scene is refused, naming the package and the option.
  auto without = run("cosim-dynamics", {"--channel", "none", "--scene", urdf.string(), "--out", run_dir().string()});
  EXPECT_EQ(finish(*without, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(without->err(), "package 'parts' of mesh 'package://parts/cube.stl' is in no package-path "
                                       "folder")) << without->err();
  EXPECT_TRUE(contains(without->err(), "give --package-path")) << without->err();
  // With it (one folder of a ':'-list) the scene loads: what stops the run now is the
  // default backend's joints, which are not the robot's.
  auto with = run("cosim-dynamics", {"--channel", "none", "--scene", urdf.string(), "--package-path",
                                     "/no/such/folder/then:" + packages.string(), "--out", run_dir().string()});
  EXPECT_EQ(finish(*with, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(with->err(), "is not a folder")) << "every folder must exist: " << with->err();
  auto found = run("cosim-dynamics", {"--channel", "none", "--scene", urdf.string(), "--package-path",
                                      packages.string(), "--out", run_dir().string()});
  EXPECT_EQ(finish(*found, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_FALSE(contains(found->err(), "package")) << found->err();
  EXPECT_TRUE(contains(found->err(), "disagree on joints: ")) << found->err();
  EXPECT_TRUE(contains(found->err(), "driven by the scene but not by the backend: pkgbot/turn")) << found->err();
}

TEST_F(CliTest, WithoutSceneTheDynamicsTakesItsBackendsSceneUnderCOSIM_SCENES_DIR) {
  // A scenes root whose robotino scene is broken on a known line: the error proves which
  // folder was read.
  const auto root = tmp_.path() / "scenes";
  std::filesystem::create_directories(root);
  std::filesystem::copy(kScenesDir / "robotino", root / "robotino", std::filesystem::copy_options::recursive);
  const auto robot = root / "robotino" / "robots" / "Robotino.xml";
  std::string xml = read_file(robot);
  xml.insert(xml.find("<joint"), "<gizmo/>\n");
  std::ofstream(robot) << xml;
  ScopedEnv env("COSIM_SCENES_DIR", root.string());
  auto dynamics = run("cosim-dynamics", {"--channel", "none", "--duration", "1", "--out", run_dir().string()});
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(dynamics->err(), robot.string() + ":")) << dynamics->err();
}

TEST_F(CliTest, WithoutSceneTheRecorderTakesTheModelsSceneAfterTheHello) {
  // The recorder's scenes root has no robotino folder: it learns the model from the Hello,
  // fails to find its scene, says where it looked and tells the dynamics.
  const auto empty_root = tmp_.path() / "no-scenes";
  std::filesystem::create_directories(empty_root);
  auto dynamics = start_dynamics({"--scene", (kScenesDir / "robotino").string(), "--duration", "1"});
  std::unique_ptr<Process> recorder;
  {
    ScopedEnv env("COSIM_SCENES_DIR", empty_root.string());
    recorder = start_recorder({});
  }
  EXPECT_EQ(finish(*recorder, "cosim-recorder", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(recorder->err(), (empty_root / "robotino").string())) << recorder->err();
  EXPECT_TRUE(contains(recorder->err(), "no scene folder 'robotino'")) << recorder->err();
  EXPECT_NE(finish(*dynamics, "cosim-dynamics", 30), 0);
  EXPECT_TRUE(contains(read_run_json(run_dir()).get<std::string>("error"), "no scene folder 'robotino'"));
}

TEST_F(CliTest, RecorderWithoutDynamicsTimesOut) {
  auto recorder = run("cosim-recorder", {"--channel", channel(), "--open-timeout", "0.5"});
  EXPECT_EQ(finish(*recorder, "cosim-recorder", 10), util::kExitPeerFailure);
  EXPECT_TRUE(contains(recorder->err(), fifo_dir().string())) << recorder->err();
}

// Without --duration a backend runs its natural duration (--list-backends): mecanum4 seed 002's
// 10 s manoeuvre, trajectory as long as its CSV.
TEST_F(CliTest, WithoutDurationABackendRunsItsNaturalDuration) {
  auto mecanum4 = run("cosim-dynamics", {"--backend", "mecanum4", "--channel", "none", "--out", run_dir().string()});
  ASSERT_EQ(finish(*mecanum4, "cosim-dynamics", 30), 0) << mecanum4->err();
  EXPECT_EQ(read_csv(run_dir() / "dynamics.csv").values("t_s").back(), 10.0);
  EXPECT_EQ(read_run_json(run_dir()).get<double>("duration_s"), 10.0);
  EXPECT_TRUE(contains(read_file(run_dir() / "dynamics.log"), "the backend's natural duration"));

  const auto csv = kScenesDir / "robotino" / "trajectories" / "circle.csv";
  const auto out = tmp_.path() / "trajectory";
  auto trajectory = run("cosim-dynamics", {"--backend", "trajectory", "--param", "trajectory=" + csv.string(),
                                           "--channel", "none", "--out", out.string()});
  ASSERT_EQ(finish(*trajectory, "cosim-dynamics", 30), 0) << trajectory->err();
  const double csv_end_s = read_csv(csv).values("t_s").back();
  EXPECT_EQ(read_csv(out / "dynamics.csv").values("t_s").back(), csv_end_s);
  EXPECT_EQ(read_run_json(out).get<double>("duration_s"), csv_end_s);
}

TEST_F(CliTest, WithChannelNoneNoSceneIsNeeded) {
  // The rover's joint CSV without its URDF: the trajectory backend's default scene (the
  // Robotino) drives other joints, which only a visual side or probes would need.
  const auto csv = std::filesystem::path(COSIM_EXAMPLES_DIR) / "rover" / "circle.csv";
  const std::vector<std::string> args{"--backend", "trajectory", "--param", "trajectory=" + csv.string(),
                                      "--duration", "1"};
  auto none = run("cosim-dynamics", [&] {
    auto a = args;
    a.insert(a.end(), {"--channel", "none", "--out", run_dir().string()});
    return a;
  }());
  ASSERT_EQ(finish(*none, "cosim-dynamics", 30), 0) << none->err();
  const auto dynamics = read_csv(run_dir() / "dynamics.csv");
  const auto input = read_csv(csv);
  // The CSV's row at 1 s comes out as it went in (a knot: exact but for the rounding of the
  // output times, ~1e-15 s at rates of a few per second); its columns keep their names (a
  // trajectory does not know rad from m: only a scene would).
  ASSERT_EQ(input.values("t_s")[10], 1.0);
  for (const char* joint : {"rover/base/x", "rover/base/phi", "rover/left"}) {
    EXPECT_NEAR(dynamics.values(joint).back(), input.values(joint)[10], 1e-12) << joint;
  }
  EXPECT_TRUE(read_csv(run_dir() / "probes.csv").rows.empty());
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("scene"), "");
  EXPECT_TRUE(contains(read_file(run_dir() / "dynamics.log"), "running without a scene"));

  // With a visual side the scene is needed, and the mismatch is still the error it was.
  auto fifo = run("cosim-dynamics", [&] {
    auto a = args;
    a.insert(a.end(), {"--channel", "fifo:" + (tmp_.path() / "fifo").string(), "--out", (tmp_.path() / "fifo_run").string()});
    return a;
  }());
  EXPECT_EQ(finish(*fifo, "cosim-dynamics", 30), 2);
  EXPECT_TRUE(contains(fifo->err(), "disagree on joints")) << fifo->err();
}

}  // namespace
}  // namespace cosim::test
