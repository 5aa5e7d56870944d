#include "viewer_pose.hpp"

#include <algorithm>

#include <vtkType.h>

namespace cosim::visual::detail {

bool scene_bounds(const SceneView& view, double bounds[6], SceneParts parts) {
  for (int i = 0; i < 3; ++i) {
    bounds[2 * i] = VTK_DOUBLE_MAX;
    bounds[2 * i + 1] = -VTK_DOUBLE_MAX;
  }
  const auto actors = view.actors();
  bool any = false;
  for (std::size_t i = 0; i < actors.size(); ++i) {
    const bool wanted = parts == SceneParts::all || (parts == SceneParts::moving) == view.actor_moves(i);
    if (!wanted || !actors[i]->GetVisibility()) continue;
    const double* b = actors[i]->GetBounds();
    for (int k = 0; k < 3; ++k) {
      bounds[2 * k] = std::min(bounds[2 * k], b[2 * k]);
      bounds[2 * k + 1] = std::max(bounds[2 * k + 1], b[2 * k + 1]);
    }
    any = true;
  }
  return any;
}

}  // namespace cosim::visual::detail
