#pragma once

#include <cstdint>
#include <string>

namespace cosim::util {

/// Steady (monotonic) clock in nanoseconds; comparable across processes on one host (platform::monotonic_ns).
std::int64_t steady_ns() noexcept;
/// UTC now as "20261122T143000Z" (for run folder names) or ISO 8601 "2026-11-22T14:30:00Z".
std::string utc_compact_timestamp();
std::string utc_iso8601();

}  // namespace cosim::util
