#pragma once
// A line or more of text in a corner of the window: the HUD (top left) and the key help
// (bottom left).

#include <cstdint>

#include <vtkSmartPointer.h>

#include "overlay.hpp"

class vtkTextActor;

namespace cosim::visual::detail {

/// Text in a corner of the main view, in Courier, its size a fraction of the window's height.
class TextOverlay : public Overlay {
 public:
  enum class Corner : std::uint8_t { top_left = 1, bottom_left };
  /// `size_px`: the font size [px]; `visible`: shown from the start.
  TextOverlay(const OverlayContext& context, Corner corner, int size_px, bool visible);

  void set_text(const char* text);
  void set_visible(bool on);

 private:
  vtkSmartPointer<vtkTextActor> text_;
};

}  // namespace cosim::visual::detail
