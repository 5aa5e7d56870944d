#include "cosim/platform/clock.hpp"

#include <windows.h>

namespace cosim::platform {

std::int64_t monotonic_ns() noexcept {
  // QueryPerformanceCounter is one system-wide clock: comparable across processes.
  static const std::int64_t ticks_per_s = [] {
    LARGE_INTEGER f{};
    QueryPerformanceFrequency(&f);
    return static_cast<std::int64_t>(f.QuadPart);
  }();
  LARGE_INTEGER now{};
  QueryPerformanceCounter(&now);
  const std::int64_t ticks = now.QuadPart;
  // Split to avoid overflowing ticks * 1e9 after about 10 days at 10 MHz.
  return ticks / ticks_per_s * 1'000'000'000 + ticks % ticks_per_s * 1'000'000'000 / ticks_per_s;
}

std::tm utc_calendar(std::time_t t) noexcept {
  std::tm tm{};
  gmtime_s(&tm, &t);
  return tm;
}

}  // namespace cosim::platform
