#pragma once
// The pose a Viewer shows, as its camera and overlays read it. Internal to cosim::visual_vtk.

#include <cstdint>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/visual/vtk/scene_view.hpp"

namespace cosim::visual::detail {

/// The probes of the pose last shown: measured once per show() on the actors (SceneView),
/// then read by the camera and every overlay.
struct ShownPose {
  std::vector<Eigen::Vector3d> p_WP;  ///< every probe [m, world], SceneModel::probes() order; preallocated
  int tracked_probe = -1;             ///< the probe the follow camera, trail and inset use; -1 = none
  std::uint64_t count = 0;            ///< poses shown so far: 1 during the first show()

  bool shown() const { return count > 0; }
  bool first() const { return count == 1; }
  /// The tracked probe's position [m, world], or null without one.
  const Eigen::Vector3d* p_WT() const {
    return tracked_probe >= 0 ? &p_WP[static_cast<std::size_t>(tracked_probe)] : nullptr;
  }
};

/// Which actors scene_bounds() takes: those moving with a driven joint, the others (a floor,
/// walls), or all.
enum class SceneParts : std::uint8_t { moving = 1, fixed, all };

/// World bounds [m] x0 x1 y0 y1 z0 z1 of the visible actors of `parts`; false when there is none.
bool scene_bounds(const SceneView& view, double bounds[6], SceneParts parts);

/// The moving parts' bounds, or every actor's when nothing moves.
inline bool robot_bounds(const SceneView& view, double bounds[6]) {
  return scene_bounds(view, bounds, SceneParts::moving) || scene_bounds(view, bounds, SceneParts::all);
}

}  // namespace cosim::visual::detail
