#include "cosim/visual/vtk/display.hpp"

#include <X11/Xlib.h>

#include "cosim/platform/paths.hpp"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/video_encoder.hpp"

namespace cosim::visual {

namespace {

std::function<void()> g_lost_handler;
pid_t g_xvfb_pid = -1;

int x_io_error(Display*) {
  if (g_lost_handler) {
    auto handler = std::exchange(g_lost_handler, nullptr);
    handler();
  }
  return 0;  // Xlib exits after this
}

void stop_own_xvfb() {
  if (g_xvfb_pid <= 0) return;
  ::kill(g_xvfb_pid, SIGTERM);
  int status = 0;
  // Xvfb exits within milliseconds of SIGTERM; do not hang an exiting program on it.
  for (int i = 0; i < 200 && ::waitpid(g_xvfb_pid, &status, WNOHANG) == 0; ++i) ::usleep(10'000);
  if (::waitpid(g_xvfb_pid, &status, WNOHANG) == 0) {
    ::kill(g_xvfb_pid, SIGKILL);
    ::waitpid(g_xvfb_pid, &status, 0);
  }
  g_xvfb_pid = -1;
}

/// Starts Xvfb, which writes its display number to a pipe once it accepts connections
/// (-displayfd). Returns the display number.
int start_xvfb(const std::string& xvfb, int width, int height) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw util::BadInputError(std::string("cannot start Xvfb: ") + std::strerror(errno));
  const std::string screen = std::to_string(std::max(width, 1280)) + "x" + std::to_string(std::max(height, 1024)) + "x24";
  const std::string display_fd = std::to_string(fds[1]);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw util::BadInputError(std::string("cannot start Xvfb: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: its own process group (a terminal's Ctrl-C is for us), dies with us.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // we died before prctl took effect
    ::fcntl(fds[1], F_SETFD, 0);           // this end stays open across exec
    const int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::dup2(devnull, STDOUT_FILENO);
      ::dup2(devnull, STDERR_FILENO);
    }
    ::execl(xvfb.c_str(), xvfb.c_str(), "-displayfd", display_fd.c_str(), "-screen", "0", screen.c_str(),
            "-nolisten", "tcp", "-nolisten", "unix-abstract", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  g_xvfb_pid = pid;
  std::atexit(stop_own_xvfb);
  std::string number;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (number.empty() || number.back() != '\n') {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      if (errno == EINTR && left.count() > 0) continue;
      ::close(fds[0]);
      stop_own_xvfb();
      throw util::BadInputError("no X display (DISPLAY is unset) and " + xvfb + " did not start within 20 s");
    }
    char c = 0;
    const ssize_t n = ::read(fds[0], &c, 1);
    if (n <= 0) {
      ::close(fds[0]);
      stop_own_xvfb();
      throw util::BadInputError("no X display (DISPLAY is unset) and " + xvfb + " exited at start");
    }
    number += c;
  }
  ::close(fds[0]);
  return std::atoi(number.c_str());
}

}  // namespace

bool ensure_x_display(int width, int height) {
  const char* display = std::getenv("DISPLAY");
  if (display != nullptr && *display != '\0') {
    Display* connection = XOpenDisplay(nullptr);
    if (connection == nullptr) {
      throw util::BadInputError(std::string("cannot open the X display '") + display +
                                "' (DISPLAY); unset DISPLAY to render on a private Xvfb, or start that X server");
    }
    XCloseDisplay(connection);
    return false;
  }
  const auto xvfb = platform::find_program("Xvfb");
  if (!xvfb) {
    throw util::BadInputError("no X display (DISPLAY is unset) and Xvfb is not on PATH: install the xvfb package "
                              "or set DISPLAY");
  }
  const int number = start_xvfb(xvfb->string(), width, height);
  std::string name = std::to_string(number);
  name.insert(name.begin(), ':');  // not ":" + ...: GCC 12 warns wrongly on that (PR 105651)
  ::setenv("DISPLAY", name.c_str(), 1);
  return true;
}

void on_x_connection_lost(std::function<void()> handler) {
  g_lost_handler = std::move(handler);
  XSetIOErrorHandler(&x_io_error);
}

}  // namespace cosim::visual
