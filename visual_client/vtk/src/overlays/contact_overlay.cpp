#include "contact_overlay.hpp"

#include <algorithm>
#include <utility>

#include <vtkActor.h>
#include <vtkMatrix4x4.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkType.h>

namespace cosim::visual::detail {

namespace {

// A part whose lowest vertex is this close to the floor z = 0 touches it: the rollers' meshes
// (24 facets about their axes) reach the wheel circle only within 0.1 mm.
constexpr double kContactTolerance_m = 0.001;

}  // namespace

ContactOverlay::ContactOverlay(const OverlayContext& context)
    : view_(context.view), visible_(context.options.contact) {
  const scene::SceneModel& scene = view_.scene();
  std::vector<std::vector<std::size_t>> by_parent(scene.frames().size());
  for (std::size_t i = 0; i < view_.actors().size(); ++i) {
    const int frame = scene.renders()[i].frame;
    const int parent = frame >= 0 ? scene.frames()[static_cast<std::size_t>(frame)].parent : -1;
    if (parent >= 0 && view_.actor_moves(i)) by_parent[static_cast<std::size_t>(parent)].push_back(i);
  }
  for (auto& group : by_parent) {
    if (group.size() >= 2) groups_.push_back(std::move(group));
  }
  for (const auto& actor : view_.actors()) {
    std::array<double, 3> rgb{};
    actor->GetProperty()->GetColor(rgb.data());
    colors_.push_back(rgb);
  }
}

void ContactOverlay::update(std::span<const Eigen::Isometry3d> /*X_WF*/) {
  if (visible_) highlight();
}

const char* ContactOverlay::handle_key(char key) {
  if (key != 'c') return nullptr;
  set_visible(!visible_);
  return visible_ ? "contact highlight on" : "contact highlight off";
}

void ContactOverlay::set_visible(bool on) {
  visible_ = on;
  highlight();
}

void ContactOverlay::highlight() {
  // The lowest part of each group from its vertices (a transformed bounding box would reach
  // below the floor for a tilted roller).
  for (const std::size_t i : now_) view_.actors()[i]->GetProperty()->SetColor(colors_[i].data());
  now_.clear();
  if (!visible_) return;
  for (const auto& group : groups_) {
    double lowest_z = VTK_DOUBLE_MAX;  // [m]
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
      now_.push_back(lowest);
    }
  }
}

}  // namespace cosim::visual::detail
