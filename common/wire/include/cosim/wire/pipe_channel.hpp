#pragma once
/// \file
/// Windows named-pipe channel: one duplex byte pipe `\\.\pipe\NAME`, spec "pipe:NAME".
/// Windows only (the file is not built elsewhere; protocol's channel table says so).
///
/// One duplex pipe rather than one per direction: a named pipe is already full duplex with
/// a buffer per direction, one instance is one object to secure, lock (first instance) and
/// watch for a vanished peer, and the peer connects once instead of twice (no half-open state).

#include <cosim/wire/channel.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace cosim::wire {

struct PipeOptions {
  /// NAME in \\.\pipe\NAME: 1-200 characters, no backslash.
  std::string name;
  /// Longest wait for the peer during listen() / connect() [ms].
  std::chrono::milliseconds open_timeout{10'000};
};

/// Named pipe driven by Boost.Asio's windows::stream_handle (overlapped I/O): waits are
/// slices of at most 100 ms so stop_requested() is honoured, a timed-out operation is
/// cancelled (CancelIoEx) before it returns, reads take everything pending into a 64 KiB
/// buffer. A peer that closes or dies is Errc::peer_closed. Not copyable or movable.
class PipeChannel final : public Channel {
 public:
  /// Dynamics side. Creates the pipe with FILE_FLAG_FIRST_PIPE_INSTANCE (a name already in
  /// use, by a second session or by anyone else, is refused: bad input), one instance,
  /// PIPE_REJECT_REMOTE_CLIENTS, and a DACL that admits only the current user; waits up to
  /// open_timeout for the visual side to connect. Throws ChannelSetupError.
  static std::unique_ptr<PipeChannel> listen(const PipeOptions& options);

  /// Visual side. Waits up to open_timeout for the pipe to exist, connects (identification
  /// only: the server cannot impersonate us), and refuses a pipe whose owner is not the
  /// current user (someone squatting the name). A pipe that is busy (another visual side
  /// connected) is refused at once: bad input. Throws ChannelSetupError.
  static std::unique_ptr<PipeChannel> connect(const PipeOptions& options);

  ~PipeChannel() override;
  PipeChannel(const PipeChannel&) = delete;
  PipeChannel& operator=(const PipeChannel&) = delete;

  std::error_code write_all(std::span<const std::byte> bytes, std::chrono::milliseconds timeout) override;
  std::error_code read_exact(std::span<std::byte> out, std::chrono::milliseconds timeout) override;
  bool readable_now() override;
  void close() noexcept override;
  /// "pipe:NAME".
  std::string describe() const override;

  struct Impl;

 private:
  explicit PipeChannel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosim::wire
