// cosim-visual's coupled runs: frames from cosim-dynamics rendered offscreen (video,
// screenshots) or in a window that stays responsive while frames arrive.
#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkRenderWindowInteractor.h>

#include "cosim/platform/paths.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/run/visual_summary.hpp"
#include "cosim/scene/probe_set.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"
#include "cosim/visual/replay_session.hpp"
#include "cosim/visual/vtk/display.hpp"
#include "cosim/visual/vtk/video_encoder.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/interrupt.hpp"
#include "visual_app.hpp"

namespace cosim::visual::app {

namespace {

using Clock = std::chrono::steady_clock;

/// Render rate as an exponential moving average of frame intervals.
class RateMeter {
 public:
  void tick() {
    const auto now = Clock::now();
    if (last_) {
      const double dt = std::chrono::duration<double>(now - *last_).count();
      if (dt > 0) fps_ = fps_ == 0 ? 1.0 / dt : 0.9 * fps_ + 0.1 / dt;
    }
    last_ = now;
  }
  double fps() const { return fps_; }

 private:
  std::optional<Clock::time_point> last_;
  double fps_ = 0;
};

/// The window's time control (keys space, n, +, -): the viewer paces its own presentation to
/// wall-clock time. In lockstep the dynamics waits for each report, so it is paced with it; in
/// free mode frames that arrive while one is held are skipped, as for a slow renderer.
class Playback {
 public:
  static constexpr double kMinSpeed = 1.0 / 64, kMaxSpeed = 64;
  explicit Playback(double speed) : speed_(speed) {}

  /// Whether the frame of sim time t_s [s] is due now; consumes a step while paused.
  bool due(Clock::time_point now, double t_s) {
    if (paused_) {
      if (steps_ == 0) return false;
      --steps_;
      return true;
    }
    if (speed_ <= 0) return true;
    if (!anchor_) anchor_ = std::pair{now, t_s};
    const auto at = anchor_->first + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>((t_s - anchor_->second) / speed_));
    if (now < at) return false;
    // Far behind (a renderer slower than the speed asked): go on from here instead of rushing.
    if (now - at > std::chrono::milliseconds(250)) anchor_ = std::pair{now, t_s};
    return true;
  }
  /// After a frame was shown: the measured real-time factor (sim s per wall s, smoothed).
  void shown(Clock::time_point now, double t_s) {
    if (last_ && !paused_ && now > last_->first) {
      const double factor = (t_s - last_->second) / std::chrono::duration<double>(now - last_->first).count();
      rtf_ = rtf_ < 0 ? factor : 0.8 * rtf_ + 0.2 * factor;
    }
    last_ = std::pair{now, t_s};
  }
  void toggle_pause() {
    paused_ = !paused_;
    steps_ = 0;
    anchor_.reset();
    last_.reset();
    rtf_ = -1;
  }
  void step() {
    if (!paused_) toggle_pause();
    ++steps_;
  }
  void faster() {
    if (speed_ > 0) speed_ = speed_ * 2 > kMaxSpeed ? 0 : speed_ * 2;
    anchor_.reset();
  }
  /// After a jump: the pace starts again from the next frame shown.
  void restart() {
    anchor_.reset();
    last_.reset();
  }
  void slower() {
    speed_ = speed_ <= 0 ? kMaxSpeed : std::max(kMinSpeed, speed_ / 2);
    anchor_.reset();
  }
  bool paused() const { return paused_; }
  /// "1x", "1/4x", "max" (as frames come).
  std::string speed_text() const {
    char text[32];
    if (speed_ <= 0) return "max";
    if (speed_ >= 1) {
      std::snprintf(text, sizeof text, "%gx", speed_);
    } else {
      std::snprintf(text, sizeof text, "1/%gx", 1 / speed_);
    }
    return text;
  }
  /// One HUD line: speed, measured real-time factor, pause state.
  std::string hud_line() const {
    char text[128];
    if (paused_) {
      std::snprintf(text, sizeof text, "PAUSED (speed %s)   space resume  n step", speed_text().c_str());
    } else if (rtf_ >= 0) {
      std::snprintf(text, sizeof text, "speed %s   real-time factor %.2f   h keys", speed_text().c_str(), rtf_);
    } else {
      std::snprintf(text, sizeof text, "speed %s   h keys", speed_text().c_str());
    }
    return text;
  }

 private:
  double speed_;
  bool paused_ = false;
  int steps_ = 0;
  std::optional<std::pair<Clock::time_point, double>> anchor_;  // wall time at which sim time .second was due
  std::optional<std::pair<Clock::time_point, double>> last_;    // the last frame shown
  double rtf_ = -1;
};

constexpr const char* kSessionKeyHelp =
    "space pause/resume   n step   + faster   - slower   [ ] replay: 1 s back/on   s screenshot   q quit\n";

void format_hud(char* text, std::size_t size, double t_s, double t_end_s, std::uint64_t seq, std::uint32_t frame_count,
                double fps, std::uint64_t skipped, const FrameSource::ReportDelay& delay, const std::string& probe_name,
                const Eigen::Vector3d* p, const Playback* playback = nullptr) {
  // The probe delay is measured by the dynamics and comes back with the next frame (Frame.last_*).
  char delay_text[96] = "probe delay  -";
  if (delay.report_seq > 0) {
    std::snprintf(delay_text, sizeof delay_text, "probe delay  %u frames, round trip %.0f us", delay.delay_frames,
                  delay.rtt_us);
  }
  int n = std::snprintf(text, size, "t %8.3f / %.3f s   frame %llu / %u\nrender %5.1f fps   skipped %llu\n%s", t_s,
                        t_end_s, static_cast<unsigned long long>(seq), frame_count, fps,
                        static_cast<unsigned long long>(skipped), delay_text);
  if (p != nullptr && n > 0 && static_cast<std::size_t>(n) < size) {
    n += std::snprintf(text + n, size - static_cast<std::size_t>(n), "\n%s (%+.4f, %+.4f, %+.4f) m",
                       probe_name.c_str(), p->x(), p->y(), p->z());
  }
  if (playback != nullptr && n > 0 && static_cast<std::size_t>(n) < size) {
    std::snprintf(text + n, size - static_cast<std::size_t>(n), "\n%s", playback->hud_line().c_str());
  }
}

ViewerOptions viewer_options(const VisualOptions& options, const FrameSource& session, bool offscreen) {
  ViewerOptions v;
  v.width = options.width;
  v.height = options.height;
  v.offscreen = offscreen;
  v.camera = camera_mode(options, CameraMode::follow);
  v.inset = options.inset && v.camera == CameraMode::follow;
  v.contact = options.contact;
  v.hud = options.hud;
  v.tracked_probe = session.reported_probes().empty() ? -1 : session.reported_probes()[0];
  v.marked_probes.assign(session.reported_probes().begin(), session.reported_probes().end());
  v.all_probes = options.all_probe_marks;
  // One trail point per frame; capped so a very long run cannot grow it without bound.
  v.trail_capacity = std::min<std::size_t>(session.hello().frame_count() + 1, 1u << 20);
  return v;
}

std::filesystem::path screenshot_path(const VisualOptions& options, const char* stem, std::uint64_t number) {
  char name[64];
  std::snprintf(name, sizeof name, "%s_%06llu.png", stem, static_cast<unsigned long long>(number));
  const auto dir = (options.out_dir.empty() ? std::filesystem::path(".") : options.out_dir) / "screenshots";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw util::BadInputError("cannot create " + dir.string() + ": " + ec.message());
  return dir / name;
}

std::unique_ptr<VideoEncoder> open_video(const VisualOptions& options, const FrameSource& session,
                                         util::EventLog& log) {
  if (options.video.empty()) return nullptr;
  VideoOptions video;
  video.file = options.video;
  video.width = options.width;
  video.height = options.height;
  video.fps = session.hello().fps() > 0 ? session.hello().fps() : 30.0;
  if (!options.out_dir.empty()) video.ffmpeg_log = options.out_dir / "ffmpeg.log";
  auto encoder = std::make_unique<VideoEncoder>(video);
  if (encoder->uses_ffmpeg()) {
    log.info("video " + encoder->file().string() + " through ffmpeg (H.264), " + std::to_string(video.fps) + " fps");
  } else {
    log.warn("ffmpeg is not on PATH: writing " + encoder->file().string() + " with vtkOggTheoraWriter instead");
  }
  return encoder;
}

/// After a replay jumped to its current frame: the trail of the frames before it, as if they
/// had been shown (the tracked probe from the scene model, which SceneView equals to 1e-12 m).
void retrace(const ReplaySession& replay, const scene::SceneModel& scene, int tracked, Viewer& viewer) {
  if (tracked < 0) return;
  std::vector<double> q(scene.joint_names().size(), 0.0);
  const std::array<int, 1> only_tracked{tracked};
  scene::ProbeSet probes(scene, only_tracked);
  std::vector<Eigen::Vector3d> path;
  path.reserve(replay.index());
  for (std::size_t i = 0; i < replay.index(); ++i) {
    replay.q_scene_of(i, q);
    probes.set_joints(q);
    path.push_back(probes.locate()[0]);
  }
  viewer.reset_trail(path);
}

/// A replay started at --seek: the camera is set on the first recorded frame, as in the run,
/// then the replay jumps.
void prime_seek(const VisualOptions& options, ReplaySession* replay, const scene::SceneModel& scene, Viewer& viewer) {
  if (replay == nullptr || !options.seek_s || replay->frame_count() == 0) return;
  if (*options.seek_s > replay->last_time_s()) {  // it showed the last frame alone
    throw util::BadInputError("--seek " + util::format("%g", *options.seek_s) + " s: past the end of " +
                              platform::utf8(options.replay) + ", whose frames span " +
                              util::format("%g", replay->first_time_s()) + " to " +
                              util::format("%g", replay->last_time_s()) + " s");
  }
  std::vector<double> q(scene.joint_names().size(), 0.0);
  scene::ProbeSet frames(scene, {});
  replay->q_scene_of(0, q);
  viewer.show(frames.set_joints(q));
  replay->request_seek(*options.seek_s);
}

void finish_summary(const VisualOptions& options, const FrameSource& session, util::EventLog& log,
                    std::uint64_t rendered, double render_s, VideoEncoder* video) {
  run::VisualSummary summary;
  summary.program = "cosim-visual";
  summary.frames_received = session.frames_received();
  summary.frames_shown = rendered;
  summary.frames_skipped = session.frames_skipped();
  summary.frames_per_s = render_s > 0 ? static_cast<double>(rendered) / render_s : 0;
  if (video != nullptr) {
    summary.video = platform::utf8(video->file());
    summary.video_frames = video->frames_written();
  }
  const auto replay = session.replay_comparison();
  if (replay) {
    summary.replay_reports_compared = replay->reports_compared;
    summary.replay_max_difference_m = replay->max_difference_m;
  }
  char line[256];
  std::snprintf(line, sizeof line, "done: %llu frames received, %llu rendered, %llu skipped; %.1f frames/s",
                static_cast<unsigned long long>(summary.frames_received),
                static_cast<unsigned long long>(summary.frames_shown),
                static_cast<unsigned long long>(summary.frames_skipped), summary.frames_per_s);
  log.info(line);
  if (video != nullptr) log.info("video " + summary.video + ": " + std::to_string(summary.video_frames) + " frames");
  if (!options.quiet) {
    std::printf("cosim-visual: %llu frames received, %llu rendered, %llu skipped%s%s\n",
                static_cast<unsigned long long>(summary.frames_received),
                static_cast<unsigned long long>(summary.frames_shown),
                static_cast<unsigned long long>(summary.frames_skipped), video != nullptr ? "; video " : "",
                summary.video.c_str());
  }
  if (replay) {
    // As cosim-recorder --replay says it: the probes computed now against the run's reports.
    char diff[160];
    std::snprintf(diff, sizeof diff, "replayed probes vs recorded reports: %llu compared, max difference %.3g m",
                  static_cast<unsigned long long>(replay->reports_compared), replay->max_difference_m);
    log.info(diff);
    if (!options.quiet) std::printf("cosim-visual: %s\n", diff);
  }
  // The record the launcher reads (never this log line).
  if (!options.out_dir.empty()) run::write_visual_summary(run::visual_summary_file(options.out_dir, summary.program), summary);
}

/// Offscreen: one thread, render then report, then read back and encode while the dynamics
/// integrates the next frame.
void offscreen_loop(const VisualOptions& options, const scene::SceneModel& scene, SceneView& view,
                    FrameSource& session, ReplaySession* replay, util::EventLog& log) {
  Viewer viewer(view, viewer_options(options, session, true));
  prime_seek(options, replay, scene, viewer);
  auto video = open_video(options, session, log);
  // Should the X server vanish under us (Xvfb stopped by the same Ctrl-C), close the video
  // before Xlib ends the process.
  on_x_connection_lost([&video, &session, &log] {
    try {
      if (video) video->finish();
    } catch (...) {
    }
    const bool interrupted = wire::stop_requested();
    const auto code = interrupted ? util::kExitInterrupted : util::kExitPeerFailure;
    const std::string message = interrupted ? "interrupted" : "lost the connection to the X server";
    log.error(message);
    session.fail(code, message);
    std::fflush(nullptr);
    std::_Exit(code);
  });
  scene::ProbeSet probes(scene, session.reported_probes());
  const int tracked = session.reported_probes().empty() ? -1 : session.reported_probes()[0];
  const std::string tracked_name = tracked >= 0 ? scene.probes()[static_cast<std::size_t>(tracked)].name : "";
  const double t_end_s = session.hello().sim_end_s();
  const auto slow = std::chrono::duration<double, std::milli>(options.slow_ms);
  RateMeter rate;
  char hud[512];
  std::uint64_t rendered = 0;
  const auto start = Clock::now();
  while (session.next_frame()) {
    if (wire::stop_requested()) throw util::InterruptedError("interrupted");
    if (replay != nullptr && replay->jumped()) retrace(*replay, scene, tracked, viewer);
    // The probes as the rendered actors place them (SceneView), not the tree: that is the check.
    viewer.show(probes.set_joints(session.q_scene()));
    viewer.probe_positions(probes.all_probes());
    probes.pick();
    if (options.hud) {
      format_hud(hud, sizeof hud, session.sim_time_s(), t_end_s, session.seq(), session.hello().frame_count(),
                 rate.fps(), session.frames_skipped(), session.last_report_delay(), tracked_name,
                 tracked >= 0 ? &probes.all_probes()[static_cast<std::size_t>(tracked)] : nullptr);
      viewer.set_hud_text(hud);
    }
    viewer.render();
    ++rendered;
    rate.tick();
    if (options.slow_ms > 0) std::this_thread::sleep_for(slow);
    session.report(probes.reported());
    if (video) video->write(viewer.read_rgba());
    if (options.screenshot_every > 0 && session.seq() % static_cast<std::uint64_t>(options.screenshot_every) == 0) {
      viewer.write_png(screenshot_path(options, "frame", session.seq()));
    }
  }
  if (video) video->finish();
  on_x_connection_lost(nullptr);
  finish_summary(options, session, log, rendered, std::chrono::duration<double>(Clock::now() - start).count(),
                 video.get());
}

/// Hands frames from the session thread (which blocks on the channel) to the window's
/// thread (which must never block), and probe positions back.
struct Handoff {
  std::mutex mutex;
  std::condition_variable changed;
  enum class State : std::uint8_t { waiting = 1, frame_ready, probes_ready, finished } state = State::waiting;
  bool quit = false;                  // the window closed: the session thread stops
  bool jumped = false;                // the frame handed over was reached by a replay's seek
  bool discard = false;               // the frame handed over was not shown (a seek): no report
  std::vector<double> q;              // joint values of the frame handed over (scene order)
  std::vector<Eigen::Vector3d> p_WP;  // its probes, in Welcome order
  std::uint64_t seq = 0, skipped = 0;
  double t_s = 0;
  FrameSource::ReportDelay delay;
  std::exception_ptr error;
};

void session_thread(FrameSource& session, ReplaySession* replay, Handoff& handoff) {
  try {
    while (session.next_frame()) {
      std::unique_lock lock(handoff.mutex);
      handoff.jumped = replay != nullptr && replay->jumped();
      if (handoff.quit) throw util::InterruptedError("the window was closed during the run");
      std::copy(session.q_scene().begin(), session.q_scene().end(), handoff.q.begin());
      handoff.seq = session.seq();
      handoff.t_s = session.sim_time_s();
      handoff.skipped = session.frames_skipped();
      handoff.delay = session.last_report_delay();
      handoff.state = Handoff::State::frame_ready;
      handoff.changed.notify_all();
      handoff.changed.wait(lock, [&] { return handoff.state == Handoff::State::probes_ready || handoff.quit; });
      if (handoff.quit) throw util::InterruptedError("the window was closed during the run");
      if (std::exchange(handoff.discard, false)) continue;  // never shown: nothing to report
      lock.unlock();
      session.report(handoff.p_WP);
    }
  } catch (...) {
    std::lock_guard lock(handoff.mutex);
    handoff.error = std::current_exception();
  }
  std::lock_guard lock(handoff.mutex);
  handoff.state = Handoff::State::finished;
  handoff.changed.notify_all();
}

/// Interactive: the window's event loop polls the handoff on a 5 ms timer.
void interactive_loop(const VisualOptions& options, const scene::SceneModel& scene, SceneView& view,
                      FrameSource& session, ReplaySession* replay, util::EventLog& log) {
  Viewer viewer(view, viewer_options(options, session, false));
  auto video = open_video(options, session, log);
  scene::ProbeSet probes(scene, session.reported_probes());
  Handoff handoff;
  handoff.q.assign(scene.joint_names().size(), 0.0);
  handoff.p_WP.assign(session.reported_probes().size(), Eigen::Vector3d::Zero());
  std::vector<double> q(scene.joint_names().size(), 0.0);
  const int tracked = session.reported_probes().empty() ? -1 : session.reported_probes()[0];
  const std::string tracked_name = tracked >= 0 ? scene.probes()[static_cast<std::size_t>(tracked)].name : "";
  const double t_end_s = session.hello().sim_end_s();
  const auto slow = std::chrono::duration<double, std::milli>(options.slow_ms);
  RateMeter rate;
  char hud[512];
  std::uint64_t rendered = 0, shots = 0, shown_seq = 0;
  bool finished = false, help = false;
  std::exception_ptr loop_error;
  Playback playback(options.speed);
  // The frame shown last, for the HUD (also redrawn when a key changes the playback).
  struct Shown {
    double t_s = 0;
    std::uint64_t skipped = 0;
    FrameSource::ReportDelay delay;
  } shown;
  auto update_hud = [&] {
    if (!options.hud || shown_seq == 0) return;
    format_hud(hud, sizeof hud, shown.t_s, t_end_s, shown_seq, session.hello().frame_count(), rate.fps(),
               shown.skipped, shown.delay, tracked_name,
               tracked >= 0 ? &probes.all_probes()[static_cast<std::size_t>(tracked)] : nullptr, &playback);
    viewer.set_hud_text(hud);
  };

  // The first pose before any frame: all joints at zero.
  viewer.show(probes.set_joints(q));
  viewer.set_hud_text(("waiting for frames on " + options.client.channel).c_str());
  const std::string help_text = std::string(kSessionKeyHelp) + Viewer::key_help();
  // A replay jumps to t_s: the frame held for showing (if any) is dropped unreported, and a
  // paused player shows the frame it jumped to.
  auto seek = [&](double t_s) {
    if (replay == nullptr) return;
    replay->request_seek(t_s);
    std::lock_guard lock(handoff.mutex);
    if (handoff.state == Handoff::State::frame_ready) {
      handoff.discard = true;
      handoff.state = Handoff::State::probes_ready;
      handoff.changed.notify_all();
    }
    playback.restart();
    if (playback.paused()) playback.step();
  };
  // Every key the user presses and what it did goes to visual.log: a run can be told apart
  // from one that was paused or stepped.
  vtkRenderWindowInteractor* interactor = viewer.make_interactor([&](char key) {
    std::string did;
    switch (key) {
      case '[':
      case ']':
        if (replay == nullptr) return false;
        seek(shown.t_s + (key == '[' ? -1.0 : 1.0));
        did = std::string("seek ") + (key == '[' ? "back" : "forward") + " 1 s from t " + std::to_string(shown.t_s);
        break;
      case ' ':
        playback.toggle_pause();
        did = (playback.paused() ? "paused at frame " : "resumed at frame ") + std::to_string(shown_seq);
        break;
      case 'n':
      case '.':
        playback.step();
        did = "step after frame " + std::to_string(shown_seq);
        break;
      case '+':
      case '=':
        playback.faster();
        did = "speed " + playback.speed_text();
        break;
      case '-':
        playback.slower();
        did = "speed " + playback.speed_text();
        break;
      case 'h':
        help = !help;
        viewer.set_help_text(help ? help_text.c_str() : "");
        did = help ? "help on" : "help off";
        break;
      case 's': {
        const auto file = screenshot_path(options, "shot", ++shots);
        viewer.render();
        viewer.write_png(file);
        std::printf("cosim-visual: screenshot %s\n", file.c_str());
        did = "screenshot " + file.string();
        break;
      }
      default:
        if (const char* what = viewer.handle_key(key)) did = what;
    }
    if (did.empty()) return false;
    if (!finished) update_hud();
    log.info("key '" + std::string(1, key) + "': " + did);
    return true;
  });
  if (replay != nullptr) viewer.add_time_slider(replay->first_time_s(), replay->last_time_s(), seek);
  prime_seek(options, replay, scene, viewer);
  interactor->Initialize();
  log.info("window shown, " + std::to_string(options.width) + "x" + std::to_string(options.height) + ", camera " +
           camera_mode_name(viewer.camera_mode()) + ", speed " + playback.speed_text() + ", HUD " +
           (options.hud ? "on" : "off"));

  const auto start = Clock::now();
  std::thread worker(session_thread, std::ref(session), replay, std::ref(handoff));
  auto on_timer = [&] {
    if (finished) return;
    try {
      std::unique_lock lock(handoff.mutex);
      if (handoff.state == Handoff::State::finished) {
        finished = true;
        lock.unlock();
        if (!options.hold || handoff.error) {
          interactor->TerminateApp();
        } else {
          viewer.set_hud_text("run finished - q closes the window");
          viewer.render();
          log.info("run finished, the window stays until closed (q)");
        }
        return;
      }
      if (handoff.state != Handoff::State::frame_ready) return;
      const auto now = Clock::now();
      const bool stepping = playback.paused();
      if (!playback.due(now, handoff.t_s)) return;
      std::copy(handoff.q.begin(), handoff.q.end(), q.begin());
      if (handoff.jumped) retrace(*replay, scene, tracked, viewer);
      const std::uint64_t seq = handoff.seq, skipped = handoff.skipped;
      const double t_s = handoff.t_s;
      const FrameSource::ReportDelay delay = handoff.delay;
      lock.unlock();
      playback.shown(now, t_s);
      shown_seq = seq;
      shown = {t_s, skipped, delay};
      if (stepping) log.info("step: frame " + std::to_string(seq) + " shown");

      viewer.show(probes.set_joints(q));
      viewer.probe_positions(probes.all_probes());
      update_hud();
      viewer.set_slider_time(t_s);
      viewer.render();
      ++rendered;
      rate.tick();
      if (options.slow_ms > 0) std::this_thread::sleep_for(slow);
      if (video) video->write(viewer.read_rgba());
      if (options.screenshot_every > 0 && seq % static_cast<std::uint64_t>(options.screenshot_every) == 0) {
        viewer.write_png(screenshot_path(options, "frame", seq));
      }
      lock.lock();
      const std::span<const Eigen::Vector3d> reported = probes.pick();
      std::copy(reported.begin(), reported.end(), handoff.p_WP.begin());
      handoff.state = Handoff::State::probes_ready;
      handoff.changed.notify_all();
    } catch (...) {
      loop_error = std::current_exception();
      finished = true;
      interactor->TerminateApp();
    }
  };
  auto callback = vtkSmartPointer<vtkCallbackCommand>::New();
  callback->SetClientData(&on_timer);
  callback->SetCallback([](vtkObject*, unsigned long, void* data, void*) {
    (*static_cast<decltype(on_timer)*>(data))();
  });
  interactor->AddObserver(vtkCommand::TimerEvent, callback);
  interactor->CreateRepeatingTimer(5);
  interactor->Start();  // returns on TerminateApp, q/e, or when the window is closed

  {
    std::lock_guard lock(handoff.mutex);
    handoff.quit = true;
    handoff.changed.notify_all();
  }
  if (!finished) wire::request_stop();  // the window closed mid-run: unblock the channel wait
  worker.join();
  if (loop_error) std::rethrow_exception(loop_error);
  if (handoff.error) std::rethrow_exception(handoff.error);
  if (video) video->finish();
  finish_summary(options, session, log, rendered, std::chrono::duration<double>(Clock::now() - start).count(),
                 video.get());
}

}  // namespace

void run_session(const VisualOptions& options, const scene::SceneModel* given_scene, util::EventLog& log,
                 SessionState& state) {
  std::optional<SceneView> view;
  auto make_view = [&](const scene::SceneModel& scene) {
    view.emplace(scene, options.triangle_budget);
    log.info("scene " + scene.name() + ": " + std::to_string(view->actors().size()) + " actors, " +
             std::to_string(view->triangle_count()) + " triangles, " + std::to_string(view->closed_renders()) +
             " closed (back faces culled), " + std::to_string(view->meshes_loaded()) + " mesh files");
    if (view->meshes_decimated() > 0) {
      log.info(std::to_string(view->meshes_decimated()) + " meshes decimated: " +
               std::to_string(view->mesh_triangles_read()) + " mesh triangles read, above --triangle-budget " +
               std::to_string(options.triangle_budget) + " (--triangle-budget 0 draws them all)");
    }
  };
  // A scene given: its actors first, so a mesh that cannot be read is reported before anything
  // waits on a peer.
  if (given_scene != nullptr) make_view(*given_scene);
  if (!options.out_dir.empty()) {
    state.record = std::make_unique<wire::CosimLogWriter>(options.out_dir / "visual.cosimlog", protocol::kProtocolMajor,
                                                          protocol::kProtocolMinor);
  }
  ReplaySession* replay = nullptr;
  if (!options.replay.empty()) {
    // In a window the viewer paces the presentation itself (Playback), so the replay does not.
    auto source = std::make_unique<ReplaySession>(options.replay, options.as_fast_as_possible || !options.offscreen, log);
    replay = source.get();
    state.source = std::move(source);
  } else {
    auto session = std::make_unique<ClientSession>(options.client, log, state.record.get());
    ClientSession& client = *session;
    state.source = std::move(session);  // before connect(): a refused Hello is answered with an Error
    client.connect();
  }
  const scene::SceneModel* scene = given_scene;
  if (scene == nullptr) {
    // No --scene: the folder named after the model the run announces.
    const auto path = scene::find_default_scene(scene::scene_name_of_model(state.source->hello().model()));
    state.scene.emplace(scene::SceneModel::load(path, {.package_path = options.package_path}));
    log.info("scene " + state.scene->name() + " from " + path.string() + " (model " + state.source->hello().model() +
             ")");
    scene = &*state.scene;
    make_view(*scene);
  }
  state.source->accept(*scene);
  if (options.offscreen) {
    offscreen_loop(options, *scene, *view, *state.source, replay, log);
  } else {
    interactive_loop(options, *scene, *view, *state.source, replay, log);
  }
  if (state.record) state.record->flush();
}

}  // namespace cosim::visual::app
