// The channel kinds and default channel of a Windows build: named pipes
// (channel_kind_pipe.cpp); POSIX FIFOs are listed but refused.

#include "channel_kinds.hpp"
#include "cosim/platform/paths.hpp"

namespace cosim::protocol {

namespace detail {

ChannelKind fifo_channel_kind() {
  return unavailable_channel_kind("fifo", "fifo:DIR", "two POSIX FIFOs in DIR", "is POSIX only (Linux, macOS)");
}

ChannelKind shm_channel_kind() {
  return unavailable_channel_kind("shm", "shm:NAME", "shared memory (Boost.Interprocess)", "is POSIX only for now");
}

}  // namespace detail

std::string default_channel_text() { return "pipe:cosim-" + platform::user_tag(); }

}  // namespace cosim::protocol
