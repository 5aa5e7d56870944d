#pragma once
/// \file
/// Counts allocations for "does not allocate" tests (STYLE 4): a binary that links
/// cosim::test_allocation_probe has its global operator new replaced by a counting one.

#include <cstddef>

namespace cosim::test {

/// Counts operator new calls made by the current thread while alive (nested probes share
/// the outermost one's count).
class AllocationProbe {
 public:
  AllocationProbe();
  ~AllocationProbe();
  AllocationProbe(const AllocationProbe&) = delete;
  AllocationProbe& operator=(const AllocationProbe&) = delete;
  /// Allocations so far in this scope.
  std::size_t count() const;
  /// Largest single allocation so far in this scope [bytes].
  std::size_t largest() const;
};

}  // namespace cosim::test
