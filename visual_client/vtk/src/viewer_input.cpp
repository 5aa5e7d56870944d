#include "viewer_input.hpp"

#include <algorithm>
#include <utility>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkCoordinate.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkObjectFactory.h>
#include <vtkProperty2D.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkSliderRepresentation2D.h>
#include <vtkSliderWidget.h>
#include <vtkTextProperty.h>

namespace cosim::visual::detail {

namespace {

/// Trackball camera whose keys go to `on_key` first; every other key as VTK does it.
class KeyStyle : public vtkInteractorStyleTrackballCamera {
 public:
  static KeyStyle* New();
  vtkTypeMacro(KeyStyle, vtkInteractorStyleTrackballCamera)
  std::function<bool(char)> on_key;

  void OnChar() override {
    const char key = this->Interactor->GetKeyCode();
    if (on_key && on_key(key)) {
      this->Interactor->Render();
    } else {
      vtkInteractorStyleTrackballCamera::OnChar();
    }
  }
};
vtkStandardNewMacro(KeyStyle)

}  // namespace

ViewerInput::ViewerInput(ViewerWindow& window, ViewerOverlays& overlays) : window_(window), overlays_(overlays) {}

const char* ViewerInput::key_help() {
  return "mouse: left rotate, middle/shift pan, wheel zoom\n"
         "r reset camera   1 robot  2 follow  3 overview camera\n"
         "o top-view inset   g grid   a axes   p every probe / the compared ones   c part touching the floor   "
         "t body: solid / see-through / wireframe";
}

const char* ViewerInput::handle_key(char key) {
  switch (key) {
    case 'r':
    case 'R':
      window_.reset_camera();
      return "camera reset";
    case '1':
      window_.set_camera_mode(CameraMode::robot);
      return "camera robot";
    case '2':
      window_.set_camera_mode(CameraMode::follow);
      return "camera follow";
    case '3':
      window_.set_camera_mode(CameraMode::overview);
      return "camera overview";
    default:
      return overlays_.handle_key(key);
  }
}

vtkRenderWindowInteractor* ViewerInput::make_interactor(std::function<bool(char)> on_key) {
  auto style = vtkSmartPointer<KeyStyle>::New();
  style->on_key = [this, on_key = std::move(on_key)](char key) {
    if (on_key && on_key(key)) return true;
    return handle_key(key) != nullptr;
  };
  interactor_ = vtkSmartPointer<vtkRenderWindowInteractor>::New();
  interactor_->SetRenderWindow(window_.window());
  interactor_->SetInteractorStyle(style);
  return interactor_;
}

void ViewerInput::detach() {
  if (interactor_) interactor_->SetRenderWindow(nullptr);
}

void ViewerInput::add_time_slider(double t0_s, double t1_s, std::function<void(double)> on_seek) {
  auto rep = vtkSmartPointer<vtkSliderRepresentation2D>::New();
  rep->SetMinimumValue(t0_s);
  rep->SetMaximumValue(std::max(t1_s, t0_s + 1e-9));
  rep->SetValue(t0_s);
  rep->SetTitleText("t [s]");
  rep->SetLabelFormat("%.2f");
  // Along the bottom, left of the inset.
  rep->GetPoint1Coordinate()->SetCoordinateSystemToNormalizedDisplay();
  rep->GetPoint1Coordinate()->SetValue(0.05, 0.07);
  rep->GetPoint2Coordinate()->SetCoordinateSystemToNormalizedDisplay();
  rep->GetPoint2Coordinate()->SetValue(kInsetViewport[0] - 0.04, 0.07);
  rep->SetSliderLength(0.015);
  rep->SetSliderWidth(0.03);
  rep->SetTubeWidth(0.006);
  rep->SetEndCapLength(0.005);
  rep->SetTitleHeight(0.025);
  rep->SetLabelHeight(0.025);
  for (vtkTextProperty* text : {rep->GetTitleProperty(), rep->GetLabelProperty()}) {
    text->SetColor(0.05, 0.05, 0.1);
    text->ShadowOff();
    text->BoldOff();
  }
  rep->GetSliderProperty()->SetColor(0.80, 0.08, 0.24);
  rep->GetTubeProperty()->SetColor(0.3, 0.3, 0.35);
  rep->GetCapProperty()->SetColor(0.3, 0.3, 0.35);
  on_seek_ = std::move(on_seek);
  slider_ = vtkSmartPointer<vtkSliderWidget>::New();
  slider_->SetInteractor(interactor_);
  slider_->SetRepresentation(rep);
  slider_->SetAnimationModeToJump();
  auto on_event = vtkSmartPointer<vtkCallbackCommand>::New();
  on_event->SetClientData(this);
  on_event->SetCallback([](vtkObject* caller, unsigned long event, void* data, void*) {
    auto* self = static_cast<ViewerInput*>(data);
    if (event == vtkCommand::StartInteractionEvent) self->slider_dragged_ = true;
    if (event == vtkCommand::EndInteractionEvent) self->slider_dragged_ = false;
    const double t_s =
        static_cast<vtkSliderRepresentation*>(static_cast<vtkSliderWidget*>(caller)->GetRepresentation())->GetValue();
    if (self->on_seek_) self->on_seek_(t_s);
  });
  for (const auto event : {vtkCommand::StartInteractionEvent, vtkCommand::InteractionEvent,
                           vtkCommand::EndInteractionEvent}) {
    slider_->AddObserver(event, on_event);
  }
  slider_->EnabledOn();
}

void ViewerInput::set_slider_time(double t_s) {
  if (slider_ && !slider_dragged_) static_cast<vtkSliderRepresentation*>(slider_->GetRepresentation())->SetValue(t_s);
}

}  // namespace cosim::visual::detail
