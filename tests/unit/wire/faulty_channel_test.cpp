// The test-only fault decorator (cosim::wire_testing) at the byte level, over the in-memory
// pair. Through MessageStream: message_stream_test.cpp; over every kind: the conformance suite.

#include "wire_test_support.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/mem_channel.hpp>
#include <cosim/wire/testing/faulty_channel.hpp>

#include <gtest/gtest.h>

#include <array>

namespace cosim::wire {
namespace {

using test::kLong;
using std::chrono::milliseconds;
using test::bytes_of;
using testing::FaultPlan;
using testing::with_faults;

struct WrappedPair {
  std::unique_ptr<Channel> faulty;  // wrapped end
  std::unique_ptr<Channel> peer;    // plain end
};

WrappedPair wrapped_pair(FaultPlan plan) {
  auto [a, b] = make_mem_channel_pair();
  return {with_faults(std::move(a), plan), std::move(b)};
}

std::vector<std::byte> read_n(Channel& channel, std::size_t n) {
  std::vector<std::byte> out(n);
  EXPECT_FALSE(channel.read_exact(out, kLong));
  return out;
}

TEST(FaultyChannel, WithoutAPlanEverythingIsForwarded) {
  auto [faulty, peer] = wrapped_pair({});
  EXPECT_EQ(faulty->describe(), "mem:");
  EXPECT_FALSE(faulty->readable_now());
  const auto bytes = bytes_of({1, 2, 3});
  ASSERT_FALSE(faulty->write_all(bytes, kLong));
  EXPECT_EQ(read_n(*peer, 3), bytes);
  ASSERT_FALSE(peer->write_all(bytes, kLong));
  EXPECT_TRUE(faulty->readable_now());
  EXPECT_EQ(read_n(*faulty, 3), bytes);
  faulty->close();
  std::array<std::byte, 1> one{};
  EXPECT_EQ(peer->read_exact(one, kLong), Errc::peer_closed);
}

TEST(FaultyChannel, OnlyTheNthWriteFailsAndItWritesNothing) {
  auto [faulty, peer] = wrapped_pair({.fail_on_write = 3});
  for (unsigned i = 1; i <= 4; ++i) {
    const auto ec = faulty->write_all(bytes_of({i}), kLong);
    EXPECT_EQ(ec, i == 3 ? std::error_code(Errc::injected_fault) : std::error_code()) << "write " << i;
  }
  EXPECT_EQ(read_n(*peer, 3), bytes_of({1, 2, 4}));
}

TEST(FaultyChannel, OnlyTheNthReadFailsAndItConsumesNothing) {
  auto [faulty, peer] = wrapped_pair({.fail_on_read = 2});
  ASSERT_FALSE(peer->write_all(bytes_of({1, 2}), kLong));
  EXPECT_EQ(read_n(*faulty, 1), bytes_of({1}));
  std::array<std::byte, 1> one{};
  EXPECT_EQ(faulty->read_exact(one, kLong), Errc::injected_fault);
  EXPECT_EQ(read_n(*faulty, 1), bytes_of({2}));
}

TEST(FaultyChannel, CorruptionFlipsTheFirstByteOnly) {
  auto [faulty, peer] = wrapped_pair({.corrupt_on_write = 1});
  ASSERT_FALSE(faulty->write_all(bytes_of({0x0F, 0x22, 0x33}), kLong));
  ASSERT_FALSE(faulty->write_all(bytes_of({0x0F}), kLong));
  EXPECT_EQ(read_n(*peer, 4), bytes_of({0xF0, 0x22, 0x33, 0x0F}));
}

TEST(FaultyChannel, TruncationDeliversTheFirstHalfThenCloses) {
  auto [faulty, peer] = wrapped_pair({.truncate_on_write = 1});
  EXPECT_EQ(faulty->write_all(bytes_of({1, 2, 3, 4, 5}), kLong), Errc::injected_fault);
  EXPECT_EQ(read_n(*peer, 2), bytes_of({1, 2}));
  std::array<std::byte, 1> one{};
  EXPECT_EQ(peer->read_exact(one, kLong), Errc::peer_closed);
  EXPECT_EQ(faulty->write_all(bytes_of({6}), kLong), Errc::io_error) << "this end is closed";
}

}  // namespace
}  // namespace cosim::wire
