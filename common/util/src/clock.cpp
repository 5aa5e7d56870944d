#include "cosim/util/clock.hpp"

#include <ctime>

#include "cosim/platform/clock.hpp"

namespace cosim::util {

std::int64_t steady_ns() noexcept { return platform::monotonic_ns(); }

namespace {
std::string format_utc(const char* format) {
  const std::tm tm = platform::utc_calendar(std::time(nullptr));
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}
}  // namespace

std::string utc_compact_timestamp() { return format_utc("%Y%m%dT%H%M%SZ"); }
std::string utc_iso8601() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace cosim::util
