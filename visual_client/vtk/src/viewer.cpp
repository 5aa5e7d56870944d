#include "cosim/visual/vtk/viewer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "overlays/overlays.hpp"
#include "viewer_input.hpp"
#include "viewer_pose.hpp"
#include "viewer_window.hpp"

namespace cosim::visual {

namespace {

/// The options with a tracked probe the scene has (else none).
ViewerOptions checked(ViewerOptions options, std::size_t probes) {
  if (options.tracked_probe >= static_cast<int>(probes)) options.tracked_probe = -1;
  return options;
}

}  // namespace

/// The Viewer's parts, each holding references to those before it: built in this order,
/// destroyed in the reverse one (the input first, the window last).
struct Viewer::Parts {
  Parts(SceneView& view_in, const ViewerOptions& options_in)
      : view(view_in),
        options(checked(options_in, view_in.scene().probes().size())),
        pose{std::vector<Eigen::Vector3d>(view_in.scene().probes().size(), Eigen::Vector3d::Zero()),
             options.tracked_probe},
        window(view, options, pose),
        overlays(detail::OverlayContext{view, options, window, pose}),
        input(window, overlays) {}

  SceneView& view;
  ViewerOptions options;  // as given, tracked_probe checked
  detail::ShownPose pose;
  detail::ViewerWindow window;
  detail::ViewerOverlays overlays;
  detail::ViewerInput input;
};

Viewer::Viewer(SceneView& view, const ViewerOptions& options) : parts_(std::make_unique<Parts>(view, options)) {}

Viewer::~Viewer() {
  // The interactor lets go of the window; GL resources are released while the context still exists.
  parts_->input.detach();
  parts_->window.finalize();
}

void Viewer::show(std::span<const Eigen::Isometry3d> X_WF) {
  Parts& p = *parts_;
  p.view.update(X_WF);
  p.view.probe_positions(p.pose.p_WP);
  ++p.pose.count;
  // The first pose frames the camera; the follow camera then moves with every pose.
  if (p.pose.first()) p.window.reset_camera();
  p.window.follow();
  p.overlays.update(X_WF);
}

void Viewer::probe_positions(std::span<Eigen::Vector3d> p_WP) const {
  const std::vector<Eigen::Vector3d>& shown = parts_->pose.p_WP;
  if (p_WP.size() != shown.size()) {
    throw std::invalid_argument("Viewer::probe_positions: " + std::to_string(p_WP.size()) + " slots for " +
                                std::to_string(shown.size()) + " probes");
  }
  std::copy(shown.begin(), shown.end(), p_WP.begin());
}

// The camera, the window and its pixels.
void Viewer::reset_camera() { parts_->window.reset_camera(); }
void Viewer::set_camera_mode(CameraMode mode) { parts_->window.set_camera_mode(mode); }
CameraMode Viewer::camera_mode() const { return parts_->window.camera_mode(); }
void Viewer::render() { parts_->window.render(); }
int Viewer::width() const { return parts_->window.width(); }
int Viewer::height() const { return parts_->window.height(); }
std::span<const std::uint8_t> Viewer::read_rgba() { return parts_->window.read_rgba(); }
void Viewer::write_png(const std::filesystem::path& file) { parts_->window.write_png(file); }
vtkRenderWindow* Viewer::window() const { return parts_->window.window(); }
vtkRenderer* Viewer::renderer() const { return parts_->window.renderer(); }

// The overlays.
void Viewer::set_axes_visible(bool on) { parts_->overlays.axes->set_visible(on); }
bool Viewer::axes_visible() const { return parts_->overlays.axes->visible(); }
void Viewer::set_grid_visible(bool on) { parts_->overlays.grid->set_visible(on); }
bool Viewer::grid_visible() const { return parts_->overlays.grid->visible(); }
void Viewer::set_inset_visible(bool on) { parts_->overlays.inset->set_visible(on); }
bool Viewer::inset_visible() const { return parts_->overlays.inset->visible(); }
vtkRenderer* Viewer::inset_renderer() const { return parts_->overlays.inset->renderer(); }
void Viewer::set_contact_visible(bool on) { parts_->overlays.contact->set_visible(on); }
bool Viewer::contact_visible() const { return parts_->overlays.contact->visible(); }
const std::vector<std::size_t>& Viewer::contact_actors() const { return parts_->overlays.contact->actors(); }
void Viewer::set_body_style(BodyStyle style) { parts_->overlays.body->set_style(style); }
BodyStyle Viewer::body_style() const { return parts_->overlays.body->style(); }
std::size_t Viewer::trail_points() const { return parts_->overlays.trail->points(); }

void Viewer::reset_trail(std::span<const Eigen::Vector3d> p_W) {
  // The inset frames the whole path again.
  if (parts_->overlays.trail->reset(p_W)) parts_->overlays.inset->reframe();
}

void Viewer::set_hud_text(const char* text) {
  if (parts_->overlays.hud != nullptr) parts_->overlays.hud->set_text(text);
}

void Viewer::set_help_text(const char* text) {
  const bool on = text != nullptr && text[0] != '\0';
  parts_->overlays.help->set_text(on ? text : " ");
  parts_->overlays.help->set_visible(on);
}

// The input.
const char* Viewer::handle_key(char key) { return parts_->input.handle_key(key); }
const char* Viewer::key_help() { return detail::ViewerInput::key_help(); }
vtkRenderWindowInteractor* Viewer::make_interactor(std::function<bool(char)> on_key) {
  return parts_->input.make_interactor(std::move(on_key));
}
void Viewer::add_time_slider(double t0_s, double t1_s, std::function<void(double)> on_seek) {
  parts_->input.add_time_slider(t0_s, t1_s, std::move(on_seek));
}
void Viewer::set_slider_time(double t_s) { parts_->input.set_slider_time(t_s); }

}  // namespace cosim::visual
