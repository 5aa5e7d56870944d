#pragma once
/// \file
/// In-process channels: an anonymous connected pair for unit tests, and named channels
/// ("mem:NAME") whose two ends are opened separately, like a FIFO's, by two threads of one
/// process. Fault injection is a test-only decorator: cosim/wire/testing/faulty_channel.hpp.

#include <cosim/wire/channel.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace cosim::wire {

/// Bytes a named mem channel holds per direction, like a Linux pipe: a writer that gets
/// ahead of its reader by more than this blocks, so full-pipe cases are exercised in-process.
inline constexpr std::size_t kMemPipeCapacityBytes = 64 * 1024;

/// Returns two connected ends: bytes written on `first` are read on `second` and vice versa.
/// Fully thread-safe (mutex + condition_variable). Writes never block (unbounded buffer) and
/// reads are all-or-nothing (a timeout consumes nothing), so one thread can play both sides.
/// Blocking reads honour the timeout and poll stop_requested() every <= 100 ms. close() on
/// one end makes the other end's reads return Errc::peer_closed once the buffered bytes are
/// consumed, and its writes return Errc::peer_closed at once. describe() is "mem:".
std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> make_mem_channel_pair();

/// Dynamics end of the in-process channel "mem:NAME": registers NAME and waits up to
/// open_timeout (polling stop_requested() every <= 100 ms) for connect_mem_channel(NAME).
/// Each direction holds kMemPipeCapacityBytes: writes block (with their timeout) while it
/// is full, and reads longer than it are filled piecewise, as on a pipe. NAME is free again
/// once both ends are closed or destroyed, or when this call fails.
/// Throws ChannelSetupError: bad_input for an empty NAME or one whose previous pair still
/// has an open end; timeout; interrupted.
std::unique_ptr<Channel> listen_mem_channel(const std::string& name,
                                            std::chrono::milliseconds open_timeout);

/// Visual end of "mem:NAME": waits up to open_timeout (polling stop_requested()) for a
/// listen_mem_channel(NAME) that no other visual end has joined yet, and joins it.
/// Throws ChannelSetupError: bad_input (empty NAME), timeout, interrupted.
std::unique_ptr<Channel> connect_mem_channel(const std::string& name,
                                             std::chrono::milliseconds open_timeout);

}  // namespace cosim::wire
