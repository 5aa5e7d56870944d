// The three modes with the recorder stub, and a deliberately slow visual side.
#include <gtest/gtest.h>

#include <chrono>

#include "cosim/test/run_json.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

struct SentFrame {
  double t_s;
  std::int64_t sent_ns;
};

std::vector<SentFrame> frames_sent(const std::filesystem::path& cosimlog) {
  wire::CosimLogReader reader(cosimlog);
  wire::CosimLogReader::Record record;
  std::vector<SentFrame> frames;
  while (reader.next(record)) {
    if (record.envelope.has_frame()) {
      frames.push_back({record.envelope.frame().sim_time_s(), record.envelope.frame().sent_ns()});
    }
  }
  return frames;
}

TEST_P(AnyChannel, RealtimeNeverRunsAheadOfTheWallClock) {
  const auto start = std::chrono::steady_clock::now();
  auto dynamics = start_dynamics({"--mode", "realtime", "--rate", "10", "--duration", "5", "--fps", "20"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(wall_s, 0.5 - 0.05);  // 5 sim s at 10x; the first frame is due at once
  EXPECT_LT(wall_s, 30.0);        // loose: shared, noisy machines

  // No frame left before its due time: sent_k - sent_1 >= (t_k - t_1) / rate.
  const auto frames = frames_sent(run_dir() / "frames.cosimlog");
  ASSERT_EQ(frames.size(), 100u);
  for (const auto& f : frames) {
    const double due_s = (f.t_s - frames.front().t_s) / 10.0;
    const double sent_s = static_cast<double>(f.sent_ns - frames.front().sent_ns) * 1e-9;
    EXPECT_GE(sent_s, due_s - 1e-6) << "frame at t = " << f.t_s << " went out early";
  }
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("mode"), "realtime");
  // A frame is due every 5 ms and the recorder answers in well under 1 ms: the report is in
  // before the next frame leaves, so it is counted against its own frame (delay 0). The median
  // holds on a loaded machine; frames waiting for their due time are not counted as sent.
  EXPECT_EQ(json.get<double>("summary.delay_frames.p50"), 0.0);
}

TEST_F(LoopTest, RealtimeOverrunsAreCountedAndLogged) {
  // At 10000x a frame is due every 5 us of wall time, less than integrating it takes:
  // the dynamics falls behind and must say so.
  auto dynamics = start_dynamics({"--mode", "realtime", "--rate", "10000", "--duration", "50", "--fps", "20"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const auto json = read_run_json(run_dir());
  EXPECT_GT(json.get<double>("summary.overruns"), 0.0) << read_file(run_dir() / "run.json");
  EXPECT_NE(read_file(run_dir() / "dynamics.log").find("realtime overrun"), std::string::npos);
}

TEST_F(LoopTest, SlowVisualSkipsFramesInFreeModeWithoutGrowingMemory) {
  auto dynamics = start_dynamics({"--mode", "free", "--duration", "20", "--fps", "100"});
  auto recorder = start_recorder({"--slow-ms", "10"});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const auto json = read_run_json(run_dir());
  const double sent = json.get<double>("summary.frames_sent");
  const double reports = json.get<double>("summary.reports_received");
  const double skipped = json.get<double>("summary.frames_skipped_by_visual");
  EXPECT_EQ(sent, 2000.0);
  EXPECT_GT(skipped, 0.0) << "a 10 ms/frame visual cannot show 2000 frames as fast as they come";
  EXPECT_EQ(reports + skipped, sent) << read_file(run_dir() / "run.json");
  // Skipping, not queueing: the recorder stays small.
  EXPECT_LT(recorder->max_rss_kib(), 50 * 1024);
  EXPECT_LT(dynamics->max_rss_kib(), 50 * 1024);
  EXPECT_NE(read_file(run_dir() / "recorder.log").find("skipped"), std::string::npos);
}

TEST_F(LoopTest, SlowVisualSkipsFramesInRealtimeMode) {
  // 1000 frames in 1 s of wall time; a visual side at 20 ms per frame shows about 50 of them.
  auto dynamics = start_dynamics({"--mode", "realtime", "--rate", "10", "--duration", "10", "--fps", "100"});
  auto recorder = start_recorder({"--slow-ms", "20"});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const auto json = read_run_json(run_dir());
  const double reports = json.get<double>("summary.reports_received");
  const double skipped = json.get<double>("summary.frames_skipped_by_visual");
  EXPECT_GT(skipped, 0.0) << read_file(run_dir() / "run.json");
  EXPECT_EQ(reports + skipped, 1000.0) << read_file(run_dir() / "run.json");
  EXPECT_LT(recorder->max_rss_kib(), 50 * 1024);
}

TEST_F(LoopTest, SlowVisualMakesLockstepWaitAndFinish) {
  auto dynamics = start_dynamics({"--mode", "lockstep", "--duration", "2", "--fps", "50"});
  auto recorder = start_recorder({"--slow-ms", "10"});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<double>("summary.reports_received"), 100.0);
  EXPECT_EQ(json.get<double>("summary.frames_skipped_by_visual"), 0.0);
  EXPECT_GE(json.get<double>("wall_s"), 100 * 0.010 - 0.05);  // it waited for every report
}

}  // namespace
}  // namespace cosim::test
