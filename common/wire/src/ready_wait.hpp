#pragma once
// Waiting for one descriptor (a FIFO end, a socket) to become ready, spinning first while
// spinning pays (private to cosim::wire).

#include "deadline.hpp"

#include <chrono>
#include <cstdint>
#include <system_error>

namespace cosim::wire::detail {

#ifdef _WIN32
using NativeHandle = std::uintptr_t;  // a SOCKET
#else
using NativeHandle = int;             // a file descriptor
#endif

/// How long to spin (on a zero-timeout poll, or on the shm ring in memory) before sleeping
/// in the kernel. One per waiting direction of one end: plain members, no sharing.
///
/// A peer that answers within microseconds (lockstep) is seen at once by a spinning waiter,
/// instead of after a wake-up from an idle CPU (50-80 us on this virtual machine). But a spin
/// occupies a core, and where the peer needs that core it only delays the answer. Measured
/// here (FIFO round trip, recorder stub, `scripts/bench.sh channels` and the same with all
/// four processes pinned to one CPU): idle, spinning 12 us vs sleeping 29 us; beside two
/// CPU-bound processes on the 2 cores, spinning 11 us vs sleeping 122 us (a sleeper loses
/// its core to the neighbours); everything on one core, a fixed 60 us spin 144 us vs sleeping
/// 24 us. So the spin is kept only while it pays: each wait that caught the event while
/// spinning earns credit, each that did not costs twice as much (a miss wastes the whole
/// budget, a catch saves about one wake-up); without credit the waiter sleeps at once, and
/// tries one spin every kProbeEvery waits to see if times changed (one core: 28 us).
/// How SpinPolicy decides, from COSIM_SPIN (adaptive, the default; always: the fixed
/// kBudget spin of earlier versions; never: sleep at once). Read once per process. For the
/// benchmarks that compare the three (docs/performance.md), not for users.
enum class SpinMode { adaptive, always, never };
SpinMode spin_mode() noexcept;

class SpinPolicy {
 public:
  static constexpr std::chrono::microseconds kBudget{60};
  static constexpr int kMaxCredit = 8;
  static constexpr int kProbeEvery = 32;

  /// The spin budget of the next wait: kBudget or zero.
  std::chrono::microseconds budget() noexcept {
    last_missed_ = false;
    if (mode_ != SpinMode::adaptive) return mode_ == SpinMode::always ? kBudget : std::chrono::microseconds::zero();
    if (credit_ > 0) return kBudget;
    if (++waits_without_spin_ < kProbeEvery) return std::chrono::microseconds::zero();
    waits_without_spin_ = 0;
    return kBudget;  // a probe
  }

  /// After a wait that spun: whether the event came while spinning.
  void spun(bool caught) noexcept {
    last_missed_ = !caught;
    if (caught) {
      credit_ = credit_ < kMaxCredit ? credit_ + 1 : kMaxCredit;
    } else {
      credit_ = credit_ > 2 ? credit_ - 2 : 0;
    }
  }

  bool spinning() const noexcept { return credit_ > 0; }

  /// True if the last wait spun and missed (reset by the next budget()).
  bool last_missed() const noexcept { return last_missed_; }

 private:
  SpinMode mode_ = spin_mode();
  int credit_ = kMaxCredit / 2;
  int waits_without_spin_ = 0;
  bool last_missed_ = false;
};

/// A spin cannot pay while the peer waits for the CPU we spin on. Once both sides sleep, the
/// scheduler tends to wake each on the other's CPU, where they then take turns, and every
/// probe spin misses (seen beside two CPU-bound processes on the 2 cores: shm: p50 15 us
/// instead of 5, fifo: 17 instead of 9, in a third to half of the runs). So a side whose
/// spin missed moves itself off the peer's CPU, to another one it may use (narrowing its
/// affinity for the move, then restoring it), and the next spin can meet the peer.
/// Does nothing if `peer_cpu` is not the caller's CPU, is unknown (< 0), or the caller may
/// use one CPU only (taskset); nothing on Windows. COSIM_MOVE=off turns it off, for the
/// benchmark that compares (docs/performance.md).
void move_off_cpu(int peer_cpu) noexcept;

/// State, start time and CPU of a process from /proc/PID/stat, read without allocating (the
/// shm channel's liveness checks run in wait slices of the data path). Linux only.
struct ProcStat {
  char state = '?';               // 'R', 'S', ... 'Z' (zombie), 'X' (dead)
  std::uint64_t start_ticks = 0;  // [clock ticks since boot]
  int cpu = -1;                   // the CPU it last ran on
};
/// False if the process or /proc is not there (or the file does not parse).
bool read_proc_stat(int pid, ProcStat& out) noexcept;

/// The CPU process `pid` last ran on (read_proc_stat), -1 if unknown. Reads a file: call it
/// after a missed spin, not on every wait.
int cpu_of_process(int pid) noexcept;

/// Poll event bits (the platform's POLLIN / POLLOUT).
enum class Ready : short { read, write };

/// Waits until `handle` is ready for `what` (or hung up / in error: the next read or write
/// says which), spinning first as `spin` decides, then sleeping in slices of at most
/// kStopPollSlice so stop_requested() is seen promptly. Readiness is checked before a stop
/// or timeout is reported, so a deadline in the past is one poll.
/// Returns {}, Errc::timeout, Errc::interrupted or Errc::io_error.
std::error_code wait_ready(NativeHandle handle, Ready what, Clock::time_point deadline, SpinPolicy& spin);

/// True if `handle` is ready for reading now (data, end of stream or an error pending).
bool readable_now(NativeHandle handle) noexcept;

}  // namespace cosim::wire::detail
