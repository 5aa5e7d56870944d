#include "body_style_overlay.hpp"

#include <vtkActor.h>
#include <vtkProperty.h>

namespace cosim::visual::detail {

BodyStyleOverlay::BodyStyleOverlay(const OverlayContext& context) {
  const int probe = context.pose.tracked_probe;
  if (probe < 0) return;
  const scene::SceneModel& scene = context.view.scene();
  const int frame = scene.probes()[static_cast<std::size_t>(probe)].frame;
  for (std::size_t i = 0; i < context.view.actors().size(); ++i) {
    if (scene.renders()[i].frame == frame) body_.push_back(context.view.actors()[i]);
  }
}

const char* BodyStyleOverlay::handle_key(char key) {
  if (key != 't') return nullptr;
  const BodyStyle next = style_ == BodyStyle::solid         ? BodyStyle::transparent
                         : style_ == BodyStyle::transparent ? BodyStyle::wireframe
                                                            : BodyStyle::solid;
  set_style(next);
  return next == BodyStyle::solid ? "body solid" : next == BodyStyle::transparent ? "body see-through" : "body wireframe";
}

void BodyStyleOverlay::set_style(BodyStyle style) {
  style_ = style;
  for (vtkActor* actor : body_) {
    actor->GetProperty()->SetOpacity(style == BodyStyle::transparent ? 0.3 : 1.0);
    if (style == BodyStyle::wireframe) {
      actor->GetProperty()->SetRepresentationToWireframe();
    } else {
      actor->GetProperty()->SetRepresentationToSurface();
    }
  }
}

}  // namespace cosim::visual::detail
