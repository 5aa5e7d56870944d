#include "cosim/platform/console.hpp"

#include <signal.h>
#include <unistd.h>

namespace cosim::platform {
namespace {

void (*g_on_interrupt)() noexcept = nullptr;

extern "C" void on_signal(int) { g_on_interrupt(); }

}  // namespace

bool stderr_is_terminal() noexcept { return ::isatty(STDERR_FILENO) == 1; }
bool stdin_is_terminal() noexcept { return ::isatty(STDIN_FILENO) == 1; }

void install_interrupt_handler(void (*on_interrupt)() noexcept) {
  g_on_interrupt = on_interrupt;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking waits see EINTR and re-check the stop flag
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a vanished peer is EPIPE, reported as peer_closed
  // Past a file size limit a write fails with EFBIG (reported, files cut to whole records)
  // instead of killing the process.
  ::signal(SIGXFSZ, SIG_IGN);
}

bool signal_stop_event(unsigned long) noexcept { return false; }

void exit_now(int code) noexcept { ::_exit(code); }

std::vector<std::string> utf8_arguments(int argc, char** argv) { return {argv, argv + argc}; }

}  // namespace cosim::platform
