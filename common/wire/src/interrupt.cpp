#include <cosim/wire/interrupt.hpp>

#include <atomic>

namespace cosim::wire {
namespace {

// Written from signal handlers: must be lock-free to be async-signal-safe.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

}  // namespace

bool stop_requested() noexcept { return g_stop.load(std::memory_order_relaxed); }
void request_stop() noexcept { g_stop.store(true, std::memory_order_relaxed); }
void reset_stop() noexcept { g_stop.store(false, std::memory_order_relaxed); }

}  // namespace cosim::wire
