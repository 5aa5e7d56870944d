#include "grid_overlay.hpp"

#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>

namespace cosim::visual::detail {

namespace {

// Just above the floor plane z = 0 so that the lines never fight with it (the trail is above
// the grid, the inset's robot above both).
constexpr double kGridHeight_m = 0.001;

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

}  // namespace

GridOverlay::GridOverlay(const OverlayContext& context)
    : view_(context.view), pose_(context.pose), visible_(context.options.grid) {
  // Empty until the first pose.
  for (auto* actor : {&metre_, &quarter_}) {
    *actor = vtkSmartPointer<vtkActor>::New();
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(vtkSmartPointer<vtkPolyData>::New());
    (*actor)->SetMapper(mapper);
    (*actor)->GetProperty()->LightingOff();
    (*actor)->PickableOff();
    (*actor)->SetVisibility(visible_);
    context.window.renderer()->AddActor(*actor);
  }
  metre_->GetProperty()->SetColor(0.35, 0.35, 0.38);
  metre_->GetProperty()->SetLineWidth(1.5);
  quarter_->GetProperty()->SetColor(0.62, 0.60, 0.55);
}

void GridOverlay::update(std::span<const Eigen::Isometry3d> /*X_WF*/) {
  if (!pose_.first()) return;
  // The grid covers the floor when the scene has one (what does not move, to the nearest
  // metre: lines in the air beyond its edge would look like a second floor), else 5 m around
  // the robot; at least the robot's own extent, whole metres, at most 100 m square.
  // Quarter-metre lines only where they stay few (<= 20 m).
  double fixed[6], moving[6];
  robot_bounds(view_, moving);
  double reach[4] = {moving[0] - 5, moving[1] + 5, moving[2] - 5, moving[3] + 5};
  if (scene_bounds(view_, fixed, SceneParts::fixed)) {
    reach[0] = std::round(fixed[0]);
    reach[1] = std::round(fixed[1]);
    reach[2] = std::round(fixed[2]);
    reach[3] = std::round(fixed[3]);
  }
  const double x0 = std::clamp(std::floor(std::min(reach[0], moving[0])), -50.0, 0.0);
  const double x1 = std::clamp(std::ceil(std::max(reach[1], moving[1])), 0.0, 50.0);
  const double y0 = std::clamp(std::floor(std::min(reach[2], moving[2])), -50.0, 0.0);
  const double y1 = std::clamp(std::ceil(std::max(reach[3], moving[3])), 0.0, 50.0);
  static_cast<vtkPolyDataMapper*>(metre_->GetMapper())->SetInputData(grid_lines(x0, x1, y0, y1, 1.0));
  if (x1 - x0 <= 20 && y1 - y0 <= 20) {
    static_cast<vtkPolyDataMapper*>(quarter_->GetMapper())->SetInputData(grid_lines(x0, x1, y0, y1, 0.25));
  }
}

const char* GridOverlay::handle_key(char key) {
  if (key != 'g') return nullptr;
  set_visible(!visible_);
  return visible_ ? "grid on" : "grid off";
}

void GridOverlay::set_visible(bool on) {
  visible_ = on;
  metre_->SetVisibility(on);
  quarter_->SetVisibility(on);
}

}  // namespace cosim::visual::detail
