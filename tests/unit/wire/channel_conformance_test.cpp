// One conformance suite for every channel kind in the factory's table
// (protocol::channel_kinds()): both ends are opened through protocol::open_channel, as the
// programs open them, in two threads of this process. A new kind is covered by adding it to
// the table; a kind this build cannot open is skipped once, with its reason, by
// ChannelKindTable.EveryKindIsAvailableOrSaysWhy.

#include "wire_test_support.hpp"

#include <cosim/protocol/channel_spec.hpp>
#include <cosim/util/errors.hpp>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/message_stream.hpp>
#include <cosim/wire/testing/faulty_channel.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace cosim::wire {
namespace {

using test::kLong;
using test::kSettle;
using test::raw_header;
namespace fs = std::filesystem;
using google::protobuf::util::MessageDifferencer;
using protocol::ChannelKind;
using protocol::ChannelRole;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using test::AllocationProbe;
using test::Async;
using test::Clock;
using test::elapsed_ms;
using test::encoded;
using test::expect_setup_error;
using test::make_frame;
using test::make_report;

// Opens that must fail for lack of a peer: any timeout proves the point, 200 ms keeps it fast.
constexpr milliseconds kShortOpen{200};
// A timeout an interrupt must cut short: reaching it would show the stop was ignored.
constexpr milliseconds kNotReached{10'000};
// Bound on how late a blocked call may return after the event that ends it: two 100 ms stop
// slices plus scheduling on a loaded 2-core machine, well under the kLong it would otherwise take.
constexpr double kPromptMs = 1500.0;
// More than any pipe of these kinds holds (Linux FIFO 64 KiB, mem 64 KiB): a write this big blocks.
constexpr std::size_t kOverfullBytes = 4u << 20;

const char* role_name(ChannelRole role) { return role == ChannelRole::dynamics ? "dynamics" : "visual"; }

const ChannelKind& kind_named(const std::string& name) {
  for (const ChannelKind& kind : protocol::channel_kinds()) {
    if (kind.name == name) return kind;
  }
  throw std::logic_error("no channel kind " + name);
}

std::vector<std::string> kind_names(bool available_only) {
  std::vector<std::string> names;
  for (const ChannelKind& kind : protocol::channel_kinds()) {
    if (kind.available() || !available_only) names.emplace_back(kind.name);
  }
  return names;
}

bool is_empty_dir(const fs::path& dir) { return fs::is_empty(dir); }

// ---- the table itself ----

TEST(ChannelKindTable, IsSortedWithUniqueNamesAndNoneIsNotAKind) {
  const auto kinds = protocol::channel_kinds();
  ASSERT_FALSE(kinds.empty());
  for (std::size_t i = 1; i < kinds.size(); ++i) EXPECT_LT(kinds[i - 1].name, kinds[i].name) << "keep the table sorted";
  for (const ChannelKind& kind : kinds) EXPECT_NE(kind.name, "none");
}

class ChannelKindTable : public ::testing::TestWithParam<std::string> {};

TEST_P(ChannelKindTable, EveryKindIsAvailableOrSaysWhy) {
  const ChannelKind& kind = kind_named(GetParam());
  EXPECT_TRUE(std::string_view(kind.usage).starts_with(std::string(kind.name) + ":")) << kind.usage;
  EXPECT_FALSE(kind.help.empty());
  if (kind.available()) {
    EXPECT_TRUE(kind.check_address && kind.open_dynamics && kind.open_visual && kind.scratch_address);
    EXPECT_NE(protocol::valid_channel_forms().find(kind.usage), std::string::npos);
    return;
  }
  // Unavailable: a --channel naming it is refused with the reason and the forms that work.
  const std::string text = std::string(kind.name) + ":x";
  try {
    protocol::parse_channel_spec(text);
    ADD_FAILURE() << text << " was accepted";
  } catch (const util::BadInputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(text), std::string::npos) << what;
    EXPECT_NE(what.find(kind.unavailable), std::string::npos) << what;
    EXPECT_NE(what.find(protocol::valid_channel_forms()), std::string::npos) << what;
  }
  EXPECT_EQ(protocol::valid_channel_forms().find(kind.usage), std::string::npos);
  // Checked: it is refused as it should be. (Not a skip: this test ran and passed.)
  RecordProperty("unavailable", std::string(kind.unavailable));
}

INSTANTIATE_TEST_SUITE_P(Kinds, ChannelKindTable, ::testing::ValuesIn(kind_names(/*available_only=*/false)),
                         [](const auto& info) { return info.param; });

// ---- the conformance suite ----

struct Ends {
  std::unique_ptr<Channel> dynamics;
  std::unique_ptr<Channel> visual;
  Channel& of(ChannelRole role) { return role == ChannelRole::dynamics ? *dynamics : *visual; }
};

class ChannelConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const ChannelKind& kind = kind_named(GetParam());
    spec_ = protocol::parse_channel_spec(std::string(kind.name) + ":" + kind.scratch_address(scratch_.path(), "ch"));
  }

  std::unique_ptr<Channel> open(ChannelRole role, milliseconds timeout = kLong) {
    return protocol::open_channel(spec_, role, timeout);
  }

  // Opens `first` in a thread, checks it waits for its peer, then opens the other end.
  Ends open_both(ChannelRole first = ChannelRole::dynamics) {
    const ChannelRole second = first == ChannelRole::dynamics ? ChannelRole::visual : ChannelRole::dynamics;
    Async<std::unique_ptr<Channel>> waiting([this, first] { return open(first); });
    std::this_thread::sleep_for(kSettle);
    EXPECT_FALSE(waiting.done()) << role_name(first) << " end returned before its peer opened";
    Ends ends;
    auto other = open(second);
    (first == ChannelRole::dynamics ? ends.visual : ends.dynamics) = std::move(other);
    (first == ChannelRole::dynamics ? ends.dynamics : ends.visual) = waiting.get();
    return ends;
  }

  test::StopGuard stop_guard_;  // a failing interrupt test cannot leak the stop flag
  test::TempDir scratch_;       // everything a kind creates lives here
  protocol::ChannelSpec spec_;
};

void expect_every_body_type_both_ways(Ends& ends) {
  MessageStream dynamics(*ends.dynamics), visual(*ends.visual);
  cosim::v1::Envelope got;
  for (const auto& c : test::canonical_envelopes()) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(dynamics.send(c.envelope, kLong));
    ASSERT_FALSE(visual.receive(got, kLong));
    EXPECT_TRUE(MessageDifferencer::Equals(got, c.envelope));
    ASSERT_FALSE(visual.send(c.envelope, kLong));
    ASSERT_FALSE(dynamics.receive(got, kLong));
    EXPECT_TRUE(MessageDifferencer::Equals(got, c.envelope));
  }
}

void expect_round_trips(Ends& ends, int count) {
  MessageStream dynamics(*ends.dynamics), visual(*ends.visual);
  cosim::v1::Envelope got;
  for (int i = 1; i <= count; ++i) {
    ASSERT_FALSE(dynamics.send(make_frame(i, 6), kLong));
    ASSERT_FALSE(visual.receive(got, kLong));
    ASSERT_EQ(got.frame().seq(), static_cast<std::uint64_t>(i));
    ASSERT_FALSE(visual.send(make_report(i, 3), kLong));
    ASSERT_FALSE(dynamics.receive(got, kLong));
    ASSERT_EQ(got.probe_report().frame_seq(), static_cast<std::uint64_t>(i));
  }
}

// ---- opening ----

TEST_P(ChannelConformance, DynamicsFirstWaitsForTheVisualSide) {
  Ends ends = open_both(ChannelRole::dynamics);
  expect_every_body_type_both_ways(ends);
}

TEST_P(ChannelConformance, VisualFirstWaitsForTheDynamicsSide) {
  Ends ends = open_both(ChannelRole::visual);
  expect_every_body_type_both_ways(ends);
}

TEST_P(ChannelConformance, DescribeReturnsTheSpecText) {
  Ends ends = open_both();
  EXPECT_EQ(ends.dynamics->describe(), spec_.text);
  EXPECT_EQ(ends.visual->describe(), spec_.text);
}

TEST_P(ChannelConformance, OpenTimesOutWithNobodyThereOnBothRoles) {
  for (const ChannelRole role : {ChannelRole::dynamics, ChannelRole::visual}) {
    SCOPED_TRACE(role_name(role));
    const auto t0 = Clock::now();
    expect_setup_error([&] { open(role, kShortOpen); }, Kind::timeout, {spec_.text, "within 0.2 s"});
    const double waited = elapsed_ms(t0);
    EXPECT_GE(waited, kShortOpen.count() - 1.0) << "gave up before its timeout";
    EXPECT_LT(waited, kShortOpen.count() + kPromptMs) << "overran its timeout";
    EXPECT_TRUE(is_empty_dir(scratch_.path())) << "a failed open leaves nothing behind";
  }
}

TEST_P(ChannelConformance, OpenIsInterruptedOnBothRoles) {
  for (const ChannelRole role : {ChannelRole::dynamics, ChannelRole::visual}) {
    SCOPED_TRACE(role_name(role));
    std::thread stopper([] {
      std::this_thread::sleep_for(kSettle);
      request_stop();
    });
    const auto t0 = Clock::now();
    expect_setup_error([&] { open(role, kNotReached); }, Kind::interrupted, {spec_.text});
    EXPECT_LT(elapsed_ms(t0), kSettle.count() + kPromptMs);
    stopper.join();
    reset_stop();
    EXPECT_TRUE(is_empty_dir(scratch_.path())) << "an interrupted open leaves nothing behind";
  }
  Ends ends = open_both();  // nothing stale is left in the way either
  expect_round_trips(ends, 2);
}

TEST_P(ChannelConformance, BothEndsGoneLeaveNothingBehindAndTheAddressIsReusable) {
  {
    Ends ends = open_both();
    expect_round_trips(ends, 3);
  }
  EXPECT_TRUE(is_empty_dir(scratch_.path())) << "files of the closed channel are left";
  Ends again = open_both(ChannelRole::visual);
  expect_round_trips(again, 3);
}

// ---- data path ----

TEST_P(ChannelConformance, LargeFrameCrossesThePipeBothWays) {
  Ends ends = open_both();
  const auto big = make_frame(1, 120'000);  // 8 bytes per joint value
  ASSERT_GT(big.ByteSizeLong(), 900'000u) << "must be many times the 64 KiB pipes and read buffers";
  ASSERT_LT(big.ByteSizeLong(), kDefaultMaxPayloadBytes) << "must fit MessageStream's cap";
  for (const ChannelRole from : {ChannelRole::dynamics, ChannelRole::visual}) {
    SCOPED_TRACE(role_name(from));
    const ChannelRole to = from == ChannelRole::dynamics ? ChannelRole::visual : ChannelRole::dynamics;
    Async<std::error_code> sender([&] { return MessageStream(ends.of(from)).send(big, kLong); });
    MessageStream receiver(ends.of(to));
    cosim::v1::Envelope got;
    ASSERT_FALSE(receiver.receive(got, kLong));
    EXPECT_FALSE(sender.get());
    EXPECT_TRUE(MessageDifferencer::Equals(got, big));
  }
}

TEST_P(ChannelConformance, ReadsWithTimeoutZeroReturnAtOnceWhenNothingIsPending) {
  Ends ends = open_both();
  MessageStream visual(*ends.visual);
  cosim::v1::Envelope got;
  EXPECT_FALSE(ends.visual->readable_now());
  auto t0 = Clock::now();
  EXPECT_EQ(visual.receive(got, milliseconds(0)), Errc::timeout);
  std::array<std::byte, 1> one{};
  EXPECT_EQ(ends.visual->read_exact(one, milliseconds(0)), Errc::timeout);
  EXPECT_LT(elapsed_ms(t0), 250.0) << "timeout 0 must not wait (250 ms: scheduling slack only)";
  t0 = Clock::now();
  // 150 ms: nothing will come, so any timeout shows the wait is honoured; short keeps it fast.
  EXPECT_EQ(visual.receive(got, milliseconds(150)), Errc::timeout);
  EXPECT_GE(elapsed_ms(t0), 149.0);
  EXPECT_LT(elapsed_ms(t0), 150.0 + kPromptMs);
  // Still in sync afterwards; "forever" does not overflow a deadline.
  ASSERT_FALSE(MessageStream(*ends.dynamics).send(make_frame(9, 2), milliseconds::max()));
  ASSERT_FALSE(visual.receive(got, milliseconds::max()));
  EXPECT_EQ(got.frame().seq(), 9u);
}

TEST_P(ChannelConformance, ReadableNowFollowsPendingDataAndClose) {
  Ends ends = open_both();
  MessageStream dynamics(*ends.dynamics), visual(*ends.visual);
  EXPECT_FALSE(ends.visual->readable_now());
  ASSERT_FALSE(dynamics.send(make_frame(1, 2), kLong));
  EXPECT_TRUE(ends.visual->readable_now());
  cosim::v1::Envelope got;
  ASSERT_FALSE(visual.receive(got, kLong));
  EXPECT_FALSE(ends.visual->readable_now());
  ends.dynamics->close();
  EXPECT_TRUE(ends.visual->readable_now()) << "a closed peer makes reads non-blocking";
}

TEST_P(ChannelConformance, WriteTimesOutWhenThePeerDoesNotRead) {
  Ends ends = open_both();
  const std::vector<std::byte> chunk(kOverfullBytes);
  const auto t0 = Clock::now();
  // 100 ms: nobody reads, so any timeout proves it.
  EXPECT_EQ(ends.dynamics->write_all(chunk, milliseconds(100)), Errc::timeout);
  EXPECT_GE(elapsed_ms(t0), 99.0);
  EXPECT_LT(elapsed_ms(t0), 100.0 + kPromptMs);
}

TEST_P(ChannelConformance, ManyFramesInFlightKeepTheirOrder) {
  Ends ends = open_both();
  constexpr std::uint64_t kCount = 2000;  // ~150 KiB in all: the writer fills the pipe and waits
  Async<std::error_code> producer([&] {
    MessageStream s(*ends.dynamics);
    for (std::uint64_t i = 1; i <= kCount; ++i) {
      if (auto ec = s.send(make_frame(i, 6), kLong)) return ec;
    }
    return std::error_code{};
  });
  MessageStream visual(*ends.visual);
  cosim::v1::Envelope got;
  for (std::uint64_t expected = 1; expected <= kCount; ++expected) {
    const auto ec = visual.receive(got, kLong);
    ASSERT_FALSE(ec) << ec.message() << " at " << expected;
    ASSERT_EQ(got.frame().seq(), expected);
  }
  EXPECT_FALSE(producer.get());
}

TEST_P(ChannelConformance, OversizeFrameIsRejectedWithoutAllocatingIt) {
  Ends ends = open_both();
  ASSERT_FALSE(ends.dynamics->write_all(raw_header(512u << 20), kLong));  // 512 MiB claimed
  MessageStream visual(*ends.visual);
  cosim::v1::Envelope got;
  AllocationProbe probe;
  EXPECT_EQ(visual.receive(got, kLong), Errc::frame_too_large);
  EXPECT_LT(probe.largest(), std::size_t{1} << 20) << "receive allocated near the claimed size";
  EXPECT_EQ(probe.count(), 0u);
}

TEST_P(ChannelConformance, RoundTripsDoNotAllocateOnceWarm) {
  Ends ends = open_both();
  constexpr int kWarm = 20;
  constexpr int kMeasured = 300;
  std::atomic<long> echo_allocations{-1};
  std::thread echo([&] {
    MessageStream s(*ends.visual);
    cosim::v1::Envelope got;
    auto report = make_report(0, 8);
    const auto step = [&] {
      if (s.receive(got, kLong)) return false;
      report.mutable_probe_report()->set_frame_seq(got.frame().seq());
      return !s.send(report, kLong);
    };
    for (int i = 0; i < kWarm; ++i) {
      if (!step()) return;
    }
    AllocationProbe probe;
    for (int i = 0; i < kMeasured; ++i) {
      if (!step()) return;
    }
    echo_allocations = static_cast<long>(probe.count());
  });
  MessageStream s(*ends.dynamics);
  auto frame = make_frame(0, 24);
  cosim::v1::Envelope got;
  const auto step = [&](int i) {
    frame.mutable_frame()->set_seq(static_cast<std::uint64_t>(i));
    return !s.send(frame, kLong) && !s.receive(got, kLong) &&
           got.probe_report().frame_seq() == static_cast<std::uint64_t>(i);
  };
  for (int i = 1; i <= kWarm; ++i) ASSERT_TRUE(step(i));
  std::size_t allocations = 0;
  {
    AllocationProbe probe;
    for (int i = kWarm + 1; i <= kWarm + kMeasured; ++i) ASSERT_TRUE(step(i));
    allocations = probe.count();
  }
  echo.join();
  EXPECT_EQ(allocations, 0u) << "dynamics side allocated in the data path";
  EXPECT_EQ(echo_allocations.load(), 0) << "visual side allocated in the data path";
}

// ---- the peer closes, at every point ----

TEST_P(ChannelConformance, PeerClosedBeforeTheFirstMessageEitherWay) {
  for (const ChannelRole closer : {ChannelRole::dynamics, ChannelRole::visual}) {
    SCOPED_TRACE(std::string(role_name(closer)) + " closes");
    const ChannelRole other = closer == ChannelRole::dynamics ? ChannelRole::visual : ChannelRole::dynamics;
    Ends ends = open_both();
    ends.of(closer).close();
    MessageStream s(ends.of(other));
    cosim::v1::Envelope got;
    EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
    EXPECT_EQ(s.receive(got, milliseconds(0)), Errc::peer_closed);
    EXPECT_EQ(s.send(make_frame(1, 2), kLong), Errc::peer_closed) << "and no SIGPIPE death";
  }
}

TEST_P(ChannelConformance, MessagesSentBeforeACloseAreStillDelivered) {
  Ends ends = open_both();
  MessageStream dynamics(*ends.dynamics), visual(*ends.visual);
  ASSERT_FALSE(visual.send(make_report(1, 2), kLong));
  ASSERT_FALSE(visual.send(make_report(2, 2), kLong));
  ends.visual->close();
  cosim::v1::Envelope got;
  ASSERT_FALSE(dynamics.receive(got, kLong));
  ASSERT_FALSE(dynamics.receive(got, kLong));
  EXPECT_EQ(got.probe_report().frame_seq(), 2u);
  EXPECT_EQ(dynamics.receive(got, kLong), Errc::peer_closed);
  // Using a locally closed end is an error, not a crash.
  EXPECT_EQ(visual.send(make_report(3, 2), kLong), Errc::io_error);
  EXPECT_EQ(visual.receive(got, kLong), Errc::io_error);
}

TEST_P(ChannelConformance, PeerClosedAfterAHeaderOnlyOrMidPayload) {
  const auto frame = encoded(make_frame(7, 50));
  for (const std::size_t sent : {kHeaderBytes, kHeaderBytes + (frame.size() - kHeaderBytes) / 2}) {
    SCOPED_TRACE("closed after " + std::to_string(sent) + " of " + std::to_string(frame.size()) + " bytes");
    Ends ends = open_both();
    ASSERT_FALSE(ends.dynamics->write_all(std::span(frame).first(sent), kLong));
    ends.dynamics->close();
    MessageStream visual(*ends.visual);
    cosim::v1::Envelope got;
    const auto t0 = Clock::now();
    EXPECT_EQ(visual.receive(got, kLong), Errc::peer_closed);
    // MessageStream waits >= 1 s for the rest of a started message: a close must end that.
    EXPECT_LT(elapsed_ms(t0), 900.0);
  }
}

TEST_P(ChannelConformance, PeerClosedWhileTheOtherSideIsBlockedReading) {
  Ends ends = open_both();
  MessageStream dynamics(*ends.dynamics);
  cosim::v1::Envelope got;
  const auto t0 = Clock::now();  // before the closer starts: it closes >= kSettle later
  std::thread closer([&] {
    std::this_thread::sleep_for(kSettle);
    ends.visual->close();
  });
  EXPECT_EQ(dynamics.receive(got, kLong), Errc::peer_closed);
  EXPECT_GE(elapsed_ms(t0), kSettle.count() - 1.0) << "returned before the close";
  EXPECT_LT(elapsed_ms(t0), kSettle.count() + kPromptMs);
  closer.join();
}

TEST_P(ChannelConformance, PeerClosedWhileTheOtherSideIsBlockedWritingAFullPipe) {
  Ends ends = open_both();
  const std::vector<std::byte> chunk(kOverfullBytes);
  const auto t0 = Clock::now();  // before the closer starts: it closes >= kSettle later
  std::thread closer([&] {
    std::this_thread::sleep_for(kSettle);
    ends.visual->close();
  });
  EXPECT_EQ(ends.dynamics->write_all(chunk, kLong), Errc::peer_closed);
  EXPECT_GE(elapsed_ms(t0), kSettle.count() - 1.0) << "the write did not block on a full pipe";
  EXPECT_LT(elapsed_ms(t0), kSettle.count() + kPromptMs);
  closer.join();
}

// ---- interrupts while blocked ----

TEST_P(ChannelConformance, BlockedReadAndWriteAreInterrupted) {
  Ends ends = open_both();
  const std::vector<std::byte> chunk(kOverfullBytes);
  MessageStream dynamics(*ends.dynamics);
  cosim::v1::Envelope got;
  auto t0 = Clock::now();
  std::thread stopper([] {
    std::this_thread::sleep_for(kSettle);
    request_stop();
  });
  EXPECT_EQ(dynamics.receive(got, kNotReached), Errc::interrupted);
  EXPECT_LT(elapsed_ms(t0), kSettle.count() + kPromptMs);
  stopper.join();

  t0 = Clock::now();
  EXPECT_EQ(ends.dynamics->write_all(chunk, kNotReached), Errc::interrupted);
  EXPECT_LT(elapsed_ms(t0), kPromptMs);
  reset_stop();
}

// ---- the test-only fault decorator works over this kind ----

TEST_P(ChannelConformance, TruncatingFaultOverThisKindIsPeerClosedForThePeer) {
  Ends ends = open_both();
  auto faulty = testing::with_faults(std::move(ends.dynamics), {.truncate_on_write = 2});
  EXPECT_EQ(faulty->describe(), spec_.text);
  MessageStream dynamics(*faulty), visual(*ends.visual);
  ASSERT_FALSE(dynamics.send(make_frame(1, 3), kLong));
  EXPECT_EQ(dynamics.send(make_frame(2, 50), kLong), Errc::injected_fault);
  cosim::v1::Envelope got;
  ASSERT_FALSE(visual.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 1u);
  EXPECT_EQ(visual.receive(got, kLong), Errc::peer_closed);
}

INSTANTIATE_TEST_SUITE_P(Kinds, ChannelConformance, ::testing::ValuesIn(kind_names(/*available_only=*/true)),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cosim::wire
