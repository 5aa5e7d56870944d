// Faults from outside, against the real programs: signals to either side at the handshake,
// mid-run and near the end; Ctrl-C to the launch script's whole process group; a disk that
// fills; an output folder that cannot be created; two sessions on one channel folder; many
// probes. After each: the documented exit codes, no process of ours left, files that parse.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "cosim/test/run_json.hpp"
#include "cosim/util/csv_reader.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

using std::chrono::milliseconds;


/// Every file of a run folder reads: run.json is JSON, the tables end on whole rows (a torn
/// last row is reported and left out), the recording reads to its last whole record.
void expect_folder_parses(const std::filesystem::path& dir) {
  EXPECT_NO_THROW((void)read_run_json(dir)) << dir;
  for (const char* table : {"dynamics.csv", "probes.csv"}) {
    if (std::filesystem::exists(dir / table)) {
      EXPECT_NO_THROW((void)util::CsvTable::read(dir / table)) << table;
    }
  }
  if (std::filesystem::exists(dir / "frames.cosimlog")) {
    wire::CosimLogReader reader(dir / "frames.cosimlog");
    wire::CosimLogReader::Record record;
    EXPECT_NO_THROW(while (reader.next(record)) {});
  }
}

void wait_for_file(const std::filesystem::path& file, int rows_at_least = 0) {
  for (int i = 0; i < 400; ++i) {
    if (std::filesystem::exists(file) && std::filesystem::file_size(file) > 0) {
      if (rows_at_least == 0) return;
      std::ifstream in(file);
      int lines = 0;
      for (std::string line; std::getline(in, line);) ++lines;
      if (lines > rows_at_least) return;
    }
    std::this_thread::sleep_for(milliseconds(25));
  }
}

enum class Victim { dynamics, recorder };
enum class When { handshake, mid_run, near_end };

struct SignalCase {
  Victim victim;
  int signal;
  When when;
};

std::string name_of(const SignalCase& c) {
  const char* s = c.signal == SIGINT ? "Int" : c.signal == SIGTERM ? "Term" : c.signal == SIGKILL ? "Kill" : "Stop";
  const char* w = c.when == When::handshake ? "AtHandshake" : c.when == When::mid_run ? "MidRun" : "NearTheEnd";
  return std::string(c.victim == Victim::dynamics ? "Dynamics" : "Recorder") + s + w;
}
void PrintTo(const SignalCase& c, std::ostream* out) { *out << name_of(c); }

class SignalFault : public LoopTest, public ::testing::WithParamInterface<SignalCase> {};

TEST_P(SignalFault, BothSidesEndAsDocumentedAndTheFolderParses) {
  const SignalCase c = GetParam();
  // 200 lockstep frames at 20 ms of "rendering" each: about 4 s to aim at (probes.csv reaches
  // the disk every 8 KiB, ~25 rows).
  auto dynamics = start_dynamics({"--duration", "10", "--report-timeout", "3"});
  std::unique_ptr<Process> recorder;
  if (c.when != When::handshake || c.victim == Victim::recorder) {
    recorder = start_recorder({"--slow-ms", "20", "--frame-timeout", "3"});
  }
  if (c.when == When::mid_run) wait_for_file(run_dir() / "probes.csv", 20);
  if (c.when == When::near_end) wait_for_file(run_dir() / "probes.csv", 120);
  if (c.when == When::handshake) std::this_thread::sleep_for(milliseconds(200));
  Process& victim = c.victim == Victim::dynamics ? *dynamics : *recorder;
  victim.kill(c.signal);
  if (c.signal == SIGSTOP) {
    // The other side waits out its timeout (3 s) and leaves; then the stopped one goes on,
    // finds its peer gone, and leaves too.
    Process& other = c.victim == Victim::dynamics ? *recorder : *dynamics;
    EXPECT_EQ(finish(other, "the other side", 30), util::kExitPeerFailure) << other.err();
    victim.kill(SIGCONT);
    EXPECT_EQ(finish(victim, "the stopped side", 30), util::kExitPeerFailure) << victim.err();
  } else {
    const int victim_code = finish(victim, "the victim", 30);
    const int expected = c.signal == SIGKILL ? 128 + SIGKILL : util::kExitInterrupted;
    EXPECT_EQ(victim_code, expected) << victim.err();
    if (recorder) {
      Process& other = c.victim == Victim::dynamics ? *recorder : *dynamics;
      const int other_code = finish(other, "the other side", 30);
      // The other side learns it from the peer (its Error, or the closed channel): exit 3. The
      // one exception: a recorder stopped near the end may have sent every report already.
      if (!(c.when == When::near_end && c.victim == Victim::recorder)) {
        EXPECT_EQ(other_code, util::kExitPeerFailure) << other.err();
      }
    }
  }
  if (c.victim == Victim::dynamics && c.signal != SIGKILL && c.signal != SIGSTOP) {
    EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted");
    EXPECT_TRUE(contains(dynamics->err(), "interrupted")) << dynamics->err();
  }
  if (c.victim == Victim::dynamics && c.signal == SIGKILL) {
    // Killed: run.json says the run never ended (the one written at its start).
    EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "running");
  }
  if (!(c.victim == Victim::dynamics && c.signal == SIGKILL)) {
    EXPECT_FALSE(std::filesystem::exists(fifo_dir() / "d2v")) << "FIFOs removed";
  }
  expect_folder_parses(run_dir());
}

std::vector<SignalCase> signal_cases() {
  std::vector<SignalCase> cases;
  for (const Victim v : {Victim::dynamics, Victim::recorder}) {
    for (const int s : {SIGINT, SIGTERM, SIGKILL}) {
      for (const When w : {When::handshake, When::mid_run, When::near_end}) {
        if (v == Victim::recorder && w == When::handshake) continue;  // the dynamics' side of it is its open timeout
        cases.push_back({v, s, w});
      }
    }
    cases.push_back({v, SIGSTOP, When::mid_run});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Signals, SignalFault, ::testing::ValuesIn(signal_cases()),
                         [](const auto& info) { return name_of(info.param); });

// Free and realtime modes do not wait for reports, so a visual side stopped mid-run (SIGSTOP)
// is noticed at the end: it does not answer the Bye with its account of the run. That is
// not "ok" (it was, with 1 report of 80): exit 4, status failed, the tables whole.
TEST_F(LoopTest, AVisualSideStoppedInRealtimeModeFailsTheRunAtItsEnd) {
  auto dynamics = start_dynamics({"--duration", "3", "--mode", "realtime", "--report-timeout", "2"});
  auto recorder = start_recorder({});
  // recorder.log says "session ..." once it has sent its Welcome (lines are flushed).
  for (int i = 0; i < 400 && !contains(read_file(run_dir() / "recorder.log"), "session "); ++i) {
    std::this_thread::sleep_for(milliseconds(25));
  }
  std::this_thread::sleep_for(milliseconds(500));  // some frames reported
  recorder->kill(SIGSTOP);
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics", 30), util::kExitPeerFailure) << dynamics->err();
  EXPECT_TRUE(contains(dynamics->err(), "did not answer Bye within 2000 ms (stopped or hung?); it reported "))
      << dynamics->err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "failed");
  EXPECT_EQ(json.get<int>("summary.frames_sent"), 60);
  recorder->kill(SIGCONT);
  EXPECT_EQ(finish(*recorder, "cosim-recorder", 30), util::kExitPeerFailure) << recorder->err();
  expect_folder_parses(run_dir());
}

// ---- the launch script under a terminal's Ctrl-C ----

const std::filesystem::path kScript = std::filesystem::path(COSIM_SCENES_DIR).parent_path() / "scripts" / "cosim.sh";

TEST_F(LoopTest, CtrlCToTheScriptsProcessGroupKeepsTheRunAndItsReport) {
  setenv("COSIM_BUILD_DIR", kBinDir.parent_path().c_str(), 1);
  std::filesystem::create_directories(tmp_.path() / "tmp");
  setenv("TMPDIR", (tmp_.path() / "tmp").c_str(), 1);
  Process script(kScript, {"--no-build", "--recorder", "--mode", "realtime", "--duration", "60", "--out",
                           run_dir().string()},
                 tmp_.path() / "script", {.own_process_group = true, .file_size_limit = std::nullopt});
  unsetenv("TMPDIR");
  wait_for_file(run_dir() / "probes.csv", 5);
  // A terminal sends SIGINT to the whole group; the script then forwards SIGTERM to its
  // children: the second signal must not cut the first one's clean shutdown short.
  script.kill_group(SIGINT);
  EXPECT_EQ(finish(script, "cosim.sh", 30), util::kExitInterrupted) << script.err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "interrupted");
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "report.md")) << "the report of what was written";
  expect_folder_parses(run_dir());
  EXPECT_TRUE(std::filesystem::is_empty(tmp_.path() / "tmp")) << "channel folder removed";
  // Nobody of the group is left (the script waited for both sides).
  EXPECT_NE(::kill(-script.pid(), 0), 0) << "a process of the run outlived it";
}

TEST_F(LoopTest, ASecondSignalSoonAfterTheFirstKeepsTheCleanShutdown) {
  auto dynamics = std::make_unique<Process>(
      kBinDir / "cosim-dynamics",
      std::vector<std::string>{"--backend", "robotino", "--channel", "none", "--duration", "100000", "--out",
                               run_dir().string()},
      tmp_.path() / "dynamics");
  wait_for_file(run_dir() / "dynamics.log", 0);
  std::this_thread::sleep_for(milliseconds(300));
  dynamics->kill(SIGINT);
  dynamics->kill(SIGTERM);
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics", 30), util::kExitInterrupted) << dynamics->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted");
  EXPECT_TRUE(contains(read_file(run_dir() / "dynamics.log"), "interrupted by a signal at frame"));
}

// ---- disks and folders ----

TEST_F(LoopTest, ADiskThatFillsEndsWithExitTwoWholeRowsAndARunJson) {
  // RLIMIT_FSIZE makes every write past 300 KB fail (EFBIG) as a full disk would (ENOSPC);
  // no root or mount needed. dynamics.csv of a 50 s robotino run is ~3.5 MB.
  Process dynamics(kBinDir / "cosim-dynamics",
                   {"--backend", "robotino", "--channel", "none", "--duration", "50", "--out", run_dir().string(),
                    "--progress", "never"},
                   tmp_.path() / "dynamics", {.file_size_limit = 300 * 1024});
  EXPECT_EQ(finish(dynamics, "cosim-dynamics", 60), util::kExitBadInput) << dynamics.err();
  const std::string err = dynamics.err();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(contains(err, "dynamics.csv: cannot write: File too large")) << err;
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "failed");
  EXPECT_TRUE(contains(json.get<std::string>("error"), "File too large"));
  const auto table = util::CsvTable::read(run_dir() / "dynamics.csv");
  EXPECT_EQ(table.torn_line(), 0u) << "cut back to the last whole row";
  EXPECT_GT(table.rows(), 100u);
}

TEST_F(LoopTest, AnOutputFolderThatCannotBeCreatedIsExitTwoNamingIt) {
  for (const char* exe : {"cosim-dynamics", "cosim-recorder"}) {
    Process p(kBinDir / exe, {"--channel", std::string(exe) == "cosim-dynamics" ? "none" : channel(), "--out",
                              "/proc/cosim-cannot-be-here", "--open-timeout", "1"},
              tmp_.path() / exe);
    EXPECT_EQ(finish(p, exe, 30), util::kExitBadInput) << p.err();
    const std::string err = p.err();
    EXPECT_TRUE(contains(err, "/proc/cosim-cannot-be-here")) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

// ---- one session per channel folder ----

TEST_F(LoopTest, ASecondSessionOnOneChannelFolderIsRefusedAndTheFirstGoesOn) {
  auto dynamics = start_dynamics({"--duration", "3", "--mode", "realtime"});
  auto recorder = start_recorder({});
  wait_for_file(run_dir() / "probes.csv", 3);
  Process second_dynamics(kBinDir / "cosim-dynamics",
                          {"--backend", "kinematic", "--channel", channel(), "--out", (tmp_.path() / "run2").string()},
                          tmp_.path() / "dynamics2");
  EXPECT_EQ(finish(second_dynamics, "second cosim-dynamics", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(second_dynamics.err(), "in use by another cosim-dynamics (pid " + std::to_string(dynamics->pid())))
      << second_dynamics.err();
  Process second_recorder(kBinDir / "cosim-recorder", {"--channel", channel(), "--open-timeout", "5"},
                          tmp_.path() / "recorder2");
  EXPECT_EQ(finish(second_recorder, "second cosim-recorder", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(second_recorder.err(), "in use by another visual side (pid " + std::to_string(recorder->pid())))
      << second_recorder.err();
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitOk) << recorder->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitOk) << dynamics->err();
  // The first session ran to its end: all 60 frames of 3 s at 20 fps sent. In realtime mode
  // a visual side that falls behind (a loaded machine) skips frames rather than delaying the
  // dynamics, so the count that holds is "every frame reported or skipped", not 60 reports.
  const auto json = read_run_json(run_dir());
  const auto field = [&](const std::string& key) { return json.get<int>("summary." + key); };
  EXPECT_EQ(field("frames_sent"), 60);
  EXPECT_EQ(field("reports_received") + field("frames_skipped_by_visual"), 60);
  EXPECT_GT(field("reports_received"), 0);
}

// ---- many probes over a real channel (the row buffers of both tables) ----

class ManyProbes : public LoopTest, public ::testing::WithParamInterface<int> {};

TEST_P(ManyProbes, EveryProbeIsComparedAndWritten) {
  const int extra = GetParam();
  const auto scene = tmp_.path() / "scene";
  std::filesystem::copy(kScenesDir / "robotino", scene, std::filesystem::copy_options::recursive);
  const auto robot = scene / "robots" / "Robotino.xml";
  std::string xml = read_file(robot);
  std::string probes;
  for (int i = 0; i < extra; ++i) {
    probes += "<probe name=\"extra" + std::to_string(i) + "\" x=\"" + std::to_string(0.01 * i) + "\" y=\"0.1\" z=\"0.2\"/>\n";
  }
  const auto at = xml.find("<probe name=\"chassis_bottom\"");
  ASSERT_NE(at, std::string::npos);
  xml.insert(at, probes);
  std::ofstream(robot) << xml;
  auto dynamics = start_dynamics({"--scene", scene.string(), "--duration", "1"});
  auto recorder = start_recorder({"--scene", scene.string()});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), util::kExitOk) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitOk) << dynamics->err();
  const auto table = util::CsvTable::read(run_dir() / "probes.csv");
  const int probe_count = extra + 1;
  EXPECT_EQ(table.columns().size(), 7u + 11u * static_cast<std::size_t>(probe_count));
  EXPECT_EQ(table.rows(), 20u);
  // The recorder computes them with the same kinematics: equal to rounding.
  EXPECT_LE(read_run_json(run_dir()).get<double>("summary.diff_same_time_m.max"), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Counts, ManyProbes, ::testing::Values(0, 3, 4, 22, 99));

}  // namespace
}  // namespace cosim::test
