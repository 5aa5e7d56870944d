#include "cosim/util/clock.hpp"

#include <ctime>

namespace cosim::util {

std::int64_t steady_ns() noexcept {
  // CLOCK_MONOTONIC directly: std::chrono::steady_clock is the same clock on Linux, but
  // stating it makes the cross-process comparison of sent_ns/received_ns explicit.
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {
std::string format_utc(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}
}  // namespace

std::string utc_compact_timestamp() { return format_utc("%Y%m%dT%H%M%SZ"); }
std::string utc_iso8601() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace cosim::util
