#include "axes_overlay.hpp"

#include <vtkAxesActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCaptionActor2D.h>
#include <vtkCommand.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkTextProperty.h>

namespace cosim::visual::detail {

namespace {

// The top right corner [normalized viewport]: x0 y0 x1 y1.
constexpr double kTriadViewport[4] = {0.88, 0.76, 1.0, 1.0};

}  // namespace

AxesOverlay::AxesOverlay(const OverlayContext& context)
    : visible_(context.options.axes), main_(context.window.renderer()) {
  auto axes = vtkSmartPointer<vtkAxesActor>::New();
  axes->SetShaftTypeToCylinder();
  axes->SetCylinderRadius(0.03);
  axes->SetConeRadius(0.3);
  for (vtkCaptionActor2D* caption : {axes->GetXAxisCaptionActor2D(), axes->GetYAxisCaptionActor2D(),
                                     axes->GetZAxisCaptionActor2D()}) {
    caption->GetCaptionTextProperty()->SetFontSize(12);
    caption->GetCaptionTextProperty()->ShadowOff();
    caption->GetCaptionTextProperty()->ItalicOff();
    caption->GetCaptionTextProperty()->SetColor(0.1, 0.1, 0.1);
  }
  axes->PickableOff();
  triad_ = vtkSmartPointer<vtkRenderer>::New();
  triad_->SetViewport(kTriadViewport[0], kTriadViewport[1], kTriadViewport[2], kTriadViewport[3]);
  // Drawn after the main view into its corner: keeps the picture (colour), clears only depth.
  triad_->PreserveColorBufferOn();
  triad_->PreserveDepthBufferOff();
  triad_->InteractiveOff();
  triad_->AddActor(axes);
  triad_->SetDraw(visible_);
  // Before each render of the main view (also the interactor's).
  auto sync = vtkSmartPointer<vtkCallbackCommand>::New();
  sync->SetClientData(this);
  sync->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    static_cast<AxesOverlay*>(self)->sync_camera();
  });
  sync_tag_ = main_->AddObserver(vtkCommand::StartEvent, sync);
  context.window.window()->AddRenderer(triad_);
}

AxesOverlay::~AxesOverlay() { main_->RemoveObserver(sync_tag_); }

const char* AxesOverlay::handle_key(char key) {
  if (key != 'a') return nullptr;
  set_visible(!visible_);
  return visible_ ? "axes on" : "axes off";
}

void AxesOverlay::set_visible(bool on) {
  visible_ = on;
  triad_->SetDraw(on);
}

void AxesOverlay::sync_camera() {
  if (!visible_) return;
  vtkCamera* main = main_->GetActiveCamera();
  double direction[3], up[3];
  main->GetDirectionOfProjection(direction);
  main->GetViewUp(up);
  vtkCamera* camera = triad_->GetActiveCamera();
  camera->SetFocalPoint(0.5, 0.5, 0.5);  // the middle of the unit axes
  camera->SetPosition(0.5 - 4 * direction[0], 0.5 - 4 * direction[1], 0.5 - 4 * direction[2]);
  camera->SetViewUp(up);
  camera->SetViewAngle(30);
  triad_->ResetCameraClippingRange();
}

}  // namespace cosim::visual::detail
