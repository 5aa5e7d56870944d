#pragma once
// What a Viewer draws besides the scene's actors, one class each: the shape every overlay
// has, and what it is built from. Internal to cosim::visual_vtk; the overlays are listed in
// overlays.cpp (docs/extending.md, "A viewer overlay").

#include <span>

#include <Eigen/Geometry>

#include "cosim/visual/vtk/scene_view.hpp"
#include "cosim/visual/vtk/viewer.hpp"
#include "../viewer_pose.hpp"
#include "../viewer_window.hpp"

namespace cosim::visual::detail {

/// What an overlay is built from: the scene's actors, the viewer's options (tracked_probe
/// checked), the window to draw in and the pose shown, which it may read at any time.
struct OverlayContext {
  SceneView& view;
  const ViewerOptions& options;
  ViewerWindow& window;
  const ShownPose& pose;
};

/// One overlay: its constructor creates its actors on the window's renderers (or its own
/// renderer in a corner of the window), once; update() follows every pose shown without
/// allocating; handle_key() toggles it (and a setter of its own, which the Viewer forwards).
/// Both do nothing unless overridden.
class Overlay {
 public:
  Overlay() = default;
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;
  virtual ~Overlay() = default;

  /// Follows the pose just shown: X_WF as given to Viewer::show(), the probes in ShownPose
  /// (ShownPose::first() on the first pose, when the scene's extent becomes known).
  virtual void update(std::span<const Eigen::Isometry3d> /*X_WF*/) {}
  /// Handles a key of its own: what it did (for the log), or null for a key not its own.
  virtual const char* handle_key(char /*key*/) { return nullptr; }
};

}  // namespace cosim::visual::detail
