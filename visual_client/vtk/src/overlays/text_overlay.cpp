#include "text_overlay.hpp"

#include <vtkCoordinate.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

namespace cosim::visual::detail {

TextOverlay::TextOverlay(const OverlayContext& context, Corner corner, int size_px, bool visible) {
  text_ = vtkSmartPointer<vtkTextActor>::New();
  text_->GetTextProperty()->SetFontFamilyToCourier();
  text_->GetTextProperty()->SetFontSize(size_px);
  text_->GetTextProperty()->SetColor(0.05, 0.05, 0.1);
  text_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  if (corner == Corner::top_left) {
    text_->GetTextProperty()->SetVerticalJustificationToTop();
    text_->GetPositionCoordinate()->SetValue(0.01, 0.98);
  } else {
    text_->GetPositionCoordinate()->SetValue(0.01, 0.01);
  }
  text_->SetInput(" ");
  text_->SetVisibility(visible);
  context.window.renderer()->AddActor2D(text_);
}

void TextOverlay::set_text(const char* text) { text_->SetInput(text); }

void TextOverlay::set_visible(bool on) { text_->SetVisibility(on); }

}  // namespace cosim::visual::detail
