// The channel kinds and default channel of a POSIX build: FIFOs (channel_kind_fifo.cpp);
// Windows named pipes are listed but refused.

#include <cstdlib>

#include "channel_kinds.hpp"
#include "cosim/platform/paths.hpp"

namespace cosim::protocol {

namespace detail {

ChannelKind pipe_channel_kind() {
  return unavailable_channel_kind("pipe", "pipe:NAME", "Windows named pipe \\\\.\\pipe\\NAME", "is Windows only");
}

}  // namespace detail

std::string default_channel_text() {
  const char* tmp = std::getenv("TMPDIR");
  return std::string("fifo:") + (tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cosim-" + platform::user_tag();
}

}  // namespace cosim::protocol
