#pragma once
/// \file
/// POSIX FIFO channel: a directory DIR holding two FIFOs, `d2v` (dynamics writes, visual
/// reads) and `v2d` (visual writes, dynamics reads). Spec string "fifo:DIR".

#include <cosim/wire/channel.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace cosim::wire {

/// Where the FIFOs live and how long setup may wait for the peer.
struct FifoOptions {
  /// Directory holding d2v and v2d.
  std::filesystem::path dir;
  /// Longest wait for the peer during listen() / connect() [ms].
  std::chrono::milliseconds open_timeout{10'000};
};

/// FIFO channel with non-blocking fds. Waits are poll(2) slices of at most 100 ms, so
/// stop_requested() is honoured; reads wait first and then take everything pending into a
/// 64 KiB buffer (one read(2) per frame in lockstep); writes write first and wait only when
/// the pipe is full. No allocation and no sleep in the data path. Not copyable or movable.
/// SIGPIPE is ignored process-wide by listen() and connect(); a closed peer is
/// Errc::peer_closed, also when the peer process died.
class FifoChannel final : public Channel {
 public:
  /// Dynamics side ("server"). Creates DIR (mode 0700) if missing; refuses a DIR or FIFO
  /// not owned by the effective uid, a symlink, a DIR accessible by group/others, or a
  /// non-FIFO file named d2v/v2d; replaces stale FIFOs of its own; creates d2v and v2d
  /// (mode 0600); opens v2d for reading, then d2v for writing, waiting up to open_timeout
  /// for the peer. Holds an exclusive flock on DIR for its lifetime: a second dynamics on the
  /// same DIR is refused (bad input, naming the holder's pid) before it touches the FIFOs.
  /// Removes what it created in its destructor / remove_created_files()
  /// (the FIFOs, and DIR if it created it and DIR is then empty).
  /// Throws ChannelSetupError.
  static std::unique_ptr<FifoChannel> listen(const FifoOptions& options);

  /// Visual side ("client"). Waits up to open_timeout for d2v and v2d to appear, checks DIR
  /// (not a symlink, owned by euid, not accessible by group/others) and each FIFO (O_NOFOLLOW, fstat: a FIFO owned by euid),
  /// opens d2v for reading and flocks it (a second visual side is refused, naming the
  /// holder's pid), then opens v2d for writing. If the server replaces the FIFOs while it
  /// waits (stale files), it starts over on the new ones. Creates and removes nothing.
  /// Throws ChannelSetupError.
  static std::unique_ptr<FifoChannel> connect(const FifoOptions& options);

  ~FifoChannel() override;
  FifoChannel(const FifoChannel&) = delete;
  FifoChannel& operator=(const FifoChannel&) = delete;

  std::error_code write_all(std::span<const std::byte> bytes,
                            std::chrono::milliseconds timeout) override;
  std::error_code read_exact(std::span<std::byte> out,
                             std::chrono::milliseconds timeout) override;
  bool readable_now() override;
  void close() noexcept override;
  /// "fifo:DIR".
  std::string describe() const override;

  /// Unlinks the FIFOs (and DIR, see listen()) created by listen(), if they are still the
  /// files it created. No-op on the client side or when already done. Open fds stay usable.
  void remove_created_files() noexcept;

  struct Impl;

 private:
  explicit FifoChannel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosim::wire
