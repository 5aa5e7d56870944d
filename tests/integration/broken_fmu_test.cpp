// The broken FMUs of tests/fmus/broken/ run by the real cosim-dynamics (--backend fmu, channel
// none) and by the launcher with the recorder: each gives one error line naming the FMU and the
// problem with its exit code (2 refused, 5 failed while running), never hangs, and the run
// folder keeps what was written before the failure, a crash of the FMU included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cosim/platform/process.hpp"
#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

class BrokenFmuTest : public LoopTest {
 protected:
  static std::string fmu(const std::string& what) { return (kBinDir / "fmus" / ("broken_" + what + ".fmu")).string(); }

  // cosim-dynamics alone on `what`'s FMU; its exit code (a run takes well under a second).
  int run_dynamics(const std::string& what, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--backend", "fmu", "--param", "fmu=" + fmu(what), "--channel", "none",
                                  "--out",     run_dir().string(), "--progress", "never"};
    args.insert(args.end(), extra.begin(), extra.end());
    dynamics_ = std::make_unique<Process>(kBinDir / "cosim-dynamics", args, tmp_.path() / ("dynamics-" + what));
    return finish(*dynamics_, "cosim-dynamics", 20);
  }
  std::string err() const { return dynamics_->err(); }

  // dynamics.csv's rows are the clock's: Pendulum/swing is the time and `steps` its 0.01 s
  // steps, from t = 0 to `last_t_s` every output step (0.02 s).
  void expect_clock_rows_up_to(double last_t_s) const {
    const Csv csv = read_csv(run_dir() / "dynamics.csv");
    const auto t = csv.values("t_s"), swing = csv.values("Pendulum/swing_rad"), steps = csv.values("steps");
    ASSERT_EQ(t.size(), static_cast<std::size_t>(std::lround(last_t_s / 0.02)) + 1);
    for (std::size_t i = 0; i < t.size(); ++i) {
      // The CSV's numbers are printed to round-trip; k·0.02 and the FMU's sum of 0.01 s steps
      // differ by rounding only, ~1e-16 s per step.
      EXPECT_NEAR(t[i], 0.02 * static_cast<double>(i), 1e-12);
      EXPECT_NEAR(swing[i], t[i], 1e-12);
      EXPECT_EQ(steps[i], 2.0 * static_cast<double>(i));
    }
  }

 private:
  std::unique_ptr<Process> dynamics_;
};

TEST_F(BrokenFmuTest, AnFmuRefusedBeforeRunningIsOneLineExit2AndNoRunFolder) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"no_do_step",
       "broken_no_do_step.fmu: its binary exports no fmi3DoStep (the standard requires every one of its functions)"},
      {"zip_entry", fmu("zip_entry") + ": ../evil: a '..' component (it could climb out of the folder)"},
      {"lying",
       "broken_lying.fmu: its binary refuses the output 'ghost' (valueReference 7, modelDescription.xml line 19): "
       "fmi3GetFloat64 returned Error: no Float64 variable of value reference 7"},
  };
  for (const auto& [what, line] : cases) {
    EXPECT_EQ(run_dynamics(what), util::kExitBadInput) << what;
    EXPECT_EQ(err(), "cosim-dynamics: error: " + line + "\n") << what;
    EXPECT_FALSE(std::filesystem::exists(run_dir())) << what << ": refused before the run folder is made";
  }
}

TEST_F(BrokenFmuTest, DiscardErrorAndFatalExit5WithTheFmusMessageAndKeepTheRowsBefore) {
  for (const std::string status : {"Discard", "Error", "Fatal"}) {
    std::string what = status;
    what[0] = static_cast<char>(std::tolower(what[0]));
    std::filesystem::remove_all(run_dir());
    EXPECT_EQ(run_dynamics(what), util::kExitNumerical) << status;
    const std::string message = "broken_" + what + ".fmu: fmi3DoStep at t = 0.5 s returned " + status +
                                ": the clock broke at t = 0.5 s (step 51)";
    EXPECT_EQ(err(), "cosim-dynamics: error: " + message + "\n") << status;
    expect_clock_rows_up_to(0.5);
    const auto json = read_run_json(run_dir());
    EXPECT_EQ(json.get<std::string>("status"), "numerical_failure") << status;
    EXPECT_EQ(json.get<std::string>("error"), message);
    // The FMU's log as lines of their own, before the error that ends the log.
    const std::string log = read_file(run_dir() / "dynamics.log");
    EXPECT_TRUE(contains(log, "] info: broken_" + what + ".fmu: OK: logEvents: clock ready, failing from t = 0.5 s\n"))
        << log;
    EXPECT_TRUE(contains(log, "] info: broken_" + what + ".fmu: " + status +
                                  ": logStatusError: the clock broke at t = 0.5 s (step 51)\n"))
        << log;
    EXPECT_TRUE(log.ends_with("] error: " + message + "\n")) << log;
  }
}

TEST_F(BrokenFmuTest, AFixedStepFmuTakesItsStepAndAFramePeriodNotAMultipleIsOneLineExit2) {
  // Frames of 0.02 s: two steps of 0.01 s each (the FMU returns Error for any other step).
  ASSERT_EQ(run_dynamics("fixed_step", {"--fps", "50"}), util::kExitOk) << err();
  expect_clock_rows_up_to(1.0);
  std::filesystem::remove_all(run_dir());
  // Frames of 1/30 s between outputs of 0.02 s: the first advance after 0.02 s is 1/75 s.
  EXPECT_EQ(run_dynamics("fixed_step", {"--fps", "30"}), util::kExitBadInput);
  EXPECT_EQ(err(), "cosim-dynamics: error: broken_fixed_step.fmu takes communication steps of exactly 0.01 s "
                   "(canHandleVariableCommunicationStepSize=false); the run advances by 0.0133333 s: choose --fps or "
                   "--output-step a multiple of it\n");
}

TEST_F(BrokenFmuTest, ACrashInDoStepKillsTheDynamicsAndTheRunFolderKeepsWhatWasWritten) {
  // SIGSEGV; under AddressSanitizer its report, then SIGABRT (scripts/sanitize.sh: abort_on_error).
  EXPECT_THAT(platform::crash_description(run_dynamics("crash")), ::testing::StartsWith("a crash (SIG")) << err();
  // An FMU runs foreign code: the tables are flushed at every frame (20 fps): every row to the frame at 0.5 s, where the
  // next step writes through a null pointer.
  expect_clock_rows_up_to(0.5);
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "running") << "written at the start, never ended";
  EXPECT_TRUE(contains(read_file(run_dir() / "dynamics.log"), "broken_crash.fmu: OK: logEvents: clock ready"));
}

TEST_F(BrokenFmuTest, ACrashUnderTheLauncherEndsTheRunAtOnceAndIsSaid) {
  std::filesystem::create_directories(tmp_.path() / "tmp");  // the private channel's folder: seen removed
  setenv("TMPDIR", (tmp_.path() / "tmp").c_str(), 1);
  Process cosim(kBinDir / "cosim",
                {"--recorder", "--backend", "fmu", "--out", run_dir().string(), "--", "--param", "fmu=" + fmu("crash")},
                tmp_.path() / "cosim");
  unsetenv("TMPDIR");
  // finish() fails the test if the launcher has not ended within 20 s (a second of simulated
  // time runs in well under one): nothing waits for the side that is gone.
  const int code = finish(cosim, "cosim", 20);
  const std::string crash = platform::crash_description(code);  // SIGSEGV; under ASan SIGABRT
  EXPECT_THAT(crash, ::testing::StartsWith("a crash (SIG")) << cosim.err();
  const std::string err = cosim.err();
  EXPECT_TRUE(contains(err, "cosim: cosim-dynamics ended by " + crash + ", exit " + std::to_string(code) +
                                "; what it wrote before stays in the run folder\n"))
      << err;
  EXPECT_TRUE(contains(err, "cosim-recorder: error: peer closed")) << err;
  EXPECT_TRUE(contains(err, "cosim: no report: run.json still says running")) << err;
  expect_clock_rows_up_to(0.5);
  // Lockstep: every frame to 0.5 s (ten) was answered by the recorder before the crash.
  EXPECT_EQ(read_csv(run_dir() / "probes.csv").rows.size(), 10u);
  // The launcher removes the channel's folder. (The FMU unpacked by the crashed dynamics,
  // cosim-fmu-*, stays: nothing of the dynamics ran after the fault to remove it.)
  for (const auto& left : std::filesystem::directory_iterator(tmp_.path() / "tmp")) {
    EXPECT_TRUE(left.path().filename().string().starts_with("cosim-fmu-")) << left.path() << " left behind";
  }
}

}  // namespace
}  // namespace cosim::test
