#pragma once
/// \file
/// Process-wide stop flag. A SIGINT/SIGTERM handler calls request_stop(); blocking
/// channel operations poll stop_requested() at least every 100 ms and return
/// Errc::interrupted, and channel setup throws ChannelSetupError(Kind::interrupted).

namespace cosim::wire {

/// True once request_stop() has been called (and reset_stop() not called since).
bool stop_requested() noexcept;

/// Async-signal-safe: sets a lock-free flag, nothing else.
void request_stop() noexcept;

/// Clears the flag (tests, or a program that starts a new session after an interrupt).
void reset_stop() noexcept;

}  // namespace cosim::wire
