#pragma once
// The tracked probe's path on the floor (ViewerOptions::trail_capacity).

#include <cstddef>

#include <vtkSmartPointer.h>

#include "overlay.hpp"

class vtkActor;
class vtkCellArray;
class vtkPoints;
class vtkPolyData;

namespace cosim::visual::detail {

/// One point and one segment per pose shown, in buffers preallocated for
/// ViewerOptions::trail_capacity points (no trail below 2, or without a tracked probe).
class TrailOverlay : public Overlay {
 public:
  explicit TrailOverlay(const OverlayContext& context);
  void update(std::span<const Eigen::Isometry3d> X_WF) override;

  /// Starts again from these positions [m, world]; false when there is no trail.
  bool reset(std::span<const Eigen::Vector3d> p_W);
  std::size_t points() const { return count_; }
  /// Its actor (the inset draws it too); null when there is no trail.
  vtkActor* actor() const { return actor_; }
  /// Bounding box of the points [m, world]: x and y.
  const Eigen::Vector2d& lo() const { return lo_; }
  const Eigen::Vector2d& hi() const { return hi_; }

 private:
  void add(const Eigen::Vector3d& p_W);
  const ShownPose& pose_;
  std::size_t capacity_;  // points
  std::size_t count_ = 0;
  Eigen::Vector2d lo_, hi_;
  vtkSmartPointer<vtkPoints> points_;
  vtkSmartPointer<vtkCellArray> lines_;
  vtkSmartPointer<vtkPolyData> trail_;
  vtkSmartPointer<vtkActor> actor_;
};

}  // namespace cosim::visual::detail
