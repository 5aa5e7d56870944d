// The recorded Connection and version negotiation, over the in-memory channel with faults.
#include <gtest/gtest.h>

#include <filesystem>

#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/connection.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/mem_channel.hpp"

namespace cosim::protocol {
namespace {

using std::chrono::milliseconds;

v1::Envelope frame(std::uint64_t seq) {
  v1::Envelope e;
  e.mutable_frame()->set_seq(seq);
  e.mutable_frame()->add_joint_values(0.5);
  return e;
}

TEST(Negotiate, SameMajorTakesTheSmallerMinor) {
  v1::ProtocolVersion peer;
  peer.set_major(1);
  peer.set_minor(3);
  EXPECT_EQ(negotiate(1, 0, peer, "a", "b"), 0u);
  peer.set_minor(0);
  EXPECT_EQ(negotiate(1, 2, peer, "a", "b"), 0u);
}

TEST(Negotiate, MajorMismatchNamesBothVersions) {
  v1::ProtocolVersion peer;
  peer.set_major(2);
  peer.set_minor(1);
  try {
    negotiate(1, 0, peer, "cosim-recorder", "cosim-dynamics");
    FAIL();
  } catch (const util::VersionMismatchError& e) {
    EXPECT_EQ(e.exit_code(), util::kExitVersionMismatch);
    EXPECT_STREQ(e.what(),
                 "protocol major version mismatch: cosim-recorder speaks 1.0, cosim-dynamics speaks 2.1");
  }
}

TEST(ChannelSpec, ParsesAndRejects) {
  EXPECT_EQ(parse_channel_spec("none").kind, ChannelSpec::Kind::none);
  const auto fifo = parse_channel_spec("fifo:/tmp/x");
  EXPECT_EQ(fifo.kind, ChannelSpec::Kind::fifo);
  EXPECT_EQ(fifo.fifo_dir, "/tmp/x");
  EXPECT_THROW(parse_channel_spec("fifo:"), util::BadInputError);
  EXPECT_THROW(parse_channel_spec("pipe:x"), util::BadInputError);
  EXPECT_THROW(parse_channel_spec("tcp:host:1"), util::BadInputError);
  EXPECT_THROW(parse_channel_spec("bogus"), util::BadInputError);
}

TEST(Connection, RecordsExactlyWhatCrossedTheWire) {
  const auto path = std::filesystem::temp_directory_path() / "cosim_protocol_test.cosimlog";
  auto [a, b] = wire::make_mem_channel_pair();
  {
    wire::CosimLogWriter log(path, kProtocolMajor, kProtocolMinor);
    Connection sender(std::move(a), wire::Direction::to_visual, &log);
    Connection receiver(std::move(b), wire::Direction::to_dynamics, nullptr);
    sender.send(frame(1), milliseconds(100));
    sender.send(frame(2), milliseconds(100));
    v1::Envelope got;
    ASSERT_TRUE(receiver.receive(got, milliseconds(100)));
    EXPECT_EQ(got.frame().seq(), 1u);
    ASSERT_TRUE(receiver.receive(got, milliseconds(100)));
    EXPECT_FALSE(receiver.receive(got, milliseconds(0)));  // nothing pending: timeout is not an error
  }
  wire::CosimLogReader reader(path);
  wire::CosimLogReader::Record record;
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.dir, wire::Direction::to_visual);
  EXPECT_EQ(record.envelope.frame().seq(), 1u);
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.envelope.frame().seq(), 2u);
  EXPECT_FALSE(reader.next(record));
  std::filesystem::remove(path);
}

TEST(Connection, PeerClosedBecomesPeerErrorWithContext) {
  auto [a, b] = wire::make_mem_channel_pair();
  Connection receiver(std::move(b), wire::Direction::to_dynamics, nullptr);
  a->close();
  receiver.set_context("at frame 17");
  v1::Envelope got;
  try {
    receiver.receive(got, milliseconds(100));
    FAIL();
  } catch (const util::PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("peer closed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at frame 17"), std::string::npos) << e.what();
  }
}

TEST(Connection, InjectedWriteFaultAndCorruptionSurface) {
  wire::FaultPlan plan;
  plan.fail_on_write = 2;
  auto [a, b] = wire::make_mem_channel_pair(plan, {});
  Connection sender(std::move(a), wire::Direction::to_visual, nullptr);
  sender.send(frame(1), milliseconds(100));
  EXPECT_THROW(sender.send(frame(2), milliseconds(100)), util::PeerError);

  wire::FaultPlan corrupt;
  corrupt.corrupt_on_write = 1;
  auto [c, d] = wire::make_mem_channel_pair(corrupt, {});
  Connection s2(std::move(c), wire::Direction::to_visual, nullptr);
  Connection r2(std::move(d), wire::Direction::to_dynamics, nullptr);
  s2.send(frame(1), milliseconds(100));
  v1::Envelope got;
  try {
    r2.receive(got, milliseconds(100));
    FAIL();
  } catch (const util::PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("magic"), std::string::npos) << e.what();
  }
}

TEST(ThrowPeerError, MapsCodesToExitCodes) {
  v1::Error error;
  error.set_message("m");
  error.set_code(v1::ERROR_CODE_VERSION_MISMATCH);
  EXPECT_THROW(throw_peer_error(error, "peer"), util::VersionMismatchError);
  error.set_code(v1::ERROR_CODE_JOINT_MISMATCH);
  EXPECT_THROW(throw_peer_error(error, "peer"), util::BadInputError);
  error.set_code(v1::ERROR_CODE_INTERRUPTED);
  EXPECT_THROW(throw_peer_error(error, "peer"), util::PeerError);
  EXPECT_EQ(error_code_for_exit(util::kExitVersionMismatch), v1::ERROR_CODE_VERSION_MISMATCH);
  EXPECT_EQ(error_code_for_exit(util::kExitInterrupted), v1::ERROR_CODE_INTERRUPTED);
}

}  // namespace
}  // namespace cosim::protocol
