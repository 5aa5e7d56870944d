#pragma once
// A Viewer's render window and main camera, and the read-back of its pixels. Internal to
// cosim::visual_vtk.

#include <cstdint>
#include <filesystem>
#include <span>

#include <Eigen/Geometry>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>

#include "cosim/visual/vtk/viewer.hpp"
#include "viewer_pose.hpp"

class vtkPNGWriter;
class vtkUnsignedCharArray;
class vtkWindowToImageFilter;

namespace cosim::visual::detail {

/// The render window with its main renderer (the scene's actors, one headlight) and the
/// camera's modes (CameraMode). Overlays add their actors to renderer() and their own
/// renderers (corners) to window(); read_rgba() and write_png() read back what was rendered.
class ViewerWindow {
 public:
  /// Opens the window (offscreen or not, ViewerOptions) and adds the view's actors.
  ViewerWindow(SceneView& view, const ViewerOptions& options, const ShownPose& pose);
  ViewerWindow(const ViewerWindow&) = delete;
  ViewerWindow& operator=(const ViewerWindow&) = delete;

  vtkRenderWindow* window() const { return window_; }
  vtkRenderer* renderer() const { return renderer_; }
  int width() const { return width_; }    ///< [px]
  int height() const { return height_; }  ///< [px]

  CameraMode camera_mode() const { return camera_; }
  /// Switches the mode and frames the pose last shown for it.
  void set_camera_mode(CameraMode mode);
  /// Frames the pose last shown as the current mode does by default.
  void reset_camera();
  /// Per frame: the follow camera translates with the tracked probe.
  void follow();

  void render();
  /// RGBA of the last render, rows bottom-up; the buffer is reused (Viewer::read_rgba()).
  std::span<const std::uint8_t> read_rgba();
  /// Throws util::BadInputError when the file cannot be written.
  void write_png(const std::filesystem::path& file);
  /// Releases the GL resources while the context still exists (before anything is destroyed).
  void finalize();

 private:
  const SceneView& view_;
  const ShownPose& pose_;
  bool offscreen_;
  int width_, height_;  // [px]
  CameraMode camera_;
  Eigen::Vector3d last_target_ = Eigen::Vector3d::Zero();  // tracked probe at the last camera move [m, world]
  vtkSmartPointer<vtkRenderer> renderer_;
  vtkSmartPointer<vtkRenderWindow> window_;
  vtkSmartPointer<vtkUnsignedCharArray> pixels_;
  vtkSmartPointer<vtkWindowToImageFilter> grab_;
  vtkSmartPointer<vtkPNGWriter> png_;
};

}  // namespace cosim::visual::detail
