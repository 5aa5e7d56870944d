#pragma once
/// @file
/// A digest that names things (a cached copy, an exported model's token), not a secret.

#include <cstdint>
#include <string_view>

namespace cosim::util {

/// FNV-1a, 64 bits, of `text`, continuing from `hash` (kFnv1aBasis to start).
inline constexpr std::uint64_t kFnv1aBasis = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a_64(std::string_view text, std::uint64_t hash = kFnv1aBasis);

}  // namespace cosim::util
