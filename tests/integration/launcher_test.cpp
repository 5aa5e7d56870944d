// The cosim launcher as a user runs it: both sides, the summary, the report; a terminal's
// Ctrl-C to its whole process group; a failing side; bad options.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

using std::chrono::milliseconds;

const std::filesystem::path kLauncher = kBinDir / "cosim";


/// Whether a process with this pid still runs (a zombie nobody reaped does not).
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren == std::string::npos || line.size() < paren + 3 || line[paren + 2] != 'Z';
}

/// The pids of the --verbose lines "cosim: started NAME, pid N", by name.
std::map<std::string, pid_t> started(const std::string& err) {
  std::map<std::string, pid_t> pids;
  static const std::regex line("cosim: started (\\S+), pid (\\d+)");
  for (std::sregex_iterator it(err.begin(), err.end(), line), end; it != end; ++it) {
    pids[(*it)[1]] = static_cast<pid_t>(std::stol((*it)[2]));
  }
  return pids;
}

class LauncherTest : public LoopTest {
 protected:
  LauncherTest() {
    // The private channel folder is made under TMPDIR: a test's own, to see it removed.
    std::filesystem::create_directories(tmp_.path() / "tmp");
    setenv("TMPDIR", (tmp_.path() / "tmp").c_str(), 1);
  }
  ~LauncherTest() override { unsetenv("TMPDIR"); }

  std::unique_ptr<Process> start_cosim(std::vector<std::string> args, Process::Setup setup = {}) {
    return std::make_unique<Process>(kLauncher, std::move(args), tmp_.path() / "cosim", setup);
  }
  bool channel_folders_left() const { return !std::filesystem::is_empty(tmp_.path() / "tmp"); }
  /// The sides' pids (--verbose) once the run is under way: probes.csv there, then 0.5 s.
  std::map<std::string, pid_t> started_when_running(Process& cosim) const {
    for (int i = 0; i < 200 && !std::filesystem::exists(run_dir() / "probes.csv"); ++i) {
      std::this_thread::sleep_for(milliseconds(50));
    }
    std::this_thread::sleep_for(milliseconds(500));
    return started(cosim.err());
  }
};

TEST_F(LauncherTest, RunsBothSidesAndSaysWhereTheRunAndTheReportAre) {
  auto cosim = start_cosim({"--recorder", "--backend", "kinematic", "--duration", "5", "--out", run_dir().string()});
  ASSERT_EQ(finish(*cosim, "cosim", 120), 0) << cosim->err();
  EXPECT_TRUE(contains(cosim->out(), "frames sent 100, reports 100")) << cosim->out();
  EXPECT_TRUE(contains(cosim->err(), "cosim: run folder: " + run_dir().string() + "\n")) << cosim->err();
  EXPECT_TRUE(contains(cosim->err(), "cosim: report: " + (run_dir() / "report.md").string() + "\n")) << cosim->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "ok");
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "recorder.log")) << "the visual side writes into the run folder";
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "plots" / "path.png"));
  EXPECT_FALSE(channel_folders_left());
}

TEST_F(LauncherTest, PassesWhatFollowsTwoDashesToTheDynamics) {
  auto cosim = start_cosim({"--recorder", "--backend", "kinematic", "--duration", "1", "--out", run_dir().string(),
                            "--", "--output-step", "0.25"});
  ASSERT_EQ(finish(*cosim, "cosim", 120), 0) << cosim->err();
  EXPECT_EQ(read_csv(run_dir() / "dynamics.csv").rows.size(), 5u) << "t = 0, 0.25, ..., 1 s";
}

TEST_F(LauncherTest, CtrlCToItsProcessGroupStopsBothAndLeavesNothingBehind) {
  Process::Setup own_group;
  own_group.own_process_group = true;  // signalled below as a terminal would signal it
  auto cosim = start_cosim({"--verbose", "--recorder", "--backend", "kinematic", "--mode", "realtime", "--duration",
                            "60", "--out", run_dir().string()},
                           own_group);
  const auto pids = started_when_running(*cosim);
  ASSERT_EQ(pids.size(), 2u) << cosim->err();
  ASSERT_TRUE(pids.count("cosim-dynamics") && pids.count("cosim-recorder")) << cosim->err();
  ASSERT_TRUE(channel_folders_left()) << "the private channel folder exists during the run";

  // A terminal sends SIGINT to the whole foreground group: cosim and both sides.
  cosim->kill_group(SIGINT);
  EXPECT_EQ(finish(*cosim, "cosim", 30), util::kExitInterrupted) << cosim->err();
  EXPECT_TRUE(contains(cosim->err(), "cosim: stopping...")) << cosim->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted");
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "report.md")) << "the report of what was written";
  for (const auto& [name, pid] : pids) EXPECT_FALSE(alive(pid)) << name << " (pid " << pid << ") outlived cosim";
  EXPECT_NE(::kill(-cosim->pid(), 0), 0) << "a process of cosim's group outlived it";
  EXPECT_FALSE(channel_folders_left()) << "private channel folder removed";
}

// A launcher SIGKILLed (no handler runs) takes both sides with it: each gets a SIGTERM at its
// death and stops cleanly, and the private channel folder goes with the dynamics.
TEST_F(LauncherTest, KilledWithSigkillItLeavesNoSideRunningAndNoChannelFolder) {
  auto cosim = start_cosim({"--verbose", "--recorder", "--backend", "kinematic", "--mode", "realtime", "--duration",
                            "60", "--out", run_dir().string()});
  const auto pids = started_when_running(*cosim);
  ASSERT_EQ(pids.size(), 2u) << cosim->err();
  ASSERT_TRUE(channel_folders_left()) << "the private channel folder exists during the run";

  cosim->kill(SIGKILL);
  EXPECT_EQ(finish(*cosim, "cosim", 10), 128 + SIGKILL);
  for (const auto& [name, pid] : pids) {
    for (int i = 0; i < 200 && alive(pid); ++i) std::this_thread::sleep_for(milliseconds(50));
    EXPECT_FALSE(alive(pid)) << name << " (pid " << pid << ") runs on after its launcher was killed";
  }
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted") << "a clean stop, not a death";
  EXPECT_FALSE(channel_folders_left()) << "private channel folder removed";
}

// A folder that holds a run is refused before anything starts: its files, its report too,
// stay as they were (the report was written again over it).
TEST_F(LauncherTest, AnOutFolderThatHoldsARunIsRefusedAndLeftAlone) {
  auto first = start_cosim({"--recorder", "--backend", "kinematic", "--duration", "1", "--out", run_dir().string()});
  ASSERT_EQ(finish(*first, "cosim", 120), 0) << first->err();
  const auto report_time = std::filesystem::last_write_time(run_dir() / "report.md");
  const auto run_json = read_file(run_dir() / "run.json");
  std::this_thread::sleep_for(milliseconds(20));
  auto second = start_cosim({"--verbose", "--recorder", "--backend", "kinematic", "--duration", "1", "--out",
                             run_dir().string()});
  EXPECT_EQ(finish(*second, "cosim", 30), util::kExitBadInput) << second->err();
  EXPECT_TRUE(contains(second->err(), "already holds a run")) << second->err();
  EXPECT_TRUE(started(second->err()).empty()) << second->err();
  EXPECT_EQ(std::filesystem::last_write_time(run_dir() / "report.md"), report_time);
  EXPECT_EQ(read_file(run_dir() / "run.json"), run_json);
  EXPECT_FALSE(channel_folders_left());
}

// The visual side killed mid-run: the dynamics sees its channel close and ends at once, and
// the launcher ends with the visual side's code, the side that failed first.
TEST_F(LauncherTest, AVisualSideKilledMidRunEndsTheRunAtOnceWithItsCode) {
  auto cosim = start_cosim({"--verbose", "--recorder", "--backend", "kinematic", "--mode", "realtime", "--duration",
                            "60", "--out", run_dir().string()});
  const auto pids = started_when_running(*cosim);
  ASSERT_TRUE(pids.count("cosim-recorder")) << cosim->err();
  const auto killed_at = std::chrono::steady_clock::now();
  ::kill(pids.at("cosim-recorder"), SIGKILL);
  EXPECT_EQ(finish(*cosim, "cosim", 30), 128 + SIGKILL) << cosim->err();
  for (int i = 0; i < 40 && alive(pids.at("cosim-dynamics")); ++i) std::this_thread::sleep_for(milliseconds(25));
  EXPECT_FALSE(alive(pids.at("cosim-dynamics")));
  EXPECT_LT(std::chrono::steady_clock::now() - killed_at, std::chrono::seconds(2)) << cosim->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "failed");
}

TEST_F(LauncherTest, AFailingDynamicsEndsTheRunSoonWithItsExitCode) {
  // The recorder would wait 10 s (its --open-timeout) for a dynamics that is gone.
  const auto start = std::chrono::steady_clock::now();
  auto cosim = start_cosim({"--recorder", "--backend", "no-such-backend", "--out", run_dir().string()});
  EXPECT_EQ(finish(*cosim, "cosim", 30), util::kExitBadInput) << cosim->err();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8)) << cosim->err();
  EXPECT_TRUE(contains(cosim->err(), "no-such-backend")) << cosim->err();
  EXPECT_FALSE(channel_folders_left());
}

TEST_F(LauncherTest, ABadOptionIsOneLineAndExitCode2) {
  auto cosim = start_cosim({"--warp-speed"});
  EXPECT_EQ(finish(*cosim, "cosim", 10), util::kExitBadInput);
  const std::string err = cosim->err();
  EXPECT_TRUE(contains(err, "cosim: error: ") && contains(err, "--warp-speed")) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(cosim->out().empty());
}

TEST_F(LauncherTest, RefusesAChannelThatCannotJoinTwoProcesses) {
  auto cosim = start_cosim({"--recorder", "--channel", "none", "--out", run_dir().string()});
  EXPECT_EQ(finish(*cosim, "cosim", 10), util::kExitBadInput);
  EXPECT_TRUE(contains(cosim->err(), "--channel 'none'")) << cosim->err();
  EXPECT_FALSE(std::filesystem::exists(run_dir())) << "nothing made before the options are checked";
}

TEST_F(LauncherTest, PassesBackendParametersOnToTheDynamics) {
  auto cosim = start_cosim({"--recorder", "--backend", "mecanum3vw", "--duration", "0.2", "--param", "path=eight",
                            "--param", "kp_per_s=25", "--probe", "Mecanum3/nose", "--out", run_dir().string()});
  ASSERT_EQ(finish(*cosim, "cosim", 60), 0) << cosim->err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<double>("parameters.path.value"), 1.0);
  EXPECT_EQ(json.get<std::string>("parameters.path.origin"), "cli");
  EXPECT_EQ(json.get<double>("parameters.kp_per_s.value"), 25.0);
  // --probe too: only that probe compared (the scene has two).
  EXPECT_TRUE(read_file(run_dir() / "run.json").find("\"probe_names\": [\"Mecanum3/nose\"]") != std::string::npos)
      << read_file(run_dir() / "run.json");
}

TEST_F(LauncherTest, EveryBackendRunsEndToEndWithItsSceneAndTheProbesAgree) {
  // Every backend `cosim-dynamics --list-backends` names, through the launcher over a real FIFO
  // with the recorder: it exits 0, every frame is answered, and the recorder's probes (from the
  // scene model) equal the dynamics' own at the same time, to rounding.
  Process list(kBinDir / "cosim-dynamics", {"--list-backends"}, tmp_.path() / "list");
  ASSERT_EQ(finish(list, "cosim-dynamics --list-backends", 10), 0) << list.err();
  std::vector<std::string> backends;
  static const std::regex entry("^([a-z0-9_]+) - ");
  std::istringstream lines(list.out());
  for (std::string line; std::getline(lines, line);) {
    if (std::smatch m; std::regex_search(line, m, entry)) backends.push_back(m[1]);
  }
  ASSERT_GE(backends.size(), 4u) << list.out();
  for (const auto& backend : backends) {
    const auto out = tmp_.path() / ("run-" + backend);
    auto cosim = start_cosim({"--recorder", "--backend", backend, "--duration", "0.5", "--fps", "40", "--out", out.string()});
    ASSERT_EQ(finish(*cosim, "cosim", 60), 0) << backend << ": " << cosim->err();
    const Csv probes = read_csv(out / "probes.csv");
    EXPECT_EQ(probes.rows.size(), 20u) << backend;
    int probe_count = 0;
    for (const auto& column : probes.columns) {
      if (!column.ends_with("/diff_same_time_m")) continue;
      ++probe_count;
      for (const double d : probes.values(column)) EXPECT_LE(d, 1e-12) << backend << " " << column;
    }
    EXPECT_GE(probe_count, 1) << backend;
  }
}

TEST_F(LauncherTest, HelpListsTheOptionsOfTheScript) {
  auto cosim = start_cosim({"--help"});
  ASSERT_EQ(finish(*cosim, "cosim", 10), 0);
  for (const char* option : {"--backend", "--scene", "--fps", "--duration", "--mode", "--rate", "--params", "--param ", "--channel",
                             "--out", "--recorder", "--package-path", "--"}) {
    EXPECT_TRUE(contains(cosim->out(), option)) << option << " missing from:\n" << cosim->out();
  }
}

/// The arguments of the --verbose line "cosim: started NAME, pid N: ARGS" of `name`.
std::string started_args(const std::string& err, const std::string& name) {
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(err, found, std::regex("cosim: started " + name + ", pid \\d+:([^\n]*)"));
    return found;
  }();
  return m.empty() ? "(no line)" : m[1].str() + " ";
}

// On its private channel the launcher lets both sides wait for each other as long as both
// live (it stops one whose peer ended before connecting): the largest --open-timeout, not a
// fixed 10 s a cold start can exceed. A channel or an --open-timeout of the user's keeps the
// programs' own. (Shown with a dynamics that fails at once, so no run and no report: fast.)
TEST_F(LauncherTest, OnItsPrivateChannelTheSidesWaitForEachOtherWithoutATimeLimit) {
  const std::vector<std::string> fails{"--verbose", "--recorder", "--backend", "no-such-backend"};
  const auto launch = [&](std::vector<std::string> args) {
    args.insert(args.begin(), fails.begin(), fails.end());
    auto cosim = start_cosim(std::move(args));
    EXPECT_EQ(finish(*cosim, "cosim", 10), util::kExitBadInput) << cosim->err();
    return std::pair{started_args(cosim->err(), "cosim-dynamics"), started_args(cosim->err(), "cosim-recorder")};
  };
  const auto [dynamics, recorder] = launch({"--out", (tmp_.path() / "private").string()});
  EXPECT_TRUE(contains(dynamics, " --open-timeout 86400 ")) << dynamics;
  EXPECT_TRUE(contains(recorder, " --open-timeout 86400 ")) << recorder;
  EXPECT_FALSE(contains(dynamics, "--duration")) << "not given: the backend's natural duration; " << dynamics;

  const auto [own_dynamics, own_recorder] =
      launch({"--duration", "3", "--out", (tmp_.path() / "own").string(), "--", "--open-timeout", "7"});
  EXPECT_TRUE(contains(own_dynamics, " --open-timeout 7 ") && !contains(own_dynamics, "86400")) << own_dynamics;
  EXPECT_FALSE(contains(own_recorder, "--open-timeout")) << own_recorder;
  EXPECT_TRUE(contains(own_dynamics, " --duration 3 ")) << own_dynamics;

  const auto channel = "fifo:" + (tmp_.path() / "fifo").string();
  const auto [channel_dynamics, channel_recorder] =
      launch({"--channel", channel, "--out", (tmp_.path() / "channel").string()});
  EXPECT_FALSE(contains(channel_dynamics, "--open-timeout")) << channel_dynamics;
  EXPECT_FALSE(contains(channel_recorder, "--open-timeout")) << channel_recorder;
}

// A dynamics that ends before it opened the channel (no run.json) takes the visual side along
// at once, not after the 2 s grace of a failure mid-run: a failure with its exit code, and an
// exit 0 (--version after "--") with 0 rather than a visual side waiting without a limit.
TEST_F(LauncherTest, ADynamicsThatEndsBeforeOpeningTheChannelStopsTheVisualSideAtOnce) {
  for (const auto& [args, code] : std::vector<std::pair<std::vector<std::string>, int>>{
           {{"--backend", "no-such-backend"}, util::kExitBadInput}, {{"--", "--version"}, util::kExitOk}}) {
    std::vector<std::string> all{"--recorder", "--out", (tmp_.path() / ("run" + std::to_string(code))).string()};
    all.insert(args.front() == "--" ? all.end() : all.begin(), args.begin(), args.end());
    const auto start = std::chrono::steady_clock::now();
    auto cosim = start_cosim(all);
    EXPECT_EQ(finish(*cosim, "cosim", 10), code) << cosim->err();
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1500)) << cosim->err();
    EXPECT_TRUE(contains(cosim->err(), "before opening the channel; stopping cosim-recorder")) << cosim->err();
    EXPECT_FALSE(channel_folders_left());
  }
}

}  // namespace
}  // namespace cosim::test
