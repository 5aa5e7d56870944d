#pragma once
// Lines on the floor every metre, and every quarter metre where they stay few (key g).

#include <vtkSmartPointer.h>

#include "overlay.hpp"

class vtkActor;

namespace cosim::visual::detail {

/// The floor grid: its lines are laid by the first pose shown, when the scene's extent is known.
class GridOverlay : public Overlay {
 public:
  explicit GridOverlay(const OverlayContext& context);
  void update(std::span<const Eigen::Isometry3d> X_WF) override;
  const char* handle_key(char key) override;

  void set_visible(bool on);
  bool visible() const { return visible_; }
  /// The metre lines (the inset draws them too).
  vtkActor* metre_lines() const { return metre_; }

 private:
  const SceneView& view_;
  const ShownPose& pose_;
  bool visible_;
  vtkSmartPointer<vtkActor> metre_;    // metre lines
  vtkSmartPointer<vtkActor> quarter_;  // quarter-metre lines
};

}  // namespace cosim::visual::detail
