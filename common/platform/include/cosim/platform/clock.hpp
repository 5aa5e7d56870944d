#pragma once
/// \file
/// Clocks: a monotonic one shared by the processes of one host, and UTC calendar time.

#include <cstdint>
#include <ctime>

namespace cosim::platform {

/// Monotonic clock [ns], comparable across processes on one host (CLOCK_MONOTONIC on POSIX,
/// QueryPerformanceCounter on Windows). Async-signal-safe on POSIX.
std::int64_t monotonic_ns() noexcept;

/// `t` as UTC calendar time (thread-safe gmtime).
std::tm utc_calendar(std::time_t t) noexcept;

}  // namespace cosim::platform
