#pragma once
/// \file
/// Text from outside (a peer's strings, file contents): trimmed, or made safe to print on one line.

#include <cstddef>
#include <string>
#include <string_view>

namespace cosim::util {

/// Longest event-log or stderr line we print [characters]; a cut line says how much is left out.
inline constexpr std::size_t kMaxEventChars = 4000;
/// Longest string from a peer we repeat [characters].
inline constexpr std::size_t kMaxPeerChars = 1000;

/// `text` as one printable line of at most max_chars characters (+ a "... (N more bytes)"
/// note): control characters (newlines, NUL, escape) and bytes that are not valid UTF-8 are
/// written as \n, \t, \xNN; valid UTF-8 passes unchanged.
std::string printable(std::string_view text, std::size_t max_chars = kMaxPeerChars);

/// ASCII white space: what std::isspace takes in the C locale, XML's white space among it.
inline constexpr std::string_view kAsciiSpace = " \t\n\v\f\r";

/// `text` without leading and trailing kAsciiSpace.
std::string_view trim(std::string_view text);

}  // namespace cosim::util
