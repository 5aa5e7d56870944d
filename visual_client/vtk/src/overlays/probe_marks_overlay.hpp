#pragma once
// Every probe drawn as an orange dot over the model (ViewerOptions::probes).

#include <vtkSmartPointer.h>

#include "overlay.hpp"

class vtkActor2D;
class vtkPoints;
class vtkPolyData;

namespace cosim::visual::detail {

/// The probes as points in world coordinates drawn as a 2D overlay, so that a probe inside a
/// hub is still seen (and no second render pass is paid for it).
class ProbeMarksOverlay : public Overlay {
 public:
  explicit ProbeMarksOverlay(const OverlayContext& context);
  void update(std::span<const Eigen::Isometry3d> X_WF) override;

 private:
  const ShownPose& pose_;
  vtkSmartPointer<vtkPoints> points_;
  vtkSmartPointer<vtkPolyData> marks_;
  vtkSmartPointer<vtkActor2D> actor_;
};

}  // namespace cosim::visual::detail
