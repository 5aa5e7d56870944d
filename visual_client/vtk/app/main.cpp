// cosim-visual: the virtual side of seed 000 (BondSim3DVisual). Builds VTK actors from the
// scene (XML or URDF), moves them to every frame cosim-dynamics sends, reports the probes' world
// coordinates computed from the actors, and shows the result in a window or renders it
// offscreen into a video.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>

#include "cosim/platform/console.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/signals.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/protocol/program_options.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/visual/vtk/display.hpp"
#include "cosim/visual/vtk/pose.hpp"
#include "cosim/visual/vtk/scene_view.hpp"
#include "cosim/visual/vtk/video_encoder.hpp"
#include "cosim/visual/vtk/viewer.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"
#include "cosim/wire/interrupt.hpp"
#include "visual_app.hpp"

namespace cosim::visual::app {

CameraMode camera_mode(const VisualOptions& options, CameraMode automatic) {
  if (options.camera == "robot") return CameraMode::robot;
  if (options.camera == "follow") return CameraMode::follow;
  if (options.camera == "overview") return CameraMode::overview;
  return automatic;
}

namespace {

/// One pose, no dynamics: a screenshot (offscreen), or a window to look at it.
int run_pose(const VisualOptions& options, const scene::SceneModel& scene) {
  std::vector<double> q(scene.joint_names().size(), 0.0);
  if (!options.pose_file.empty()) apply_pose_file(scene, options.pose_file, q);
  if (!options.joints.empty()) apply_joint_list(scene, options.joints, q);
  if (options.offscreen && options.screenshot.empty()) {
    throw util::BadInputError("--pose/--joints without a window needs --screenshot FILE.png");
  }
  SceneView view(scene, options.triangle_budget);
  ViewerOptions v;
  v.width = options.width;
  v.height = options.height;
  v.offscreen = options.offscreen || !options.screenshot.empty();
  v.camera = camera_mode(options, CameraMode::robot);
  v.contact = options.contact;
  v.all_probes = options.all_probe_marks;
  v.tracked_probe = scene.probes().empty() ? -1 : scene.default_probes()[0];
  Viewer viewer(view, v);
  // The default camera is framed on the zero pose, so that two poses share one view.
  std::vector<double> zero(q.size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size(), Eigen::Isometry3d::Identity());
  scene.world_transforms(zero, X_WF);
  viewer.show(X_WF);
  scene.world_transforms(q, X_WF);
  viewer.show(X_WF);
  viewer.render();
  if (!options.screenshot.empty()) {
    if (!options.screenshot.parent_path().empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options.screenshot.parent_path(), ec);
    }
    viewer.write_png(options.screenshot);
    if (!options.quiet) std::printf("cosim-visual: screenshot %s\n", options.screenshot.c_str());
    return util::kExitOk;
  }
  vtkRenderWindowInteractor* interactor = viewer.make_interactor([&](char key) {
    if (key != 's') return false;  // the viewer's own keys (camera, grid...) and VTK's
    viewer.write_png("cosim-visual-pose.png");
    std::printf("cosim-visual: screenshot cosim-visual-pose.png\n");
    return true;
  });
  interactor->Initialize();
  interactor->Start();
  return util::kExitOk;
}

/// Renders N frames of a synthetic motion offscreen and prints the rate: every prismatic
/// joint oscillates over +-1 m, every revolute joint turns at 2 rad/s.
int run_bench(const VisualOptions& options, const scene::SceneModel& scene) {
  using Clock = std::chrono::steady_clock;
  SceneView view(scene, options.triangle_budget);
  ViewerOptions v;
  v.width = options.width;
  v.height = options.height;
  v.offscreen = true;
  v.camera = camera_mode(options, CameraMode::follow);
  v.inset = options.inset && v.camera == CameraMode::follow;  // as in a run: its cost counts
  v.hud = options.hud;
  v.tracked_probe = scene.probes().empty() ? -1 : scene.default_probes()[0];
  v.trail_capacity = static_cast<std::size_t>(options.bench_frames) + 1;
  Viewer viewer(view, v);
  std::unique_ptr<VideoEncoder> video;
  if (!options.video.empty()) {
    VideoOptions vo;
    vo.file = options.video;
    vo.width = options.width;
    vo.height = options.height;
    vo.fps = 30;
    video = std::make_unique<VideoEncoder>(vo);
  }
  std::vector<bool> prismatic(scene.joint_names().size(), false);
  for (std::size_t i = 0; i < prismatic.size(); ++i) {
    prismatic[i] = scene.frames()[static_cast<std::size_t>(scene.joint_frames()[i])].drive == scene::DriveType::prismatic;
  }
  std::vector<double> q(scene.joint_names().size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size(), Eigen::Isometry3d::Identity());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size(), Eigen::Vector3d::Zero());
  char hud[128];
  double render_s = 0, readback_s = 0, encode_s = 0;
  // One warm-up frame: shader compilation and buffer uploads are not per-frame costs.
  scene.world_transforms(q, X_WF);
  viewer.show(X_WF);
  viewer.render();
  viewer.window()->WaitForCompletion();
  const auto start = Clock::now();
  for (int k = 0; k < options.bench_frames; ++k) {
    const double t = k / 30.0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      q[i] = prismatic[i] ? std::sin(0.5 * t + static_cast<double>(i)) : 2.0 * t + static_cast<double>(i);
    }
    const auto t0 = Clock::now();
    scene.world_transforms(q, X_WF);
    viewer.show(X_WF);
    viewer.probe_positions(p_WP);
    if (options.hud) {
      std::snprintf(hud, sizeof hud, "t %8.3f s   frame %d", t, k + 1);
      viewer.set_hud_text(hud);
    }
    viewer.render();
    viewer.window()->WaitForCompletion();  // count the rasterisation, not just its submission
    const auto t1 = Clock::now();
    render_s += std::chrono::duration<double>(t1 - t0).count();
    if (video) {
      const auto pixels = viewer.read_rgba();
      const auto t2 = Clock::now();
      readback_s += std::chrono::duration<double>(t2 - t1).count();
      video->write(pixels);
      encode_s += std::chrono::duration<double>(Clock::now() - t2).count();
    }
  }
  if (video) video->finish();
  const double total_s = std::chrono::duration<double>(Clock::now() - start).count();
  const double n = options.bench_frames;
  std::printf("cosim-visual bench: scene %s, %zu actors (%zu closed), %zu triangles (%zu mesh triangles read, %zu "
              "meshes decimated), %dx%d offscreen, %d frames\n",
              scene.name().c_str(), view.actors().size(), view.closed_renders(), view.triangle_count(),
              view.mesh_triangles_read(), view.meshes_decimated(), options.width, options.height, options.bench_frames);
  std::printf("render: %.1f fps (%.2f ms/frame)\n", n / render_s, 1e3 * render_s / n);
  if (video) {
    std::printf("readback: %.2f ms/frame, video write: %.2f ms/frame (%s)\n", 1e3 * readback_s / n,
                1e3 * encode_s / n, video->file().c_str());
  }
  std::printf("total: %.1f fps (%.3f s)\n", n / total_s, total_s);
  return util::kExitOk;
}

bool parse_size(const std::string& text, int& width, int& height) {
  const auto x = text.find('x');
  if (x == std::string::npos) return false;
  try {
    std::size_t used = 0;
    width = std::stoi(text.substr(0, x), &used);
    if (used != x) return false;
    height = std::stoi(text.substr(x + 1), &used);
    if (used != text.size() - x - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  return width >= 16 && height >= 16 && width <= 8192 && height <= 8192;
}

/// Standalone modes have no Hello to name a scene: without --scene they show this one.
constexpr const char* kStandaloneScene = "robotino";

int run(VisualOptions options) {
  namespace fs = std::filesystem;
  std::unique_ptr<util::EventLog> log;
  SessionState state;
  try {
    fs::path log_path;
    if (!options.out_dir.empty()) {
      std::error_code ec;
      fs::create_directories(options.out_dir, ec);
      if (ec) throw util::BadInputError("--out " + options.out_dir.string() + ": cannot create: " + ec.message());
      log_path = options.out_dir / "visual.log";
    }
    log = std::make_unique<util::EventLog>("cosim-visual", log_path, false);
    route_vtk_messages([&log](std::string_view message) { log->warn(message); });

    const bool standalone = options.standalone || options.bench_frames > 0;
    // A scene given (or needed now) first: a bad scene is reported before any display or peer.
    std::optional<scene::SceneModel> scene;
    fs::path scene_path = options.scene;
    if (scene_path.empty() && standalone) scene_path = scene::find_default_scene(kStandaloneScene);
    if (!scene_path.empty()) {
      scene.emplace(scene::SceneModel::load(scene_path, {.package_path = options.package_path}));
      log->info("scene " + scene->name() + " from " + scene_path.string() + ": " +
                std::to_string(scene->joint_names().size()) + " driven joints, " +
                std::to_string(scene->probes().size()) + " probes");
    }

    const bool own_x_server = ensure_x_display(options.width, options.height);  // a private Xvfb without DISPLAY
    // No window without a display of the user's, nor for screenshots and benchmarks.
    options.offscreen = options.offscreen || own_x_server || options.bench_frames > 0 ||
                        (options.standalone && !options.screenshot.empty());
    if (options.offscreen && options.video.empty() && !options.out_dir.empty() && !standalone) {
      options.video = options.out_dir / "video.mp4";
    }

    if (options.bench_frames > 0) return run_bench(options, *scene);
    if (options.standalone) return run_pose(options, *scene);
    run_session(options, scene ? &*scene : nullptr, *log, state);
    return util::kExitOk;
  } catch (...) {  // the one place cosim-visual catches (STYLE 9)
    const protocol::Outcome outcome = protocol::outcome_of(std::current_exception());
    if (log) {
      log->error(outcome.message);
    } else {
      std::fprintf(stderr, "cosim-visual: error: %s\n", outcome.message.c_str());
    }
    if (state.source) state.source->fail(outcome.exit_code, outcome.message);
    if (state.record) {
      try {
        state.record->flush();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "cosim-visual: error: cannot finish visual.cosimlog: %s\n", e.what());
      }
    }
    return outcome.exit_code;
  }
}

}  // namespace
}  // namespace cosim::visual::app

int main(int argc, char** argv) {
  using cosim::visual::app::VisualOptions;
  VisualOptions options;
  options.client.channel = cosim::protocol::default_channel_text();
  options.client.peer_kind = "visual";
  CLI::App app{
      "cosim-visual: the VTK visual client. Connects to cosim-dynamics, builds the 3D model of the scene, moves it "
      "to every frame received, and reports the probes' world coordinates computed from the rendered actors. Shows "
      "a window when an X display is available, paced to wall-clock time (--speed), else renders offscreen into a "
      "video. Window keys: space pause/resume, n step one frame, + / - speed, 1 / 2 / 3 robot / follow / overview "
      "camera, r reset camera, o top-view inset, g grid, a axes, p every probe / the compared ones, c roller in contact, t see-through / wireframe body, "
      "s screenshot, h key help, q quit; with --replay a time slider and [ / ] (1 s back / on); mouse: trackball "
      "camera. With DISPLAY unset it starts its own Xvfb "
      "(package xvfb), stopped when it ends; Debian's VTK renders through X only.\n\n"
      "Standalone: --joints/--pose with --screenshot renders one pose and exits; --bench-frames N measures the "
      "offscreen frame rate; --replay RUN_DIR/frames.cosimlog plays a recorded run again (into a window, or a video "
      "with --offscreen).",
      "cosim-visual"};
  app.set_version_flag("--version", cosim::protocol::version_banner("cosim-visual"));
  double open_timeout_s = 10, frame_timeout_s = 30;
  std::string size = cosim::protocol::kDefaultSize, hud = cosim::protocol::kDefaultHud;
  app.add_option("--channel", options.client.channel, cosim::protocol::visual_channel_forms() + ", as given to cosim-dynamics")->capture_default_str();
  app.footer(cosim::protocol::channel_help() +
             "tcp: from another machine: set COSIM_TCP_TOKEN to the token cosim-dynamics printed.\n" +
             "Examples:\n"
             "  cosim-visual --channel fifo:/tmp/run                  join a cosim-dynamics on that channel\n"
             "  cosim-visual --scene robot.urdf --screenshot pose.png  the zero pose, as PNG\n"
             "  cosim-visual --replay RUN_DIR/frames.cosimlog          a recorded run again");
  cosim::util::add_path_option(app, "--scene", options.scene,
                 "scene folder, project file or URDF file (default: the folder named after the model the dynamics "
                 "announces, lowercase, under $COSIM_SCENES_DIR or <install>/share/cosim/scenes; standalone: "
                 "robotino)");
  cosim::util::add_folder_list_option(app, "--package-path", options.package_path,
                 "folder holding the packages of a URDF's package://NAME/... meshes (repeatable or ':'-separated; "
                 "searched before $COSIM_PACKAGE_PATH)");
  cosim::util::add_path_option(app, "--out", options.out_dir,
                 "folder for visual.log, visual.cosimlog, screenshots/ and (offscreen) video.mp4")
      ->type_name("DIR");
  app.add_flag("--offscreen", options.offscreen,
               "no window: render offscreen (implied without a display, for --screenshot and --bench-frames)");
  app.add_option("--size", size, "render size [px]")->type_name("WxH")->capture_default_str();
  cosim::util::add_path_option(app, "--video", options.video,
                 "write every frame rendered to this H.264 MP4 through ffmpeg (.ogv by VTK when ffmpeg is "
                 "absent); default DIR/video.mp4 when offscreen with --out");
  app.add_option("--screenshot-every", options.screenshot_every, "PNG of every Nth frame into DIR/screenshots/; 0 = none")
      ->check(CLI::NonNegativeNumber);
  cosim::protocol::add_camera_option(app, options.camera)->capture_default_str();
  cosim::protocol::add_hud_option(app, hud)->capture_default_str();
  auto* hold_option = app.add_flag("--hold,!--no-hold", options.hold,
                                   "window: stay open after the run until closed (default: when started from a "
                                   "terminal)");
  app.add_flag("--contact", options.contact,
               "highlight, of each wheel, the part touching the floor (the roller in contact; key c)");
  app.add_option("--triangle-budget", options.triangle_budget,
                 "mesh triangles drawn at most: meshes of a scene holding more are decimated at load to fit "
                 "(big downloaded meshes); 0 = draw every triangle (e.g. for a screenshot at full detail)")
      ->capture_default_str();
  std::string probe_marks = cosim::protocol::kDefaultProbeMarks;
  cosim::protocol::add_probe_marks_option(app, probe_marks)->capture_default_str();
  std::string inset = cosim::protocol::kDefaultInset;
  cosim::protocol::add_inset_option(app, inset)->capture_default_str();
  cosim::protocol::add_speed_option(app, options.speed)->capture_default_str();
  app.add_option("--open-timeout", open_timeout_s, "seconds to wait for the dynamics")
      ->check(cosim::util::finite_range(0, 86400))
      ->capture_default_str();
  app.add_option("--frame-timeout", frame_timeout_s, "seconds to wait for each frame")
      ->check(cosim::util::finite_range(0.001, 86400))
      ->capture_default_str();
  auto* joints_option = app.add_option("--joints", options.joints,
                 "standalone pose: \"Robotino/x=0.3,Robotino/phi=40deg,...\"; a unit if any: m for a slide, rad or "
                 "deg for a hinge; joints not named are 0");
  auto* pose_option = cosim::util::add_path_option(app, "--pose", options.pose_file, "standalone pose from a file of 'joint = value' lines");
  cosim::util::add_path_option(app, "--screenshot", options.screenshot,
                               "write a pose (--joints/--pose; all joints 0 without them) as PNG and exit");
  app.add_option("--bench-frames", options.bench_frames,
                 "render this many frames of a synthetic motion offscreen, print frames per second, exit")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--slow-ms", options.slow_ms, "testing: sleep this many ms per frame, like a slow renderer")
      ->check(cosim::util::finite_range(0, 60000))
      ->capture_default_str();
  cosim::util::add_path_option(app, "--replay", options.replay,
                 "play a recorded run (RUN_DIR/frames.cosimlog) at its fps, without a dynamics process");
  app.add_flag("--as-fast-as-possible", options.as_fast_as_possible, "with --replay: do not wait for the recorded fps");
  double seek_s = 0;
  auto* seek_option = app.add_option("--seek", seek_s,
                                     "with --replay: start at this sim time [s] (the frame at or before it; in a "
                                     "window the time slider and keys [ ] move it)")
                          ->check(cosim::util::finite_range(0, 1e9));
  app.add_flag("-q,--quiet", options.quiet, "no summary on stdout");
  app.add_option("--protocol-major", options.client.protocol_major, "testing: answer with this protocol major")
      ->group("");
  // Checks across options, after parsing: their errors are usage errors like CLI11's own.
  app.final_callback([&] {
    int width = 0, height = 0;
    if (!cosim::visual::app::parse_size(size, width, height)) {
      throw CLI::ValidationError("--size", "'" + size + "' is not WIDTHxHEIGHT with 16..8192 px each");
    }
    options.width = width;
    options.height = height;
    // A screenshot with no pose given is of the zero pose: there is no dynamics to wait for.
    options.standalone = joints_option->count() > 0 || pose_option->count() > 0 ||
                         (!options.screenshot.empty() && options.replay.empty());
    if (!options.screenshot.empty() && options.screenshot.extension() != ".png") {
      throw CLI::ValidationError("--screenshot", "'" + options.screenshot.string() + "': PNG only, name it *.png");
    }
    if (seek_option->count() > 0) {
      if (options.replay.empty()) throw CLI::ValidationError("--seek", "needs --replay");
      options.seek_s = seek_s;
    }
  });
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  options.hud = hud == "on";
  options.inset = inset == "on";
  options.all_probe_marks = probe_marks == "all";
  // A person at a terminal wants to look at the end of the run; a script wants the exit.
  if (hold_option->count() == 0) options.hold = cosim::platform::stdin_is_terminal();
  if (options.as_fast_as_possible) options.speed = 0;
  options.client.open_timeout = std::chrono::milliseconds(static_cast<long>(open_timeout_s * 1000));
  options.client.frame_timeout = std::chrono::milliseconds(static_cast<long>(frame_timeout_s * 1000));
  cosim::protocol::install_stop_signal_handlers();
  return cosim::visual::app::run(options);
}
