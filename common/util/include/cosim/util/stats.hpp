#pragma once

#include <cstddef>
#include <span>

namespace cosim::util {

/// Order statistics of one quantity over a run (run summary, benchmarks).
struct Summary {
  std::size_t count = 0;
  double p50 = 0, p99 = 0, max = 0, mean = 0;  // NaN when count == 0
};

/// Percentiles by linear interpolation between closest ranks. Sorts values in place.
Summary summarize(std::span<double> values);

}  // namespace cosim::util
