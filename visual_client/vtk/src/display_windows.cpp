// Windows: VTK renders through WGL on the desktop (offscreen included); there is no X
// server to check or start. Not built or tested on this project's machines (docs/windows.md).

#include "cosim/visual/vtk/display.hpp"

namespace cosim::visual {

bool ensure_x_display(int, int) { return false; }

void on_x_connection_lost(std::function<void()>) {}

}  // namespace cosim::visual
