// The headless loop end to end: cosim-dynamics (kinematic and robotino backends) and cosim-recorder,
// two real processes over every channel kind they can meet on (fifo, tcp, shm).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "cosim/wire/cosimlog.hpp"
#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

// The seed-000 rose, written out independently of the backend's implementation.
void rose(double t_s, double& x_m, double& y_m) {
  const double varphi = 0.1 * t_s + 5.0 * std::numbers::pi / 6.0;
  x_m = 2.0 * std::cos(3.0 * varphi) * std::cos(varphi);
  y_m = 2.0 * std::cos(3.0 * varphi) * std::sin(varphi);
}

COSIM_INSTANTIATE_OVER_CHANNELS(AnyChannel);

TEST_P(AnyChannel, LockstepRoseRunMatchesDynamicModelAndRose) {
  auto dynamics = start_dynamics({"--fps", "20", "--duration", "50", "--mode", "lockstep"});
  auto recorder = start_recorder({});
  const int recorder_code = finish(*recorder, "cosim-recorder");
  const int dynamics_code = finish(*dynamics, "cosim-dynamics");
  ASSERT_EQ(dynamics_code, 0) << dynamics->err();
  ASSERT_EQ(recorder_code, 0) << recorder->err();
  EXPECT_NE(dynamics->out().find("run folder: " + run_dir().string()), std::string::npos) << dynamics->out();

  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1000u);
  const std::string p = "Robotino/chassis_bottom/";
  const auto seq = probes.values("frame_seq");
  const auto t = probes.values("t_frame_s");
  const auto delay = probes.values("delay_frames");
  const auto vx = probes.values(p + "virtual_x_m"), vy = probes.values(p + "virtual_y_m"),
             vz = probes.values(p + "virtual_z_m");
  const auto dx = probes.values(p + "dynamic_x_m"), dy = probes.values(p + "dynamic_y_m"),
             dz = probes.values(p + "dynamic_z_m");
  double max_radius = 0;
  for (std::size_t i = 0; i < probes.rows.size(); ++i) {
    ASSERT_EQ(seq[i], static_cast<double>(i + 1));
    EXPECT_NEAR(t[i], static_cast<double>(i + 1) / 20.0, 1e-12);
    EXPECT_EQ(delay[i], 0.0) << "lockstep report " << i + 1;
    // Virtual probe equals the dynamic probe at the same frame.
    const double diff = std::hypot(vx[i] - dx[i], vy[i] - dy[i], vz[i] - dz[i]);
    ASSERT_LE(diff, 1e-9) << "frame " << i + 1;
    // And the probe path is the rose, 0.02 m above the floor.
    double x_ref = 0, y_ref = 0;
    rose(t[i], x_ref, y_ref);
    ASSERT_NEAR(vx[i], x_ref, 1e-9) << "t = " << t[i];
    ASSERT_NEAR(vy[i], y_ref, 1e-9) << "t = " << t[i];
    ASSERT_NEAR(vz[i], 0.02, 1e-12);
    max_radius = std::max(max_radius, std::hypot(vx[i], vy[i]));
  }
  EXPECT_NEAR(max_radius, 2.0, 1e-3);  // the petals reach the amplitude

  // dynamics.csv: one row per output step, initial state included.
  const Csv dynamics_csv = read_csv(run_dir() / "dynamics.csv");
  EXPECT_EQ(dynamics_csv.rows.size(), 2501u);
  EXPECT_GE(dynamics_csv.column("Robotino/x_m"), 0);
  EXPECT_GE(dynamics_csv.column("Robotino/Wheel_3/roller6_rad"), 0);

  // run.json tells what ran and how it ended.
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(json.get<int>("summary.reports_received"), 1000);
  EXPECT_EQ(json.get<std::string>("mode"), "lockstep");

  // What the recorder received is, byte for byte, what the dynamics sent.
  wire::CosimLogReader sent(run_dir() / "frames.cosimlog");
  wire::CosimLogReader received(run_dir() / "recorder.cosimlog");
  std::vector<std::vector<std::byte>> to_visual_sent, to_visual_received;
  wire::CosimLogReader::Record record;
  std::uint64_t frames_checked = 0;
  while (sent.next(record)) {
    if (record.dir == wire::Direction::to_visual) to_visual_sent.push_back(record.framed_bytes);
    if (record.envelope.has_frame()) {
      // Each frame tells the visual side the delay of the latest report: in lockstep, frame k - 1's.
      const auto& frame = record.envelope.frame();
      EXPECT_EQ(frame.last_report_seq(), frame.seq() - 1);
      EXPECT_EQ(frame.last_delay_frames(), 0u);
      if (frame.seq() > 1) {
        EXPECT_GT(frame.last_rtt_us(), 0.0);
      }
      ++frames_checked;
    }
  }
  EXPECT_EQ(frames_checked, 1000u);
  while (received.next(record)) {
    if (record.dir == wire::Direction::to_visual) to_visual_received.push_back(record.framed_bytes);
  }
  EXPECT_EQ(to_visual_sent.size(), 1002u);  // Hello, 1000 frames, Bye
  EXPECT_EQ(to_visual_sent, to_visual_received);
  // The channel's files are gone after a normal end.
  expect_channel_removed();
}

TEST_F(LoopTest, RobotinoDynamicsDrivesTheVirtualModelAlongTheRose) {
  auto dynamics = start_dynamics({"--backend", "robotino", "--fps", "20", "--duration", "50", "--mode", "lockstep"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("backend"), "robotino");
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1000u);
  const std::string p = "Robotino/chassis_bottom/";
  const auto t = probes.values("t_frame_s");
  const auto vx = probes.values(p + "virtual_x_m"), vy = probes.values(p + "virtual_y_m");
  const auto same = probes.values(p + "diff_same_time_m");
  for (std::size_t i = 0; i < probes.rows.size(); ++i) {
    ASSERT_LE(same[i], 1e-9) << "the virtual probe follows the dynamic one, frame " << i + 1;
    if (t[i] < 5.0) continue;  // initial transient
    double x_ref = 0, y_ref = 0;
    rose(t[i], x_ref, y_ref);
    // The dynamic model tracks the rose (seed 000 Fig. 26c: a few 1e-6 m; we ask 2e-5 m).
    ASSERT_NEAR(vx[i], x_ref, 2e-5) << "t = " << t[i];
    ASSERT_NEAR(vy[i], y_ref, 2e-5) << "t = " << t[i];
  }
}

TEST_P(AnyChannel, FreeModeAccountsForEveryFrame) {
  auto dynamics = start_dynamics({"--fps", "50", "--duration", "20", "--mode", "free"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_FALSE(probes.rows.empty());
  const auto seq = probes.values("frame_seq");
  const auto delay = probes.values("delay_frames");
  const auto diff = probes.values("Robotino/chassis_bottom/diff_same_time_m");
  const auto skipped = probes.values("frames_skipped");
  for (std::size_t i = 0; i < probes.rows.size(); ++i) {
    EXPECT_GE(delay[i], 0.0);
    EXPECT_LE(diff[i], 1e-9);
    if (i > 0) {
      EXPECT_GT(seq[i], seq[i - 1]);
    }
  }
  // Every frame was either reported or skipped by the visual side.
  const auto json = read_run_json(run_dir());
  const auto field = [&](const std::string& key) { return json.get<double>("summary." + key); };
  EXPECT_EQ(field("frames_sent"), 1000.0);
  EXPECT_EQ(field("reports_received") + field("frames_skipped_by_visual"), 1000.0);
  EXPECT_EQ(field("reports_received"), static_cast<double>(probes.rows.size()));
  EXPECT_LE(skipped.back(), field("frames_skipped_by_visual"));
}

TEST_F(LoopTest, ReplayOfARecordedRunReproducesItsProbes) {
  auto dynamics = start_dynamics({"--fps", "20", "--duration", "10"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  Process replay(kBinDir / "cosim-recorder",
                 {"--replay", (run_dir() / "frames.cosimlog").string(), "--as-fast-as-possible"},
                 tmp_.path() / "replay");
  ASSERT_EQ(finish(replay, "cosim-recorder --replay", 30), 0) << replay.err();
  EXPECT_NE(replay.out().find("200 frames"), std::string::npos) << replay.out();
  EXPECT_NE(replay.out().find("200 compared, max difference 0 m"), std::string::npos) << replay.out();

  // A damaged recording is bad input naming the file.
  const auto damaged = tmp_.path() / "damaged.cosimlog";
  std::string bytes = read_file(run_dir() / "frames.cosimlog");
  bytes.resize(bytes.size() / 2);
  std::ofstream(damaged, std::ios::binary) << bytes;
  Process bad(kBinDir / "cosim-recorder", {"--replay", damaged.string(), "--as-fast-as-possible"},
              tmp_.path() / "bad");
  EXPECT_EQ(finish(bad, "cosim-recorder --replay", 30), util::kExitBadInput);
  EXPECT_NE(bad.err().find("damaged.cosimlog"), std::string::npos) << bad.err();
}

}  // namespace
}  // namespace cosim::test
