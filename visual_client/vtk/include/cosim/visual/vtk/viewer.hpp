#pragma once
/// \file
/// The render window around a SceneView: camera, overlays (HUD, grid, probe trail, inset...),
/// keys, pixel capture.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/visual/vtk/scene_view.hpp"

class vtkRenderWindow;
class vtkRenderWindowInteractor;
class vtkRenderer;

namespace cosim::visual {

/// Where the camera looks. Zero is not a valid value.
enum class CameraMode : std::uint8_t {
  robot = 1,  ///< fixed, framing the moving parts at the first pose shown (seed Fig. 11b)
  follow,     ///< like `robot`, then translated with the tracked probe every frame
  overview,   ///< fixed, framing the whole scene
};

/// The mode's name as --camera takes it: robot, follow or overview.
const char* camera_mode_name(CameraMode mode);

/// How the body the tracked probe sits on is drawn (key `t` cycles): see the wheels through it.
enum class BodyStyle : std::uint8_t { solid = 1, transparent, wireframe };

/// What a Viewer draws, and how big; the flags are where the overlays start (keys toggle them).
struct ViewerOptions {
  int width = 1280, height = 720;  ///< [px]
  bool offscreen = true;           ///< render into an offscreen buffer of an X window
  CameraMode camera = CameraMode::robot;
  bool hud = false;                ///< text overlay, set with set_hud_text()
  std::size_t trail_capacity = 0;  ///< points of the probe trail on the floor; 0 = no trail
  int tracked_probe = -1;          ///< scene probe the follow camera and the trail use; -1 = none
  bool grid = true;                ///< lines on the floor every metre (every 0.25 m too where they span <= 20 m)
  bool axes = true;                ///< the world frame's axes, a triad in the top right corner
  bool probes = true;              ///< probes drawn as orange dots over the model
  /// The scene probes drawn (those a run compares); empty: the scene's default probes. Key `p`
  /// shows every probe of the scene instead, and back.
  std::vector<int> marked_probes;
  bool all_probes = false;         ///< start showing every probe (--probe-marks all)
  /// Highlight what touches the floor (z = 0): of each set of sibling parts (the rollers of
  /// one wheel), the lowest, when it comes within 1 mm of the floor.
  bool contact = false;
  /// A top view of the robot and its whole path in a corner (picture in picture), framed
  /// anew whenever the path leaves it.
  bool inset = false;
};

/// One render window showing a SceneView, the facade of its parts (private, under src/):
/// the window and camera (viewer_window), the overlays (overlays/: HUD, grid, axes, probe
/// marks, trail, inset, contact, body style; one class each, listed in overlays.cpp) and the
/// input (viewer_input: keys, interactor, time slider). Everything is created in the
/// constructor; per frame only matrices, the camera, the HUD string and the trail's next
/// point change.
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
  /// (Computed once by show(); copied here.)
  void probe_positions(std::span<Eigen::Vector3d> p_WP) const;
  /// Puts the camera back to its default for the current pose.
  void reset_camera();
  /// Switches the camera mode at run time and frames the current pose for it.
  void set_camera_mode(CameraMode mode);
  CameraMode camera_mode() const;
  void set_axes_visible(bool on);
  bool axes_visible() const;
  void set_grid_visible(bool on);
  bool grid_visible() const;
  void set_inset_visible(bool on);
  bool inset_visible() const;
  void set_contact_visible(bool on);
  bool contact_visible() const;
  /// Actors highlighted as touching the floor in the pose last shown (SceneView::actors() order).
  const std::vector<std::size_t>& contact_actors() const;
  void set_body_style(BodyStyle style);
  BodyStyle body_style() const;
  /// Second text overlay at the bottom left (the key help); empty hides it.
  void set_help_text(const char* text);
  void set_hud_text(const char* text);
  void render();

  int width() const;   ///< [px]
  int height() const;  ///< [px]
  /// RGBA pixels of the last render, rows bottom-up, width()*height()*4 bytes (RGBA reads
  /// straight from the framebuffer; RGB took Mesa a conversion, 3x longer). The buffer is
  /// reused: valid until the next call.
  std::span<const std::uint8_t> read_rgba();
  /// Writes the last render as PNG. Throws util::BadInputError when the file cannot be written.
  void write_png(const std::filesystem::path& file);

  /// Handles one key of the viewer's own: r reset camera, 1/2/3 robot/follow/overview camera,
  /// o inset, g grid, a axes, c contact, t body style. Returns a short description of what it
  /// did (for the log), or null for a key that is not the viewer's.
  const char* handle_key(char key);
  /// The viewer's keys, one line each, for a help overlay.
  static const char* key_help();

  /// For interactive use: an interactor with a trackball camera; each key goes to `on_key`
  /// first (true = taken), then to handle_key(), then to VTK (q/e quit, w/s wireframe...,
  /// except VTK's `3`, stereo, which handle_key() takes).
  vtkRenderWindowInteractor* make_interactor(std::function<bool(char)> on_key);

  /// Starts the trail again from these tracked-probe positions [m, world], as if the frames
  /// they belong to had been shown (a replay that jumped); the next show() goes on from there.
  void reset_trail(std::span<const Eigen::Vector3d> p_W);

  /// A time slider along the bottom (after make_interactor()): dragging it calls on_seek with
  /// the time chosen [s]; set_slider_time() moves it with the frames shown, except while dragged.
  void add_time_slider(double t0_s, double t1_s, std::function<void(double)> on_seek);
  void set_slider_time(double t_s);

  vtkRenderWindow* window() const;
  vtkRenderer* renderer() const;
  /// The inset's renderer (picture in picture); null without ViewerOptions::inset.
  vtkRenderer* inset_renderer() const;
  /// Points of the probe trail now.
  std::size_t trail_points() const;

 private:
  struct Parts;  // window, overlays, input (viewer.cpp)
  std::unique_ptr<Parts> parts_;
};

}  // namespace cosim::visual
