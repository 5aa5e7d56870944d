#pragma once
// Every overlay of a Viewer, in one list (overlays.cpp).

#include <memory>
#include <utility>
#include <vector>

#include "axes_overlay.hpp"
#include "body_style_overlay.hpp"
#include "contact_overlay.hpp"
#include "grid_overlay.hpp"
#include "inset_overlay.hpp"
#include "overlay.hpp"
#include "text_overlay.hpp"
#include "trail_overlay.hpp"

namespace cosim::visual::detail {

/// The overlays, built in the order the constructor lists them: the order they are added to
/// the renderers (later 2D actors lie over earlier ones), follow each pose and are asked for
/// a key.
class ViewerOverlays {
 public:
  explicit ViewerOverlays(const OverlayContext& context);

  /// Every overlay follows the pose just shown, in list order.
  void update(std::span<const Eigen::Isometry3d> X_WF);
  /// The first overlay's answer to `key`, or null when the key is none of theirs.
  const char* handle_key(char key);

  // The overlays the Viewer's own functions reach, owned by the list (hud is null without
  // ViewerOptions::hud).
  TextOverlay* hud = nullptr;
  TextOverlay* help = nullptr;  // the key help, shown on request
  GridOverlay* grid = nullptr;
  AxesOverlay* axes = nullptr;
  TrailOverlay* trail = nullptr;
  InsetOverlay* inset = nullptr;
  ContactOverlay* contact = nullptr;
  BodyStyleOverlay* body = nullptr;

 private:
  template <class T, class... Args>
  T* add(Args&&... args) {
    auto overlay = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = overlay.get();
    list_.push_back(std::move(overlay));
    return raw;
  }
  std::vector<std::unique_ptr<Overlay>> list_;
};

}  // namespace cosim::visual::detail
