// "tcp:HOST:PORT": a TCP connection (wire::TcpChannel); IPv6 literals in brackets.

#include <cstdlib>
#include <filesystem>
#include <random>
#include <system_error>

#include "channel_kinds.hpp"
#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/tcp_channel.hpp"

// Boost 1.74's Asio with GCC 12 in C++20 mode needs <utility> first.
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace cosim::protocol::detail {
// Named: every kind defines check, open_dynamics, ... and a unity build compiles them together.
namespace tcp_kind {
namespace {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

// "HOST:PORT" or "[IPV6]:PORT"; throws BadInputError naming `text`.
HostPort split(std::string_view address, const std::string& text) {
  const auto bad = [&](const std::string& why) {
    throw util::BadInputError("--channel '" + text + "': " + why + " (expected tcp:HOST:PORT, e.g. tcp:127.0.0.1:5555 or tcp:[::1]:5555)");
  };
  HostPort hp;
  std::string_view port_text;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() || address[close + 1] != ':') {
      bad("an IPv6 address goes in brackets followed by :PORT");
    }
    hp.host = std::string(address.substr(1, close - 1));
    port_text = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos) bad("no port");
    hp.host = std::string(address.substr(0, colon));
    if (hp.host.find(':') != std::string::npos) bad("an IPv6 address goes in brackets");
    port_text = address.substr(colon + 1);
  }
  if (hp.host.empty()) bad("no host");
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string_view::npos) {
    bad("the port must be a number in [1, 65535]");
  }
  const long port = std::strtol(std::string(port_text).c_str(), nullptr, 10);
  if (port < 1 || port > 65535) bad("the port must be a number in [1, 65535]");
  hp.port = static_cast<std::uint16_t>(port);
  return hp;
}

void check(std::string_view address, const std::string& text) { split(address, text); }

wire::TcpOptions options(const ChannelSpec& spec, std::chrono::milliseconds open_timeout, const ChannelNotice& notice) {
  const HostPort hp = split(spec.address, spec.text);
  wire::TcpOptions o;
  o.host = hp.host;
  o.port = hp.port;
  o.token_file = [](std::string_view address, std::uint16_t port) { return tcp_token_file(address, port); };
  // The token goes to stderr only when it is a terminal: a file or a pipe outlives the
  // session, and others may read it (a CI log, a process manager's journal).
  o.show_token = platform::stderr_is_terminal();
  o.open_timeout = open_timeout;
  o.notice = notice;
  return o;
}

std::unique_ptr<wire::Channel> open_dynamics(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                             const ChannelNotice& notice) {
  return wire::TcpChannel::listen(options(spec, open_timeout, notice));
}

std::unique_ptr<wire::Channel> open_visual(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                           const ChannelNotice& notice) {
  wire::TcpOptions o = options(spec, open_timeout, notice);
  if (const char* token = std::getenv("COSIM_TCP_TOKEN"); token != nullptr && *token != '\0') {
    if (!wire::is_session_token(token)) {
      throw util::BadInputError("COSIM_TCP_TOKEN: a session token is " + std::to_string(wire::TcpChannel::kTokenHexDigits) +
                                " hex digits, as cosim-dynamics prints it");
    }
    o.token = token;
  }
  return wire::TcpChannel::connect(o);
}

// A loopback port free right now, outside Linux's ephemeral range when possible (so no
// outgoing connection takes it before the test listens). The kernel's choice is the fallback.
// Random, so tests running at once in other processes rarely pick the same one.
std::string scratch_address(const std::filesystem::path&, std::string_view) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::acceptor probe(io);
  const auto loopback = asio::ip::make_address_v4("127.0.0.1");
  boost::system::error_code ec;
  std::random_device random;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const auto port = static_cast<std::uint16_t>(20000 + random() % 12000);
    probe.close(ec);
    probe.open(asio::ip::tcp::v4(), ec);
    probe.bind({loopback, port}, ec);
    if (!ec) return "127.0.0.1:" + std::to_string(port);
  }
  probe.close(ec);
  probe.open(asio::ip::tcp::v4(), ec);
  probe.bind({loopback, 0}, ec);
  return "127.0.0.1:" + std::to_string(probe.local_endpoint(ec).port());
}

}  // namespace
}  // namespace tcp_kind

ChannelKind tcp_channel_kind() {
  using namespace tcp_kind;
  return {"tcp", "tcp:HOST:PORT",
          "TCP (Boost.Asio): the dynamics listens on HOST:PORT (127.0.0.1 = this machine only), the viewer "
          "connects and presents the session token",
          "", check, open_dynamics, open_visual, scratch_address};
}

}  // namespace cosim::protocol::detail

namespace cosim::protocol {

// Both sides of one machine meet on this file. Per user and exact endpoint (a viewer aimed
// at another address of the port must not find this token), in the user's temp folder. An
// IPv6 address has '_' for ':' (not allowed in Windows file names; no brackets, which a
// shell would take for a pattern).
std::filesystem::path tcp_token_file(std::string_view address, std::uint16_t port) {
  std::string name = "cosim-" + platform::user_tag() + "-tcp-";
  for (const char c : address) {
    const bool keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '%';
    name.push_back(keep ? c : '_');
  }
  name += "-" + std::to_string(port) + ".token";
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / name;
}

}  // namespace cosim::protocol
