#include "cosim/platform/console.hpp"

#include <signal.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cstdlib>
#include <string>

#include "cosim/platform/process.hpp"

namespace cosim::platform {
namespace {

void (*g_on_interrupt)() noexcept = nullptr;

extern "C" void on_signal(int) { g_on_interrupt(); }

/// A parent that started this process with ProcessOptions::stop_with_parent (the launcher)
/// named itself in the environment: its death, even by SIGKILL, is then a SIGTERM here, so
/// this side stops cleanly rather than running on alone. A parent already gone is the same.
void stop_with_parent_if_asked() {
  const char* text = std::getenv(kStopWithParentVariable);
  if (text == nullptr) return;
  const long parent = std::strtol(text, nullptr, 10);
  ::unsetenv(kStopWithParentVariable);  // for this process only, not for what it starts
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (parent > 0 && ::getppid() != static_cast<pid_t>(parent)) ::raise(SIGTERM);  // died before the prctl
#else
  (void)parent;
#endif
}

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
  stop_with_parent_if_asked();
}

bool signal_stop_event(unsigned long) noexcept { return false; }

void exit_now(int code) noexcept { ::_exit(code); }

std::vector<std::string> utf8_arguments(int argc, char** argv) { return {argv, argv + argc}; }

}  // namespace cosim::platform
