#include <cstdlib>
#include <random>
#include <string>

#include "private_channel.hpp"
#include "cosim/platform/paths.hpp"

namespace cosim::launcher {

PrivateChannel make_private_channel() {
  // A fresh name under TMPDIR that cosim-dynamics creates (mode 0700) and removes with its
  // FIFOs when it ends, also when the launcher was killed and stopped it (stop_with_parent):
  // nothing is left behind. 128 random bits: a folder someone else made under that name
  // first would not be ours, and cosim-dynamics refuses it.
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::random_device entropy;
  constexpr char kHex[] = "0123456789abcdef";
  std::string random;
  for (int i = 0; i < 32; ++i) random += kHex[entropy() % 16];
  const auto dir = base / ("cosim-fifo." + random);
  return {.spec = "fifo:" + platform::utf8(dir), .folder_to_remove = dir};
}

}  // namespace cosim::launcher
