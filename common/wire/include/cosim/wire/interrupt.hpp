#pragma once
/// \file
/// Process-wide stop flag. A SIGINT/SIGTERM handler calls request_stop(); blocking
/// channel operations poll stop_requested() at least every 100 ms and return
/// Errc::interrupted, and channel setup throws ChannelSetupError(Kind::interrupted).
/// Also the last-resort clean-up a fatal-signal handler may call, for every channel kind.

namespace cosim::wire {

/// True once request_stop() has been called (and reset_stop() not called since).
bool stop_requested() noexcept;

/// Async-signal-safe: sets a lock-free flag, nothing else.
void request_stop() noexcept;

/// Clears the flag (tests, or a program that starts a new session after an interrupt).
void reset_stop() noexcept;

/// Unlinks every file / directory that a live channel created in the file system (today the
/// FIFOs and folder of FifoChannel::listen()). Async-signal-safe (fixed array of path
/// buffers, unlink/rmdir only): call it from a fatal-signal handler before re-raising. At
/// most 32 paths of up to 4095 bytes are tracked; longer ones are not.
void unlink_registered_paths_from_signal_handler() noexcept;

}  // namespace cosim::wire
