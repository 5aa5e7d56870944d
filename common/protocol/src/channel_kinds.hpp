#pragma once
// The rows of the channel table, one function per kind, each in src/channel_kind_<name>.cpp
// (private to cosim::protocol).

#include <string>

#include "cosim/protocol/channel_spec.hpp"

namespace cosim::protocol::detail {

ChannelKind fifo_channel_kind();  // POSIX; on Windows an unavailable row
ChannelKind mem_channel_kind();
ChannelKind pipe_channel_kind();  // Windows; elsewhere an unavailable row
ChannelKind shm_channel_kind();   // Linux; on Windows an unavailable row
ChannelKind tcp_channel_kind();

/// The usages of the available kinds: "fifo:DIR or mem:NAME"; without mem: if
/// `between_processes_only`.
std::string openable_forms(bool between_processes_only);

/// A row for a kind this build cannot open; `unavailable` completes "--channel pipe:NAME ...".
constexpr ChannelKind unavailable_channel_kind(std::string_view name, std::string_view usage,
                                               std::string_view help, std::string_view unavailable) {
  return {name, usage, help, unavailable, nullptr, nullptr, nullptr, nullptr};
}

}  // namespace cosim::protocol::detail
