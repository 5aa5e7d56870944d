#pragma once
/// \file
/// The render window around a SceneView: camera, HUD, probe trail, pixel capture.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>

#include <Eigen/Geometry>
#include <vtkSmartPointer.h>

#include "cosim/visual/vtk/scene_view.hpp"

class vtkActor;
class vtkCellArray;
class vtkPNGWriter;
class vtkPoints;
class vtkPolyData;
class vtkRenderWindow;
class vtkRenderWindowInteractor;
class vtkRenderer;
class vtkTextActor;
class vtkUnsignedCharArray;
class vtkWindowToImageFilter;

namespace cosim::visual {

/// Where the camera looks. Zero is not a valid value.
enum class CameraMode : std::uint8_t {
  robot = 1,  ///< fixed, framing the moving parts at the first pose shown (seed Fig. 11b)
  follow,     ///< like `robot`, then translated with the tracked probe every frame
  overview,   ///< fixed, framing the whole scene
};

struct ViewerOptions {
  int width = 1280, height = 720;  ///< [px]
  bool offscreen = true;           ///< render into an offscreen buffer of an X window
  CameraMode camera = CameraMode::robot;
  bool hud = false;                ///< text overlay, set with set_hud_text()
  std::size_t trail_capacity = 0;  ///< points of the probe trail on the floor; 0 = no trail
  int tracked_probe = -1;          ///< scene probe the follow camera and the trail use; -1 = none
};

/// One render window showing a SceneView. Everything is created in the constructor; per
/// frame only matrices, the camera, the HUD string and the trail's next point change.
class Viewer {
 public:
  Viewer(SceneView& view, const ViewerOptions& options);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  /// Moves the model to X_WF (SceneModel::world_transforms() output); moves the follow
  /// camera and extends the trail with the tracked probe.
  void show(std::span<const Eigen::Isometry3d> X_WF);
  /// Probe positions from the actors' transforms of the pose last shown (SceneView).
  void probe_positions(std::span<Eigen::Vector3d> p_WP) const { view_.probe_positions(p_WP); }
  /// Puts the camera back to its default for the current pose.
  void reset_camera();
  void set_hud_text(const char* text);
  void render();

  int width() const { return width_; }
  int height() const { return height_; }
  /// RGBA pixels of the last render, rows bottom-up, width()*height()*4 bytes (RGBA reads
  /// straight from the framebuffer; RGB took Mesa a conversion, 3x longer). The buffer is
  /// reused: valid until the next call.
  std::span<const std::uint8_t> read_rgba();
  /// Writes the last render as PNG. Throws util::BadInputError when the file cannot be written.
  void write_png(const std::filesystem::path& file);

  /// For interactive use: an interactor with a trackball camera, `r` = reset_camera(),
  /// `s` = on_screenshot(); VTK's other keys (q/e quit, w wireframe...) stay.
  vtkRenderWindowInteractor* make_interactor(std::function<void()> on_screenshot);

  vtkRenderWindow* window() const;
  vtkRenderer* renderer() const;
  std::size_t trail_points() const { return trail_count_; }

 private:
  void update_tracking();
  bool target_of_pose(double target[3]) const;
  SceneView& view_;
  ViewerOptions options_;
  int width_, height_;
  vtkSmartPointer<vtkRenderWindow> window_;
  vtkSmartPointer<vtkRenderer> renderer_;
  vtkSmartPointer<vtkTextActor> hud_;
  vtkSmartPointer<vtkPoints> trail_points_;
  vtkSmartPointer<vtkCellArray> trail_lines_;
  vtkSmartPointer<vtkPolyData> trail_;
  vtkSmartPointer<vtkActor> trail_actor_;
  std::size_t trail_count_ = 0;
  vtkSmartPointer<vtkUnsignedCharArray> pixels_;
  vtkSmartPointer<vtkWindowToImageFilter> grab_;
  vtkSmartPointer<vtkPNGWriter> png_;
  vtkSmartPointer<vtkRenderWindowInteractor> interactor_;
  std::vector<Eigen::Vector3d> p_WP_;  // all probes, preallocated
  Eigen::Vector3d last_target_ = Eigen::Vector3d::Zero();
  bool camera_set_ = false;
};

}  // namespace cosim::visual
