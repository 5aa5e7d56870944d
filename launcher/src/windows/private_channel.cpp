#include <random>

#include "cosim/protocol/channel_spec.hpp"
#include "private_channel.hpp"

namespace cosim::launcher {

PrivateChannel make_private_channel() {
  // The user's default pipe name with a random suffix, so two launches never meet; a named
  // pipe is gone with the processes that opened it: nothing to remove.
  std::random_device entropy;
  constexpr char kHex[] = "0123456789abcdef";
  std::string random;
  for (int i = 0; i < 12; ++i) random += kHex[entropy() % 16];
  return {.spec = protocol::default_channel_text() + "-" + random, .folder_to_remove = {}};
}

}  // namespace cosim::launcher
