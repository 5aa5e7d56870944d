#include "inset_overlay.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkLight.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>

namespace cosim::visual::detail {

namespace {

// Margin around what the inset frames, as a fraction of its span: reframing is then rare.
constexpr double kInsetMargin = 0.25;

/// The robot in the inset's top view: a dark disc of radius r [m] with a light triangle
/// pointing along +x, just above the trail.
vtkSmartPointer<vtkPolyData> robot_marker(double r) {
  constexpr int kSides = 32;
  constexpr double kHeight = 0.01;  // [m] over the grid and the trail
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

}  // namespace

InsetOverlay::InsetOverlay(const OverlayContext& context, const GridOverlay& grid, const TrailOverlay& trail)
    : view_(context.view),
      pose_(context.pose),
      trail_(trail),
      visible_(context.options.inset),
      aspect_((kInsetViewport[2] - kInsetViewport[0]) * context.window.width() /
              ((kInsetViewport[3] - kInsetViewport[1]) * context.window.height())) {
  inset_ = vtkSmartPointer<vtkRenderer>::New();
  inset_->SetViewport(kInsetViewport[0], kInsetViewport[1], kInsetViewport[2], kInsetViewport[3]);
  inset_->SetBackground(0.93, 0.94, 0.96);
  inset_->InteractiveOff();
  auto light = vtkSmartPointer<vtkLight>::New();
  light->SetLightTypeToHeadlight();
  inset_->AddLight(light);
  // At the path's scale the robot is a few pixels: a disc with its heading is drawn instead
  // of the model (which would cost a second full render of it).
  marker_ = vtkSmartPointer<vtkActor>::New();
  auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
  mapper->SetInputData(vtkSmartPointer<vtkPolyData>::New());  // built by the first pose
  marker_->SetMapper(mapper);
  marker_->GetProperty()->LightingOff();
  marker_->SetUserMatrix(marker_pose_);
  inset_->AddActor(marker_);
  for (std::size_t i = 0; i < view_.actors().size(); ++i) {
    if (!view_.actor_moves(i)) inset_->AddActor(view_.actors()[i]);  // the floor, walls, obstacles
  }
  inset_->AddActor(grid.metre_lines());
  if (trail.actor() != nullptr) inset_->AddActor(trail.actor());
  inset_->GetActiveCamera()->ParallelProjectionOn();
  inset_->SetDraw(visible_);
  context.window.window()->AddRenderer(inset_);
}

void InsetOverlay::update(std::span<const Eigen::Isometry3d> X_WF) {
  if (pose_.first()) {
    // The robot: a disc of the moving parts' half width about the tracked probe, and a
    // triangle along the x axis of the probe's frame (the heading).
    double moving[6];
    robot_bounds(view_, moving);
    robot_half_width_m_ = 0.5 * std::max(moving[1] - moving[0], moving[3] - moving[2]);
    static_cast<vtkPolyDataMapper*>(marker_->GetMapper())->SetInputData(robot_marker(robot_half_width_m_));
  }
  if (!visible_) return;
  if (const Eigen::Vector3d* p_WT = pose_.p_WT()) {
    const int frame = view_.scene().probes()[static_cast<std::size_t>(pose_.tracked_probe)].frame;
    const Eigen::Vector3d x_W =
        frame >= 0 ? Eigen::Vector3d(X_WF[static_cast<std::size_t>(frame)].linear().col(0)) : Eigen::Vector3d::UnitX();
    const double yaw = std::atan2(x_W.y(), x_W.x()), c = std::cos(yaw), s = std::sin(yaw);
    const double m[16] = {c, -s, 0, p_WT->x(), s, c, 0, p_WT->y(), 0, 0, 1, 0, 0, 0, 0, 1};
    marker_pose_->DeepCopy(m);
  }
  frame(false);
}

const char* InsetOverlay::handle_key(char key) {
  if (key != 'o') return nullptr;
  set_visible(!visible_);
  return visible_ ? "inset on" : "inset off";
}

void InsetOverlay::set_visible(bool on) {
  visible_ = on;
  inset_->SetDraw(on);
  if (on && pose_.shown()) frame(true);
}

vtkRenderer* InsetOverlay::renderer() const { return visible_ ? inset_.Get() : nullptr; }

void InsetOverlay::reframe() {
  if (visible_ && pose_.shown()) frame(true);
}

void InsetOverlay::frame(bool force) {
  // The robot: the disc the inset draws for it, about the tracked probe (no per-frame bounds).
  double need[4];
  if (const Eigen::Vector3d* p_WT = pose_.p_WT()) {
    need[0] = p_WT->x() - robot_half_width_m_;
    need[1] = p_WT->x() + robot_half_width_m_;
    need[2] = p_WT->y() - robot_half_width_m_;
    need[3] = p_WT->y() + robot_half_width_m_;
  } else {
    double robot[6];
    robot_bounds(view_, robot);
    std::copy(robot, robot + 4, need);
  }
  if (trail_.points() > 0) {
    need[0] = std::min(need[0], trail_.lo().x());
    need[1] = std::max(need[1], trail_.hi().x());
    need[2] = std::min(need[2], trail_.lo().y());
    need[3] = std::max(need[3], trail_.hi().y());
  }
  const bool inside = need[0] >= bounds_[0] && need[1] <= bounds_[1] && need[2] >= bounds_[2] && need[3] <= bounds_[3];
  if (inside && !force) return;
  // Frame the need with a margin, and at least four robot sizes, in the inset's aspect.
  const double robot_size = 2 * robot_half_width_m_;
  const double cx = (need[0] + need[1]) / 2, cy = (need[2] + need[3]) / 2;
  double half_w = std::max((1 + kInsetMargin) * (need[1] - need[0]) / 2, 2 * robot_size);
  double half_h = std::max((1 + kInsetMargin) * (need[3] - need[2]) / 2, 2 * robot_size);
  half_w = std::max(half_w, half_h * aspect_);
  half_h = half_w / aspect_;
  bounds_[0] = cx - half_w;
  bounds_[1] = cx + half_w;
  bounds_[2] = cy - half_h;
  bounds_[3] = cy + half_h;
  vtkCamera* camera = inset_->GetActiveCamera();
  camera->SetFocalPoint(cx, cy, 0);
  camera->SetPosition(cx, cy, 100);  // straight down; parallel projection: the height does not scale
  camera->SetViewUp(0, 1, 0);
  camera->SetParallelScale(half_h);
  inset_->ResetCameraClippingRange();
}

}  // namespace cosim::visual::detail
