#include "cosim/util/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace cosim::util {

namespace {
double percentile_sorted(std::span<const double> sorted, double p) {
  const double rank = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (rank - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}
}  // namespace

Summary summarize(std::span<double> values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.p50 = s.p99 = s.max = s.mean = nan;
    return s;
  }
  std::sort(values.begin(), values.end());
  s.p50 = percentile_sorted(values, 0.50);
  s.p99 = percentile_sorted(values, 0.99);
  s.max = values.back();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return s;
}

}  // namespace cosim::util
