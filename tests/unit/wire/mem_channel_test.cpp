// The in-memory channels: the anonymous pair, and what is specific to named "mem:NAME"
// channels (one pair per name, capacity). What every channel kind does is in
// channel_conformance_test.cpp.

#include "wire_test_support.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/mem_channel.hpp>

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace cosim::wire {
namespace {

using test::kLong;
using test::kSettle;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using test::Async;
using test::Clock;
using test::elapsed_ms;
using test::expect_setup_error;

struct NamedPair {
  std::unique_ptr<Channel> dynamics;
  std::unique_ptr<Channel> visual;
};

NamedPair open_named(const std::string& name) {
  Async<std::unique_ptr<Channel>> dynamics([name] { return listen_mem_channel(name, kLong); });
  NamedPair p;
  p.visual = connect_mem_channel(name, kLong);
  p.dynamics = dynamics.get();
  return p;
}

// One byte each way proves the two ends are joined to each other.
void expect_joined(NamedPair& p) {
  const std::array<std::byte, 1> ping{std::byte{7}};
  std::array<std::byte, 1> got{};
  ASSERT_FALSE(p.dynamics->write_all(ping, kLong));
  ASSERT_FALSE(p.visual->read_exact(got, kLong));
  EXPECT_EQ(got[0], ping[0]);
  ASSERT_FALSE(p.visual->write_all(ping, kLong));
  ASSERT_FALSE(p.dynamics->read_exact(got, kLong));
}

// ---- the anonymous pair ----

TEST(MemChannelPair, DescribesItselfAsMem) {
  auto [a, b] = make_mem_channel_pair();
  EXPECT_EQ(a->describe(), "mem:");
  EXPECT_EQ(b->describe(), "mem:");
}

TEST(MemChannelPair, ReadsAreAllOrNothingOnTimeout) {
  auto [a, b] = make_mem_channel_pair();
  const auto three = test::bytes_of({1, 2, 3});
  ASSERT_FALSE(a->write_all(std::span(three).first(2), kLong));
  std::array<std::byte, 3> out{};
  EXPECT_EQ(b->read_exact(out, milliseconds(0)), Errc::timeout);
  ASSERT_FALSE(a->write_all(std::span(three).last(1), kLong));
  ASSERT_FALSE(b->read_exact(out, milliseconds(0)));
  EXPECT_EQ(out[0], std::byte{1});
  EXPECT_EQ(out[2], std::byte{3});
}

TEST(MemChannelPair, WritesNeverBlockSoOneThreadCanPlayBothSides) {
  auto [a, b] = make_mem_channel_pair();
  const std::vector<std::byte> big(16 * kMemPipeCapacityBytes, std::byte{1});
  EXPECT_FALSE(a->write_all(big, milliseconds(0))) << "a bounded pipe would time out here";
  std::vector<std::byte> got(big.size());
  EXPECT_FALSE(b->read_exact(got, milliseconds(0)));
  EXPECT_EQ(got, big);
}

// ---- named channels ----

TEST(MemChannelNamed, DescribesItselfWithItsName) {
  NamedPair p = open_named("describe");
  EXPECT_EQ(p.dynamics->describe(), "mem:describe");
  EXPECT_EQ(p.visual->describe(), "mem:describe");
}

TEST(MemChannelNamed, SecondDynamicsIsRefusedWhileTheFirstWaits) {
  Async<std::unique_ptr<Channel>> first([] { return listen_mem_channel("taken-while-waiting", kLong); });
  std::this_thread::sleep_for(kSettle);
  expect_setup_error([] { listen_mem_channel("taken-while-waiting", kLong); }, Kind::bad_input,
                     {"mem:taken-while-waiting", "already in use"});
  // The refusal did not disturb the first one: it still pairs.
  NamedPair p;
  p.visual = connect_mem_channel("taken-while-waiting", kLong);
  p.dynamics = first.get();
  expect_joined(p);
}

TEST(MemChannelNamed, NameIsTakenUntilBothEndsAreGone) {
  const std::string name = "taken-while-open";
  NamedPair p = open_named(name);
  expect_setup_error([&] { listen_mem_channel(name, kLong); }, Kind::bad_input, {"already in use"});
  p.dynamics.reset();
  {
    SCOPED_TRACE("the visual end is still open");
    expect_setup_error([&] { listen_mem_channel(name, kLong); }, Kind::bad_input, {"already in use"});
  }
  p.visual->close();  // closed is enough, destroyed is not needed
  NamedPair again = open_named(name);
  expect_joined(again);
}

TEST(MemChannelNamed, SecondVisualWaitsAndSaysTheNameIsPaired) {
  NamedPair p = open_named("paired");
  // 100 ms: enough for a join to happen if the name were free; it must not.
  expect_setup_error([] { connect_mem_channel("paired", milliseconds(100)); }, Kind::timeout,
                     {"no peer opened mem:paired within 0.1 s", "already paired"});
  expect_joined(p);
}

TEST(MemChannelNamed, FailedListenFreesTheName) {
  // 50 ms: nobody connects, so any timeout would do; short keeps the test fast.
  expect_setup_error([] { listen_mem_channel("retry", milliseconds(50)); }, Kind::timeout,
                     {"no peer opened mem:retry within 0.05 s"});
  NamedPair p = open_named("retry");
  expect_joined(p);
}

TEST(MemChannelNamed, EmptyNameIsBadInput) {
  expect_setup_error([] { listen_mem_channel("", kLong); }, Kind::bad_input, {"empty name"});
  expect_setup_error([] { connect_mem_channel("", kLong); }, Kind::bad_input, {"empty name"});
}

TEST(MemChannelNamed, NamesAreIndependent) {
  NamedPair a = open_named("independent-a");
  NamedPair b = open_named("independent-b");
  expect_joined(a);
  expect_joined(b);
  EXPECT_FALSE(a.visual->readable_now());
  EXPECT_FALSE(b.visual->readable_now());
}

TEST(MemChannelNamed, EachDirectionHoldsItsCapacityThenBlocks) {
  NamedPair p = open_named("capacity");
  const std::vector<std::byte> full(kMemPipeCapacityBytes, std::byte{3});
  ASSERT_FALSE(p.dynamics->write_all(full, milliseconds(0))) << "a full capacity fits without waiting";
  const std::array<std::byte, 1> one{std::byte{4}};
  EXPECT_EQ(p.dynamics->write_all(one, milliseconds(0)), Errc::timeout);
  const auto t0 = Clock::now();
  // 50 ms: nobody reads, so any timeout shows a full pipe waits; short keeps the test fast.
  EXPECT_EQ(p.dynamics->write_all(one, milliseconds(50)), Errc::timeout);
  EXPECT_GE(elapsed_ms(t0), 49.0) << "a full pipe waits for the reader up to the timeout";
  EXPECT_FALSE(p.visual->write_all(one, milliseconds(0))) << "the other direction is not full";

  std::array<std::byte, 1> got{};
  ASSERT_FALSE(p.visual->read_exact(got, kLong));
  EXPECT_FALSE(p.dynamics->write_all(one, milliseconds(0))) << "one byte read makes room for one";
  std::vector<std::byte> rest(kMemPipeCapacityBytes);
  ASSERT_FALSE(p.visual->read_exact(rest, kLong));
  EXPECT_EQ(rest.back(), std::byte{4});
  EXPECT_EQ(rest.front(), std::byte{3});
}

}  // namespace
}  // namespace cosim::wire
