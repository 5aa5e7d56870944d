#include "viewer_window.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <vtkCamera.h>
#include <vtkLight.h>
#include <vtkMath.h>
#include <vtkPNGWriter.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"

namespace cosim::visual {

const char* camera_mode_name(CameraMode mode) {
  switch (mode) {
    case CameraMode::robot: return "robot";
    case CameraMode::follow: return "follow";
    case CameraMode::overview: return "overview";
  }
  return "?";
}

namespace detail {

namespace {

// Default view direction (from the target towards the camera): from the robot's front (+x)
// and right, 22 degrees above the floor (seed Fig. 11b is 27 degrees, from the front; lower
// and more from the side, the wheel at -60 degrees is seen through its bumper opening).
const Eigen::Vector3d kViewDirection = Eigen::Vector3d(1.0, -0.7, 0.5).normalized();
constexpr double kViewAngleDeg = 30.0;
// Camera distance in radii of the moving parts' bounding sphere over the sine of the half view
// angle: 1 would fit the sphere exactly. The follow camera keeps the robot in the middle, so it
// comes close (the Robotino at 1280x720 spans about 400 px; it was 185 px at 1.8); the fixed
// robot camera leaves room for the robot to move (and two poses to share one view).
constexpr double kFollowDistanceFactor = 1.05;
constexpr double kRobotDistanceFactor = 1.6;

}  // namespace

ViewerWindow::ViewerWindow(SceneView& view, const ViewerOptions& options, const ShownPose& pose)
    : view_(view),
      pose_(pose),
      offscreen_(options.offscreen),
      width_(options.width),
      height_(options.height),
      camera_(options.camera) {
  renderer_ = vtkSmartPointer<vtkRenderer>::New();
  renderer_->SetBackground(0.80, 0.85, 0.91);
  // One headlight: the cheapest lighting VTK has (llvmpipe shades every pixel on the CPU;
  // a second light cost 40% of the frame time). Actors get some ambient instead.
  auto head = vtkSmartPointer<vtkLight>::New();
  head->SetLightTypeToHeadlight();
  renderer_->AddLight(head);
  view.add_to(*renderer_);

  window_ = vtkSmartPointer<vtkRenderWindow>::New();
  window_->SetMultiSamples(0);  // software GL under Xvfb: MSAA costs far more than it gives
  window_->SetSize(width_, height_);
  window_->SetOffScreenRendering(offscreen_ ? 1 : 0);
  window_->SetWindowName(("cosim-visual - " + view.scene().name()).c_str());
  window_->AddRenderer(renderer_);

  pixels_ = vtkSmartPointer<vtkUnsignedCharArray>::New();
  pixels_->SetNumberOfComponents(4);
  pixels_->SetNumberOfTuples(static_cast<vtkIdType>(width_) * height_);
  grab_ = vtkSmartPointer<vtkWindowToImageFilter>::New();
  grab_->SetInput(window_);
  grab_->SetInputBufferTypeToRGB();
  // Offscreen: the framebuffer just drawn (back). A window: what it shows (front, VTK's own
  // default), as the back buffer is undefined after the swap.
  grab_->SetReadFrontBuffer(!offscreen_);
  grab_->ShouldRerenderOff();  // we grab what was just rendered, never render twice
  png_ = vtkSmartPointer<vtkPNGWriter>::New();
  png_->SetInputConnection(grab_->GetOutputPort());
}

void ViewerWindow::finalize() {
  if (window_) window_->Finalize();
}

void ViewerWindow::set_camera_mode(CameraMode mode) {
  camera_ = mode;
  reset_camera();
}

void ViewerWindow::reset_camera() {
  // The moving parts (everything in overview, or when nothing moves).
  double bounds[6];
  if (camera_ == CameraMode::overview || !scene_bounds(view_, bounds, SceneParts::moving)) {
    scene_bounds(view_, bounds, SceneParts::all);
  }
  if (bounds[0] > bounds[1]) {
    renderer_->ResetCamera();
    return;
  }
  Eigen::Vector3d centre((bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2, (bounds[4] + bounds[5]) / 2);
  const double radius = 0.5 * Eigen::Vector3d(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]).norm();
  const Eigen::Vector3d* p_WT = pose_.p_WT();
  if (camera_ != CameraMode::overview && p_WT != nullptr) {
    // Look at the tracked probe's vertical, at the height of the parts' centre.
    centre.x() = p_WT->x();
    centre.y() = p_WT->y();
  }
  // Far enough for a sphere of `radius` to fit the narrower view angle, plus a margin.
  const double half_angle = vtkMath::RadiansFromDegrees(kViewAngleDeg / 2);
  const double aspect = static_cast<double>(width_) / height_;
  const double fit = std::min(half_angle, std::atan(std::tan(half_angle) * aspect));
  const double factor = camera_ == CameraMode::overview ? 1.0
                        : camera_ == CameraMode::follow ? kFollowDistanceFactor
                                                        : kRobotDistanceFactor;
  const double distance = factor * radius / std::sin(fit);
  const Eigen::Vector3d eye = centre + distance * kViewDirection;
  vtkCamera* camera = renderer_->GetActiveCamera();
  camera->SetViewAngle(kViewAngleDeg);
  camera->SetFocalPoint(centre.x(), centre.y(), centre.z());
  camera->SetPosition(eye.x(), eye.y(), eye.z());
  camera->SetViewUp(0, 0, 1);
  renderer_->ResetCameraClippingRange();
  if (p_WT != nullptr) last_target_ = *p_WT;
}

void ViewerWindow::follow() {
  const Eigen::Vector3d* p_WT = pose_.p_WT();
  if (p_WT == nullptr || camera_ != CameraMode::follow) return;
  // Translate the camera with the probe: the user's own rotation and zoom are kept.
  const Eigen::Vector3d d = *p_WT - last_target_;
  vtkCamera* camera = renderer_->GetActiveCamera();
  double f[3], e[3];
  camera->GetFocalPoint(f);
  camera->GetPosition(e);
  camera->SetFocalPoint(f[0] + d.x(), f[1] + d.y(), f[2] + d.z());
  camera->SetPosition(e[0] + d.x(), e[1] + d.y(), e[2] + d.z());
  renderer_->ResetCameraClippingRange();
  last_target_ = *p_WT;
}

void ViewerWindow::render() { window_->Render(); }

std::span<const std::uint8_t> ViewerWindow::read_rgba() {
  // Same buffer as the PNG grab (see the constructor).
  window_->GetRGBACharPixelData(0, 0, width_ - 1, height_ - 1, offscreen_ ? 0 : 1, pixels_, 0);
  return {pixels_->GetPointer(0), static_cast<std::size_t>(width_) * height_ * 4};
}

void ViewerWindow::write_png(const std::filesystem::path& file) {
  if (platform::is_link(file)) {  // VTK's writer opens by name and would follow it
    throw util::BadInputError("cannot write " + platform::utf8(file) + ": a symbolic link (cosim writes no file through a link)");
  }
  VtkErrorCapture capture;
  grab_->Modified();  // the window changed since the last grab
  png_->SetFileName(file.c_str());
  png_->Write();
  if (capture.had_error() || png_->GetErrorCode() != 0) {
    throw util::BadInputError("cannot write " + file.string() + ": " +
                              (capture.had_error() ? capture.first_error() : std::string("write failed")));
  }
}

}  // namespace detail
}  // namespace cosim::visual
