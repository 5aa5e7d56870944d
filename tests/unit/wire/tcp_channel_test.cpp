// What the conformance suite cannot see of the TCP channel: the session token (wrong,
// missing, a stranger that says nothing), one viewer per session, a port in use, the token
// file, IPv6 literals, a public bind being warned about, and the address syntax. Both ends
// run in threads of this process over real loopback sockets.

#include "wire_test_support.hpp"

#include <cosim/protocol/channel_spec.hpp>
#include <cosim/util/errors.hpp>
#include <cosim/wire/message_stream.hpp>
#include <cosim/wire/tcp_channel.hpp>

#include <gtest/gtest.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#ifndef _WIN32
#include <sys/stat.h>
#endif

#include <mutex>
#include <string>
#include <vector>

namespace cosim::wire {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using test::Async;
using test::Clock;
using test::elapsed_ms;
using test::expect_setup_error;
using test::make_frame;
using test::TempDir;

// "Never" for waits that end at once when the code is right; only bounds a hang.
constexpr milliseconds kLong{5000};

// A loopback port nobody listens on right now (the channel table's scratch address).
std::uint16_t free_port() {
  for (const auto& kind : protocol::channel_kinds()) {
    if (kind.name != "tcp") continue;
    const std::string address = kind.scratch_address(fs::temp_directory_path(), "tcp-test");
    return static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
  }
  throw std::logic_error("no tcp kind");
}

// Notices of one side, kept for the test to look at (the channel's thread adds to them too).
struct Notices {
  std::mutex mutex;
  std::vector<std::pair<NoticeLevel, std::string>> lines;
  NoticeSink sink() {
    return [this](NoticeLevel level, std::string_view line) {
      std::lock_guard lock(mutex);
      lines.emplace_back(level, std::string(line));
    };
  }
  bool any(NoticeLevel level, const std::string& part) {
    std::lock_guard lock(mutex);
    for (const auto& [l, text] : lines) {
      if (l == level && text.find(part) != std::string::npos) return true;
    }
    return false;
  }
};

struct Session {
  TempDir dir;
  Notices notices;
  std::uint16_t port = free_port();

  TcpOptions server(milliseconds timeout = kLong) {
    TcpOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.token_file = dir / "token";
    o.open_timeout = timeout;
    o.notice = notices.sink();
    return o;
  }
  TcpOptions viewer(std::string token = {}) {
    TcpOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.token = std::move(token);
    o.token_file = dir / "token";
    o.open_timeout = kLong;
    return o;
  }
};

// Frames pass both ways: the session works.
void expect_working(Channel& dynamics, Channel& visual) {
  MessageStream d(dynamics), v(visual);
  cosim::v1::Envelope got;
  ASSERT_FALSE(d.send(make_frame(1, 2), kLong));
  ASSERT_FALSE(v.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 1u);
  ASSERT_FALSE(v.send(make_frame(2, 2), kLong));
  ASSERT_FALSE(d.receive(got, kLong));
  EXPECT_EQ(got.frame().seq(), 2u);
}

TEST(TcpToken, IsSixtyFourHexDigitsAndFreshEachTime) {
  const std::string a = make_session_token(), b = make_session_token();
  EXPECT_TRUE(is_session_token(a)) << a;
  EXPECT_NE(a, b);
  EXPECT_FALSE(is_session_token(a.substr(1)));
  EXPECT_FALSE(is_session_token(a.substr(1) + "g"));
}

TEST(TcpChannel, TheViewerReadsTheTokenFileAndTheFileIsPrivateAndRemovedAtTheEnd) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  auto visual = TcpChannel::connect(s.viewer());
  auto server = dynamics.get();
  expect_working(*server, *visual);
  const fs::path token_file = s.dir / "token";
  ASSERT_TRUE(fs::exists(token_file));
#ifndef _WIN32
  struct stat st {};
  ASSERT_EQ(::stat(token_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "only the user may read the token";
#endif
  EXPECT_TRUE(s.notices.any(NoticeLevel::secret, "session token ")) << "the token is told as a secret";
  server.reset();
  EXPECT_FALSE(fs::exists(token_file)) << "the dynamics removes its token file";
}

TEST(TcpChannel, AWrongTokenIsRefusedAndTheSessionWaitsForTheRightViewer) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  expect_setup_error([&] { TcpChannel::connect(s.viewer(std::string(64, '0'))); }, Kind::bad_input,
                     {"refused the session token"});
  EXPECT_FALSE(dynamics.done()) << "a wrong token does not end the dynamics' wait";
  auto visual = TcpChannel::connect(s.viewer());  // from the token file: the right one
  auto server = dynamics.get();
  expect_working(*server, *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "wrong session token"));
}

TEST(TcpChannel, NoTokenAnywhereIsBadInputNamingTheVariable) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  TcpOptions o = s.viewer();
  o.token_file = s.dir / "elsewhere";
  expect_setup_error([&] { TcpChannel::connect(o); }, Kind::bad_input, {"no session token", "COSIM_TCP_TOKEN"});
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "no session token")) << "the dynamics logs the dropped peer";
}

TEST(TcpChannel, ASecondViewerIsRefusedAndTheFirstGoesOn) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  auto visual = TcpChannel::connect(s.viewer());
  auto server = dynamics.get();
  expect_setup_error([&] { TcpChannel::connect(s.viewer()); }, Kind::bad_input, {"in use by another viewer"});
  expect_working(*server, *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "refused a second viewer"));
}

TEST(TcpChannel, AStrangerThatSaysNothingIsDroppedAndTheViewerStillGetsIn) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  // A port scanner: connects, sends nothing, stays.
  asio::io_context io;
  asio::ip::tcp::socket stranger(io);
  for (const auto t0 = Clock::now(); elapsed_ms(t0) < kLong.count();) {
    boost::system::error_code ec;
    stranger.connect({asio::ip::make_address("127.0.0.1"), s.port}, ec);
    if (!ec) break;
    stranger.close(ec);
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_TRUE(stranger.is_open());
  const auto t0 = Clock::now();
  auto visual = TcpChannel::connect(s.viewer());
  // The stranger holds the door for at most the token wait (2 s), then the viewer is taken.
  EXPECT_LT(elapsed_ms(t0), 2000.0 + 1500.0);
  expect_working(*dynamics.get(), *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "no session token"));
}

TEST(TcpChannel, SomethingElseThanAViewerIsRefused) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  asio::io_context io;
  asio::ip::tcp::socket other(io);
  boost::system::error_code ec;
  for (const auto t0 = Clock::now(); elapsed_ms(t0) < kLong.count();) {
    other.connect({asio::ip::make_address("127.0.0.1"), s.port}, ec);
    if (!ec) break;
    other.close(ec);
    std::this_thread::sleep_for(milliseconds(20));
  }
  const std::string http = "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n";  // 40 bytes: as long as a token request
  asio::write(other, asio::buffer(http), ec);
  ASSERT_FALSE(ec) << ec.message();
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "not a cosim viewer"));
}

TEST(TcpChannel, APortInUseIsBadInputNamingIt) {
  Session s;
  asio::io_context io;
  asio::ip::tcp::acceptor squatter(io, {asio::ip::make_address("127.0.0.1"), s.port});
  expect_setup_error([&] { TcpChannel::listen(s.server()); }, Kind::bad_input,
                     {"port " + std::to_string(s.port), "in use"});
}

TEST(TcpChannel, AnAddressOfAnotherMachineCannotBeBound) {
  Session s;
  TcpOptions o = s.server();
  o.host = "192.0.2.1";  // TEST-NET-1 (RFC 5737): never an address of this machine
  expect_setup_error([&] { TcpChannel::listen(o); }, Kind::bad_input, {"192.0.2.1"});
}

TEST(TcpChannel, NoDynamicsIsATimeoutThatSaysWhatToRun) {
  Session s;
  TcpOptions o = s.viewer(make_session_token());
  o.open_timeout = milliseconds(300);
  expect_setup_error([&] { TcpChannel::connect(o); }, Kind::timeout,
                     {"no dynamics answered", "--channel tcp:127.0.0.1:" + std::to_string(s.port)});
}

TEST(TcpChannel, NoViewerIsATimeout) {
  Session s;
  expect_setup_error([&] { TcpChannel::listen(s.server(milliseconds(300))); }, Kind::timeout,
                     {"no viewer presented the session token"});
  EXPECT_FALSE(fs::exists(s.dir / "token")) << "the token file goes with the failed session";
}

TEST(TcpChannel, AnIpv6LiteralWorks) {
  Session s;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor probe(io);
    boost::system::error_code ec;
    probe.open(asio::ip::tcp::v6(), ec);
    if (!ec) probe.bind({asio::ip::make_address("::1"), 0}, ec);
    if (ec) GTEST_SKIP() << "this machine has no IPv6 loopback: " << ec.message();
  }
  TcpOptions server = s.server(), viewer = s.viewer();
  server.host = viewer.host = "::1";
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(server); });
  auto visual = TcpChannel::connect(viewer);
  EXPECT_EQ(visual->describe(), "tcp:[::1]:" + std::to_string(s.port));
  expect_working(*dynamics.get(), *visual);
}

TEST(TcpChannel, APublicBindIsWarnedAbout) {
  Session s;
  TcpOptions server = s.server();
  server.host = "0.0.0.0";
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(server); });
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "reachable from other machines"));
}

TEST(TcpChannelSpec, AddressesNeedAHostAndAPortAndIpv6GoesInBrackets) {
  for (const char* bad : {"tcp:", "tcp:5555", "tcp:host", "tcp::5555", "tcp:host:0", "tcp:host:65536", "tcp:host:x",
                          "tcp:::1:5555", "tcp:[::1]5555", "tcp:[::1"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(protocol::parse_channel_spec(bad), util::BadInputError);
  }
  for (const char* good : {"tcp:127.0.0.1:5555", "tcp:localhost:1", "tcp:[::1]:65535", "tcp:lab-pc.local:5555"}) {
    SCOPED_TRACE(good);
    EXPECT_NO_THROW(protocol::parse_channel_spec(good));
  }
}

}  // namespace
}  // namespace cosim::wire
