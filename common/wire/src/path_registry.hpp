#pragma once
// Paths created by channels (FifoChannel::listen()), kept where a fatal-signal handler can unlink
// them without allocating or locking.

namespace cosim::wire::detail {

/// Registers a path; returns its slot, or -1 if the table is full or the path too long.
int register_path(const char* path, bool is_directory) noexcept;

/// Forgets a slot returned by register_path() (-1 is ignored).
void unregister_path(int slot) noexcept;

}  // namespace cosim::wire::detail
