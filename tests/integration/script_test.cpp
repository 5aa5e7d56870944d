// scripts/cosim.sh as a user runs it: both processes, the summary, the report, and Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <thread>

#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

const std::filesystem::path kScript = std::filesystem::path(COSIM_SCENES_DIR).parent_path() / "scripts" / "cosim.sh";

class ScriptTest : public LoopTest {
 protected:
  ScriptTest() {
    // The script finds the executables through COSIM_BUILD_DIR, makes its FIFO folder under TMPDIR.
    setenv("COSIM_BUILD_DIR", kBinDir.parent_path().c_str(), 1);
    std::filesystem::create_directories(tmp_.path() / "tmp");
    setenv("TMPDIR", (tmp_.path() / "tmp").c_str(), 1);
  }
  ~ScriptTest() override { unsetenv("TMPDIR"); }
  bool channel_folders_left() const { return !std::filesystem::is_empty(tmp_.path() / "tmp"); }
};

TEST_F(ScriptTest, RunsBothProcessesAndWritesTheReport) {
  Process script(kScript, {"--no-build", "--recorder", "--duration", "5", "--out", run_dir().string()},
                 tmp_.path() / "script");
  ASSERT_EQ(finish(script, "cosim.sh", 120), 0) << script.err();
  EXPECT_NE(script.out().find("frames sent 100, reports 100"), std::string::npos) << script.out();
  EXPECT_NE(script.err().find("report: " + (run_dir() / "report.md").string()), std::string::npos) << script.err();
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "plots" / "path.png"));
  EXPECT_FALSE(channel_folders_left());
}

TEST_F(ScriptTest, CtrlCStopsBothAndCleansUp) {
  Process script(kScript, {"--no-build", "--recorder", "--mode", "realtime", "--duration", "60", "--out",
                           run_dir().string()},
                 tmp_.path() / "script");
  // Wait until the run is under way, then interrupt the script as a terminal would.
  for (int i = 0; i < 200 && !std::filesystem::exists(run_dir() / "probes.csv"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  script.kill(SIGINT);
  EXPECT_EQ(finish(script, "cosim.sh", 30), util::kExitInterrupted) << script.err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted");
  EXPECT_FALSE(channel_folders_left());
}

TEST_F(ScriptTest, UsesTheChannelItIsGiven) {
  const auto fifo = tmp_.path() / "my-fifo";
  Process script(kScript, {"--no-build", "--recorder", "--duration", "2", "--channel", "fifo:" + fifo.string(), "--out",
                           run_dir().string()},
                 tmp_.path() / "script");
  ASSERT_EQ(finish(script, "cosim.sh", 120), 0) << script.err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("channel"), "fifo:" + fifo.string());
  EXPECT_FALSE(std::filesystem::exists(fifo / "d2v"));
}

TEST_F(ScriptTest, UnknownOptionIsUsageError) {
  Process script(kScript, {"--no-build", "--warp-speed"}, tmp_.path() / "script");
  EXPECT_EQ(finish(script, "cosim.sh", 10), util::kExitBadInput);
  EXPECT_NE(script.err().find("--warp-speed"), std::string::npos) << script.err();
}

}  // namespace
}  // namespace cosim::test
