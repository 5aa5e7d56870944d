#include "cosim/visual/vtk/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkAxesActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCaptionActor2D.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkCoordinate.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLight.h>
#include <vtkMath.h>
#include <vtkObjectFactory.h>
#include <vtkPNGWriter.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkSliderRepresentation2D.h>
#include <vtkSliderWidget.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"

namespace cosim::visual {

namespace {

// Default view direction (from the target towards the camera): from the robot's front (+x)
// and right, 22 degrees above the floor (seed Fig. 11b is 27 degrees, from the front; lower
// and more from the side, the wheel at -60 degrees is seen through its bumper opening).
const Eigen::Vector3d kViewDirection = Eigen::Vector3d(1.0, -0.7, 0.5).normalized();
constexpr double kViewAngleDeg = 30.0;
// The grid and the trail are drawn just above the floor plane z = 0 so they never fight
// with it (the trail above the grid).
constexpr double kGridHeight_m = 0.001;
constexpr double kTrailHeight_m = 0.002;
// Camera distance in radii of the moving parts' bounding sphere over the sine of the half view
// angle: 1 would fit the sphere exactly. The follow camera keeps the robot in the middle, so it
// comes close (the Robotino at 1280x720 spans about 400 px; it was 185 px at 1.8); the fixed
// robot camera leaves room for the robot to move (and two poses to share one view).
constexpr double kFollowDistanceFactor = 1.05;
constexpr double kRobotDistanceFactor = 1.6;
// A part whose lowest vertex is this close to the floor z = 0 touches it: the rollers' meshes
// (24 facets about their axes) reach the wheel circle only within 0.1 mm.
constexpr double kContactTolerance_m = 0.001;
// The axes triad: the top right corner.
constexpr double kTriadViewport[4] = {0.88, 0.76, 1.0, 1.0};
// Inset (picture in picture): the bottom right corner, a third of the width.
constexpr double kInsetViewport[4] = {0.67, 0.0, 1.0, 0.36};
// Margin around what the inset frames, as a fraction of its span: reframing is then rare.
constexpr double kInsetMargin = 0.25;

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

/// Lines on the floor over [x0, x1] x [y0, y1] (whole metres) every `step` metres.
vtkSmartPointer<vtkPolyData> grid_lines(double x0, double x1, double y0, double y1, double step) {
  auto points = vtkSmartPointer<vtkPoints>::New();
  auto lines = vtkSmartPointer<vtkCellArray>::New();
  auto add = [&](double ax, double ay, double bx, double by) {
    const vtkIdType a = points->InsertNextPoint(ax, ay, kGridHeight_m);
    const vtkIdType b = points->InsertNextPoint(bx, by, kGridHeight_m);
    const vtkIdType segment[2] = {a, b};
    lines->InsertNextCell(2, segment);
  };
  const long nx = std::lround((x1 - x0) / step), ny = std::lround((y1 - y0) / step);
  for (long i = 0; i <= nx; ++i) add(x0 + i * step, y0, x0 + i * step, y1);
  for (long j = 0; j <= ny; ++j) add(x0, y0 + j * step, x1, y0 + j * step);
  auto grid = vtkSmartPointer<vtkPolyData>::New();
  grid->SetPoints(points);
  grid->SetLines(lines);
  return grid;
}

/// The robot in the inset's top view: a dark disc of radius r [m] with a light triangle
/// pointing along +x, just above the trail.
vtkSmartPointer<vtkPolyData> robot_marker(double r) {
  constexpr int kSides = 32;
  constexpr double kHeight = 0.01;  // over the grid and the trail
  auto points = vtkSmartPointer<vtkPoints>::New();
  auto polys = vtkSmartPointer<vtkCellArray>::New();
  auto colors = vtkSmartPointer<vtkUnsignedCharArray>::New();
  colors->SetNumberOfComponents(3);
  std::vector<vtkIdType> disc(kSides);
  for (int k = 0; k < kSides; ++k) {
    const double a = 2 * std::numbers::pi * k / kSides;
    disc[static_cast<std::size_t>(k)] = points->InsertNextPoint(r * std::cos(a), r * std::sin(a), kHeight);
  }
  polys->InsertNextCell(kSides, disc.data());
  colors->InsertNextTuple3(60, 60, 66);
  const vtkIdType tip[3] = {points->InsertNextPoint(0.9 * r, 0, 1.5 * kHeight),
                            points->InsertNextPoint(-0.5 * r, 0.45 * r, 1.5 * kHeight),
                            points->InsertNextPoint(-0.5 * r, -0.45 * r, 1.5 * kHeight)};
  polys->InsertNextCell(3, tip);
  colors->InsertNextTuple3(250, 250, 250);
  auto marker = vtkSmartPointer<vtkPolyData>::New();
  marker->SetPoints(points);
  marker->SetPolys(polys);
  marker->GetCellData()->SetScalars(colors);
  return marker;
}

void grow(double bounds[6], const double b[6]) {
  for (int i = 0; i < 3; ++i) {
    bounds[2 * i] = std::min(bounds[2 * i], b[2 * i]);
    bounds[2 * i + 1] = std::max(bounds[2 * i + 1], b[2 * i + 1]);
  }
}

}  // namespace

const char* camera_mode_name(CameraMode mode) {
  switch (mode) {
    case CameraMode::robot: return "robot";
    case CameraMode::follow: return "follow";
    case CameraMode::overview: return "overview";
  }
  return "?";
}

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
  for (std::size_t i = 0; i < view_.actors().size(); ++i) {
    if (options_.tracked_probe >= 0 &&
        view.scene().renders()[i].frame == view.scene().probes()[static_cast<std::size_t>(options_.tracked_probe)].frame) {
      body_actors_.push_back(view_.actors()[i]);
    }
  }

  // Contact candidates: sibling moving parts, two or more under one parent frame.
  {
    std::vector<std::vector<std::size_t>> by_parent(view.scene().frames().size());
    for (std::size_t i = 0; i < view_.actors().size(); ++i) {
      const int frame = view.scene().renders()[i].frame;
      const int parent = frame >= 0 ? view.scene().frames()[static_cast<std::size_t>(frame)].parent : -1;
      if (parent >= 0 && view_.actor_moves(i)) by_parent[static_cast<std::size_t>(parent)].push_back(i);
    }
    for (auto& group : by_parent) {
      if (group.size() >= 2) contact_groups_.push_back(std::move(group));
    }
    for (const auto& actor : view_.actors()) {
      std::array<double, 3> rgb{};
      actor->GetProperty()->GetColor(rgb.data());
      actor_colors_.push_back(rgb);
    }
  }

  // Floor grid: filled in by the first show(), when the scene's extent is known.
  for (auto* actor : {&grid_actor_, &grid_fine_actor_}) {
    *actor = vtkSmartPointer<vtkActor>::New();
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(vtkSmartPointer<vtkPolyData>::New());
    (*actor)->SetMapper(mapper);
    (*actor)->GetProperty()->LightingOff();
    (*actor)->PickableOff();
    (*actor)->SetVisibility(options_.grid);
    renderer_->AddActor(*actor);
  }
  grid_actor_->GetProperty()->SetColor(0.35, 0.35, 0.38);
  grid_actor_->GetProperty()->SetLineWidth(1.5);
  grid_fine_actor_->GetProperty()->SetColor(0.62, 0.60, 0.55);

  // The world axes as a triad in the top right corner, turned with the camera (drawn at the
  // origin they would stand inside the robot, which starts there).
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
  axes_actor_ = axes;
  triad_ = vtkSmartPointer<vtkRenderer>::New();
  triad_->SetViewport(kTriadViewport[0], kTriadViewport[1], kTriadViewport[2], kTriadViewport[3]);
  // Drawn after the main view into its corner: keeps the picture (colour), clears only depth.
  triad_->PreserveColorBufferOn();
  triad_->PreserveDepthBufferOff();
  triad_->InteractiveOff();
  triad_->AddActor(axes_actor_);
  triad_->SetDraw(options_.axes);
  // Before each render of the main view (also the interactor's), the triad's camera takes the
  // main camera's direction.
  auto sync = vtkSmartPointer<vtkCallbackCommand>::New();
  sync->SetClientData(this);
  sync->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    static_cast<Viewer*>(self)->sync_triad_camera();
  });
  renderer_->AddObserver(vtkCommand::StartEvent, sync);

  // Probe marks: points in world coordinates drawn as a 2D overlay, so that a probe inside a
  // hub is still seen (and no second render pass is paid for it).
  probe_points_ = vtkSmartPointer<vtkPoints>::New();
  probe_points_->SetDataTypeToDouble();
  probe_points_->SetNumberOfPoints(static_cast<vtkIdType>(p_WP_.size()));
  auto probe_verts = vtkSmartPointer<vtkCellArray>::New();
  for (vtkIdType i = 0; i < probe_points_->GetNumberOfPoints(); ++i) {
    probe_points_->SetPoint(i, 0, 0, 0);
    probe_verts->InsertNextCell(1, &i);
  }
  probe_marks_ = vtkSmartPointer<vtkPolyData>::New();
  probe_marks_->SetPoints(probe_points_);
  probe_marks_->SetVerts(probe_verts);
  auto world = vtkSmartPointer<vtkCoordinate>::New();
  world->SetCoordinateSystemToWorld();
  auto marks_mapper = vtkSmartPointer<vtkPolyDataMapper2D>::New();
  marks_mapper->SetInputData(probe_marks_);
  marks_mapper->SetTransformCoordinate(world);
  probe_actor_ = vtkSmartPointer<vtkActor2D>::New();
  probe_actor_->SetMapper(marks_mapper);
  probe_actor_->GetProperty()->SetColor(1.0, 0.50, 0.0);  // orange: none of the scenes' colours
  probe_actor_->GetProperty()->SetPointSize(std::max(5.0, height_ / 90.0));
  probe_actor_->SetVisibility(options_.probes && !p_WP_.empty());
  renderer_->AddActor2D(probe_actor_);

  window_ = vtkSmartPointer<vtkRenderWindow>::New();
  window_->SetMultiSamples(0);  // software GL under Xvfb: MSAA costs far more than it gives
  window_->SetSize(width_, height_);
  window_->SetOffScreenRendering(options_.offscreen ? 1 : 0);
  window_->SetWindowName(("cosim-visual - " + view.scene().name()).c_str());
  window_->AddRenderer(renderer_);
  window_->AddRenderer(triad_);

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
  help_ = vtkSmartPointer<vtkTextActor>::New();
  help_->GetTextProperty()->SetFontFamilyToCourier();
  help_->GetTextProperty()->SetFontSize(std::max(11, height_ / 55));
  help_->GetTextProperty()->SetColor(0.05, 0.05, 0.1);
  help_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  help_->GetPositionCoordinate()->SetValue(0.01, 0.01);
  help_->SetInput(" ");
  help_->SetVisibility(false);
  renderer_->AddActor2D(help_);

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

  // The inset: the same actors seen from above, drawn only while options_.inset.
  inset_ = vtkSmartPointer<vtkRenderer>::New();
  inset_->SetViewport(kInsetViewport[0], kInsetViewport[1], kInsetViewport[2], kInsetViewport[3]);
  inset_->SetBackground(0.93, 0.94, 0.96);
  inset_->InteractiveOff();
  auto inset_light = vtkSmartPointer<vtkLight>::New();
  inset_light->SetLightTypeToHeadlight();
  inset_->AddLight(inset_light);
  // At the path's scale the robot is a few pixels: a disc with its heading is drawn instead
  // of the model (which would cost a second full render of it).
  inset_marker_ = vtkSmartPointer<vtkActor>::New();
  auto marker_mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
  marker_mapper->SetInputData(vtkSmartPointer<vtkPolyData>::New());  // built by the first show()
  inset_marker_->SetMapper(marker_mapper);
  inset_marker_->GetProperty()->LightingOff();
  inset_marker_->SetUserMatrix(inset_marker_pose_);
  inset_->AddActor(inset_marker_);
  for (std::size_t i = 0; i < view_.actors().size(); ++i) {
    if (!view_.actor_moves(i)) inset_->AddActor(view_.actors()[i]);  // the floor, walls, obstacles
  }
  inset_->AddActor(grid_actor_);
  if (trail_actor_) inset_->AddActor(trail_actor_);
  inset_->GetActiveCamera()->ParallelProjectionOn();
  inset_->SetDraw(options_.inset);
  window_->AddRenderer(inset_);

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
  // The moving parts (everything in overview, or when nothing moves).
  double bounds[6];
  if (options_.camera == CameraMode::overview || !scene_bounds(bounds, Parts::moving)) scene_bounds(bounds, Parts::all);
  if (bounds[0] > bounds[1]) {
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
  const double factor = options_.camera == CameraMode::overview ? 1.0
                        : options_.camera == CameraMode::follow ? kFollowDistanceFactor
                                                                : kRobotDistanceFactor;
  const double distance = factor * radius / std::sin(fit);
  const Eigen::Vector3d eye = centre + distance * kViewDirection;
  vtkCamera* camera = renderer_->GetActiveCamera();
  camera->SetViewAngle(kViewAngleDeg);
  camera->SetFocalPoint(centre.x(), centre.y(), centre.z());
  camera->SetPosition(eye.x(), eye.y(), eye.z());
  camera->SetViewUp(0, 0, 1);
  renderer_->ResetCameraClippingRange();
  if (options_.tracked_probe >= 0) last_target_ = p_WP_[static_cast<std::size_t>(options_.tracked_probe)];
}

void Viewer::probe_positions(std::span<Eigen::Vector3d> p_WP) const {
  if (p_WP.size() != p_WP_.size()) {
    throw std::invalid_argument("Viewer::probe_positions: " + std::to_string(p_WP.size()) + " slots for " +
                                std::to_string(p_WP_.size()) + " probes");
  }
  std::copy(p_WP_.begin(), p_WP_.end(), p_WP.begin());
}

bool Viewer::scene_bounds(double bounds[6], Parts parts) const {
  for (int i = 0; i < 3; ++i) {
    bounds[2 * i] = VTK_DOUBLE_MAX;
    bounds[2 * i + 1] = -VTK_DOUBLE_MAX;
  }
  const auto actors = view_.actors();
  bool any = false;
  for (std::size_t i = 0; i < actors.size(); ++i) {
    const bool wanted = parts == Parts::all || (parts == Parts::moving) == view_.actor_moves(i);
    if (!wanted || !actors[i]->GetVisibility()) continue;
    grow(bounds, actors[i]->GetBounds());
    any = true;
  }
  return any;
}

void Viewer::show(std::span<const Eigen::Isometry3d> X_WF) {
  view_.update(X_WF);
  view_.probe_positions(p_WP_);
  if (!camera_set_) {
    reset_camera();
    camera_set_ = true;
    build_floor_marks();
  }
  update_tracking();
  update_probe_marks(X_WF);
  if (options_.contact) update_contact();
  if (options_.inset) frame_inset(false);
}

void Viewer::build_floor_marks() {
  // The grid covers the floor when the scene has one (what does not move, to the nearest
  // metre: lines in the air beyond its edge would look like a second floor), else 5 m around
  // the robot; at least the robot's own extent, whole metres, at most 100 m square.
  // Quarter-metre lines only where they stay few (<= 20 m).
  double fixed[6], moving[6];
  if (!scene_bounds(moving, Parts::moving)) scene_bounds(moving, Parts::all);
  double reach[4] = {moving[0] - 5, moving[1] + 5, moving[2] - 5, moving[3] + 5};
  if (scene_bounds(fixed, Parts::fixed)) {
    reach[0] = std::round(fixed[0]);
    reach[1] = std::round(fixed[1]);
    reach[2] = std::round(fixed[2]);
    reach[3] = std::round(fixed[3]);
  }
  const double x0 = std::clamp(std::floor(std::min(reach[0], moving[0])), -50.0, 0.0);
  const double x1 = std::clamp(std::ceil(std::max(reach[1], moving[1])), 0.0, 50.0);
  const double y0 = std::clamp(std::floor(std::min(reach[2], moving[2])), -50.0, 0.0);
  const double y1 = std::clamp(std::ceil(std::max(reach[3], moving[3])), 0.0, 50.0);
  static_cast<vtkPolyDataMapper*>(grid_actor_->GetMapper())->SetInputData(grid_lines(x0, x1, y0, y1, 1.0));
  if (x1 - x0 <= 20 && y1 - y0 <= 20) {
    static_cast<vtkPolyDataMapper*>(grid_fine_actor_->GetMapper())->SetInputData(grid_lines(x0, x1, y0, y1, 0.25));
  }
  // The inset's robot: a disc of the moving parts' half width about the tracked probe, and a
  // triangle along the x axis of the probe's frame (the heading).
  robot_half_width_m_ = 0.5 * std::max(moving[1] - moving[0], moving[3] - moving[2]);
  static_cast<vtkPolyDataMapper*>(inset_marker_->GetMapper())->SetInputData(robot_marker(robot_half_width_m_));
}

void Viewer::update_probe_marks(std::span<const Eigen::Isometry3d> X_WF) {
  if (options_.inset && options_.tracked_probe >= 0) {
    const std::size_t probe = static_cast<std::size_t>(options_.tracked_probe);
    const Eigen::Vector3d& p = p_WP_[probe];
    const int frame = view_.scene().probes()[probe].frame;
    const Eigen::Vector3d x_W =
        frame >= 0 ? Eigen::Vector3d(X_WF[static_cast<std::size_t>(frame)].linear().col(0)) : Eigen::Vector3d::UnitX();
    const double yaw = std::atan2(x_W.y(), x_W.x()), c = std::cos(yaw), s = std::sin(yaw);
    const double m[16] = {c, -s, 0, p.x(), s, c, 0, p.y(), 0, 0, 1, 0, 0, 0, 0, 1};
    inset_marker_pose_->DeepCopy(m);
  }
  if (!probe_actor_->GetVisibility()) return;
  for (std::size_t i = 0; i < p_WP_.size(); ++i) {
    probe_points_->SetPoint(static_cast<vtkIdType>(i), p_WP_[i].data());
  }
  probe_points_->Modified();
  probe_marks_->Modified();
}

void Viewer::frame_inset(bool force) {
  // The robot: the disc the inset draws for it, about the tracked probe (no per-frame bounds).
  double need[4];
  if (options_.tracked_probe >= 0) {
    const Eigen::Vector3d& p = p_WP_[static_cast<std::size_t>(options_.tracked_probe)];
    need[0] = p.x() - robot_half_width_m_;
    need[1] = p.x() + robot_half_width_m_;
    need[2] = p.y() - robot_half_width_m_;
    need[3] = p.y() + robot_half_width_m_;
  } else {
    double robot[6];
    if (!scene_bounds(robot, Parts::moving)) scene_bounds(robot, Parts::all);
    std::copy(robot, robot + 4, need);
  }
  if (trail_count_ > 0) {
    need[0] = std::min(need[0], trail_lo_.x());
    need[1] = std::max(need[1], trail_hi_.x());
    need[2] = std::min(need[2], trail_lo_.y());
    need[3] = std::max(need[3], trail_hi_.y());
  }
  const bool inside = need[0] >= inset_bounds_[0] && need[1] <= inset_bounds_[1] && need[2] >= inset_bounds_[2] &&
                      need[3] <= inset_bounds_[3];
  if (inside && !force) return;
  // Frame the need with a margin, and at least four robot sizes, in the inset's aspect.
  const double robot_size = 2 * robot_half_width_m_;
  const double cx = (need[0] + need[1]) / 2, cy = (need[2] + need[3]) / 2;
  const double aspect = (kInsetViewport[2] - kInsetViewport[0]) * width_ / ((kInsetViewport[3] - kInsetViewport[1]) * height_);
  double half_w = std::max((1 + kInsetMargin) * (need[1] - need[0]) / 2, 2 * robot_size);
  double half_h = std::max((1 + kInsetMargin) * (need[3] - need[2]) / 2, 2 * robot_size);
  half_w = std::max(half_w, half_h * aspect);
  half_h = half_w / aspect;
  inset_bounds_[0] = cx - half_w;
  inset_bounds_[1] = cx + half_w;
  inset_bounds_[2] = cy - half_h;
  inset_bounds_[3] = cy + half_h;
  vtkCamera* camera = inset_->GetActiveCamera();
  camera->SetFocalPoint(cx, cy, 0);
  camera->SetPosition(cx, cy, 100);  // straight down; parallel projection: the height does not scale
  camera->SetViewUp(0, 1, 0);
  camera->SetParallelScale(half_h);
  inset_->ResetCameraClippingRange();
}

void Viewer::set_camera_mode(CameraMode mode) {
  options_.camera = mode;
  reset_camera();
}

void Viewer::set_axes_visible(bool on) {
  options_.axes = on;
  triad_->SetDraw(on);
}

void Viewer::sync_triad_camera() {
  if (!options_.axes) return;
  vtkCamera* main = renderer_->GetActiveCamera();
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

void Viewer::set_grid_visible(bool on) {
  options_.grid = on;
  grid_actor_->SetVisibility(on);
  grid_fine_actor_->SetVisibility(on);
}

void Viewer::set_inset_visible(bool on) {
  options_.inset = on;
  inset_->SetDraw(on);
  if (on && camera_set_) frame_inset(true);
}

void Viewer::update_contact() {
  // Restore the last highlight, then find the lowest part of each group from its vertices
  // (a transformed bounding box would reach below the floor for a tilted roller).
  for (const std::size_t i : contact_now_) view_.actors()[i]->GetProperty()->SetColor(actor_colors_[i].data());
  contact_now_.clear();
  if (!options_.contact) return;
  for (const auto& group : contact_groups_) {
    double lowest_z = VTK_DOUBLE_MAX;
    std::size_t lowest = 0;
    for (const std::size_t i : group) {
      vtkActor* actor = view_.actors()[i];
      auto* mapper = vtkPolyDataMapper::SafeDownCast(actor->GetMapper());
      vtkPoints* points = mapper != nullptr && mapper->GetInput() != nullptr ? mapper->GetInput()->GetPoints() : nullptr;
      if (points == nullptr) continue;
      vtkMatrix4x4* m = actor->GetMatrix();
      const double a = m->GetElement(2, 0), b = m->GetElement(2, 1), c = m->GetElement(2, 2), d = m->GetElement(2, 3);
      double z_min = VTK_DOUBLE_MAX, p[3];
      for (vtkIdType k = 0; k < points->GetNumberOfPoints(); ++k) {
        points->GetPoint(k, p);
        z_min = std::min(z_min, a * p[0] + b * p[1] + c * p[2] + d);
      }
      if (z_min < lowest_z) {
        lowest_z = z_min;
        lowest = i;
      }
    }
    if (lowest_z <= kContactTolerance_m) {
      view_.actors()[lowest]->GetProperty()->SetColor(1.0, 0.84, 0.0);  // gold
      contact_now_.push_back(lowest);
    }
  }
}

void Viewer::set_contact_visible(bool on) {
  options_.contact = on;
  update_contact();
}

void Viewer::set_body_style(BodyStyle style) {
  body_style_ = style;
  for (vtkActor* actor : body_actors_) {
    actor->GetProperty()->SetOpacity(style == BodyStyle::transparent ? 0.3 : 1.0);
    if (style == BodyStyle::wireframe) {
      actor->GetProperty()->SetRepresentationToWireframe();
    } else {
      actor->GetProperty()->SetRepresentationToSurface();
    }
  }
}

void Viewer::set_help_text(const char* text) {
  const bool on = text != nullptr && text[0] != '\0';
  help_->SetInput(on ? text : " ");
  help_->SetVisibility(on);
}

const char* Viewer::key_help() {
  return "mouse: left rotate, middle/shift pan, wheel zoom\n"
         "r reset camera   1 robot  2 follow  3 overview camera\n"
         "o top-view inset   g grid   a axes   c part touching the floor   t body: solid / see-through / wireframe";
}

const char* Viewer::handle_key(char key) {
  switch (key) {
    case 'r':
    case 'R':
      reset_camera();
      return "camera reset";
    case '1':
      set_camera_mode(CameraMode::robot);
      return "camera robot";
    case '2':
      set_camera_mode(CameraMode::follow);
      return "camera follow";
    case '3':
      set_camera_mode(CameraMode::overview);
      return "camera overview";
    case 'o':
      set_inset_visible(!options_.inset);
      return options_.inset ? "inset on" : "inset off";
    case 'g':
      set_grid_visible(!options_.grid);
      return options_.grid ? "grid on" : "grid off";
    case 'a':
      set_axes_visible(!options_.axes);
      return options_.axes ? "axes on" : "axes off";
    case 'c':
      set_contact_visible(!options_.contact);
      return options_.contact ? "contact highlight on" : "contact highlight off";
    case 't': {
      const BodyStyle next = body_style_ == BodyStyle::solid         ? BodyStyle::transparent
                             : body_style_ == BodyStyle::transparent ? BodyStyle::wireframe
                                                                     : BodyStyle::solid;
      set_body_style(next);
      return next == BodyStyle::solid ? "body solid" : next == BodyStyle::transparent ? "body see-through" : "body wireframe";
    }
    default:
      return nullptr;
  }
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
  add_trail_point(p);
}

void Viewer::add_trail_point(const Eigen::Vector3d& p) {
  if (!trail_ || trail_count_ >= options_.trail_capacity) return;
  trail_lo_ = trail_lo_.cwiseMin(p.head<2>());
  trail_hi_ = trail_hi_.cwiseMax(p.head<2>());
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

void Viewer::reset_trail(std::span<const Eigen::Vector3d> p_W) {
  if (!trail_) return;
  trail_points_->Reset();
  trail_lines_->Reset();
  trail_count_ = 0;
  trail_lo_.setConstant(VTK_DOUBLE_MAX);
  trail_hi_.setConstant(-VTK_DOUBLE_MAX);
  for (const Eigen::Vector3d& p : p_W) add_trail_point(p);
  if (options_.inset && camera_set_) frame_inset(true);
}

void Viewer::add_time_slider(double t0_s, double t1_s, std::function<void(double)> on_seek) {
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
    auto* self = static_cast<Viewer*>(data);
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

void Viewer::set_slider_time(double t_s) {
  if (slider_ && !slider_dragged_) static_cast<vtkSliderRepresentation*>(slider_->GetRepresentation())->SetValue(t_s);
}

vtkRenderer* Viewer::inset_renderer() const { return options_.inset ? inset_.Get() : nullptr; }

vtkRenderWindowInteractor* Viewer::make_interactor(std::function<bool(char)> on_key) {
  auto style = vtkSmartPointer<KeyStyle>::New();
  style->on_key = [this, on_key = std::move(on_key)](char key) {
    if (on_key && on_key(key)) return true;
    return handle_key(key) != nullptr;
  };
  interactor_ = vtkSmartPointer<vtkRenderWindowInteractor>::New();
  interactor_->SetRenderWindow(window_);
  interactor_->SetInteractorStyle(style);
  return interactor_;
}

}  // namespace cosim::visual
