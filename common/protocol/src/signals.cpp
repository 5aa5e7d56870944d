#include "cosim/protocol/signals.hpp"

#include <csignal>
#include <time.h>
#include <unistd.h>

#include "cosim/wire/fifo_channel.hpp"
#include "cosim/wire/interrupt.hpp"

namespace cosim::protocol {

namespace {
volatile std::sig_atomic_t g_signals_seen = 0;
volatile std::sig_atomic_t g_first_signal_s = 0;  // CLOCK_MONOTONIC seconds of the first

/// A second signal soon after the first is the same stop arriving twice (a terminal's SIGINT
/// to the whole process group, then the launch script's SIGTERM): the clean shutdown goes on.
/// A user who insists - a signal 2 s or more after the first, or a third one - ends it at once.
constexpr long kInsistAfter_s = 2;

long monotonic_s() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<long>(now.tv_sec);
}

extern "C" void on_stop_signal(int) {
  const int seen = g_signals_seen;
  g_signals_seen = seen + 1;
  if (seen == 0) {
    g_first_signal_s = static_cast<std::sig_atomic_t>(monotonic_s());
    wire::request_stop();
    return;
  }
  if (seen >= 2 || monotonic_s() - g_first_signal_s >= kInsistAfter_s) {
    // The user insists: no more clean-up than what is async-signal-safe.
    wire::unlink_registered_paths_from_signal_handler();
    _exit(130);
  }
}
}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking waits see EINTR and re-check the stop flag
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // Past a file size limit a write fails with EFBIG (reported, files cut to whole records)
  // instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace cosim::protocol
