// What the conformance suite cannot see of the TCP channel: the session token (wrong,
// missing, a stranger that says nothing), one viewer per session, a port in use, the token
// file of the exact endpoint, IPv6 literals, a public bind being warned about, strangers that
// hold connections open or flood the port, and the address syntax. Both ends run in threads
// of this process over real loopback sockets.

#include "wire_test_support.hpp"

#include <cosim/protocol/channel_spec.hpp>
#include <cosim/util/errors.hpp>
#include <cosim/wire/message_stream.hpp>
#include <cosim/wire/tcp_channel.hpp>

#include <gtest/gtest.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#ifndef _WIN32
#include <sys/stat.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cosim::wire {
namespace {

using test::kLong;
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
  // Every line, for failure messages.
  std::string text() {
    std::lock_guard lock(mutex);
    std::string all;
    for (const auto& line : lines) all += line.second + "\n";
    return all;
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

  // "DIR/token-ADDRESS-PORT": one file per endpoint, as protocol::tcp_token_file names them.
  std::function<fs::path(std::string_view, std::uint16_t)> token_files() {
    return [this](std::string_view address, std::uint16_t p) { return token_file(std::string(address), p); };
  }
  fs::path token_file(const std::string& address = "127.0.0.1", std::uint16_t p = 0) const {
    return dir / ("token-" + address + "-" + std::to_string(p == 0 ? port : p));
  }
  TcpOptions server(milliseconds timeout = kLong) {
    TcpOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.token_file = token_files();
    o.open_timeout = timeout;
    o.notice = notices.sink();
    return o;
  }
  TcpOptions viewer(std::string token = {}) {
    TcpOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.token = std::move(token);
    o.token_file = token_files();
    o.open_timeout = kLong;
    return o;
  }
};

// Waits until `file` exists (the dynamics writes its token file just before it listens).
bool wait_for(const fs::path& file) {
  for (const auto t0 = Clock::now(); elapsed_ms(t0) < kLong.count(); std::this_thread::sleep_for(milliseconds(5))) {
    if (fs::exists(file)) return true;
  }
  return false;
}

std::string read_token(const fs::path& file) {
  std::ifstream in(file);
  std::string token;
  in >> token;
  return token;
}

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
  const fs::path token_file = s.token_file();
  ASSERT_TRUE(fs::exists(token_file)) << "named by the address and port listened on";
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
  o.token_file = [&](std::string_view, std::uint16_t) { return s.dir / "elsewhere"; };
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

TEST(TcpChannel, AStrangerThatSaysNothingIsDroppedAfterTwoSecondsWithoutAnAnswer) {
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
  char byte = 0;
  boost::system::error_code ec;
  EXPECT_EQ(stranger.read_some(asio::buffer(&byte, 1), ec), 0u) << "no answer";
  EXPECT_TRUE(ec) << "closed";
  EXPECT_GT(elapsed_ms(t0), 1500.0);
  EXPECT_LT(elapsed_ms(t0), 2000.0 + 1500.0);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "no session token within 2 s"));
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
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
  EXPECT_FALSE(fs::exists(s.token_file())) << "the token file goes with the failed session";
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
  TcpOptions viewer = s.viewer();
#ifndef __linux__
  // The viewer reaches 127.0.0.1, which has no token file; only Linux vouches that nobody but
  // the wildcard's listener can listen there, so elsewhere the token is given.
  ASSERT_TRUE(wait_for(s.token_file("0.0.0.0")));
  viewer.token = read_token(s.token_file("0.0.0.0"));
#endif
  auto visual = TcpChannel::connect(viewer);
  expect_working(*dynamics.get(), *visual);
  EXPECT_TRUE(s.notices.any(NoticeLevel::warning, "reachable from other machines"));
}

// Strangers on the dynamics' port (issue 27): connections that say nothing, held open and
// reopened as the dynamics drops them; floods of wrong tokens and of further viewers.

using Tcp = asio::ip::tcp;

// Connects to the dynamics on 127.0.0.1:port, sends `request` (nothing: a silent stranger) and
// returns its 5-byte answer, or "" when it closed the connection without one or `timeout` ended.
std::string knock(std::uint16_t port, const std::string& request, milliseconds timeout) {
  asio::io_context io;
  Tcp::socket socket(io);
  std::array<char, 5> answer{};
  std::size_t got = 0;
  socket.async_connect({asio::ip::make_address("127.0.0.1"), port}, [&](const boost::system::error_code& ec) {
    if (ec) return;
    asio::async_write(socket, asio::buffer(request), [&](const boost::system::error_code& e, std::size_t) {
      if (e) return;
      asio::async_read(socket, asio::buffer(answer), [&](const boost::system::error_code&, std::size_t n) { got = n; });
    });
  });
  io.run_for(timeout);
  return got == answer.size() ? std::string(answer.data(), answer.size()) : std::string();
}

// "CSTK" and 32 token bytes: what a viewer sends first.
std::string token_request(const std::string& hex_token) {
  std::string request = "CSTK";
  for (std::size_t i = 0; i < hex_token.size(); i += 2) {
    request.push_back(static_cast<char>(std::stoi(hex_token.substr(i, 2), nullptr, 16)));
  }
  return request;
}

// Threads that knock with `request` until destroyed, counting the dynamics' answers.
class Flood {
 public:
  Flood(std::uint16_t port, std::string request, int threads) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, port, request] {
        while (!stop_.load()) {
          const std::string answer = knock(port, request, milliseconds(3000));
          if (answer.empty()) continue;
          ++answers_;
          if (answer.back() == 1) ++wrong_token_answers_;
          if (answer.back() == 2) ++busy_answers_;
        }
      });
    }
  }
  ~Flood() { stop(); }
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;
  void stop() {
    stop_.store(true);
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  int answers() const { return answers_.load(); }
  int wrong_token_answers() const { return wrong_token_answers_.load(); }
  int busy_answers() const { return busy_answers_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> answers_{0}, wrong_token_answers_{0}, busy_answers_{0};
  std::vector<std::thread> threads_;
};

// Strangers that connect and say nothing, each connecting again as soon as the dynamics drops
// it: someone who wants to keep the viewer out.
class SilentCrowd {
 public:
  SilentCrowd(std::uint16_t port, int size) : thread_([this, port, size] { run(port, size); }) {}
  ~SilentCrowd() {
    stop_.store(true);
    thread_.join();
  }
  SilentCrowd(const SilentCrowd&) = delete;
  SilentCrowd& operator=(const SilentCrowd&) = delete;
  /// Connections made so far (reconnections included).
  int connections() const { return connections_.load(); }

 private:
  struct Member {
    explicit Member(asio::io_context& io) : socket(io), timer(io) {}
    Tcp::socket socket;
    asio::steady_timer timer;
    char byte = 0;
  };

  void run(std::uint16_t port, int size) {
    asio::io_context io;
    const Tcp::endpoint dynamics{asio::ip::make_address("127.0.0.1"), port};
    std::vector<std::unique_ptr<Member>> members;
    std::function<void(Member&)> join = [&](Member& m) {
      boost::system::error_code ignored;
      m.socket.close(ignored);
      m.socket.async_connect(dynamics, [&](const boost::system::error_code& ec) {
        if (ec) {  // nobody listens yet: again a little later
          m.timer.expires_after(milliseconds(20));
          m.timer.async_wait([&](const boost::system::error_code& e) {
            if (!e) join(m);
          });
          return;
        }
        ++connections_;
        // Silent; when the dynamics drops us (or answers), straight back in.
        m.socket.async_read_some(asio::buffer(&m.byte, 1), [&](const boost::system::error_code& e, std::size_t) {
          if (e != asio::error::operation_aborted) join(m);
        });
      });
    };
    for (int i = 0; i < size; ++i) {
      members.push_back(std::make_unique<Member>(io));
      join(*members.back());
    }
    while (!stop_.load()) io.run_for(milliseconds(20));
    for (auto& m : members) {
      boost::system::error_code ignored;
      m->socket.close(ignored);
      m->timer.cancel();
    }
    io.restart();
    io.poll();
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;  // last: starts once the other members exist
};

// Lines the dynamics told with `level` that contain `part`.
int count_lines(Notices& notices, NoticeLevel level, const std::string& part) {
  std::lock_guard lock(notices.mutex);
  return static_cast<int>(std::count_if(notices.lines.begin(), notices.lines.end(), [&](const auto& line) {
    return line.first == level && line.second.find(part) != std::string::npos;
  }));
}

// A flood told in a few lines: at most 6 naming a peer (`named`), the summary (`summary`), 8 in all.
void expect_summed_up(Notices& notices, const std::string& named, const std::string& summary) {
  const int lines = count_lines(notices, NoticeLevel::warning, "");
  EXPECT_LE(count_lines(notices, NoticeLevel::warning, named), 6) << lines << " lines";
  EXPECT_TRUE(notices.any(NoticeLevel::warning, summary)) << "the summary line\n" << (lines < 20 ? notices.text() : "");
  EXPECT_LE(lines, 8) << (lines < 20 ? notices.text() : "");
}

// Issue 27 item 5: set-up took one peer at a time (2 s each, backlog 4), so six silent
// connections reopened as they were dropped kept the viewer out for the whole open timeout.
TEST(TcpStrangers, SilentConnectionsHeldOpenCannotKeepTheViewerOut) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server(milliseconds(8000))); });
  // More than the dynamics keeps pending at once (16), so it must also drop some for new ones.
  SilentCrowd crowd(s.port, 20);
  // Until the crowd is full and churning (the dynamics drops its oldest for each newcomer);
  // taken one at a time, only a backlog's worth got in.
  for (const auto t0 = Clock::now(); crowd.connections() < 40 && elapsed_ms(t0) < 1000.0;) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_GE(crowd.connections(), 6) << "the strangers could not connect";
  const auto t0 = Clock::now();
  std::unique_ptr<TcpChannel> visual;
  TcpOptions viewer = s.viewer();
  viewer.open_timeout = milliseconds(6000);
  try {
    visual = TcpChannel::connect(viewer);
  } catch (const ChannelSetupError& e) {
    ADD_FAILURE() << "the viewer was kept out: " << e.what();
  }
  // A stranger's 2 s token wait must not matter: the viewer's token is read as it arrives.
  EXPECT_LT(elapsed_ms(t0), 1500.0) << "the viewer waited behind silent strangers";
  std::unique_ptr<TcpChannel> server;
  try {
    server = dynamics.get();
  } catch (const ChannelSetupError& e) {
    ADD_FAILURE() << "the dynamics gave up: " << e.what();
  }
  if (server && visual) expect_working(*server, *visual);
}

// Issue 27 item 12: wrong tokens were answered at once (~6 600 a second) with one warning each.
TEST(TcpStrangers, AFloodOfWrongTokensIsSlowedAndSummedUpInAFewLines) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server(milliseconds(10'000))); });
  ASSERT_TRUE(wait_for(s.token_file()));
  Flood flood(s.port, token_request(std::string(64, '0')), 8);
  std::this_thread::sleep_for(milliseconds(1500));
  flood.stop();
  // Answers to wrong tokens wait longer and longer (up to 1 s): 8 knocking threads get a few
  // dozen at most in 1.5 s, against thousands when every one is answered at once.
  EXPECT_GT(flood.wrong_token_answers(), 0) << "a wrong token is still answered";
  EXPECT_LE(flood.wrong_token_answers(), 100);
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
  // A few refusals name their peer, the rest are summed up when the set-up ends.
  expect_summed_up(s.notices, "wrong session token", "peers with a wrong session token in the last");
}

// The same for viewers that come while a session runs: each was told "busy" at once, with a line.
TEST(TcpStrangers, AFloodOfFurtherViewersIsSlowedAndSummedUpInAFewLines) {
  Session s;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  auto visual = TcpChannel::connect(s.viewer());
  auto server = dynamics.get();
  {
    Flood flood(s.port, token_request(std::string(64, '0')), 8);
    std::this_thread::sleep_for(milliseconds(1500));
    flood.stop();
    EXPECT_GT(flood.busy_answers(), 0) << "a further viewer is still told the channel is busy";
    EXPECT_LE(flood.busy_answers(), 100);
    expect_working(*server, *visual);  // the session goes on meanwhile
  }
  server.reset();  // sums up what is left
  expect_summed_up(s.notices, "second viewer", "further viewers in the last");
}

// Issue 27 item 7: the token file was named by the port only, so a viewer aimed at another
// address on that port presented the session's token to whoever listened there.
TEST(TcpStrangers, AViewerReachingAnotherAddressFindsNoTokenThereAndSendsNothing) {
  Session s;
  asio::io_context io;
  Tcp::acceptor other(io);
  boost::system::error_code ec;
  const Tcp::endpoint elsewhere{asio::ip::make_address("127.0.0.2"), s.port};
  other.open(elsewhere.protocol(), ec);
  if (!ec) other.bind(elsewhere, ec);
  if (!ec) other.listen(4, ec);
  if (ec) GTEST_SKIP() << "cannot listen on 127.0.0.2 (not all of 127/8 is loopback here): " << ec.message();
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(s.server()); });
  ASSERT_TRUE(wait_for(s.token_file()));
  TcpOptions misdirected = s.viewer();
  misdirected.host = "127.0.0.2";
  expect_setup_error([&] { TcpChannel::connect(misdirected); }, Kind::bad_input,
                     {"no session token for 127.0.0.2:" + std::to_string(s.port), s.token_file("127.0.0.2").string()});
  // What the other listener got: the connection, and not one byte.
  Tcp::socket peer(io);
  other.accept(peer, ec);
  ASSERT_FALSE(ec) << ec.message();
  std::array<char, 36> heard{};
  EXPECT_EQ(asio::read(peer, asio::buffer(heard), ec), 0u) << "the viewer presented a token to another listener";
  auto visual = TcpChannel::connect(s.viewer());
  expect_working(*dynamics.get(), *visual);
}

// Issue 27 item 12: the token was printed on whatever stderr was, a file or a pipe included.
TEST(TcpChannel, WhereTheUserIsNotTheOnlyReaderTheNoticeNamesTheFileAndNotTheToken) {
  Session s;
  TcpOptions server = s.server();
  server.show_token = false;
  Async<std::unique_ptr<TcpChannel>> dynamics([&] { return TcpChannel::listen(server); });
  auto visual = TcpChannel::connect(s.viewer());
  auto channel = dynamics.get();
  const std::string token = read_token(s.token_file());
  ASSERT_TRUE(is_session_token(token));
  EXPECT_TRUE(s.notices.any(NoticeLevel::secret, "session token in " + s.token_file().string()));
  EXPECT_FALSE(s.notices.any(NoticeLevel::secret, token)) << "the token itself is not told";
  EXPECT_FALSE(s.notices.any(NoticeLevel::info, token) || s.notices.any(NoticeLevel::warning, token));
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
