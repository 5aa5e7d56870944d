#pragma once
// Shortest round-trip text of a double, for error messages (gcc 12 has no <format>).

#include <charconv>
#include <string>

namespace cosim::dynamics::detail {

inline std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace cosim::dynamics::detail
