#pragma once
/// \file
/// In-process channel pair for unit tests, with fault injection (fail, truncate, corrupt
/// the Nth operation), in the spirit of Boost.Beast's test::stream fail_count.

#include <cosim/wire/channel.hpp>

#include <memory>
#include <utility>

namespace cosim::wire {

/// Faults one end injects into its own operations. Indices are 1-based counts of calls
/// on that end; 0 disables the fault.
struct FaultPlan {
  /// That write_all call fails with Errc::injected_fault and writes nothing.
  int fail_on_write = 0;
  /// That read_exact call fails with Errc::injected_fault and reads nothing.
  int fail_on_read = 0;
  /// That write_all call delivers only its first half (rounded down), returns
  /// Errc::injected_fault and closes this end: the peer reads the half, then peer_closed.
  int truncate_on_write = 0;
  /// That write_all call succeeds but flips every bit of its first byte (a frame's magic):
  /// the reader then gets Errc::bad_magic.
  int corrupt_on_write = 0;
};

/// Returns two connected ends: bytes written on `first` are read on `second` and vice versa.
/// Fully thread-safe (mutex + condition_variable). Writes never block (unbounded buffer).
/// Blocking reads honour the timeout and poll stop_requested() every <= 100 ms. close() on
/// one end makes the other end's reads return Errc::peer_closed once the buffered bytes are
/// consumed, and its writes return Errc::peer_closed at once. describe() is "mem:".
std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> make_mem_channel_pair(
    FaultPlan a_plan = {}, FaultPlan b_plan = {});

}  // namespace cosim::wire
