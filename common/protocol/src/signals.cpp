#include "cosim/protocol/signals.hpp"

#include <atomic>
#include <cstdint>

#include "cosim/platform/clock.hpp"
#include "cosim/platform/console.hpp"
#include "cosim/wire/interrupt.hpp"

namespace cosim::protocol {

namespace {
// Written from a signal handler (POSIX) or a console-event thread (Windows): lock-free atomics.
std::atomic<int> g_interrupts_seen{0};
std::atomic<std::int64_t> g_first_interrupt_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free);

/// A second interrupt soon after the first is the same stop arriving twice (a terminal's
/// SIGINT to the whole process group, then the launcher's SIGTERM): the clean shutdown goes
/// on. A user who insists - an interrupt 2 s or more after the first, or a third one - ends it
/// at once.
constexpr std::int64_t kInsistAfter_ns = 2'000'000'000;

void on_interrupt() noexcept {
  const int seen = g_interrupts_seen.fetch_add(1);
  if (seen == 0) {
    g_first_interrupt_ns.store(platform::monotonic_ns());
    wire::request_stop();
    return;
  }
  if (seen >= 2 || platform::monotonic_ns() - g_first_interrupt_ns.load() >= kInsistAfter_ns) {
    // The user insists: no more clean-up than what is async-signal-safe.
    wire::unlink_registered_paths_from_signal_handler();
    platform::exit_now(130);
  }
}
}  // namespace

void install_stop_signal_handlers() { platform::install_interrupt_handler(on_interrupt); }

}  // namespace cosim::protocol
