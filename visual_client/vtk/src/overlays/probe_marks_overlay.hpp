#pragma once
// The compared probes (or every probe, key `p`) drawn as orange dots over the model
// (ViewerOptions::probes, marked_probes, all_probes).

#include <vector>

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
  const char* handle_key(char key) override;

 private:
  // The marks: the compared probes, or every probe.
  void mark(bool all);

  std::vector<int> compared_;  // scene probe indices
  const ShownPose& pose_;
  vtkSmartPointer<vtkPoints> points_;
  vtkSmartPointer<vtkPolyData> marks_;
  vtkSmartPointer<vtkActor2D> actor_;
  bool all_ = false;
};

}  // namespace cosim::visual::detail
