#pragma once
/// @file
/// Shortest round-trip text of a double, for error messages of every backend (gcc 12 has no
/// <format>).

#include <charconv>
#include <string>

namespace cosim::dynamics {

/// The shortest text that reads back as exactly `value` ("0.005", "1e-06", "inf").
inline std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace cosim::dynamics
