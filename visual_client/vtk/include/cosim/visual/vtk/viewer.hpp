#pragma once
/// \file
/// The render window around a SceneView: camera, HUD, probe trail, pixel capture.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>

#include <Eigen/Geometry>
#include <vtkMatrix4x4.h>
#include <vtkSmartPointer.h>
#include <vtkType.h>

#include "cosim/visual/vtk/scene_view.hpp"

class vtkActor;
class vtkActor2D;
class vtkCellArray;
class vtkPNGWriter;
class vtkPoints;
class vtkProp3D;
class vtkPolyData;
class vtkRenderWindow;
class vtkRenderWindowInteractor;
class vtkRenderer;
class vtkSliderWidget;
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

const char* camera_mode_name(CameraMode mode);

/// How the body the tracked probe sits on is drawn (key `t` cycles): see the wheels through it.
enum class BodyStyle : std::uint8_t { solid = 1, transparent, wireframe };

struct ViewerOptions {
  int width = 1280, height = 720;  ///< [px]
  bool offscreen = true;           ///< render into an offscreen buffer of an X window
  CameraMode camera = CameraMode::robot;
  bool hud = false;                ///< text overlay, set with set_hud_text()
  std::size_t trail_capacity = 0;  ///< points of the probe trail on the floor; 0 = no trail
  int tracked_probe = -1;          ///< scene probe the follow camera and the trail use; -1 = none
  bool grid = true;                ///< lines on the floor every metre (and every 0.1 m near the robot)
  bool axes = true;                ///< the world frame's axes at the origin
  bool probes = true;              ///< every probe drawn as an orange dot over the model
  /// Highlight what touches the floor (z = 0): of each set of sibling parts (the rollers of
  /// one wheel), the lowest, when it comes within kContactTolerance_m of the floor.
  bool contact = false;
  /// A top view of the robot and its whole path in a corner (picture in picture), framed
  /// anew whenever the path leaves it.
  bool inset = false;
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
  /// (Computed once by show(); copied here.)
  void probe_positions(std::span<Eigen::Vector3d> p_WP) const;
  /// Puts the camera back to its default for the current pose.
  void reset_camera();
  /// Switches the camera mode at run time and frames the current pose for it.
  void set_camera_mode(CameraMode mode);
  CameraMode camera_mode() const { return options_.camera; }
  void set_axes_visible(bool on);
  bool axes_visible() const { return options_.axes; }
  void set_grid_visible(bool on);
  bool grid_visible() const { return options_.grid; }
  void set_inset_visible(bool on);
  bool inset_visible() const { return options_.inset; }
  void set_contact_visible(bool on);
  bool contact_visible() const { return options_.contact; }
  /// Actors highlighted as touching the floor in the pose last shown (SceneView::actors() order).
  const std::vector<std::size_t>& contact_actors() const { return contact_now_; }
  void set_body_style(BodyStyle style);
  BodyStyle body_style() const { return body_style_; }
  /// Second text overlay at the bottom left (the key help); empty hides it.
  void set_help_text(const char* text);
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

  /// Handles one key of the viewer's own: r reset camera, 1/2/3 robot/follow/overview camera,
  /// o inset, g grid, a axes, t body style. Returns a short description of what it did
  /// (for the log), or null for a key that is not the viewer's.
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
  std::size_t trail_points() const { return trail_count_; }

 private:
  void update_tracking();
  void add_trail_point(const Eigen::Vector3d& p);
  void frame_inset(bool force);
  void build_floor_marks();
  void sync_triad_camera();
  void update_contact();
  void update_probe_marks(std::span<const Eigen::Isometry3d> X_WF);
  bool target_of_pose(double target[3]) const;
  /// Which actors scene_bounds() takes: those moving with a driven joint, the others (a
  /// floor, walls), or all.
  enum class Parts : std::uint8_t { moving = 1, fixed, all };
  /// World bounds of the visible actors of `parts`; false when there is none.
  bool scene_bounds(double bounds[6], Parts parts) const;
  SceneView& view_;
  ViewerOptions options_;
  int width_, height_;
  vtkSmartPointer<vtkRenderWindow> window_;
  vtkSmartPointer<vtkRenderer> renderer_;
  vtkSmartPointer<vtkTextActor> hud_;
  vtkSmartPointer<vtkTextActor> help_;
  vtkSmartPointer<vtkActor> grid_actor_;        // metre lines
  vtkSmartPointer<vtkActor> grid_fine_actor_;   // quarter-metre lines
  vtkSmartPointer<vtkProp3D> axes_actor_;
  vtkSmartPointer<vtkRenderer> triad_;  // layer 1, top right: the world axes
  vtkSmartPointer<vtkPoints> probe_points_;
  vtkSmartPointer<vtkPolyData> probe_marks_;
  vtkSmartPointer<vtkActor2D> probe_actor_;
  vtkSmartPointer<vtkRenderer> inset_;
  vtkSmartPointer<vtkActor> inset_marker_;  // the robot in the inset: disc and heading
  vtkSmartPointer<vtkMatrix4x4> inset_marker_pose_ = vtkSmartPointer<vtkMatrix4x4>::New();
  double inset_bounds_[4] = {0, 0, 0, 0};  // x0 x1 y0 y1 [m] the inset frames now
  double robot_half_width_m_ = 0;  // of the moving parts at the first pose shown (inset)
  Eigen::Vector2d trail_lo_ = Eigen::Vector2d::Constant(VTK_DOUBLE_MAX);  // trail bounding box [m]
  Eigen::Vector2d trail_hi_ = Eigen::Vector2d::Constant(-VTK_DOUBLE_MAX);
  std::vector<vtkActor*> body_actors_;     // on the tracked probe's frame: BodyStyle applies
  BodyStyle body_style_ = BodyStyle::solid;
  // Contact highlight: moving actors grouped by the parent of their frame (siblings).
  std::vector<std::vector<std::size_t>> contact_groups_;
  std::vector<std::size_t> contact_now_;
  std::vector<std::array<double, 3>> actor_colors_;  // as the scene gives them, to restore
  vtkSmartPointer<vtkPoints> trail_points_;
  vtkSmartPointer<vtkCellArray> trail_lines_;
  vtkSmartPointer<vtkPolyData> trail_;
  vtkSmartPointer<vtkActor> trail_actor_;
  std::size_t trail_count_ = 0;
  vtkSmartPointer<vtkUnsignedCharArray> pixels_;
  vtkSmartPointer<vtkWindowToImageFilter> grab_;
  vtkSmartPointer<vtkPNGWriter> png_;
  vtkSmartPointer<vtkRenderWindowInteractor> interactor_;
  vtkSmartPointer<vtkSliderWidget> slider_;
  std::function<void(double)> on_seek_;
  bool slider_dragged_ = false;
  std::vector<Eigen::Vector3d> p_WP_;  // all probes, preallocated
  Eigen::Vector3d last_target_ = Eigen::Vector3d::Zero();
  bool camera_set_ = false;
};

}  // namespace cosim::visual
