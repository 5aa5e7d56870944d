// What is specific to ShmChannel (the segment's mode and owner, its removal on every way
// out, stale segments, one session per name, dead peer processes, names), over real
// segments in /dev/shm; the peer runs in a thread or a fork()ed child. What every channel
// kind does (open order, timeouts, peer closed, interrupts, large frames, no allocation) is
// in channel_conformance_test.cpp.

#include "wire_test_support.hpp"

#include <cosim/protocol/channel_spec.hpp>
#include <cosim/protocol/signals.hpp>
#include <cosim/util/errors.hpp>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/message_stream.hpp>
#include <cosim/wire/shm_channel.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace cosim::wire {
namespace {

using test::kLong;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using test::Async;
using test::Clock;
using test::elapsed_ms;
using test::encoded;
using test::expect_setup_error;
using test::make_frame;
using test::make_report;

constexpr uid_t kNobodyUid = 65534;
// How soon a dead peer must be seen: one 100 ms wait slice ends, then its pid is checked;
// the rest is scheduling slack on a loaded 2-core machine.
constexpr double kDeadPeerMs = 1000.0;

// A segment name no other test or run uses, removed (with anything left under it) at scope end.
class ScratchName {
 public:
  explicit ScratchName(const std::string& tag) {
    static std::atomic<int> counter{0};
    name_ = "cosim-test-" + std::to_string(::getpid()) + "-" + tag + "-" + std::to_string(counter++);
    path_ = ShmChannel::segment_path(name_);
    ::unlink(path_.c_str());
  }
  ~ScratchName() { ::unlink(path_.c_str()); }
  ScratchName(const ScratchName&) = delete;
  ScratchName& operator=(const ScratchName&) = delete;
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  std::string spec() const { return "shm:" + name_; }

 private:
  std::string name_;
  std::string path_;
};

bool exists_nofollow(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

ino_t inode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_ino;
}

// Waits until the dynamics side (another process) has created the segment.
bool wait_for_file(const std::string& p) {
  for (int i = 0; i < 5000; ++i) {
    if (exists_nofollow(p)) return true;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return false;
}

struct ShmPair {
  std::unique_ptr<ShmChannel> server;  // dynamics side
  std::unique_ptr<ShmChannel> client;  // visual side
};

// Listens in a thread, connects here (both orders: conformance suite).
ShmPair open_pair(const std::string& name) {
  const ShmOptions options{name, kLong};
  Async<std::unique_ptr<ShmChannel>> server([options] { return ShmChannel::listen(options); });
  ShmPair p;
  p.client = ShmChannel::connect(options);
  p.server = server.get();
  return p;
}

void expect_round_trips(ShmChannel& server, ShmChannel& client, int count = 20) {
  MessageStream s(server), c(client);
  cosim::v1::Envelope got;
  for (int i = 1; i <= count; ++i) {
    ASSERT_FALSE(s.send(make_frame(i, 6), kLong));
    ASSERT_FALSE(c.receive(got, kLong));
    ASSERT_EQ(got.frame().seq(), static_cast<std::uint64_t>(i));
    ASSERT_FALSE(c.send(make_report(i, 3), kLong));
    ASSERT_FALSE(s.receive(got, kLong));
    ASSERT_EQ(got.probe_report().frame_seq(), static_cast<std::uint64_t>(i));
  }
}

// Runs `body` in a fork()ed child whose exit status is body's result (any exception: 100).
template <class F>
pid_t fork_child(F body) {
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 100;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return child;
}

int reap(pid_t child) {
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  return status;
}

// ---- the segment: mode, owner, refusals ----

class ShmUmask : public ::testing::TestWithParam<mode_t> {};

TEST_P(ShmUmask, SegmentIsAPrivateFileOfThisUser) {
  // umask 0 would expose a too-open mode argument; 0277 would leave 0400 without fchmod.
  ScratchName n("umask");
  const mode_t old = ::umask(GetParam());
  ShmPair p;
  try {
    p = open_pair(n.name());
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::lstat(n.path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(p.server->describe(), n.spec());
  expect_round_trips(*p.server, *p.client, 3);
}

INSTANTIATE_TEST_SUITE_P(Shm, ShmUmask, ::testing::Values(mode_t{0}, mode_t{0277}),
                         [](const auto& info) { return info.param == 0 ? "Umask000" : "Umask277"; });

TEST(Shm, BadNamesAreRefusedWithTheReason) {
  const std::string too_long(kShmMaxNameBytes + 1, 'a');
  EXPECT_EQ(ShmChannel::name_problem(std::string(kShmMaxNameBytes, 'a')), "");
  EXPECT_EQ(ShmChannel::name_problem("Run_1.test-2"), "");
  for (const auto& bad : std::vector<std::pair<std::string, std::string>>{
           {"", "empty NAME"}, {too_long, "at most 100"}, {"a/b", "'/'"}, {"x y", "' '"}, {"new\nline", "new\\nline"}}) {
    const std::string& name = bad.first;  // (not a structured binding: lambdas below capture it)
    const std::string& part = bad.second;
    SCOPED_TRACE(name);
    expect_setup_error([&] { ShmChannel::listen({name, kLong}); }, Kind::bad_input, {"shm channel", part});
    expect_setup_error([&] { ShmChannel::connect({name, kLong}); }, Kind::bad_input, {"shm channel", part});
    EXPECT_THROW(protocol::parse_channel_spec("shm:" + name), util::BadInputError);
  }
  EXPECT_EQ(protocol::parse_channel_spec("shm:ok-name").address, "ok-name");
}

TEST(Shm, ListenAndConnectRefuseASegmentOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  ScratchName n("foreign");
  const int fd = ::open(n.path().c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fchown(fd, kNobodyUid, kNobodyUid), 0);
  ::close(fd);
  expect_setup_error([&] { ShmChannel::listen({n.name(), kLong}); }, Kind::bad_input,
                     {n.spec(), n.path(), "owned by uid 65534"});
  EXPECT_TRUE(exists_nofollow(n.path())) << "someone else's segment must not be removed";
  expect_setup_error([&] { ShmChannel::connect({n.name(), kLong}); }, Kind::bad_input, {"owned by uid 65534"});
}

TEST(Shm, ConnectRefusesASegmentOthersCanOpen) {
  ScratchName n("mode");
  Async<std::unique_ptr<ShmChannel>> server([&] { return ShmChannel::listen({n.name(), milliseconds(2000)}); });
  ASSERT_TRUE(wait_for_file(n.path()));
  ASSERT_EQ(::chmod(n.path().c_str(), 0644), 0);
  expect_setup_error([&] { ShmChannel::connect({n.name(), kLong}); }, Kind::bad_input, {n.path(), "mode 0644"});
  // The refused visual side did not join: the dynamics side times out (2 s: it must still
  // be waiting when the refusal comes, and any timeout shows nobody joined).
  EXPECT_THROW(server.get(), ChannelSetupError);
}

TEST(Shm, ListenAndConnectRefuseASymlink) {
  ScratchName n("link");
  ScratchName target("target");
  const int fd = ::open(target.path().c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_EQ(::symlink(target.path().c_str(), n.path().c_str()), 0);
  expect_setup_error([&] { ShmChannel::listen({n.name(), kLong}); }, Kind::bad_input, {n.path(), "symlink"});
  expect_setup_error([&] { ShmChannel::connect({n.name(), kLong}); }, Kind::bad_input, {n.path(), "symlink"});
  EXPECT_TRUE(exists_nofollow(n.path()));
  EXPECT_TRUE(exists_nofollow(target.path()));
}

TEST(Shm, ListenRefusesAFileThatIsNotACosimSegment) {
  ScratchName n("userdata");
  const std::string text(4096, 'u');  // longer than the header: its first bytes are no magic
  const int fd = ::open(n.path().c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  expect_setup_error([&] { ShmChannel::listen({n.name(), kLong}); }, Kind::bad_input,
                     {n.path(), "not a cosim channel segment"});
  EXPECT_TRUE(exists_nofollow(n.path())) << "a file we cannot read as ours must not be removed";
}

// ---- one session per name ----

TEST(Shm, SecondDynamicsIsRefusedNamingThePidOfTheFirst) {
  ScratchName n("twodyn");
  const pid_t first = fork_child([&] {
    ShmChannel::listen({n.name(), kLong});  // waits for a visual side that never comes
    return 0;
  });
  ASSERT_GT(first, 0);
  ASSERT_TRUE(wait_for_file(n.path()));
  const ino_t ino = inode_of(n.path());
  expect_setup_error([&] { ShmChannel::listen({n.name(), kLong}); }, Kind::bad_input,
                     {n.spec(), "cosim-dynamics (pid " + std::to_string(first) + ")", "one session per channel"});
  EXPECT_EQ(inode_of(n.path()), ino) << "the live session's segment must be left alone";
  ::kill(first, SIGKILL);
  reap(first);
}

TEST(Shm, SecondVisualIsRefusedNamingThePidOfTheFirst) {
  ScratchName n("twovis");
  const pid_t first = fork_child([&] {
    auto ch = ShmChannel::connect({n.name(), kLong});
    MessageStream s(*ch);
    cosim::v1::Envelope got;
    return s.receive(got, kLong) ? 2 : 0;  // holds the session until the test is done
  });
  ASSERT_GT(first, 0);
  auto server = ShmChannel::listen({n.name(), kLong});
  expect_setup_error([&] { ShmChannel::connect({n.name(), kLong}); }, Kind::bad_input,
                     {n.spec(), "visual side (pid " + std::to_string(first) + ")", "one session per channel"});
  ASSERT_FALSE(MessageStream(*server).send(make_frame(1, 2), kLong)) << "the first session still works";
  const int status = reap(first);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(Shm, VisualSideAfterADeadOneIsRefused) {
  ScratchName n("deadvis");
  const pid_t first = fork_child([&] {
    ShmChannel::connect({n.name(), kLong});
    return 0;  // exits without close(): the slot keeps its pid
  });
  ASSERT_GT(first, 0);
  auto server = ShmChannel::listen({n.name(), kLong});
  reap(first);
  expect_setup_error([&] { ShmChannel::connect({n.name(), kLong}); }, Kind::bad_input,
                     {"pid " + std::to_string(first) + ", now gone", "restart the dynamics side"});
}

// ---- stale segments ----

// A dynamics killed by SIGKILL cannot clean up: the next one recognises its segment as
// stale (owner gone; also while still an unreaped zombie) and replaces it.
TEST(Shm, StaleSegmentOfAKilledRunIsReplaced) {
  for (const bool reaped : {true, false}) {
    SCOPED_TRACE(reaped ? "reaped" : "zombie");
    ScratchName n("stale");
    const pid_t old = fork_child([&] {
      ShmChannel::listen({n.name(), kLong});
      return 0;
    });
    ASSERT_GT(old, 0);
    ASSERT_TRUE(wait_for_file(n.path()));
    std::this_thread::sleep_for(milliseconds(50));  // lets it finish initialising (else: kInitGrace path)
    ASSERT_EQ(::kill(old, SIGKILL), 0);
    if (reaped) {
      reap(old);
    } else {
      siginfo_t info{};  // waits until it is dead (SIGKILL takes a moment), leaving the zombie
      ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(old), &info, WEXITED | WNOWAIT), 0);
    }
    ASSERT_TRUE(exists_nofollow(n.path())) << "SIGKILL leaves the segment behind";
    // Holding the stale segment open keeps its inode number from being reused.
    const int keep = ::open(n.path().c_str(), O_RDONLY);
    const ino_t stale = inode_of(n.path());
    {
      ShmPair p = open_pair(n.name());
      EXPECT_NE(inode_of(n.path()), stale);
      expect_round_trips(*p.server, *p.client, 3);
    }
    ::close(keep);
    if (!reaped) reap(old);
    EXPECT_FALSE(exists_nofollow(n.path()));
  }
}

TEST(Shm, ConnectOnAStaleSegmentWaitsAndSaysWhy) {
  ScratchName n("stalewait");
  const pid_t old = fork_child([&] {
    ShmChannel::listen({n.name(), kLong});
    return 0;
  });
  ASSERT_GT(old, 0);
  ASSERT_TRUE(wait_for_file(n.path()));
  std::this_thread::sleep_for(milliseconds(50));  // lets it finish initialising
  ::kill(old, SIGKILL);
  reap(old);
  // 300 ms: nobody will replace the stale segment, any timeout gives the message.
  expect_setup_error([&] { ShmChannel::connect({n.name(), milliseconds(300)}); }, Kind::timeout,
                     {"no peer opened " + n.spec() + " within 0.3 s", "dead run", "pid " + std::to_string(old)});
  EXPECT_TRUE(exists_nofollow(n.path())) << "connect removes nothing";
  // A dynamics side replacing it meanwhile is found.
  Async<std::unique_ptr<ShmChannel>> client([&] { return ShmChannel::connect({n.name(), kLong}); });
  std::this_thread::sleep_for(milliseconds(100));  // the client is now polling the stale segment
  auto server = ShmChannel::listen({n.name(), kLong});
  auto visual = client.get();
  expect_round_trips(*server, *visual, 3);
}

// A run that died between creating its segment and initialising it leaves an empty file:
// the next dynamics side gives such a segment a grace period (500 ms), then replaces it.
TEST(Shm, UninitialisedSegmentIsReplacedAfterAGracePeriod) {
  ScratchName n("uninit");
  const int fd = ::open(n.path().c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  // 300 ms: the visual side treats it as being initialised and keeps waiting.
  expect_setup_error([&] { ShmChannel::connect({n.name(), milliseconds(300)}); }, Kind::timeout, {n.spec()});
  const ino_t stale = inode_of(n.path());
  const int keep = ::open(n.path().c_str(), O_RDONLY);  // keeps the inode number from reuse
  {
    ShmPair p = open_pair(n.name());
    EXPECT_NE(inode_of(n.path()), stale);
    expect_round_trips(*p.server, *p.client, 3);
  }
  ::close(keep);
}

// ---- removal on every way out ----

TEST(Shm, DestructorRemovesTheSegmentAndTheVisualSideRemovesNothing) {
  ScratchName n("dtor");
  ShmPair p = open_pair(n.name());
  EXPECT_TRUE(exists_nofollow(n.path()));
  p.client->remove_created_files();
  p.client.reset();
  EXPECT_TRUE(exists_nofollow(n.path()));
  p.server.reset();
  EXPECT_FALSE(exists_nofollow(n.path()));
}

TEST(Shm, RemovedSegmentLeavesOpenChannelsWorking) {
  ScratchName n("removed");
  ShmPair p = open_pair(n.name());
  p.server->remove_created_files();
  EXPECT_FALSE(exists_nofollow(n.path()));
  expect_round_trips(*p.server, *p.client, 3);
}

TEST(Shm, FailedListenRemovesItsSegment) {
  ScratchName n("timeout");
  const auto t0 = Clock::now();
  // 300 ms: no visual side will come, any timeout gives the message and the clean-up.
  expect_setup_error([&] { ShmChannel::listen({n.name(), milliseconds(300)}); }, Kind::timeout,
                     {"no peer opened " + n.spec() + " within 0.3 s",
                      "(is the visual side running with --channel " + n.spec() + "?)"});
  EXPECT_GE(elapsed_ms(t0), 299.0);
  EXPECT_FALSE(exists_nofollow(n.path()));
}

TEST(Shm, ConnectTimesOutWithoutDynamicsNamingTheSpec) {
  ScratchName n("nodyn");
  // 200 ms: no dynamics side will come, any timeout gives the message.
  expect_setup_error([&] { ShmChannel::connect({n.name(), milliseconds(200)}); }, Kind::timeout,
                     {"no peer opened " + n.spec() + " within 0.2 s",
                      "(is the dynamics side running with --channel " + n.spec() + "?)"});
  EXPECT_FALSE(exists_nofollow(n.path())) << "connect creates nothing";
}

TEST(Shm, SignalHandlerCleanupUnlinksTheSegment) {
  ScratchName n("sigclean");
  ShmPair p = open_pair(n.name());
  unlink_registered_paths_from_signal_handler();
  EXPECT_FALSE(exists_nofollow(n.path()));
  expect_round_trips(*p.server, *p.client, 3);
}

TEST(Shm, ClosedChannelsAreUnregisteredFromSignalCleanup) {
  ScratchName n("unreg");
  { ShmPair p = open_pair(n.name()); }
  // Same path reused by a file the signal cleanup must now leave alone.
  const int fd = ::open(n.path().c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  unlink_registered_paths_from_signal_handler();
  EXPECT_TRUE(exists_nofollow(n.path()));
}

// The program's own handler (protocol::install_stop_signal_handlers): a user who insists
// with a third interrupt ends the process at once, after unlinking the registered paths.
TEST(Shm, InsistentInterruptOfTheDynamicsProcessRemovesTheSegment) {
  ScratchName n("insist");
  const pid_t dynamics = fork_child([&] {
    protocol::install_stop_signal_handlers();
    auto ch = ShmChannel::listen({n.name(), kLong});
    for (;;) ::pause();  // no clean exit: only the handler can remove the segment
    return 0;
  });
  ASSERT_GT(dynamics, 0);
  auto visual = ShmChannel::connect({n.name(), kLong});
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(::kill(dynamics, SIGINT), 0);
    std::this_thread::sleep_for(milliseconds(20));  // one signal at a time (signals do not queue)
  }
  const int status = reap(dynamics);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << "child status " << status;
  EXPECT_FALSE(exists_nofollow(n.path()));
  cosim::v1::Envelope got;
  EXPECT_EQ(MessageStream(*visual).receive(got, kLong), Errc::peer_closed);
}

// A fatal-signal handler that calls the wire's clean-up before dying, as the function's
// contract asks (the program installs none today; this shows the segment is covered).
TEST(Shm, FatalSignalHandlerCleanupRemovesTheSegment) {
  ScratchName n("fatal");
  const pid_t dynamics = fork_child([&] {
    struct sigaction action {};
    action.sa_handler = [](int sig) {
      unlink_registered_paths_from_signal_handler();
      ::signal(sig, SIG_DFL);
      ::raise(sig);
    };
    ::sigaction(SIGABRT, &action, nullptr);
    auto ch = ShmChannel::listen({n.name(), kLong});
    ::raise(SIGABRT);
    return 0;
  });
  ASSERT_GT(dynamics, 0);
  auto visual = ShmChannel::connect({n.name(), kLong});
  const int status = reap(dynamics);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << "child status " << status;
  EXPECT_FALSE(exists_nofollow(n.path()));
}

// ---- dead peers ----

// A peer process killed with SIGKILL sets no closed flag: its pid, checked each wait slice,
// tells. Not reaped yet on purpose: a zombie is dead too.
TEST(Shm, PeerKilledWithSigkillIsPeerClosedWithinASecond) {
  for (const bool kill_dynamics : {false, true}) {
    SCOPED_TRACE(kill_dynamics ? "dynamics killed" : "visual killed");
    ScratchName n("killed");
    const pid_t child = fork_child([&] {
      auto ch = kill_dynamics ? ShmChannel::listen({n.name(), kLong}) : ShmChannel::connect({n.name(), kLong});
      if (MessageStream(*ch).send(make_report(1, 2), kLong)) return 2;
      for (;;) ::pause();
      return 0;
    });
    ASSERT_GT(child, 0);
    auto ch = kill_dynamics ? ShmChannel::connect({n.name(), kLong}) : ShmChannel::listen({n.name(), kLong});
    MessageStream s(*ch);
    cosim::v1::Envelope got;
    ASSERT_FALSE(s.receive(got, kLong));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    const auto t0 = Clock::now();
    EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
    EXPECT_LT(elapsed_ms(t0), kDeadPeerMs);
    EXPECT_EQ(s.send(make_frame(2, 2), kLong), Errc::peer_closed);
    EXPECT_TRUE(ch->readable_now());
    const int status = reap(child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  }
}

TEST(Shm, PeerProcessThatDiesMidMessageIsPeerClosedAfterItsWholeMessages) {
  ScratchName n("midmsg");
  const pid_t child = fork_child([&] {
    auto ch = ShmChannel::connect({n.name(), kLong});
    if (MessageStream(*ch).send(make_report(1, 2), kLong)) return 2;
    const auto half = encoded(make_report(2, 2));
    if (ch->write_all(std::span(half).first(half.size() / 2), kLong)) return 3;
    return 0;  // _exit without close()
  });
  ASSERT_GT(child, 0);
  auto server = ShmChannel::listen({n.name(), kLong});
  const int status = reap(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  MessageStream s(*server);
  cosim::v1::Envelope got;
  ASSERT_FALSE(s.receive(got, kLong)) << "what the dead peer wrote whole is still delivered";
  EXPECT_EQ(got.probe_report().frame_seq(), 1u);
  const auto t0 = Clock::now();
  EXPECT_EQ(s.receive(got, kLong), Errc::peer_closed);
  EXPECT_LT(elapsed_ms(t0), kDeadPeerMs);
}

// ---- data ----

// 4 MiB: 16 times the ring, so both ways cross it in many pieces while the reader drains it.
TEST(Shm, FourMebibyteMessageRoundTripsIntactBetweenProcesses) {
  ScratchName n("big");
  constexpr std::size_t kBytes = 4u << 20;
  std::vector<std::byte> data(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) data[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  const pid_t echo = fork_child([&] {
    auto ch = ShmChannel::connect({n.name(), kLong});
    std::vector<std::byte> buf(kBytes);
    if (ch->read_exact(buf, kLong)) return 2;
    if (ch->write_all(buf, kLong)) return 3;
    return 0;
  });
  ASSERT_GT(echo, 0);
  auto server = ShmChannel::listen({n.name(), kLong});
  Async<std::error_code> writer([&] { return server->write_all(data, kLong); });
  std::vector<std::byte> back(kBytes);
  ASSERT_FALSE(server->read_exact(back, kLong));
  EXPECT_FALSE(writer.get());
  EXPECT_TRUE(back == data) << "the echo differs";
  const int status = reap(echo);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(Shm, ScratchAddressesAreValidUniqueNames) {
  for (const auto& kind : protocol::channel_kinds()) {
    if (kind.name != "shm") continue;
    test::TempDir scratch;
    const std::string a = kind.scratch_address(scratch.path(), "ch");
    const std::string b = kind.scratch_address(scratch.path(), "other tag/with odd chars");
    EXPECT_EQ(ShmChannel::name_problem(a), "") << a;
    EXPECT_EQ(ShmChannel::name_problem(b), "") << b;
    EXPECT_NE(a, b);
    EXPECT_EQ(kind.scratch_address(scratch.path(), std::string(300, 'x')).size(), kShmMaxNameBytes);
    return;
  }
  ADD_FAILURE() << "no shm kind in the table";
}

}  // namespace
}  // namespace cosim::wire
