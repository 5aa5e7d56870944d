// MessageStream over the in-memory channel pair, including every FaultPlan kind (through the
// test-only fault decorator).

#include "wire_test_support.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/mem_channel.hpp>
#include <cosim/wire/message_stream.hpp>
#include <cosim/wire/testing/faulty_channel.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <thread>

namespace cosim::wire {
namespace {

using test::kLong;
using test::raw_header;
using google::protobuf::util::MessageDifferencer;
using std::chrono::milliseconds;
using test::Clock;
using test::AllocationProbe;
using test::canonical_envelopes;
using test::encoded;
using test::make_frame;
using test::make_report;
using testing::FaultPlan;

using test::elapsed_ms;

// An in-memory pair whose ends inject the faults of `a_plan` and `b_plan`.
std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> faulty_pair(FaultPlan a_plan, FaultPlan b_plan = {}) {
  auto [a, b] = make_mem_channel_pair();
  return {testing::with_faults(std::move(a), a_plan), testing::with_faults(std::move(b), b_plan)};
}

TEST(MessageStream, SendReceiveEveryBodyTypeBothWays) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b);
  cosim::v1::Envelope got;
  for (const auto& c : canonical_envelopes()) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(sa.send(c.envelope, kLong));
    ASSERT_FALSE(sb.receive(got, kLong));
    EXPECT_TRUE(MessageDifferencer::Equals(got, c.envelope));
    ASSERT_FALSE(sb.send(c.envelope, kLong));
    ASSERT_FALSE(sa.receive(got, kLong));
    EXPECT_TRUE(MessageDifferencer::Equals(got, c.envelope));
  }
}

TEST(MessageStream, LastBytesAreTheExactFrames) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b);
  EXPECT_TRUE(sa.last_sent_bytes().empty());
  const auto hello = canonical_envelopes()[0].envelope;
  const auto expected = encoded(hello);
  ASSERT_FALSE(sa.send(hello, kLong));
  cosim::v1::Envelope got;
  ASSERT_FALSE(sb.receive(got, kLong));
  const auto sent = sa.last_sent_bytes();
  const auto received = sb.last_received_bytes();
  EXPECT_TRUE(std::equal(sent.begin(), sent.end(), expected.begin(), expected.end()));
  EXPECT_TRUE(std::equal(received.begin(), received.end(), expected.begin(), expected.end()));

  // A failed receive leaves no stale bytes behind.
  EXPECT_EQ(sb.receive(got, milliseconds(0)), Errc::timeout);
  EXPECT_TRUE(sb.last_received_bytes().empty());
}

TEST(MessageStream, ReceiveTimesOut) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  cosim::v1::Envelope got;

  auto t0 = Clock::now();
  EXPECT_EQ(sb.receive(got, milliseconds(0)), Errc::timeout);
  EXPECT_LT(elapsed_ms(t0), 250.0) << "timeout 0 must not wait";

  t0 = Clock::now();
  // 80 ms: nothing will come, so any timeout shows the wait is honoured; short keeps it fast.
  EXPECT_EQ(sb.receive(got, milliseconds(80)), Errc::timeout);
  const double waited = elapsed_ms(t0);
  EXPECT_GE(waited, 79.0);
  EXPECT_LT(waited, 1000.0);
}

TEST(MessageStream, HugeTimeoutsDoNotOverflow) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b);
  ASSERT_FALSE(sa.send(make_frame(1, 2), milliseconds::max()));
  cosim::v1::Envelope got;
  ASSERT_FALSE(sb.receive(got, milliseconds::max()));
  EXPECT_EQ(got.frame().seq(), 1u);
  EXPECT_EQ(sb.receive(got, milliseconds(-5)), Errc::timeout) << "negative means 0";
}

TEST(MessageStream, RestOfAStartedMessageIsAwaitedEvenWithTimeoutZero) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  const auto frame = encoded(make_frame(7, 4));
  ASSERT_FALSE(a->write_all(std::span(frame).first(5), kLong));  // part of the header
  std::thread late([&, ch = a.get()] {
    std::this_thread::sleep_for(milliseconds(200));  // well past the timeout 0 of the receive
    (void)ch->write_all(std::span(frame).subspan(5), kLong);
  });
  cosim::v1::Envelope got;
  const auto ec = sb.receive(got, milliseconds(0));
  late.join();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(got.frame().seq(), 7u);
}

TEST(MessageStream, StartedMessageThatNeverEndsTimesOutAfterAboutOneSecond) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  const auto frame = encoded(make_frame(7, 4));
  ASSERT_FALSE(a->write_all(std::span(frame).first(frame.size() - 1), kLong));
  cosim::v1::Envelope got;
  const auto t0 = Clock::now();
  EXPECT_EQ(sb.receive(got, milliseconds(0)), Errc::timeout);
  const double waited = elapsed_ms(t0);
  EXPECT_GE(waited, 990.0);
  EXPECT_LT(waited, 3000.0);
}

TEST(MessageStream, PeerClosedAfterCloseOnceBufferedMessagesAreRead) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b);
  ASSERT_FALSE(sa.send(make_frame(1, 2), kLong));
  ASSERT_FALSE(sa.send(make_frame(2, 2), kLong));
  a->close();
  EXPECT_TRUE(b->readable_now());
  cosim::v1::Envelope got;
  ASSERT_FALSE(sb.receive(got, kLong));
  ASSERT_FALSE(sb.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 2u);
  EXPECT_EQ(sb.receive(got, kLong), Errc::peer_closed);
  EXPECT_EQ(sb.receive(got, milliseconds(0)), Errc::peer_closed);
  EXPECT_TRUE(b->readable_now()) << "a closed peer makes reads non-blocking";
  EXPECT_EQ(sb.send(make_frame(3, 2), kLong), Errc::peer_closed);
}

TEST(MessageStream, PeerClosedWakesABlockedReceiver) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  std::thread closer([ch = a.get()] {
    std::this_thread::sleep_for(milliseconds(50));  // lets the receive below block first
    ch->close();
  });
  cosim::v1::Envelope got;
  const auto t0 = Clock::now();
  EXPECT_EQ(sb.receive(got, kLong), Errc::peer_closed);
  EXPECT_LT(elapsed_ms(t0), 2000.0);
  closer.join();
}

TEST(MessageStream, FailOnWriteFailsExactlyThatSend) {
  auto [a, b] = faulty_pair(FaultPlan{.fail_on_write = 2});
  MessageStream sa(*a), sb(*b);
  EXPECT_FALSE(sa.send(make_frame(1, 2), kLong));
  EXPECT_EQ(sa.send(make_frame(2, 2), kLong), Errc::injected_fault);
  EXPECT_TRUE(sa.last_sent_bytes().empty());
  EXPECT_FALSE(sa.send(make_frame(3, 2), kLong));
  cosim::v1::Envelope got;
  ASSERT_FALSE(sb.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 1u);
  ASSERT_FALSE(sb.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 3u) << "the failed write must have written nothing";
}

TEST(MessageStream, FailOnReadFailsThatRead) {
  auto [a, b] = faulty_pair({}, FaultPlan{.fail_on_read = 1});
  MessageStream sa(*a), sb(*b);
  ASSERT_FALSE(sa.send(make_frame(1, 2), kLong));
  cosim::v1::Envelope got;
  EXPECT_EQ(sb.receive(got, kLong), Errc::injected_fault);
  // The fault consumed nothing: the message is still there.
  EXPECT_FALSE(sb.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 1u);
}

TEST(MessageStream, TruncatedWriteGivesPeerClosed) {
  cosim::v1::Envelope small;  // 12-byte frame: the half ends inside the header
  small.mutable_bye()->set_frames_handled(1);
  ASSERT_LT(encoded(small).size(), 2 * kHeaderBytes);
  for (const auto& second : {small, make_frame(2, 50)}) {  // ... or inside the payload
    SCOPED_TRACE(second.ShortDebugString());
    auto [a, b] = faulty_pair(FaultPlan{.truncate_on_write = 2});
    MessageStream sa(*a), sb(*b);
    ASSERT_FALSE(sa.send(make_frame(1, 3), kLong));
    EXPECT_EQ(sa.send(second, kLong), Errc::injected_fault);
    cosim::v1::Envelope got;
    ASSERT_FALSE(sb.receive(got, kLong));
    EXPECT_EQ(got.frame().seq(), 1u);
    EXPECT_EQ(sb.receive(got, kLong), Errc::peer_closed);
    EXPECT_EQ(sa.send(make_frame(3, 3), kLong), Errc::io_error) << "writer end is closed";
  }
}

TEST(MessageStream, CorruptedWriteGivesBadMagic) {
  auto [a, b] = faulty_pair(FaultPlan{.corrupt_on_write = 1});
  MessageStream sa(*a), sb(*b);
  EXPECT_FALSE(sa.send(make_frame(1, 2), kLong));
  cosim::v1::Envelope got;
  EXPECT_EQ(sb.receive(got, kLong), Errc::bad_magic);
}

TEST(MessageStream, OversizedFrameClaimedByThePeerIsRejectedWithoutAllocatingIt) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  const auto header = raw_header(512u << 20);  // 512 MiB claimed
  ASSERT_FALSE(a->write_all(header, kLong));
  cosim::v1::Envelope got;
  AllocationProbe probe;
  EXPECT_EQ(sb.receive(got, kLong), Errc::frame_too_large);
  EXPECT_LT(probe.largest(), std::size_t{1} << 20) << "receive allocated near the claimed size";
  EXPECT_EQ(probe.count(), 0u);
}

TEST(MessageStream, ReceiverCapIsConfigurable) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b, /*max_payload_bytes=*/16);
  EXPECT_EQ(sb.max_payload_bytes(), 16u);
  ASSERT_FALSE(sa.send(make_frame(1, 10), kLong));  // ~90 bytes of payload
  cosim::v1::Envelope got;
  EXPECT_EQ(sb.receive(got, kLong), Errc::frame_too_large);
}

TEST(MessageStream, SenderRefusesAFrameAboveItsCapAndWritesNothing) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a, /*max_payload_bytes=*/16);
  EXPECT_EQ(sa.send(make_frame(1, 10), kLong), Errc::frame_too_large);
  EXPECT_FALSE(b->readable_now());
  cosim::v1::Envelope small;
  small.mutable_bye()->set_frames_handled(1);
  EXPECT_FALSE(sa.send(small, kLong)) << "a small frame still goes";
}

TEST(MessageStream, MalformedAndEmptyPayloadsAreReported) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  cosim::v1::Envelope got;

  const auto garbage = test::bytes_of({0x1A, 0x05, 0x08});
  ASSERT_FALSE(a->write_all(raw_header(3), kLong));
  ASSERT_FALSE(a->write_all(garbage, kLong));
  EXPECT_EQ(sb.receive(got, kLong), Errc::malformed_payload);
  EXPECT_EQ(sb.last_received_bytes().size(), kHeaderBytes + 3) << "kept for diagnostics";

  ASSERT_FALSE(a->write_all(raw_header(0), kLong));
  EXPECT_EQ(sb.receive(got, kLong), Errc::empty_envelope);
}

TEST(MessageStream, InterruptedWhileWaiting) {
  test::StopGuard guard;
  auto [a, b] = make_mem_channel_pair();
  MessageStream sb(*b);
  std::thread stopper([] {
    std::this_thread::sleep_for(milliseconds(50));  // lets the receive below block first
    request_stop();
  });
  cosim::v1::Envelope got;
  const auto t0 = Clock::now();
  EXPECT_EQ(sb.receive(got, kLong), Errc::interrupted);
  EXPECT_LT(elapsed_ms(t0), 1000.0);
  stopper.join();
}

TEST(MessageStream, ConcurrentProducerAndConsumerKeepOrder) {
  auto [a, b] = make_mem_channel_pair();
  constexpr std::uint64_t kCount = 2000;
  std::thread producer([ch = a.get()] {
    MessageStream sa(*ch);
    for (std::uint64_t i = 1; i <= kCount; ++i) {
      if (sa.send(make_frame(i, 6), kLong)) return;
    }
  });
  MessageStream sb(*b);
  cosim::v1::Envelope got;
  std::uint64_t expected = 1;
  for (; expected <= kCount; ++expected) {
    const auto ec = sb.receive(got, kLong);
    ASSERT_FALSE(ec) << ec.message() << " at " << expected;
    ASSERT_EQ(got.frame().seq(), expected);
  }
  producer.join();
}

TEST(MessageStream, RoundTripsDoNotAllocateOnceWarm) {
  auto [a, b] = make_mem_channel_pair();
  MessageStream sa(*a), sb(*b);
  auto frame = make_frame(1, 24);
  auto report = make_report(1, 8);
  cosim::v1::Envelope got_a, got_b;
  const auto round_trip = [&](std::uint64_t seq) {
    frame.mutable_frame()->set_seq(seq);
    report.mutable_probe_report()->set_frame_seq(seq);
    return !sa.send(frame, kLong) && !sb.receive(got_b, kLong) && !sb.send(report, kLong) &&
           !sa.receive(got_a, kLong) && got_a.probe_report().frame_seq() == seq;
  };
  for (std::uint64_t i = 1; i <= 10; ++i) ASSERT_TRUE(round_trip(i));
  AllocationProbe probe;
  for (std::uint64_t i = 11; i <= 200; ++i) ASSERT_TRUE(round_trip(i));
  EXPECT_EQ(probe.count(), 0u);
}

}  // namespace
}  // namespace cosim::wire
