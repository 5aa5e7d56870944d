#include "cosim/visual/vtk/display.hpp"

#include <X11/Xlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/video_encoder.hpp"

namespace cosim::visual {

namespace {

std::function<void()> g_lost_handler;

int x_io_error(Display*) {
  if (g_lost_handler) {
    auto handler = std::exchange(g_lost_handler, nullptr);
    handler();
  }
  return 0;  // Xlib exits after this
}

}  // namespace

bool running_under_own_xvfb() {
  const char* flag = std::getenv(kUnderXvfbEnv);
  return flag != nullptr && std::strcmp(flag, "1") == 0;
}

void ensure_x_display(int argc, char** argv, int width, int height) {
  const char* display = std::getenv("DISPLAY");
  if (display != nullptr && *display != '\0') {
    Display* connection = XOpenDisplay(nullptr);
    if (connection == nullptr) {
      throw util::BadInputError(std::string("cannot open the X display '") + display +
                                "' (DISPLAY); unset DISPLAY to render under xvfb-run, or start that X server");
    }
    XCloseDisplay(connection);
    return;
  }
  if (running_under_own_xvfb()) throw util::BadInputError("xvfb-run did not set DISPLAY");
  const auto xvfb_run = find_on_path("xvfb-run");
  if (!xvfb_run) {
    throw util::BadInputError("no X display (DISPLAY is unset) and xvfb-run is not on PATH: install the xvfb package "
                              "or set DISPLAY");
  }
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw util::BadInputError(std::string("cannot find this program's path: ") + std::strerror(errno));
  self[n] = '\0';
  const std::string screen = "-screen 0 " + std::to_string(std::max(width, 1280)) + "x" +
                             std::to_string(std::max(height, 1024)) + "x24 -nolisten tcp";
  std::vector<std::string> args{xvfb_run->string(), "-a", "-s", screen, self};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> exec_argv;
  for (auto& a : args) exec_argv.push_back(a.data());
  exec_argv.push_back(nullptr);
  ::setenv(kUnderXvfbEnv, "1", 1);
  ::execv(xvfb_run->c_str(), exec_argv.data());
  throw util::BadInputError("cannot run " + xvfb_run->string() + ": " + std::strerror(errno));
}

void on_x_connection_lost(std::function<void()> handler) {
  g_lost_handler = std::move(handler);
  XSetIOErrorHandler(&x_io_error);
}

}  // namespace cosim::visual
