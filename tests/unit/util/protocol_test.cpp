// The recorded Connection and version negotiation, over the in-memory channel with faults;
// --channel parsing and the channel factory's refusals (what every channel does once open:
// tests/unit/wire/channel_conformance_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <thread>

#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/connection.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/mem_channel.hpp"
#include "cosim/wire/testing/faulty_channel.hpp"

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

// Expects parse_channel_spec(text) to throw BadInputError naming the value and every `parts`.
void expect_refused(const std::string& text, std::initializer_list<std::string> parts) {
  SCOPED_TRACE(text);
  try {
    parse_channel_spec(text);
    ADD_FAILURE() << "accepted";
  } catch (const util::BadInputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'" + text + "'"), std::string::npos) << what;
    for (const auto& part : parts) EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
  }
}

// The OS's own channel kind (FIFOs on POSIX, named pipes on Windows) and the other OS's
// kind, which this build lists but refuses.
struct OsKinds {
  std::string native;          // "fifo"
  std::string native_address;  // an address it accepts
  std::string native_missing;  // what it says without an address
  std::string foreign;         // "pipe"
  std::string foreign_reason;  // why the foreign one is refused
  std::string forms;           // valid_channel_forms()
  std::string visual_forms;    // visual_channel_forms(): another process, so neither none nor mem:
};
OsKinds os_kinds() {
  if (default_channel_text().starts_with("pipe:")) {
    return {"pipe", "cosim-x", "needs a name", "fifo", "POSIX only", "none, mem:NAME, pipe:NAME or tcp:HOST:PORT",
            "pipe:NAME or tcp:HOST:PORT"};
  }
  return {"fifo", "/tmp/x", "needs a directory", "pipe", "Windows only", "none, fifo:DIR, mem:NAME, shm:NAME or tcp:HOST:PORT",
          "fifo:DIR, shm:NAME or tcp:HOST:PORT"};
}

TEST(ChannelSpec, ParsesNoneTheNativeKindAndMem) {
  const OsKinds os = os_kinds();
  const auto none = parse_channel_spec("none");
  EXPECT_TRUE(none.none());
  EXPECT_EQ(none.text, "none");
  const auto native = parse_channel_spec(os.native + ":" + os.native_address);
  EXPECT_FALSE(native.none());
  EXPECT_EQ(native.kind, os.native);
  EXPECT_EQ(native.address, os.native_address);
  EXPECT_EQ(native.text, os.native + ":" + os.native_address);
  const auto mem = parse_channel_spec("mem:session:1");
  EXPECT_EQ(mem.kind, "mem");
  EXPECT_EQ(mem.address, "session:1") << "only the first colon separates the kind";
  EXPECT_EQ(parse_channel_spec(default_channel_text()).kind, os.native);
}

TEST(ChannelSpec, RejectsWithTheValueAndTheValidForms) {
  const OsKinds os = os_kinds();
  EXPECT_EQ(valid_channel_forms(), os.forms);
  EXPECT_EQ(visual_channel_forms(), os.visual_forms);
  expect_refused(os.native + ":", {os.native_missing});
  expect_refused("mem:", {"needs a name"});
  expect_refused(os.foreign + ":x", {os.foreign_reason, valid_channel_forms()});
  expect_refused("tcp:host", {"no port"});
  if (os.native == "pipe") expect_refused("shm:x", {"POSIX only", valid_channel_forms()});
  if (os.native == "fifo") expect_refused("shm:", {"shm:"});
  expect_refused("bogus", {"expected " + valid_channel_forms()});
  expect_refused("bogus:x", {"expected " + valid_channel_forms()});
  expect_refused("", {"expected " + valid_channel_forms()});
  expect_refused("None", {"expected"});  // kinds are case-sensitive
}

TEST(ChannelSpec, OpenChannelRefusesWhatParseWouldNot) {
  const std::string foreign = os_kinds().foreign;
  for (const auto& spec : {parse_channel_spec("none"), ChannelSpec{foreign, "x", foreign + ":x"}, ChannelSpec{"bogus", "", "bogus"}}) {
    SCOPED_TRACE(spec.text);
    try {
      open_channel(spec, ChannelRole::dynamics, milliseconds(0));
      ADD_FAILURE() << "opened";
    } catch (const wire::ChannelSetupError& e) {
      EXPECT_EQ(e.kind(), wire::ChannelSetupError::Kind::bad_input) << e.what();
      EXPECT_NE(std::string(e.what()).find(spec.text), std::string::npos) << e.what();
    }
  }
}

TEST(ChannelSpec, OpenChannelPairsTwoThreadsOverMem) {
  const ChannelSpec spec = parse_channel_spec("mem:protocol-test");
  std::unique_ptr<wire::Channel> dynamics;
  std::thread listener([&] { dynamics = open_channel(spec, ChannelRole::dynamics, milliseconds(5000)); });
  auto visual = open_channel(spec, ChannelRole::visual, milliseconds(5000));
  listener.join();
  ASSERT_TRUE(dynamics);
  Connection d(std::move(dynamics), wire::Direction::to_visual, nullptr);
  Connection v(std::move(visual), wire::Direction::to_dynamics, nullptr);
  d.send(frame(4), milliseconds(100));
  v1::Envelope got;
  ASSERT_TRUE(v.receive(got, milliseconds(100)));
  EXPECT_EQ(got.frame().seq(), 4u);
  EXPECT_EQ(d.describe(), "mem:protocol-test");
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
  {
    wire::CosimLogReader reader(path);  // closed before the remove: Windows keeps open files
    wire::CosimLogReader::Record record;
    ASSERT_TRUE(reader.next(record));
    EXPECT_EQ(record.dir, wire::Direction::to_visual);
    EXPECT_EQ(record.envelope.frame().seq(), 1u);
    ASSERT_TRUE(reader.next(record));
    EXPECT_EQ(record.envelope.frame().seq(), 2u);
    EXPECT_FALSE(reader.next(record));
  }
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
  using wire::testing::with_faults;
  wire::testing::FaultPlan plan;
  plan.fail_on_write = 2;
  auto [inner_a, b] = wire::make_mem_channel_pair();
  auto a = with_faults(std::move(inner_a), plan);
  Connection sender(std::move(a), wire::Direction::to_visual, nullptr);
  sender.send(frame(1), milliseconds(100));
  EXPECT_THROW(sender.send(frame(2), milliseconds(100)), util::PeerError);

  wire::testing::FaultPlan corrupt;
  corrupt.corrupt_on_write = 1;
  auto [inner_c, d] = wire::make_mem_channel_pair();
  auto c = with_faults(std::move(inner_c), corrupt);
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

namespace cosim::protocol {
namespace {

// The outcome's message is what every program prints on stderr and writes into run.json:
// text a user typed or a file held (an escape sequence, a line end) is shown, not obeyed.
TEST(Outcome, ItsMessageIsOnePrintableLine) {
  const Outcome bad_input = outcome_of(std::make_exception_ptr(util::BadInputError("--param 'a\x1b[31mred\nb=1'")));
  EXPECT_EQ(bad_input.exit_code, util::kExitBadInput);
  EXPECT_EQ(bad_input.message, "--param 'a\\x1B[31mred\\nb=1'");
  const Outcome utf8 = outcome_of(std::make_exception_ptr(util::BadInputError("t ≥ 5 s in /tmp/é")));
  EXPECT_EQ(utf8.message, "t ≥ 5 s in /tmp/é") << "valid UTF-8 passes unchanged";
}

}  // namespace
}  // namespace cosim::protocol
