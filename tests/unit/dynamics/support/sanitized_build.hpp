#pragma once
/// \file
/// Whether this test binary runs under AddressSanitizer (scripts/sanitize.sh). The slowest
/// numeric suites run a shorter horizon there: the same code paths (both trackers, the roller
/// switches, the tight tolerances) under the sanitizers, at a fifth of the 15–35× cost; the
/// full horizon, whose figures the bounds were set from, runs in Release (scripts/test.sh).

namespace cosim::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;  // gcc
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;  // clang
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace cosim::test
