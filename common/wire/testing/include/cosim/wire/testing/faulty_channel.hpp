#pragma once
/// \file
/// Test-only fault injection over any Channel (fail, truncate or corrupt the Nth operation),
/// in the spirit of Boost.Beast's test::stream fail_count. Lives in cosim::wire_testing,
/// which no production target links.

#include <cosim/wire/channel.hpp>

#include <memory>

namespace cosim::wire::testing {

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

/// Wraps `inner` so that its operations fail as `plan` says; everything else is forwarded
/// (describe() included). Adds no locking: the inner channel's thread safety applies, and a
/// truncating write closes the inner channel from the writing thread. No allocation per call.
std::unique_ptr<Channel> with_faults(std::unique_ptr<Channel> inner, FaultPlan plan);

}  // namespace cosim::wire::testing
