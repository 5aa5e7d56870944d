#include "cosim/protocol/signals.hpp"

#include <csignal>
#include <unistd.h>

#include "cosim/wire/fifo_channel.hpp"
#include "cosim/wire/interrupt.hpp"

namespace cosim::protocol {

namespace {
volatile std::sig_atomic_t g_signals_seen = 0;

extern "C" void on_stop_signal(int) {
  const bool again = g_signals_seen != 0;
  g_signals_seen = 1;
  if (again) {
    // The user insists: no more clean-up than what is async-signal-safe.
    wire::unlink_registered_paths_from_signal_handler();
    _exit(130);
  }
  wire::request_stop();
}
}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking waits see EINTR and re-check the stop flag
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace cosim::protocol
