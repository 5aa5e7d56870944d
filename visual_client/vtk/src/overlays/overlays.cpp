#include "overlays.hpp"

#include <algorithm>

#include "probe_marks_overlay.hpp"

namespace cosim::visual::detail {

ViewerOverlays::ViewerOverlays(const OverlayContext& context) {
  const int height_px = context.window.height();
  grid = add<GridOverlay>(context);
  axes = add<AxesOverlay>(context);
  add<ProbeMarksOverlay>(context);
  if (context.options.hud) {
    hud = add<TextOverlay>(context, TextOverlay::Corner::top_left, std::max(12, height_px / 45), true);
  }
  help = add<TextOverlay>(context, TextOverlay::Corner::bottom_left, std::max(11, height_px / 55), false);
  trail = add<TrailOverlay>(context);
  inset = add<InsetOverlay>(context, *grid, *trail);  // after the trail: frames the point it just added
  contact = add<ContactOverlay>(context);
  body = add<BodyStyleOverlay>(context);
  // A new overlay: one line here, add<XOverlay>(context) (docs/extending.md, "A viewer overlay").
}

void ViewerOverlays::update(std::span<const Eigen::Isometry3d> X_WF) {
  for (const auto& overlay : list_) overlay->update(X_WF);
}

const char* ViewerOverlays::handle_key(char key) {
  for (const auto& overlay : list_) {
    if (const char* did = overlay->handle_key(key)) return did;
  }
  return nullptr;
}

}  // namespace cosim::visual::detail
