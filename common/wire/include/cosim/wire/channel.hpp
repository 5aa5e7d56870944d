#pragma once
/// \file
/// Byte channel between the two processes. The protocol code sees only this interface,
/// never file descriptors or handles; setup failures of every channel kind are
/// ChannelSetupError.

#include <chrono>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace cosim::wire {

/// Channel setup failure (any channel kind); what() is one line saying what went wrong
/// and where.
class ChannelSetupError : public std::runtime_error {
 public:
  enum class Kind {
    bad_input = 1,    ///< refused address: wrong owner, mode, type, symlink, empty, in use
    timeout,          ///< the peer did not show up within the open timeout
    io,               ///< an OS call failed (mkdir, mkfifo, open...)
    interrupted,      ///< request_stop() was called while waiting for the peer
  };
  ChannelSetupError(Kind kind, const std::string& what);
  Kind kind() const noexcept;

 private:
  Kind kind_;
};

/// What a line a channel has for the user is: information, a warning, or a secret for the
/// user's eyes only (shown on the terminal, never written to a log file: a session token).
enum class NoticeLevel { info, warning, secret };

/// Receives the lines a channel has for the user while it opens or lives. May be called from
/// a channel's own thread. Empty = silent.
using NoticeSink = std::function<void(NoticeLevel level, std::string_view line)>;

/// A bidirectional, ordered, reliable byte stream.
///
/// Thread safety: one thread may read (read_exact, readable_now) while another writes
/// (write_all); close() must not race with either. Implementations say if they do more.
/// After any error other than Errc::timeout with nothing transferred, the stream position
/// is unspecified: close the channel.
class Channel {
 public:
  virtual ~Channel() = default;

  /// Writes all bytes or fails with Errc::timeout, peer_closed, interrupted or io_error.
  /// \param timeout longest wait for the peer to drain the channel [ms]; 0 = do not wait.
  virtual std::error_code write_all(std::span<const std::byte> bytes,
                                    std::chrono::milliseconds timeout) = 0;

  /// Reads exactly out.size() bytes or fails (timeout, peer_closed, interrupted, io_error).
  /// \param timeout longest wait [ms]; 0 = only what is available right now.
  virtual std::error_code read_exact(std::span<std::byte> out,
                                     std::chrono::milliseconds timeout) = 0;

  /// True if a read would not block right now (data pending, or peer closed).
  virtual bool readable_now() = 0;

  /// Closes both directions; the peer then sees Errc::peer_closed. Idempotent.
  virtual void close() noexcept = 0;

  /// Channel spec for messages, e.g. "fifo:/tmp/cosim-x" or "mem:".
  virtual std::string describe() const = 0;
};

}  // namespace cosim::wire
