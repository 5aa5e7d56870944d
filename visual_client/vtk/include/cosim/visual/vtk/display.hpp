#pragma once
/// \file
/// An X display for VTK (Debian's VTK 9.1 renders through X only, offscreen included);
/// display_x11.cpp on POSIX, display_windows.cpp (nothing to do) on Windows.

#include <functional>

namespace cosim::visual {

/// Makes sure VTK can open an X display. With DISPLAY set, checks that the server answers
/// (throws util::BadInputError with one line if not) and returns false. With DISPLAY unset,
/// starts a private Xvfb (a screen of at least width x height x 24, no TCP), points DISPLAY
/// at it and returns true; throws util::BadInputError when Xvfb is not installed or does not
/// start. The Xvfb is this process's: stopped at exit, and (Linux) killed by the kernel if
/// this process dies without exiting, so none outlives a run; it is in its own process group,
/// so a terminal's Ctrl-C reaches us, not it, and the video can be finished.
bool ensure_x_display(int width, int height);

/// Called (once) if the X server goes away under VTK; Xlib ends the process when it returns.
/// Lets main finish the video first.
void on_x_connection_lost(std::function<void()> handler);

}  // namespace cosim::visual
