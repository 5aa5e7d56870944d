#pragma once
/// \file
/// Text from outside (a peer's strings, file contents): trimmed, or made safe to print on one line.

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace cosim::util {

/// Longest event-log or stderr line we print [characters]; a cut line says how much is left out.
inline constexpr std::size_t kMaxEventChars = 4000;
/// Longest string from a peer we repeat [characters].
inline constexpr std::size_t kMaxPeerChars = 1000;

/// `text` as one printable line of at most max_chars characters (+ a "... (N more bytes)"
/// note): control characters (newlines, NUL, escape) and bytes that are not valid UTF-8 are
/// written as \n, \t, \xNN; valid UTF-8 passes unchanged.
std::string printable(std::string_view text, std::size_t max_chars = kMaxPeerChars);

/// `items` separated by `separator` ("a, b, c"); "" for none.
std::string join(std::span<const std::string> items, std::string_view separator = ", ");

/// printf-style numbers in a string (at most 255 characters): format("%.3g m", 0.01234).
/// Doubles only, so that every conversion (%g, %f, %.0f) reads what it is given: cast counts.
template <class... Double>
std::string format(const char* printf_format, Double... values) {
  static_assert((std::is_same_v<Double, double> && ...), "util::format takes doubles: cast counts to double");
  char buf[256];
  std::snprintf(buf, sizeof buf, printf_format, values...);
  return buf;
}

/// Length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 if it is not one
/// (overlong forms, surrogates and values past U+10FFFF are not).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

/// ASCII white space: what std::isspace takes in the C locale, XML's white space among it.
inline constexpr std::string_view kAsciiSpace = " \t\n\v\f\r";

/// `text` without leading and trailing kAsciiSpace.
std::string_view trim(std::string_view text);

}  // namespace cosim::util
