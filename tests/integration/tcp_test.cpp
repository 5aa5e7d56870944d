// The tcp: session token seen from outside the programs (issue 27, items 7 and 12): a viewer
// presents it only to the dynamics that made it (the token file is named by the exact
// endpoint), and the dynamics prints it only on a terminal, never on a stderr that is a file
// or a pipe (as here: the harness captures it to a file).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "cosim/platform/paths.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

// Boost 1.74's Asio with GCC 12 in C++20 mode needs <utility> first.
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>

namespace cosim::test {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using std::chrono::seconds;

class TcpSetup : public LoopTest {
 protected:
  TcpSetup() : LoopTest("tcp") {}

  std::uint16_t port() const {
    return static_cast<std::uint16_t>(std::stoi(channel().substr(channel().rfind(':') + 1)));
  }

  // Waits until the dynamics has told where its token is (it writes the file first).
  static bool wait_for_token_line(Process& dynamics) {
    for (const auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < seconds(20);) {
      if (dynamics.err().find("session token") != std::string::npos) return true;
      if (!dynamics.running()) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  // The token of the live dynamics on port(), from its file (whatever the file's exact name).
  std::string live_token() const {
    const std::string prefix = "cosim-" + platform::user_tag() + "-tcp-";
    const std::string suffix = "-" + std::to_string(port()) + ".token";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(suffix)) {
        std::string token;
        std::ifstream(entry.path()) >> token;
        return token;
      }
    }
    return {};
  }

  std::unique_ptr<Process> start_recorder_on(const std::string& channel_text, const std::string& tag) {
    return std::make_unique<Process>(
        kBinDir / "cosim-recorder",
        std::vector<std::string>{"--channel", channel_text, "--out", (tmp_.path() / tag).string(), "--open-timeout", "5"},
        tmp_.path() / tag);
  }

  // Another address of this machine on our port: a viewer aimed there must not present the
  // session token to whoever listens there, and finds no token file for it.
  void expect_no_token_for_another_listener(const std::string& address, const std::string& channel_text) {
    asio::io_context io;
    asio::ip::tcp::acceptor other(io);
    boost::system::error_code ec;
    const asio::ip::tcp::endpoint where{asio::ip::make_address(address), port()};
    other.open(where.protocol(), ec);
    if (!ec) other.bind(where, ec);
    if (!ec) other.listen(4, ec);
    if (ec) GTEST_SKIP() << "cannot listen on " << address << ": " << ec.message();

    auto dynamics = start_dynamics({"--duration", "1", "--fps", "20"});
    ASSERT_TRUE(wait_for_token_line(*dynamics)) << dynamics->err();
    // Another user's program listening there: it takes the connection and keeps what comes.
    std::string heard;
    std::thread listener([&] {
      asio::ip::tcp::socket peer(io);
      std::array<char, 36> request{};
      other.async_accept(peer, [&](const boost::system::error_code& e) {
        if (e) return;
        asio::async_read(peer, asio::buffer(request), [&](const boost::system::error_code&, std::size_t n) {
          heard.assign(request.data(), n);
        });
      });
      io.run_for(seconds(8));
    });
    auto misdirected = start_recorder_on(channel_text, "misdirected");
    const int code = finish(*misdirected, "cosim-recorder");
    listener.join();
    EXPECT_EQ(heard.size(), 0u) << "the viewer presented a token to " << address;
    EXPECT_EQ(code, util::kExitBadInput) << misdirected->err();
    EXPECT_NE(misdirected->err().find("no session token"), std::string::npos) << misdirected->err();

    // The viewer aimed at the dynamics' own address finds its token file and gets in.
    auto recorder = start_recorder_on(channel(), "recorder");
    EXPECT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
    EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
    expect_channel_removed();
  }
};

TEST_F(TcpSetup, AViewerAimedAtAnotherLoopbackAddressFindsNoTokenForIt) {
  // All of 127.0.0.0/8 is this machine's loopback on Linux.
  expect_no_token_for_another_listener("127.0.0.2", "tcp:127.0.0.2:" + std::to_string(port()));
}

TEST_F(TcpSetup, AViewerAimedAtTheIpv6LoopbackFindsNoTokenOfTheIpv4One) {
  expect_no_token_for_another_listener("::1", "tcp:[::1]:" + std::to_string(port()));
}

TEST_F(TcpSetup, TheTokenStaysOffAStderrThatIsNotATerminalWhichNamesTheTokenFile) {
  auto dynamics = start_dynamics({"--duration", "1", "--fps", "20"});
  ASSERT_TRUE(wait_for_token_line(*dynamics)) << dynamics->err();
  const std::string token = live_token();
  ASSERT_EQ(token.size(), 64u) << "no token file of port " << port();
  auto recorder = start_recorder(std::vector<std::string>{});
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  EXPECT_EQ(dynamics->err().find(token), std::string::npos) << "the token reached a stderr that is a file";
  EXPECT_EQ(read_file(run_dir() / "dynamics.log").find(token), std::string::npos) << "the token reached the log";
  for (const auto& file : channel_files()) {
    EXPECT_NE(dynamics->err().find(file.string()), std::string::npos) << "the line names the token file " << file
                                                                      << "\n" << dynamics->err();
  }
}

}  // namespace
}  // namespace cosim::test
