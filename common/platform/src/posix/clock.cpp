#include "cosim/platform/clock.hpp"

#include <time.h>

namespace cosim::platform {

std::int64_t monotonic_ns() noexcept {
  // CLOCK_MONOTONIC by name: the cross-process comparison of sent_ns / received_ns relies on
  // both processes reading the same clock (std::chrono::steady_clock is it on Linux, too).
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::tm utc_calendar(std::time_t t) noexcept {
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

}  // namespace cosim::platform
