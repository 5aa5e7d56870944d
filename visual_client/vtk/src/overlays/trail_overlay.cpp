#include "trail_overlay.hpp"

#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkType.h>

namespace cosim::visual::detail {

namespace {

// Just above the floor plane z = 0 and the grid, so that it never fights with either.
constexpr double kTrailHeight_m = 0.002;

}  // namespace

TrailOverlay::TrailOverlay(const OverlayContext& context)
    : pose_(context.pose),
      capacity_(context.options.trail_capacity),
      lo_(Eigen::Vector2d::Constant(VTK_DOUBLE_MAX)),
      hi_(Eigen::Vector2d::Constant(-VTK_DOUBLE_MAX)) {
  if (capacity_ <= 1 || pose_.tracked_probe < 0) return;
  // Preallocated: the trail grows one point and one segment per frame, never reallocates.
  points_ = vtkSmartPointer<vtkPoints>::New();
  points_->SetDataTypeToDouble();
  points_->Allocate(static_cast<vtkIdType>(capacity_));
  lines_ = vtkSmartPointer<vtkCellArray>::New();
  lines_->AllocateExact(static_cast<vtkIdType>(capacity_), static_cast<vtkIdType>(2 * capacity_));
  trail_ = vtkSmartPointer<vtkPolyData>::New();
  trail_->SetPoints(points_);
  trail_->SetLines(lines_);
  auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
  mapper->SetInputData(trail_);
  actor_ = vtkSmartPointer<vtkActor>::New();
  actor_->SetMapper(mapper);
  actor_->GetProperty()->SetColor(0.80, 0.08, 0.24);  // crimson
  actor_->GetProperty()->SetLineWidth(2.0);
  actor_->GetProperty()->LightingOff();
  actor_->PickableOff();
  context.window.renderer()->AddActor(actor_);
}

void TrailOverlay::update(std::span<const Eigen::Isometry3d> /*X_WF*/) {
  if (const Eigen::Vector3d* p_WT = pose_.p_WT()) add(*p_WT);
}

void TrailOverlay::add(const Eigen::Vector3d& p_W) {
  if (!trail_ || count_ >= capacity_) return;
  lo_ = lo_.cwiseMin(p_W.head<2>());
  hi_ = hi_.cwiseMax(p_W.head<2>());
  const vtkIdType id = points_->InsertNextPoint(p_W.x(), p_W.y(), kTrailHeight_m);
  if (id > 0) {
    const vtkIdType segment[2] = {id - 1, id};
    lines_->InsertNextCell(2, segment);
  }
  ++count_;
  points_->Modified();
  lines_->Modified();
  trail_->Modified();
}

bool TrailOverlay::reset(std::span<const Eigen::Vector3d> p_W) {
  if (!trail_) return false;
  points_->Reset();
  lines_->Reset();
  count_ = 0;
  lo_.setConstant(VTK_DOUBLE_MAX);
  hi_.setConstant(-VTK_DOUBLE_MAX);
  for (const Eigen::Vector3d& p : p_W) add(p);
  return true;
}

}  // namespace cosim::visual::detail
