// The mujoco backend through the real programs: the default pendulum co-simulated with its
// scene by cosim-recorder (the probes agree), its text parameters in run.json, and a model
// whose joints the scene does not drive refused with one line naming both files. Skipped in a
// build without MuJoCo (cosim-dynamics --list-backends does not name it).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class MujocoRun : public LoopTest {
 protected:
  void SetUp() override {
    Process list(kBinDir / "cosim-dynamics", {"--list-backends"}, tmp_.path() / "list");
    ASSERT_EQ(finish(list, "cosim-dynamics --list-backends", 10), 0) << list.err();
    if (!list.out().starts_with("mujoco - ") && !contains(list.out(), "\nmujoco - ")) {
      GTEST_SKIP() << "cosim-dynamics was built without MuJoCo";
    }
  }

  // cosim-dynamics --backend mujoco --channel none with `extra` arguments.
  std::unique_ptr<Process> run_alone(std::vector<std::string> extra) {
    std::vector<std::string> args{"--backend", "mujoco", "--channel", "none", "--out", run_dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto logs = tmp_.path() / ("alone" + std::to_string(++runs_));
    return std::make_unique<Process>(kBinDir / "cosim-dynamics", args, logs);
  }

  // An MJCF model named Pendulum: a chain of the given hinge joints, one body each.
  std::filesystem::path write_model(const std::string& name, const std::vector<std::string>& joints) const {
    std::string bodies, close;
    for (const auto& joint : joints) {
      bodies += "<body name=\"" + joint + "_link\" pos=\"0 0 -0.5\"><joint name=\"" + joint +
                "\" type=\"hinge\" axis=\"0 1 0\"/><geom type=\"sphere\" size=\"0.05\" mass=\"1\"/>";
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

TEST_F(MujocoRun, JointsTheSceneDoesNotDriveAreOneLineNamingBothFiles) {
  const auto double_pendulum = write_model("double.xml", {"swing", "elbow"});
  auto p = run_alone({"--param", "model=" + double_pendulum.string()});
  EXPECT_EQ(finish(*p, "cosim-dynamics", 10), util::kExitBadInput);
  std::string err = p->err();
  EXPECT_TRUE(contains(err, "backend mujoco (model " + double_pendulum.string() + ") and scene ")) << err;
  EXPECT_TRUE(contains(err, "scenes/pendulum disagree on joints: not in the scene: Pendulum/elbow")) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line:\n" << err;

  const auto renamed = write_model("renamed.xml", {"hinge"});
  auto q = run_alone({"--param", "model=" + renamed.string()});
  EXPECT_EQ(finish(*q, "cosim-dynamics", 10), util::kExitBadInput);
  err = q->err();
  EXPECT_TRUE(contains(err, "not in the scene: Pendulum/hinge; driven by the scene but not by the backend: "
                            "Pendulum/swing")) << err;
  EXPECT_FALSE(std::filesystem::exists(run_dir())) << "bad input leaves no run folder";
}

}  // namespace
}  // namespace cosim::test
