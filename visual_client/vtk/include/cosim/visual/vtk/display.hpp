#pragma once
/// \file
/// An X display for VTK (Debian's VTK 9.1 renders through X only, offscreen included).

#include <functional>

namespace cosim::visual {

/// Set in the environment of the process re-executed under xvfb-run.
inline constexpr const char* kUnderXvfbEnv = "COSIM_VISUAL_UNDER_XVFB";

/// True when this process was re-executed under xvfb-run by ensure_x_display().
bool running_under_own_xvfb();

/// Makes sure VTK can open an X display. With DISPLAY set, checks that the server answers
/// (throws util::BadInputError with one line if not). With DISPLAY unset, replaces this
/// process by `xvfb-run -a <this program> <same arguments>` (a screen of at least
/// width x height x 24) and does not return; throws util::BadInputError when xvfb-run is
/// not installed.
void ensure_x_display(int argc, char** argv, int width, int height);

/// Called (once) if the X server goes away under VTK, e.g. Xvfb stopped by the same Ctrl-C
/// as we were; Xlib ends the process when it returns. Lets main finish the video first.
void on_x_connection_lost(std::function<void()> handler);

}  // namespace cosim::visual
