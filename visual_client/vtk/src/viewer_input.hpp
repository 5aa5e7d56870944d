#pragma once
// A Viewer's input: its keys, the interactor that delivers them, and the replay's time
// slider. Internal to cosim::visual_vtk.

#include <functional>

#include <vtkSmartPointer.h>

#include "overlays/overlays.hpp"
#include "viewer_window.hpp"

class vtkRenderWindowInteractor;
class vtkSliderWidget;

namespace cosim::visual::detail {

/// Turns keys into calls on the camera (ViewerWindow) and the overlays (ViewerOverlays).
class ViewerInput {
 public:
  ViewerInput(ViewerWindow& window, ViewerOverlays& overlays);
  ViewerInput(const ViewerInput&) = delete;
  ViewerInput& operator=(const ViewerInput&) = delete;

  /// Viewer::handle_key(): the camera's keys, then each overlay's.
  const char* handle_key(char key);
  /// Viewer::key_help().
  static const char* key_help();
  /// Viewer::make_interactor().
  vtkRenderWindowInteractor* make_interactor(std::function<bool(char)> on_key);
  /// Viewer::add_time_slider(), Viewer::set_slider_time().
  void add_time_slider(double t0_s, double t1_s, std::function<void(double)> on_seek);
  void set_slider_time(double t_s);
  /// The interactor lets go of the window (before the window is finalized).
  void detach();

 private:
  ViewerWindow& window_;
  ViewerOverlays& overlays_;
  vtkSmartPointer<vtkRenderWindowInteractor> interactor_;
  vtkSmartPointer<vtkSliderWidget> slider_;
  std::function<void(double)> on_seek_;
  bool slider_dragged_ = false;
};

}  // namespace cosim::visual::detail
