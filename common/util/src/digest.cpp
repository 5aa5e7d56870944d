#include "cosim/util/digest.hpp"

namespace cosim::util {

std::uint64_t fnv1a_64(std::string_view text, std::uint64_t hash) {
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;  // the 64-bit FNV prime
  }
  return hash;
}

}  // namespace cosim::util
