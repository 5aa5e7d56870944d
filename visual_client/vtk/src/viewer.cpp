#include "cosim/visual/vtk/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCoordinate.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLight.h>
#include <vtkMath.h>
#include <vtkObjectFactory.h>
#include <vtkPNGWriter.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"

namespace cosim::visual {

namespace {

// Default view direction (from the target towards the camera): mostly from the robot's
// front (+x), a little from the right, 27 degrees above the floor (seed Fig. 11b).
const Eigen::Vector3d kViewDirection = Eigen::Vector3d(1.0, -0.45, 0.55).normalized();
constexpr double kViewAngleDeg = 30.0;
// The trail is drawn just above the floor plane z = 0 so it never fights with it.
constexpr double kTrailHeight_m = 0.002;

/// Trackball camera with `r` and `s` taken over; every other key as VTK does it.
class KeyStyle : public vtkInteractorStyleTrackballCamera {
 public:
  static KeyStyle* New();
  vtkTypeMacro(KeyStyle, vtkInteractorStyleTrackballCamera)
  std::function<void()> on_reset, on_screenshot;

  void OnChar() override {
    const char key = this->Interactor->GetKeyCode();
    if ((key == 'r' || key == 'R') && on_reset) {
      on_reset();
      this->Interactor->Render();
    } else if ((key == 's' || key == 'S') && on_screenshot) {
      on_screenshot();
    } else {
      vtkInteractorStyleTrackballCamera::OnChar();
    }
  }
};
vtkStandardNewMacro(KeyStyle)

void grow(double bounds[6], const double b[6]) {
  for (int i = 0; i < 3; ++i) {
    bounds[2 * i] = std::min(bounds[2 * i], b[2 * i]);
    bounds[2 * i + 1] = std::max(bounds[2 * i + 1], b[2 * i + 1]);
  }
}

}  // namespace

Viewer::Viewer(SceneView& view, const ViewerOptions& options)
    : view_(view), options_(options), width_(options.width), height_(options.height) {
  p_WP_.assign(view.scene().probes().size(), Eigen::Vector3d::Zero());
  if (options_.tracked_probe >= static_cast<int>(p_WP_.size())) options_.tracked_probe = -1;

  renderer_ = vtkSmartPointer<vtkRenderer>::New();
  renderer_->SetBackground(0.80, 0.85, 0.91);
  // One headlight: the cheapest lighting VTK has (llvmpipe shades every pixel on the CPU;
  // a second light cost 40% of the frame time). Actors get some ambient instead.
  auto head = vtkSmartPointer<vtkLight>::New();
  head->SetLightTypeToHeadlight();
  renderer_->AddLight(head);
  view_.add_to(*renderer_);

  window_ = vtkSmartPointer<vtkRenderWindow>::New();
  window_->SetMultiSamples(0);  // software GL under Xvfb: MSAA costs far more than it gives
  window_->SetSize(width_, height_);
  window_->SetOffScreenRendering(options_.offscreen ? 1 : 0);
  window_->SetWindowName(("cosim-visual - " + view.scene().name()).c_str());
  window_->AddRenderer(renderer_);

  if (options_.hud) {
    hud_ = vtkSmartPointer<vtkTextActor>::New();
    hud_->GetTextProperty()->SetFontFamilyToCourier();
    hud_->GetTextProperty()->SetFontSize(std::max(12, height_ / 45));
    hud_->GetTextProperty()->SetColor(0.05, 0.05, 0.1);
    hud_->GetTextProperty()->SetVerticalJustificationToTop();
    hud_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    hud_->GetPositionCoordinate()->SetValue(0.01, 0.98);
    hud_->SetInput(" ");
    renderer_->AddActor2D(hud_);
  }

  if (options_.trail_capacity > 1 && options_.tracked_probe >= 0) {
    // Preallocated: the trail grows one point and one segment per frame, never reallocates.
    trail_points_ = vtkSmartPointer<vtkPoints>::New();
    trail_points_->SetDataTypeToDouble();
    trail_points_->Allocate(static_cast<vtkIdType>(options_.trail_capacity));
    trail_lines_ = vtkSmartPointer<vtkCellArray>::New();
    trail_lines_->AllocateExact(static_cast<vtkIdType>(options_.trail_capacity),
                                static_cast<vtkIdType>(2 * options_.trail_capacity));
    trail_ = vtkSmartPointer<vtkPolyData>::New();
    trail_->SetPoints(trail_points_);
    trail_->SetLines(trail_lines_);
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(trail_);
    trail_actor_ = vtkSmartPointer<vtkActor>::New();
    trail_actor_->SetMapper(mapper);
    trail_actor_->GetProperty()->SetColor(0.80, 0.08, 0.24);  // crimson
    trail_actor_->GetProperty()->SetLineWidth(2.0);
    trail_actor_->GetProperty()->LightingOff();
    trail_actor_->PickableOff();
    renderer_->AddActor(trail_actor_);
  }

  pixels_ = vtkSmartPointer<vtkUnsignedCharArray>::New();
  pixels_->SetNumberOfComponents(4);
  pixels_->SetNumberOfTuples(static_cast<vtkIdType>(width_) * height_);
  grab_ = vtkSmartPointer<vtkWindowToImageFilter>::New();
  grab_->SetInput(window_);
  grab_->SetInputBufferTypeToRGB();
  // Offscreen: the framebuffer just drawn (back). A window: what it shows (front, VTK's own
  // default), as the back buffer is undefined after the swap.
  grab_->SetReadFrontBuffer(!options_.offscreen);
  grab_->ShouldRerenderOff();  // we grab what was just rendered, never render twice
  png_ = vtkSmartPointer<vtkPNGWriter>::New();
  png_->SetInputConnection(grab_->GetOutputPort());
}

Viewer::~Viewer() {
  if (interactor_) interactor_->SetRenderWindow(nullptr);
  // Release GL resources while the context still exists.
  if (window_) window_->Finalize();
}

bool Viewer::target_of_pose(double target[3]) const {
  if (options_.tracked_probe < 0) return false;
  const auto& p = p_WP_[static_cast<std::size_t>(options_.tracked_probe)];
  target[0] = p.x();
  target[1] = p.y();
  target[2] = p.z();
  return true;
}

void Viewer::reset_camera() {
  // Bounds of what the camera frames: the moving parts (all actors in overview, or when
  // nothing moves).
  double bounds[6] = {VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX, VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX, VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX};
  const auto actors = view_.actors();
  bool any = false;
  for (int pass = 0; pass < 2 && !any; ++pass) {
    for (std::size_t i = 0; i < actors.size(); ++i) {
      const bool wanted = pass == 1 || (options_.camera != CameraMode::overview && view_.actor_moves(i));
      if (!wanted || !actors[i]->GetVisibility()) continue;
      grow(bounds, actors[i]->GetBounds());
      any = true;
    }
  }
  if (!any) {
    renderer_->ResetCamera();
    return;
  }
  Eigen::Vector3d centre((bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2, (bounds[4] + bounds[5]) / 2);
  const double radius = 0.5 * Eigen::Vector3d(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]).norm();
  double target[3];
  if (options_.camera != CameraMode::overview && target_of_pose(target)) {
    // Look at the tracked probe's vertical, at the height of the parts' centre.
    centre.x() = target[0];
    centre.y() = target[1];
  }
  // Far enough for a sphere of `radius` to fit the narrower view angle, plus a margin.
  const double half_angle = vtkMath::RadiansFromDegrees(kViewAngleDeg / 2);
  const double aspect = static_cast<double>(width_) / height_;
  const double fit = std::min(half_angle, std::atan(std::tan(half_angle) * aspect));
  const double distance = (options_.camera == CameraMode::overview ? 1.0 : 1.8) * radius / std::sin(fit);
  const Eigen::Vector3d eye = centre + distance * kViewDirection;
  vtkCamera* camera = renderer_->GetActiveCamera();
  camera->SetViewAngle(kViewAngleDeg);
  camera->SetFocalPoint(centre.x(), centre.y(), centre.z());
  camera->SetPosition(eye.x(), eye.y(), eye.z());
  camera->SetViewUp(0, 0, 1);
  renderer_->ResetCameraClippingRange();
  if (options_.tracked_probe >= 0) last_target_ = p_WP_[static_cast<std::size_t>(options_.tracked_probe)];
}

void Viewer::show(std::span<const Eigen::Isometry3d> X_WF) {
  view_.update(X_WF);
  if (options_.tracked_probe >= 0) view_.probe_positions(p_WP_);
  if (!camera_set_) {
    reset_camera();
    camera_set_ = true;
  }
  update_tracking();
}

void Viewer::update_tracking() {
  if (options_.tracked_probe < 0) return;
  const Eigen::Vector3d& p = p_WP_[static_cast<std::size_t>(options_.tracked_probe)];
  if (options_.camera == CameraMode::follow) {
    // Translate the camera with the probe: the user's own rotation and zoom are kept.
    const Eigen::Vector3d d = p - last_target_;
    vtkCamera* camera = renderer_->GetActiveCamera();
    double f[3], e[3];
    camera->GetFocalPoint(f);
    camera->GetPosition(e);
    camera->SetFocalPoint(f[0] + d.x(), f[1] + d.y(), f[2] + d.z());
    camera->SetPosition(e[0] + d.x(), e[1] + d.y(), e[2] + d.z());
    renderer_->ResetCameraClippingRange();
    last_target_ = p;
  }
  if (trail_ && trail_count_ < options_.trail_capacity) {
    const vtkIdType id = trail_points_->InsertNextPoint(p.x(), p.y(), kTrailHeight_m);
    if (id > 0) {
      const vtkIdType segment[2] = {id - 1, id};
      trail_lines_->InsertNextCell(2, segment);
    }
    ++trail_count_;
    trail_points_->Modified();
    trail_lines_->Modified();
    trail_->Modified();
  }
}

void Viewer::set_hud_text(const char* text) {
  if (hud_) hud_->SetInput(text);
}

void Viewer::render() { window_->Render(); }
vtkRenderWindow* Viewer::window() const { return window_; }
vtkRenderer* Viewer::renderer() const { return renderer_; }

std::span<const std::uint8_t> Viewer::read_rgba() {
  // Same buffer as the PNG grab (see the constructor).
  window_->GetRGBACharPixelData(0, 0, width_ - 1, height_ - 1, options_.offscreen ? 0 : 1, pixels_, 0);
  return {pixels_->GetPointer(0), static_cast<std::size_t>(width_) * height_ * 4};
}

void Viewer::write_png(const std::filesystem::path& file) {
  VtkErrorCapture capture;
  grab_->Modified();  // the window changed since the last grab
  png_->SetFileName(file.c_str());
  png_->Write();
  if (capture.had_error() || png_->GetErrorCode() != 0) {
    throw util::BadInputError("cannot write " + file.string() + ": " +
                              (capture.had_error() ? capture.first_error() : std::string("write failed")));
  }
}

vtkRenderWindowInteractor* Viewer::make_interactor(std::function<void()> on_screenshot) {
  auto style = vtkSmartPointer<KeyStyle>::New();
  style->on_reset = [this] { reset_camera(); };
  style->on_screenshot = std::move(on_screenshot);
  interactor_ = vtkSmartPointer<vtkRenderWindowInteractor>::New();
  interactor_->SetRenderWindow(window_);
  interactor_->SetInteractorStyle(style);
  return interactor_;
}

}  // namespace cosim::visual
