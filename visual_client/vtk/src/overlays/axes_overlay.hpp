#pragma once
// The world axes as a triad in the top right corner, turned with the main camera (key a).

#include <vtkSmartPointer.h>

#include "overlay.hpp"

class vtkRenderer;

namespace cosim::visual::detail {

/// The world axes, drawn in a renderer of their own in a corner (drawn at the origin they
/// would stand inside the robot, which starts there).
class AxesOverlay : public Overlay {
 public:
  explicit AxesOverlay(const OverlayContext& context);
  ~AxesOverlay() override;
  const char* handle_key(char key) override;

  void set_visible(bool on);
  bool visible() const { return visible_; }

 private:
  /// The triad's camera takes the main camera's direction (before each render of the main view).
  void sync_camera();
  bool visible_;
  vtkRenderer* main_;            // the window's, which outlives the overlays
  unsigned long sync_tag_ = 0;  // of the observer calling sync_camera()
  vtkSmartPointer<vtkRenderer> triad_;
};

}  // namespace cosim::visual::detail
