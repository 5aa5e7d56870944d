// What is specific to FifoChannel (permissions, owners, symlinks, stale FIFOs, files left
// behind, process death, FIFO open semantics), over real FIFOs in fresh temp dirs; the peer
// runs in a thread or a fork()ed child. What every channel kind does (open order, timeouts,
// peer closed, interrupts, large frames, no allocation) is in channel_conformance_test.cpp.

#include "wire_test_support.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/fifo_channel.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/message_stream.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace cosim::wire {
namespace {

using test::kLong;
namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using test::Async;
using test::Clock;
using test::elapsed_ms;
using test::encoded;
using test::expect_setup_error;
using test::make_frame;
using test::make_report;
using test::TempDir;

constexpr uid_t kNobody = 65534;

bool exists_nofollow(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

ino_t inode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_ino;
}

void make_private_dir(const fs::path& p) {
  ASSERT_EQ(::mkdir(p.c_str(), 0700), 0) << p;
  ASSERT_EQ(::chmod(p.c_str(), 0700), 0);
}

void make_fifo(const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << p; }

struct Pair {
  std::unique_ptr<FifoChannel> server;  // dynamics side
  std::unique_ptr<FifoChannel> client;  // visual side
};

// Listens in a thread, connects here (both orders: conformance suite).
Pair open_pair(const fs::path& dir) {
  const FifoOptions options{dir, kLong};
  Async<std::unique_ptr<FifoChannel>> server([options] { return FifoChannel::listen(options); });
  std::this_thread::sleep_for(milliseconds(50));  // usually lets listen() create the FIFOs first
  Pair p;
  p.client = FifoChannel::connect(options);
  p.server = server.get();
  return p;
}

void expect_round_trips(Pair& p, int count = 20) {
  MessageStream server(*p.server), client(*p.client);
  cosim::v1::Envelope got;
  for (int i = 1; i <= count; ++i) {
    ASSERT_FALSE(server.send(make_frame(i, 6), kLong));
    ASSERT_FALSE(client.receive(got, kLong));
    ASSERT_EQ(got.frame().seq(), static_cast<std::uint64_t>(i));
    ASSERT_FALSE(client.send(make_report(i, 3), kLong));
    ASSERT_FALSE(server.receive(got, kLong));
    ASSERT_EQ(got.probe_report().frame_seq(), static_cast<std::uint64_t>(i));
  }
}

// ---- permissions and refusals ----

class FifoUmask : public ::testing::TestWithParam<mode_t> {};

TEST_P(FifoUmask, CreatesAPrivateDirectoryAndPrivateFifos) {
  // umask 0 would expose a too-open mode argument; 0277 would leave 0500/0400 without
  // an explicit chmod.
  TempDir tmp;
  const auto dir = tmp / "ch";
  const mode_t old = ::umask(GetParam());
  Pair p;
  try {
    p = open_pair(dir);
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(mode_of(dir / "d2v"), 0600u);
  EXPECT_EQ(mode_of(dir / "v2d"), 0600u);
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "d2v").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(st.st_uid, ::geteuid());
}

INSTANTIATE_TEST_SUITE_P(Fifo, FifoUmask, ::testing::Values(mode_t{0}, mode_t{0277}),
                         [](const auto& info) { return info.param == 0 ? "Umask000" : "Umask277"; });

TEST(Fifo, ListenRefusesAGroupOrOtherAccessibleDirectory) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  expect_setup_error([&] { FifoChannel::listen({dir, kLong}); }, Kind::bad_input,
                     {"fifo:" + dir.string(), "0755", "chmod 700"});
  EXPECT_FALSE(exists_nofollow(dir / "d2v")) << "nothing created in a refused directory";
}

TEST(Fifo, ListenAndConnectRefuseADirectoryOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0);
  expect_setup_error([&] { FifoChannel::listen({dir, kLong}); }, Kind::bad_input,
                     {"fifo:" + dir.string(), "owned by uid 65534"});
  make_fifo(dir / "d2v");
  make_fifo(dir / "v2d");
  expect_setup_error([&] { FifoChannel::connect({dir, kLong}); }, Kind::bad_input, {"owned by uid 65534"});
}

TEST(Fifo, ListenAndConnectRefuseAFifoOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  make_fifo(dir / "d2v");
  make_fifo(dir / "v2d");
  ASSERT_EQ(::chown((dir / "d2v").c_str(), kNobody, kNobody), 0);
  expect_setup_error([&] { FifoChannel::listen({dir, kLong}); }, Kind::bad_input,
                     {"d2v", "owned by uid 65534"});
  EXPECT_TRUE(exists_nofollow(dir / "d2v")) << "someone else's file must not be removed";
  expect_setup_error([&] { FifoChannel::connect({dir, kLong}); }, Kind::bad_input,
                     {"d2v", "owned by uid 65534"});
}

TEST(Fifo, ListenAndConnectRefuseASymlinkedDirectory) {
  TempDir tmp;
  const auto real = tmp / "real";
  const auto link = tmp / "link";
  make_private_dir(real);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  expect_setup_error([&] { FifoChannel::listen({link, kLong}); }, Kind::bad_input, {"symlink"});
  make_fifo(real / "d2v");
  make_fifo(real / "v2d");
  expect_setup_error([&] { FifoChannel::connect({link, kLong}); }, Kind::bad_input, {"symlink"});
}

TEST(Fifo, ListenAndConnectRefuseASymlinkedFifo) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  make_fifo(tmp / "elsewhere");
  ASSERT_EQ(::symlink((tmp / "elsewhere").c_str(), (dir / "d2v").c_str()), 0);
  make_fifo(dir / "v2d");
  expect_setup_error([&] { FifoChannel::listen({dir, kLong}); }, Kind::bad_input, {"d2v", "symlink"});
  expect_setup_error([&] { FifoChannel::connect({dir, kLong}); }, Kind::bad_input, {"d2v", "symlink"});
  EXPECT_TRUE(exists_nofollow(tmp / "elsewhere"));
}

TEST(Fifo, ListenRefusesARegularFileWhereAFifoShouldBe) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  { std::ofstream((dir / "v2d").string()) << "user data"; }
  expect_setup_error([&] { FifoChannel::listen({dir, kLong}); }, Kind::bad_input, {"v2d", "not a FIFO"});
  EXPECT_TRUE(fs::is_regular_file(dir / "v2d")) << "a user's file must not be removed";
}

TEST(Fifo, EmptyDirectoryPathIsBadInput) {
  expect_setup_error([] { FifoChannel::listen({}); }, Kind::bad_input, {"empty"});
  expect_setup_error([] { FifoChannel::connect({}); }, Kind::bad_input, {"empty"});
}

// ---- stale files ----

TEST(Fifo, StaleFifosOfOurOwnAreReplaced) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  make_fifo(dir / "d2v");
  make_fifo(dir / "v2d");
  // Keep the stale inodes alive so a new file cannot reuse their numbers.
  const int keep_d2v = ::open((dir / "d2v").c_str(), O_RDWR | O_NONBLOCK);
  const int keep_v2d = ::open((dir / "v2d").c_str(), O_RDWR | O_NONBLOCK);
  const ino_t old_d2v = inode_of(dir / "d2v");
  const ino_t old_v2d = inode_of(dir / "v2d");
  {
    Pair p = open_pair(dir);
    EXPECT_NE(inode_of(dir / "d2v"), old_d2v);
    EXPECT_NE(inode_of(dir / "v2d"), old_v2d);
    expect_round_trips(p);
  }
  ::close(keep_d2v);
  ::close(keep_v2d);
  EXPECT_TRUE(fs::exists(dir)) << "a directory listen() did not create is kept";
  EXPECT_FALSE(exists_nofollow(dir / "d2v"));
}

TEST(Fifo, ClientWaitingOnStaleFifosFollowsTheirReplacement) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  make_fifo(dir / "d2v");
  make_fifo(dir / "v2d");
  Async<std::unique_ptr<FifoChannel>> client([dir] { return FifoChannel::connect({dir, kLong}); });
  std::this_thread::sleep_for(milliseconds(150));  // client now holds the stale d2v
  Pair p;
  p.server = FifoChannel::listen({dir, kLong});
  p.client = client.get();
  expect_round_trips(p, 3);
}

// ---- cleanup ----

TEST(Fifo, DestructorRemovesFifosAndTheDirectoryItCreated) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  {
    Pair p = open_pair(dir);
    EXPECT_TRUE(exists_nofollow(dir / "d2v"));
    p.server.reset();
    EXPECT_FALSE(exists_nofollow(dir / "d2v"));
    EXPECT_FALSE(exists_nofollow(dir / "v2d"));
    EXPECT_FALSE(exists_nofollow(dir));
  }
}

TEST(Fifo, DirectoryWithForeignFilesIsKept) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  {
    Pair p = open_pair(dir);
    { std::ofstream((dir / "notes.txt").string()) << "x"; }
  }
  EXPECT_FALSE(exists_nofollow(dir / "d2v"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
}

TEST(Fifo, ClientRemovesNothing) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  Pair p = open_pair(dir);
  p.client->remove_created_files();
  p.client.reset();
  EXPECT_TRUE(exists_nofollow(dir / "d2v"));
  EXPECT_TRUE(exists_nofollow(dir / "v2d"));
}

TEST(Fifo, RemovedFilesLeaveOpenChannelsWorking) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  Pair p = open_pair(dir);
  p.server->remove_created_files();
  EXPECT_FALSE(exists_nofollow(dir));
  expect_round_trips(p, 3);
}

TEST(Fifo, SignalHandlerCleanupUnlinksRegisteredPaths) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  Pair p = open_pair(dir);
  unlink_registered_paths_from_signal_handler();
  EXPECT_FALSE(exists_nofollow(dir / "d2v"));
  EXPECT_FALSE(exists_nofollow(dir / "v2d"));
  EXPECT_FALSE(exists_nofollow(dir));
  expect_round_trips(p, 3);
}

TEST(Fifo, ClosedChannelsAreUnregisteredFromSignalCleanup) {
  TempDir tmp;
  { Pair p = open_pair(tmp / "gone"); }
  // Same path reused by a file the signal cleanup must now leave alone.
  make_private_dir(tmp / "gone");
  make_fifo(tmp / "gone" / "d2v");
  unlink_registered_paths_from_signal_handler();
  EXPECT_TRUE(exists_nofollow(tmp / "gone" / "d2v"));
}

// ---- setup timeouts: what the messages say (timing and interrupts: conformance suite) ----

TEST(Fifo, ConnectTimesOutWithoutServer) {
  TempDir tmp;
  const auto dir = tmp / "none";
  const auto t0 = Clock::now();
  // 200 ms: no server will come, any timeout gives the message; short keeps the test fast.
  expect_setup_error([&] { FifoChannel::connect({dir, milliseconds(200)}); }, Kind::timeout,
                     {"no peer opened fifo:" + dir.string() + " within 0.2 s", "never appeared"});
  const double waited = elapsed_ms(t0);
  EXPECT_GE(waited, 199.0);
  EXPECT_LT(waited, 2000.0);
  EXPECT_FALSE(exists_nofollow(dir)) << "connect creates nothing";
}

TEST(Fifo, ConnectOnStaleFifosWithoutServerTimesOutNamingThem) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  make_private_dir(dir);
  make_fifo(dir / "d2v");
  make_fifo(dir / "v2d");
  // 200 ms: the stale FIFOs have no server, any timeout gives the message.
  expect_setup_error([&] { FifoChannel::connect({dir, milliseconds(200)}); }, Kind::timeout,
                     {"no peer opened fifo:", "stale"});
  EXPECT_TRUE(exists_nofollow(dir / "d2v")) << "connect removes nothing";
}

TEST(Fifo, ListenTimesOutWithoutClientAndCleansUp) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  const auto t0 = Clock::now();
  // 300 ms: no client will come, any timeout gives the message and the clean-up.
  expect_setup_error([&] { FifoChannel::listen({dir, milliseconds(300)}); }, Kind::timeout,
                     {"no peer opened fifo:" + dir.string() + " within 0.3 s"});
  const double waited = elapsed_ms(t0);
  EXPECT_GE(waited, 299.0);
  EXPECT_LT(waited, 2000.0);
  EXPECT_FALSE(exists_nofollow(dir)) << "a failed listen leaves nothing behind";
}

// ---- peers that die or half-open ----

TEST(Fifo, PeerProcessThatDiesMidMessageIsPeerClosed) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Visual side in another process: answers the first frame, sends half of a second
    // report, then dies without closing anything.
    try {
      auto ch = FifoChannel::connect({dir, kLong});
      MessageStream s(*ch);
      cosim::v1::Envelope got;
      if (s.receive(got, kLong)) ::_exit(2);
      if (s.send(make_report(got.frame().seq(), 2), kLong)) ::_exit(3);
      const auto half = encoded(make_report(2, 2));
      if (ch->write_all(std::span(half).first(half.size() / 2), kLong)) ::_exit(4);
      ::_exit(0);
    } catch (...) {
      ::_exit(5);
    }
  }
  auto server = FifoChannel::listen({dir, kLong});
  MessageStream s(*server);
  ASSERT_FALSE(s.send(make_frame(1, 3), kLong));
  cosim::v1::Envelope got;
  ASSERT_FALSE(s.receive(got, kLong));
  EXPECT_EQ(got.probe_report().frame_seq(), 1u);
  EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(s.send(make_frame(2, 2), kLong), Errc::peer_closed) << "EPIPE, and no SIGPIPE death";
}

// The dynamics side may read v2d before the visual side has opened it for writing: the
// FIFO then reads EOF, which must not be taken for a close.
TEST(Fifo, EofBeforeTheWriterConnectsIsNotPeerClosed) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  Async<std::unique_ptr<FifoChannel>> listening([dir] { return FifoChannel::listen({dir, kLong}); });
  // A hand-made visual side that opens only d2v for now.
  int d2v = -1;
  for (int i = 0; i < 5000 && d2v < 0; ++i) {
    d2v = ::open((dir / "d2v").c_str(), O_RDONLY | O_NONBLOCK);
    if (d2v < 0) std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_GE(d2v, 0);
  auto server = listening.get();
  MessageStream s(*server);
  cosim::v1::Envelope got;
  EXPECT_FALSE(server->readable_now());
  // 200 ms: many 100 ms poll slices' worth of EOF reads, any of which a bug would take for a close.
  EXPECT_EQ(s.receive(got, milliseconds(200)), Errc::timeout) << "EOF without a writer is not a close";

  std::thread late_writer([&] {
    std::this_thread::sleep_for(milliseconds(100));  // lets the receive below block first
    const int v2d = ::open((dir / "v2d").c_str(), O_WRONLY | O_NONBLOCK);
    const auto frame = encoded(make_report(5, 1));
    EXPECT_EQ(::write(v2d, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
    ::close(v2d);
  });
  ASSERT_FALSE(s.receive(got, kLong)) << "the blocked receive must wake when the writer shows up";
  EXPECT_EQ(got.probe_report().frame_seq(), 5u);
  EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
  late_writer.join();
  ::close(d2v);
}

TEST(Fifo, WriterThatLeavesWithoutWritingIsPeerClosed) {
  TempDir tmp;
  const auto dir = tmp / "ch";
  Async<std::unique_ptr<FifoChannel>> listening([dir] { return FifoChannel::listen({dir, kLong}); });
  int d2v = -1;
  for (int i = 0; i < 5000 && d2v < 0; ++i) {
    d2v = ::open((dir / "d2v").c_str(), O_RDONLY | O_NONBLOCK);
    if (d2v < 0) std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_GE(d2v, 0);
  auto server = listening.get();
  std::thread visitor([&] {
    std::this_thread::sleep_for(milliseconds(100));  // lets the receive below block first
    ::close(::open((dir / "v2d").c_str(), O_WRONLY | O_NONBLOCK));
  });
  MessageStream s(*server);
  cosim::v1::Envelope got;
  const auto t0 = Clock::now();
  EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
  EXPECT_LT(elapsed_ms(t0), 2000.0);
  visitor.join();
  ::close(d2v);
}

}  // namespace
}  // namespace cosim::wire
