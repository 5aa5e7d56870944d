#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "cosim/test/process.hpp"

namespace cosim::test {

inline const std::filesystem::path kBinDir = COSIM_BIN_DIR;
inline const std::filesystem::path kScenesDir = COSIM_SCENES_DIR;

/// A fresh run folder and FIFO folder per test, and launchers for the real executables.
class LoopTest : public ::testing::Test {
 protected:
  LoopTest() : tmp_(::testing::UnitTest::GetInstance()->current_test_info()->name()) {}

  std::filesystem::path run_dir() const { return tmp_.path() / "run"; }
  std::filesystem::path fifo_dir() const { return tmp_.path() / "fifo"; }
  std::string channel() const { return "fifo:" + fifo_dir().string(); }

  std::unique_ptr<Process> start_dynamics(std::vector<std::string> extra) {
    // The kinematic backend unless the test names one: it is exact, so tests can compare with the rose.
    const bool names_backend = std::find(extra.begin(), extra.end(), "--backend") != extra.end();
    std::vector<std::string> args{"--channel", channel(), "--out", run_dir().string(), "--open-timeout", "20",
                                  "--progress", "never"};
    if (!names_backend) args.insert(args.begin(), {"--backend", "kinematic"});
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-dynamics", args, tmp_.path() / "dynamics");
  }
  std::unique_ptr<Process> start_recorder(std::vector<std::string> extra) {
    std::vector<std::string> args{"--channel", channel(), "--out", run_dir().string(), "--open-timeout", "20"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-recorder", args, tmp_.path() / "recorder");
  }
  /// Waits for a process and returns its exit code; fails the test (with its stderr) on timeout.
  static int finish(Process& p, const char* who, int timeout_s = 120) {
    const auto code = p.wait(std::chrono::seconds(timeout_s));
    if (!code) {
      ADD_FAILURE() << who << " still running after " << timeout_s << " s; stderr:\n" << p.err();
      p.kill(SIGKILL);
      return -1;
    }
    return *code;
  }

  TempDir tmp_;
};

}  // namespace cosim::test
