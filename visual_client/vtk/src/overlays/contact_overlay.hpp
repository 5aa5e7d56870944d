#pragma once
// What touches the floor, highlighted in gold (ViewerOptions::contact, key c).

#include <array>
#include <cstddef>
#include <vector>

#include "overlay.hpp"

namespace cosim::visual::detail {

/// Of each set of sibling moving parts (the rollers of one wheel: two or more under one parent
/// frame), the lowest, when it comes within kContactTolerance_m of the floor z = 0, drawn gold
/// instead of its own colour.
class ContactOverlay : public Overlay {
 public:
  explicit ContactOverlay(const OverlayContext& context);
  void update(std::span<const Eigen::Isometry3d> X_WF) override;
  const char* handle_key(char key) override;

  void set_visible(bool on);
  bool visible() const { return visible_; }
  /// Actors highlighted in the pose last shown (SceneView::actors() order).
  const std::vector<std::size_t>& actors() const { return now_; }

 private:
  /// Restores the last highlight, then highlights the pose's contacts when visible.
  void highlight();
  const SceneView& view_;
  bool visible_;
  std::vector<std::vector<std::size_t>> groups_;  // sibling moving actors
  std::vector<std::size_t> now_;                  // highlighted now
  std::vector<std::array<double, 3>> colors_;     // RGB as the scene gives them, to restore
};

}  // namespace cosim::visual::detail
