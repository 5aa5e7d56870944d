#pragma once
/// \file
/// TCP channel on Boost.Asio: the dynamics listens, the visual side connects and presents
/// the session token before any message. Spec string "tcp:HOST:PORT" ("tcp:[::1]:PORT").
///
/// Why the dynamics listens: it owns the run and is started first, often on a lab machine
/// without a display; the viewer joins it from a laptop, and it is the laptop that can
/// usually reach the lab machine, not the reverse (firewalls, NAT).

#include <cosim/wire/channel.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace cosim::wire {

/// Where the channel listens or connects, and how the two sides prove they belong together.
struct TcpOptions {
  /// Dynamics: the address to bind (an IP literal, or "localhost"); visual: the host to
  /// connect to (a name or an IP literal).
  std::string host;
  std::uint16_t port = 0;
  /// Visual side: the session token to present (kTokenHexDigits hex digits); empty = read it
  /// from token_file. Dynamics side: ignored, it makes a fresh random one per session.
  std::string token;
  /// Names the token file of an endpoint the dynamics listens on, from its address (as text,
  /// IPv6 without brackets, an IPv4-mapped one as IPv4) and port; empty = no token file.
  /// Dynamics side: the file of the address it bound, written (mode 0600, replacing a stale
  /// file of ours) before it starts listening, removed when the channel ends, also on a fatal
  /// signal. Visual side: once connected (so it is the listening dynamics' file, not a stale
  /// one), the file of the address it reached (its socket's peer: what a host name led to,
  /// not the name), or on Linux, when there is none, that of the wildcard address of the same
  /// family (0.0.0.0, ::), whose listener holds the port on every address; it must be this
  /// user's and private. So a token is presented only where the dynamics that made it listens.
  std::function<std::filesystem::path(std::string_view address, std::uint16_t port)> token_file;
  /// Dynamics side: tell the token itself through `notice`. False when the notice does not
  /// reach a terminal (a file, a pipe): then only where the token file is. Told anyway when
  /// there is no token file.
  bool show_token = true;
  /// Longest wait for the peer during listen() / connect() [ms].
  std::chrono::milliseconds open_timeout{10'000};
  /// Lines for the user: the token or its file (secret), a public bind (warning), refused
  /// peers (warnings, a few per 10 s and summaries). Called from the channel's own thread
  /// too while the channel lives, and when it closes.
  NoticeSink notice;
};

/// TCP channel, TCP_NODELAY, non-blocking socket. Waits are poll slices of at most 100 ms
/// (stop_requested() is honoured) after an adaptive spin (detail::SpinPolicy); reads take
/// everything pending into a 64 KiB buffer. No allocation in the data path.
///
/// Session set-up, before the first protocol message: the visual side sends "CSTK" and the
/// 32 token bytes; the dynamics answers "CSOK" + 0, or "CSNO" + 1 (wrong token) or 2
/// (busy: a viewer is already connected) and closes. The dynamics waits for the requests of
/// up to 16 connections at once, each for 2 s from its accept, so strangers that say nothing
/// cannot keep the viewer out; refusals are answered after a back-off that grows while they
/// come (up to 1 s), and logged (notice) a few per 10 s with a summary line for the rest. It
/// goes on waiting for the right peer until open_timeout. While the session lives, the
/// dynamics keeps listening only to refuse further viewers, the same way.
class TcpChannel final : public Channel {
 public:
  /// Hex digits of a session token (32 random bytes).
  static constexpr std::size_t kTokenHexDigits = 64;

  /// Dynamics side: binds HOST:PORT (refused with bad input if the port is in use or the
  /// address is not local), makes a token, tells it through `notice` and the token file,
  /// and waits up to open_timeout for a peer presenting it. A non-loopback bind address is
  /// allowed and warned about through `notice`. Throws ChannelSetupError.
  static std::unique_ptr<TcpChannel> listen(const TcpOptions& options);

  /// Visual side: connects to HOST:PORT, retrying a refused connection until open_timeout
  /// (the dynamics may start later), presents the token, and reads the answer. A refusal
  /// (wrong token, busy) is ChannelSetupError bad_input. Throws ChannelSetupError.
  static std::unique_ptr<TcpChannel> connect(const TcpOptions& options);

  ~TcpChannel() override;
  TcpChannel(const TcpChannel&) = delete;
  TcpChannel& operator=(const TcpChannel&) = delete;

  std::error_code write_all(std::span<const std::byte> bytes, std::chrono::milliseconds timeout) override;
  std::error_code read_exact(std::span<std::byte> out, std::chrono::milliseconds timeout) override;
  bool readable_now() override;
  void close() noexcept override;
  /// "tcp:HOST:PORT" as given (IPv6 in brackets).
  std::string describe() const override;

  /// The port listened on or connected to (listen() on port 0 picks a free one).
  std::uint16_t port() const noexcept;

  struct Impl;

 private:
  explicit TcpChannel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// A fresh session token: kTokenHexDigits lower-case hex digits from the OS's random source.
std::string make_session_token();

/// True if `token` has the form of a session token (kTokenHexDigits hex digits).
bool is_session_token(std::string_view token) noexcept;

}  // namespace cosim::wire
