#pragma once
// A top view of the robot and its whole path in a corner, picture in picture (key o).

#include <vtkMatrix4x4.h>
#include <vtkSmartPointer.h>

#include "grid_overlay.hpp"
#include "overlay.hpp"
#include "trail_overlay.hpp"

class vtkActor;
class vtkRenderer;

namespace cosim::visual::detail {

/// Where the inset is: the bottom right corner, a third of the width [normalized viewport]:
/// x0 y0 x1 y1 (the replay's time slider stops left of it).
inline constexpr double kInsetViewport[4] = {0.67, 0.0, 1.0, 0.36};

/// The floor, walls, metre lines and trail seen from straight above in a renderer of its own,
/// with a disc and heading for the robot; framed anew whenever the robot or the path leaves it.
class InsetOverlay : public Overlay {
 public:
  InsetOverlay(const OverlayContext& context, const GridOverlay& grid, const TrailOverlay& trail);
  void update(std::span<const Eigen::Isometry3d> X_WF) override;
  const char* handle_key(char key) override;

  void set_visible(bool on);
  bool visible() const { return visible_; }
  /// Its renderer; null while hidden.
  vtkRenderer* renderer() const;
  /// Frames the robot and the whole trail again (after the trail was reset), when shown.
  void reframe();

 private:
  /// Frames the robot and the trail when they left the view, or always when `force`.
  void frame(bool force);
  const SceneView& view_;
  const ShownPose& pose_;
  const TrailOverlay& trail_;
  bool visible_;
  double aspect_;  // width over height of the inset
  vtkSmartPointer<vtkRenderer> inset_;
  vtkSmartPointer<vtkActor> marker_;  // the robot: disc and heading
  vtkSmartPointer<vtkMatrix4x4> marker_pose_ = vtkSmartPointer<vtkMatrix4x4>::New();
  double bounds_[4] = {0, 0, 0, 0};  // x0 x1 y0 y1 [m] the inset frames now
  double robot_half_width_m_ = 0;    // of the moving parts at the first pose shown
};

}  // namespace cosim::visual::detail
