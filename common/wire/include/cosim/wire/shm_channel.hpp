#pragma once
/// \file
/// Shared-memory channel (Linux): one Boost.Interprocess shared_memory_object
/// "cosim-shm-NAME" (the file /dev/shm/cosim-shm-NAME) holding a header and one
/// single-producer/single-consumer byte ring per direction. Spec string "shm:NAME".

#include <cosim/wire/channel.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cosim::wire {

/// Bytes each direction's ring holds. A write larger than the free space is written in
/// pieces as the reader drains the ring, as on a pipe: frames up to the 1 MiB payload cap
/// (and any larger write) cross it, the writer just waits for the reader in between.
inline constexpr std::size_t kShmRingBytes = 256 * 1024;

/// Longest NAME in "shm:NAME".
inline constexpr std::size_t kShmMaxNameBytes = 100;

/// Which segment and how long setup may wait for the peer.
struct ShmOptions {
  /// NAME in "shm:NAME": 1-100 characters of [A-Za-z0-9._-].
  std::string name;
  /// Longest wait for the peer during listen() / connect() [ms].
  std::chrono::milliseconds open_timeout{10'000};
};

/// Shared-memory channel. Data moves through the rings with atomic head/tail counters
/// (acquire/release): no lock, no allocation and no system call while the peer keeps up.
/// A side that must wait spins briefly (only while spinning pays, see shm_channel.cpp), then
/// sleeps on a futex in the segment, in slices of at most 100 ms so stop_requested()
/// (Errc::interrupted), the timeout and a dead peer are seen. The peer's close() or death
/// is Errc::peer_closed once the ring is drained, as on a pipe. Death (SIGKILL: no closed
/// flag) is found from the peer's pid, checked at most every 100 ms by waits, by reads that
/// find nothing (also with timeout 0) and by readable_now(); a write that finds room in the
/// ring does not check it (no syscall), so a dead reader is seen once the ring is full or on
/// this side's next read. Not copyable or movable.
class ShmChannel final : public Channel {
 public:
  /// Dynamics side. Creates the segment (mode 0600, owner only) and waits up to open_timeout
  /// for a visual side to join. A segment of that name owned by another user is refused, one
  /// whose dynamics is still alive too (bad input naming its pid: one session per channel);
  /// one left by a dead run is removed and replaced. The segment is removed again by the
  /// destructor, remove_created_files(), a failed listen(), and (registered for
  /// unlink_registered_paths_from_signal_handler()) by a fatal-signal handler.
  /// Throws ChannelSetupError.
  static std::unique_ptr<ShmChannel> listen(const ShmOptions& options);

  /// Visual side. Waits up to open_timeout for a segment whose dynamics is alive (a stale
  /// one is waited past until the dynamics replaces it), checks it (owned by this user, mode
  /// 0600, same layout version) and joins it; a session that already has a visual side is
  /// refused (bad input naming its pid). Creates and removes nothing. Throws ChannelSetupError.
  static std::unique_ptr<ShmChannel> connect(const ShmOptions& options);

  /// Why `name` cannot be a NAME of "shm:NAME" (one phrase), or "" if it can.
  static std::string name_problem(std::string_view name);

  /// The file of the segment of `name`: "/dev/shm/cosim-shm-NAME".
  static std::string segment_path(std::string_view name);

  ~ShmChannel() override;
  ShmChannel(const ShmChannel&) = delete;
  ShmChannel& operator=(const ShmChannel&) = delete;

  std::error_code write_all(std::span<const std::byte> bytes,
                            std::chrono::milliseconds timeout) override;
  std::error_code read_exact(std::span<std::byte> out,
                             std::chrono::milliseconds timeout) override;
  bool readable_now() override;
  void close() noexcept override;
  /// "shm:NAME".
  std::string describe() const override;

  /// Removes the segment's name created by listen(), if it is still that segment. No-op on
  /// the visual side or when already done. The mapped rings stay usable by both sides.
  void remove_created_files() noexcept;

  struct Impl;

 private:
  explicit ShmChannel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosim::wire
