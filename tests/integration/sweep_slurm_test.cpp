// cosim-sweep --executor slurm on a real single-node Slurm (scripts/slurm/cluster.sh, which
// scripts/test.sh starts as root and names in COSIM_TEST_SLURM_CONF): the same study gives the
// same results.csv as the local pool (wall times aside), in several array tasks; an array task
// cancelled mid-run is submitted again and its points finish.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

namespace fs = std::filesystem;

// results.csv without its wall_s column (the one that differs between two runs of a study).
std::string without_wall_times(const fs::path& file) {
  std::ifstream in(file);
  std::string header, out;
  std::getline(in, header);
  std::vector<std::string> names;
  std::stringstream h(header);
  for (std::string f; std::getline(h, f, ',');) names.push_back(f);
  const auto wall = static_cast<std::size_t>(std::find(names.begin(), names.end(), "wall_s") - names.begin());
  for (std::string line = header; !line.empty() || in;) {
    std::stringstream s(line);
    std::size_t i = 0;
    for (std::string f; std::getline(s, f, ','); ++i) out += (i == wall ? std::string("-") : f) + ",";
    out += "\n";
    if (!std::getline(in, line)) break;
  }
  return out;
}

class SlurmSweep : public LoopTest {
 protected:
  void SetUp() override {
    const char* conf = std::getenv("COSIM_TEST_SLURM_CONF");
    if (conf == nullptr || *conf == '\0') {
      // CI runs these (scripts/test.sh starts the cluster as root); elsewhere they need one.
      if (std::getenv("CI") != nullptr) FAIL() << "CI without a test cluster: scripts/test.sh starts one as root";
      GTEST_SKIP() << "no test cluster (scripts/test.sh starts one when run as root: scripts/slurm/cluster.sh)";
    }
    ::setenv("SLURM_CONF", conf, 1);
  }
  std::unique_ptr<Process> sweep(const fs::path& study, std::vector<std::string> extra) {
    std::vector<std::string> args{(tmp_.path() / "study.json").string(), "-o", study.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-sweep", args, tmp_.path() / ("sweep" + std::to_string(++runs_)));
  }
  int runs_ = 0;
};

TEST_F(SlurmSweep, GivesTheLocalPoolsResultsInSeveralArrayTasks) {
  std::ofstream(tmp_.path() / "study.json") << R"({"backend": "robotino", "duration_s": 6, "output_step_s": 0.05,
    "axes": [{"param": "pid_kp_V_s_per_rad", "values": [2, 4, 7.4]}, {"param": "mass_kg", "values": [9, 13]}]})";
  auto local = sweep(tmp_.path() / "local", {"--jobs", "2"});
  ASSERT_EQ(finish(*local, "cosim-sweep local", 120), 0) << local->err();
  // A task length of 0.1 s: about two points a task, so the five after the first go out as three.
  auto slurm = sweep(tmp_.path() / "slurm", {"--executor", "slurm", "--task-seconds", "0.1"});
  ASSERT_EQ(finish(*slurm, "cosim-sweep slurm", 300), 0) << slurm->err();
  // How many tasks depends on the first point's time here; more than one is the point.
  const std::string said = slurm->err();
  const auto at = said.find("5 points in ");
  ASSERT_NE(at, std::string::npos) << said;
  EXPECT_GE(std::stoi(said.substr(at + 12)), 2) << said;
  EXPECT_EQ(without_wall_times(tmp_.path() / "slurm" / "results.csv"), without_wall_times(tmp_.path() / "local" / "results.csv"));
}

TEST_F(SlurmSweep, ACancelledArrayTaskIsSubmittedAgain) {
  // Two slow points (MuJoCo at 1 µs steps, seconds each) after a quick first one, a task each.
  const std::string fast = R"(<mujoco model="Swing"><option timestep="0.001"/><worldbody><body name="bob" pos="0 0 1">
<joint name="swing" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05" mass="1" pos="0 0 -0.5"/></body></worldbody></mujoco>
)";
  std::string slow = fast;
  slow.replace(slow.find("0.001"), 5, "0.000001");
  std::ofstream(tmp_.path() / "fast.xml") << fast;
  std::ofstream(tmp_.path() / "slow.xml") << slow;
  std::ofstream(tmp_.path() / "study.json") << R"({"backend": "mujoco", "duration_s": 10, "axes": [{"param": "model", "values": [")"
                                            << (tmp_.path() / "fast.xml").string() << "\", \"" << (tmp_.path() / "slow.xml").string()
                                            << "\", \"" << (tmp_.path() / "slow.xml").string() << "\"]}]}";
  const fs::path study = tmp_.path() / "study";
  auto p = sweep(study, {"--executor", "slurm", "--task-seconds", "0.01"});
  // The array's task 0 running: cancel it.
  std::string job;
  for (int i = 0; i < 600 && job.empty(); ++i) {
    std::ifstream in(study / "slurm" / "sbatch-1.out");
    std::getline(in, job);
    if (job.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(job.empty()) << p->err();
  job = job.substr(0, job.find(';'));
  // p0001 running its slow model: its run.json ("running") is written once the model is loaded
  // (swapped before that, the first run would be quick and over before the cancel).
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    running = fs::exists(study / "p0001" / "run.json");
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running) << "task 0 never started p0001";
  std::ofstream(tmp_.path() / "slow.xml") << fast;  // its second run is quick
  Process cancel("/usr/bin/scancel", {job + "_0"}, tmp_.path() / "scancel");  // Debian slurm-client's
  ASSERT_EQ(finish(cancel, "scancel", 30), 0) << cancel.err();
  ASSERT_EQ(finish(*p, "cosim-sweep slurm", 300), 0) << p->err();
  EXPECT_TRUE(fs::exists(study / "slurm" / "tasks-2.txt")) << "a second submission\n" << p->err() << "\n" << read_file(study / "results.csv");
  const std::string results = read_file(study / "results.csv");
  EXPECT_EQ(std::count(results.begin(), results.end(), '\n'), 4);
  EXPECT_FALSE(contains(results, "not_run")) << results;
  EXPECT_FALSE(contains(results, ",lost,")) << results;
}

}  // namespace
}  // namespace cosim::test
