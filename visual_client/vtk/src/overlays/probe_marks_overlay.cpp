#include "probe_marks_overlay.hpp"

#include <algorithm>

#include <vtkActor2D.h>
#include <vtkCellArray.h>
#include <vtkCoordinate.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>

namespace cosim::visual::detail {

ProbeMarksOverlay::ProbeMarksOverlay(const OverlayContext& context) : pose_(context.pose) {
  compared_ = context.options.marked_probes.empty() ? context.view.scene().default_probes()
                                                    : context.options.marked_probes;
  points_ = vtkSmartPointer<vtkPoints>::New();
  points_->SetDataTypeToDouble();
  points_->SetNumberOfPoints(static_cast<vtkIdType>(pose_.p_WP.size()));
  for (vtkIdType i = 0; i < points_->GetNumberOfPoints(); ++i) points_->SetPoint(i, 0, 0, 0);
  marks_ = vtkSmartPointer<vtkPolyData>::New();
  marks_->SetPoints(points_);
  mark(context.options.all_probes);
  auto world = vtkSmartPointer<vtkCoordinate>::New();
  world->SetCoordinateSystemToWorld();
  auto mapper = vtkSmartPointer<vtkPolyDataMapper2D>::New();
  mapper->SetInputData(marks_);
  mapper->SetTransformCoordinate(world);
  actor_ = vtkSmartPointer<vtkActor2D>::New();
  actor_->SetMapper(mapper);
  actor_->GetProperty()->SetColor(1.0, 0.50, 0.0);  // orange: none of the scenes' colours
  actor_->GetProperty()->SetPointSize(std::max(5.0, context.window.height() / 90.0));
  actor_->SetVisibility(context.options.probes && !pose_.p_WP.empty());
  context.window.renderer()->AddActor2D(actor_);
}

void ProbeMarksOverlay::mark(bool all) {
  all_ = all;
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  for (vtkIdType i = 0; i < points_->GetNumberOfPoints(); ++i) {
    if (all || std::find(compared_.begin(), compared_.end(), static_cast<int>(i)) != compared_.end()) {
      verts->InsertNextCell(1, &i);
    }
  }
  marks_->SetVerts(verts);
  marks_->Modified();
}

void ProbeMarksOverlay::update(std::span<const Eigen::Isometry3d> /*X_WF*/) {
  if (!actor_->GetVisibility()) return;
  for (std::size_t i = 0; i < pose_.p_WP.size(); ++i) {
    points_->SetPoint(static_cast<vtkIdType>(i), pose_.p_WP[i].data());
  }
  points_->Modified();
  marks_->Modified();
}

const char* ProbeMarksOverlay::handle_key(char key) {
  if (key != 'p' || !actor_->GetVisibility()) return nullptr;
  mark(!all_);
  return all_ ? "probe marks: every probe" : "probe marks: the compared probes";
}

}  // namespace cosim::visual::detail
