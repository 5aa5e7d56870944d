// Bad input and failing peers, with the real executables over real channels (FIFOs; the peer
// killed and the malformed frames over every kind): one clear line, a distinct exit code,
// nothing already written lost, the channel's files removed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "cosim/v1/cosim.pb.h"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/wire/framing.hpp"
#include "cosim/wire/message_stream.hpp"
#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;


std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const auto at = t.rfind('\n');
  return at == std::string::npos ? t : t.substr(at + 1);
}

void expect_fifos_removed(const std::filesystem::path& dir) {
  EXPECT_FALSE(std::filesystem::exists(dir / "d2v")) << dir;
  EXPECT_FALSE(std::filesystem::exists(dir / "v2d")) << dir;
}

TEST_F(LoopTest, DynamicsWithAnotherMajorVersionStopsBothSides) {
  auto dynamics = start_dynamics({"--duration", "2", "--protocol-major", "2"});
  auto recorder = start_recorder({});
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitVersionMismatch) << recorder->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitVersionMismatch) << dynamics->err();
  for (const std::string& err : {recorder->err(), dynamics->err()}) {
    EXPECT_TRUE(contains(err, "2.1")) << err;
    EXPECT_TRUE(contains(err, "1.1")) << err;
    EXPECT_TRUE(contains(err, "protocol major version mismatch")) << err;
  }
  expect_fifos_removed(fifo_dir());
}

TEST_F(LoopTest, RecorderWithAnotherMajorVersionStopsBothSides) {
  auto dynamics = start_dynamics({"--duration", "2"});
  auto recorder = start_recorder({"--protocol-major", "3"});
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitVersionMismatch) << recorder->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitVersionMismatch) << dynamics->err();
  for (const std::string& err : {recorder->err(), dynamics->err()}) {
    EXPECT_TRUE(contains(err, "3.1")) << err;
    EXPECT_TRUE(contains(err, "1.1")) << err;
  }
  expect_fifos_removed(fifo_dir());
}

TEST_F(LoopTest, JointNameMismatchNamesTheJoints) {
  // The recorder's scene renames one roller joint of the wheel: all three wheels' roller6 differ.
  const auto scene = tmp_.path() / "scene";
  std::filesystem::copy(kScenesDir / "robotino", scene, std::filesystem::copy_options::recursive);
  const auto wheel = scene / "objects" / "Wheel.xml";
  std::string xml = read_file(wheel);
  const auto at = xml.find("name=\"roller6\"");
  ASSERT_NE(at, std::string::npos);
  xml.replace(at, 14, "name=\"roller9\"");
  std::ofstream(wheel) << xml;

  auto dynamics = start_dynamics({"--duration", "2"});
  auto recorder = start_recorder({"--scene", scene.string()});
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitBadInput) << recorder->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitBadInput) << dynamics->err();
  for (const std::string& err : {recorder->err(), dynamics->err()}) {
    EXPECT_TRUE(contains(err, "Robotino/Wheel_1/roller6")) << err;
    EXPECT_TRUE(contains(err, "Robotino/Wheel_3/roller6")) << err;
    EXPECT_TRUE(contains(err, "Robotino/Wheel_2/roller9")) << err;
  }
  expect_fifos_removed(fifo_dir());
}

TEST_P(AnyChannel, RecorderKilledMidRunEndsDynamicsCleanly) {
  auto dynamics = start_dynamics({"--duration", "50", "--fps", "20"});
  auto recorder = start_recorder({"--slow-ms", "5"});
  // Let it run a little (several hundred ms of frames), then kill the recorder hard.
  const auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(50));
    if (std::filesystem::exists(run_dir() / "probes.csv") && std::filesystem::file_size(run_dir() / "probes.csv") > 5000)
      break;
  }
  recorder->kill(SIGKILL);
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 128 + SIGKILL);
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitPeerFailure) << dynamics->err();
  const std::string err = dynamics->err();
  EXPECT_TRUE(contains(err, "peer closed")) << err;
  EXPECT_TRUE(contains(err, channel())) << err;
  // Logs complete: the error is the log's last entry, the CSVs end with whole rows, run.json says failed.
  EXPECT_TRUE(contains(last_line(read_file(run_dir() / "dynamics.log")), "peer closed"));
  const Csv probes = read_csv(run_dir() / "probes.csv");  // throws on a torn row
  EXPECT_GT(probes.rows.size(), 10u);
  EXPECT_LT(probes.rows.size(), 1000u);
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "failed");
  expect_channel_removed();
}

TEST_P(AnyChannel, DynamicsKilledMidRunEndsRecorderCleanly) {
  auto dynamics = start_dynamics({"--duration", "50", "--fps", "20"});
  auto recorder = start_recorder({"--slow-ms", "5"});
  std::this_thread::sleep_for(milliseconds(1500));
  dynamics->kill(SIGKILL);
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 128 + SIGKILL);
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitPeerFailure) << recorder->err();
  EXPECT_TRUE(contains(recorder->err(), "peer closed")) << recorder->err();
  EXPECT_TRUE(contains(last_line(read_file(run_dir() / "recorder.log")), "peer closed"));
}

TEST_F(LoopTest, SigtermStopsDynamicsCleanlyAndTellsTheRecorder) {
  auto dynamics = start_dynamics({"--duration", "50", "--fps", "20"});
  auto recorder = start_recorder({"--slow-ms", "5"});
  std::this_thread::sleep_for(milliseconds(1500));
  dynamics->kill(SIGTERM);
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitInterrupted) << dynamics->err();
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitPeerFailure) << recorder->err();
  EXPECT_TRUE(contains(recorder->err(), "interrupted")) << recorder->err();
  EXPECT_EQ(read_run_json(run_dir()).get<std::string>("status"), "interrupted");
  expect_fifos_removed(fifo_dir());
}

// A hand-made dynamics side that sends raw bytes after a valid Hello, on every channel kind.
class FakeDynamicsTest : public AnyChannel {
 protected:
  int run_recorder_against(const std::string& raw_after_hello, long& max_rss_kib, std::string& err) {
    auto recorder = start_recorder({});
    auto channel = open_peer(protocol::ChannelRole::dynamics, seconds(20));
    wire::MessageStream stream(*channel);
    v1::Envelope hello;
    hello.mutable_hello()->mutable_protocol()->set_major(1);
    hello.mutable_hello()->set_model("Robotino");  // the recorder finds its scene by the model
    hello.mutable_hello()->set_fps(20);
    hello.mutable_hello()->set_frame_count(100);
    hello.mutable_hello()->set_mode(v1::MODE_LOCKSTEP);
    for (const char* j : {"x", "y", "phi", "axle1", "axle2", "axle3"}) {
      hello.mutable_hello()->add_joint_names(std::string("Robotino/") + j);
    }
    for (int w = 1; w <= 3; ++w) {
      for (int r = 1; r <= 6; ++r) {
        hello.mutable_hello()->add_joint_names("Robotino/Wheel_" + std::to_string(w) + "/roller" + std::to_string(r));
      }
    }
    EXPECT_FALSE(stream.send(hello, seconds(5)));
    v1::Envelope welcome;
    EXPECT_FALSE(stream.receive(welcome, seconds(20)));
    EXPECT_TRUE(welcome.has_welcome()) << recorder->err();
    const auto* bytes = reinterpret_cast<const std::byte*>(raw_after_hello.data());
    EXPECT_FALSE(channel->write_all(std::span<const std::byte>(bytes, raw_after_hello.size()), seconds(5)));
    const int code = finish(*recorder, "cosim-recorder", 30);
    max_rss_kib = recorder->max_rss_kib();
    err = recorder->err();
    return code;
  }
};

std::string header(const char magic[4], std::uint32_t length) {
  std::string h(magic, 4);
  for (int i = 0; i < 4; ++i) h += static_cast<char>((length >> (8 * i)) & 0xff);
  return h;
}

COSIM_INSTANTIATE_OVER_CHANNELS(FakeDynamicsTest);

TEST_P(FakeDynamicsTest, OversizedFrameIsRejectedWithoutAllocatingIt) {
  long rss = 0;
  std::string err;
  // Claims 4 GiB - 1: allocating (and zeroing) it would show in the peak RSS.
  EXPECT_EQ(run_recorder_against(header("CSIM", 0xFFFFFFFFu), rss, err), util::kExitPeerFailure);
  EXPECT_TRUE(contains(err, "frame")) << err;
  EXPECT_LT(rss, 200 * 1024) << "peak RSS " << rss << " KiB";
}

TEST_P(FakeDynamicsTest, WrongMagicIsRejected) {
  long rss = 0;
  std::string err;
  EXPECT_EQ(run_recorder_against(header("XSIM", 16) + std::string(16, '\0'), rss, err), util::kExitPeerFailure);
  EXPECT_TRUE(contains(err, "magic")) << err;
}

TEST_P(FakeDynamicsTest, MalformedPayloadIsRejected) {
  long rss = 0;
  std::string err;
  // Field 3 (Frame) as a length-delimited field claiming more bytes than there are.
  const std::string payload = "\x1a\x7f\x01\x02";
  EXPECT_EQ(run_recorder_against(header("CSIM", static_cast<std::uint32_t>(payload.size())) + payload, rss, err), util::kExitPeerFailure);
  EXPECT_FALSE(err.empty());
}

TEST_P(AnyChannel, OversizedReportFromAFakeVisualEndsDynamicsCleanly) {
  auto dynamics = start_dynamics({"--duration", "5"});
  auto channel = open_peer(protocol::ChannelRole::visual, seconds(20));
  wire::MessageStream stream(*channel);
  v1::Envelope hello;
  ASSERT_FALSE(stream.receive(hello, seconds(20)));
  ASSERT_TRUE(hello.has_hello());
  const std::string raw = header("CSIM", 0x7FFFFFFFu);
  ASSERT_FALSE(channel->write_all(std::span<const std::byte>(reinterpret_cast<const std::byte*>(raw.data()), raw.size()),
                                  seconds(5)));
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitPeerFailure) << dynamics->err();
  EXPECT_TRUE(contains(dynamics->err(), "frame")) << dynamics->err();
  EXPECT_LT(dynamics->max_rss_kib(), 200 * 1024);
  expect_channel_removed();
}

}  // namespace
}  // namespace cosim::test
