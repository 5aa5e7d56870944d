#pragma once
// The body the tracked probe sits on drawn solid, see-through or as a wireframe (key t), to
// see the wheels through it.

#include <vector>

#include "overlay.hpp"

class vtkActor;

namespace cosim::visual::detail {

/// The BodyStyle of the actors on the tracked probe's frame (none without a tracked probe).
class BodyStyleOverlay : public Overlay {
 public:
  explicit BodyStyleOverlay(const OverlayContext& context);
  /// t cycles solid, see-through, wireframe.
  const char* handle_key(char key) override;

  void set_style(BodyStyle style);
  BodyStyle style() const { return style_; }

 private:
  std::vector<vtkActor*> body_;  // the scene's actors on the tracked probe's frame
  BodyStyle style_ = BodyStyle::solid;
};

}  // namespace cosim::visual::detail
