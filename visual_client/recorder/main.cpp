// cosim-recorder: the recorder stub. Speaks the visual side of the protocol with the
// scene's kinematics and no graphics, so the whole loop runs headless (CI, benchmarks).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/util/cli.hpp"

#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/protocol/signals.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/run/visual_summary.hpp"
#include "cosim/scene/probe_set.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/visual/client_session.hpp"
#include "cosim/visual/replay_session.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/interrupt.hpp"

namespace {

struct RecorderOptions {
  cosim::visual::ClientOptions client;
  std::filesystem::path scene;  // empty: the folder named after Hello.model under the scenes root
  std::vector<std::filesystem::path> package_path;  // --package-path: URDF package:// folders
  std::filesystem::path out_dir;
  double slow_ms = 0;  // testing a slow renderer: sleep this long per frame shown
  std::filesystem::path replay;  // play a recorded run instead of connecting
  bool as_fast_as_possible = false;
  bool quiet = false;
};

/// One recorder run; each step may throw, conclude() reports whatever state it reached.
class RecorderRun {
 public:
  explicit RecorderRun(const RecorderOptions& options) : options_(options) {}
  void execute();
  int conclude(const cosim::protocol::Outcome& outcome) noexcept;

 private:
  void load_scene(const std::filesystem::path& path);

  const RecorderOptions& options_;
  std::unique_ptr<cosim::util::EventLog> log_;
  std::unique_ptr<cosim::wire::CosimLogWriter> record_;
  std::optional<cosim::scene::SceneModel> scene_;
  std::unique_ptr<cosim::visual::ClientSession> session_;
  std::unique_ptr<cosim::visual::ReplaySession> replay_;
};

void RecorderRun::load_scene(const std::filesystem::path& path) {
  scene_.emplace(cosim::scene::SceneModel::load(path, {.package_path = options_.package_path}));
  log_->info("scene " + scene_->name() + " from " + path.string() + ": " +
             std::to_string(scene_->joint_names().size()) + " driven joints, " +
             std::to_string(scene_->probes().size()) + " probes");
}

void RecorderRun::execute() {
  namespace fs = std::filesystem;
  fs::path log_path;
  if (!options_.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(options_.out_dir, ec);
    if (ec) throw cosim::util::BadInputError("--out " + options_.out_dir.string() + ": cannot create: " + ec.message());
    log_path = options_.out_dir / "recorder.log";
  }
  log_ = std::make_unique<cosim::util::EventLog>("cosim-recorder", log_path, false);
  // A scene given is checked first: a bad scene is reported before anything waits on a peer.
  if (!options_.scene.empty()) load_scene(options_.scene);
  if (!options_.out_dir.empty()) {
    record_ = std::make_unique<cosim::wire::CosimLogWriter>(
        options_.out_dir / "recorder.cosimlog", cosim::protocol::kProtocolMajor, cosim::protocol::kProtocolMinor);
  }
  cosim::visual::FrameSource* source = nullptr;
  if (!options_.replay.empty()) {
    replay_ = std::make_unique<cosim::visual::ReplaySession>(options_.replay, options_.as_fast_as_possible, *log_);
    source = replay_.get();
  } else {
    session_ = std::make_unique<cosim::visual::ClientSession>(options_.client, *log_, record_.get());
    session_->connect();
    source = session_.get();
  }
  if (!scene_) {
    load_scene(cosim::scene::find_default_scene(cosim::scene::scene_name_of_model(source->hello().model())));
  }
  source->accept(*scene_);

  // Preallocated per-frame state: the frame loop itself does not allocate.
  cosim::scene::ProbeSet probes(*scene_, source->reported_probes());
  const auto slow = std::chrono::duration<double, std::milli>(options_.slow_ms);
  while (source->next_frame()) {
    if (cosim::wire::stop_requested()) {
      throw cosim::util::InterruptedError("interrupted by a signal at frame " + std::to_string(source->seq()));
    }
    probes.set_joints(source->q_scene());
    probes.locate();
    if (options_.slow_ms > 0) std::this_thread::sleep_for(slow);
    source->report(probes.reported());
  }
  if (record_) record_->flush();
  cosim::run::VisualSummary summary;
  summary.program = "cosim-recorder";
  summary.frames_received = source->frames_received();
  summary.frames_shown = source->frames_received() - source->frames_skipped();
  summary.frames_skipped = source->frames_skipped();
  summary.frames_per_s = std::numeric_limits<double>::quiet_NaN();  // nothing rendered
  std::string done = std::to_string(summary.frames_received) + " frames, " + std::to_string(summary.frames_skipped) +
                     " skipped";
  if (const auto replay = source->replay_comparison()) {
    summary.replay_reports_compared = replay->reports_compared;
    summary.replay_max_difference_m = replay->max_difference_m;
    char diff[64];
    std::snprintf(diff, sizeof diff, "%.3g", replay->max_difference_m);
    done += "; replayed probes vs recorded reports: " + std::to_string(replay->reports_compared) +
            " compared, max difference " + diff + " m";
  }
  log_->info("done: " + done);
  if (!options_.quiet) std::printf("cosim-recorder: %s\n", done.c_str());
  if (!options_.out_dir.empty()) {
    cosim::run::write_visual_summary(cosim::run::visual_summary_file(options_.out_dir, summary.program), summary);
  }
}

int RecorderRun::conclude(const cosim::protocol::Outcome& outcome) noexcept {
  if (outcome.exit_code == cosim::util::kExitOk) return outcome.exit_code;
  if (log_) {
    log_->error(outcome.message);
  } else {
    std::fprintf(stderr, "cosim-recorder: error: %s\n", outcome.message.c_str());
  }
  if (session_) session_->fail(outcome.exit_code, outcome.message);
  try {
    if (record_) record_->flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosim-recorder: error: cannot finish recorder.cosimlog: %s\n", e.what());
  }
  return outcome.exit_code;
}

int run_recorder(const RecorderOptions& options) {
  RecorderRun run(options);
  cosim::protocol::Outcome outcome;
  try {
    run.execute();
  } catch (...) {  // the one place cosim-recorder catches (STYLE 9)
    outcome = cosim::protocol::outcome_of(std::current_exception());
  }
  return run.conclude(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  RecorderOptions options;
  options.client.channel = cosim::protocol::default_channel_text();
  CLI::App app{"cosim-recorder: the recorder stub. Connects to cosim-dynamics, checks its joints against the scene, "
               "computes the probes' world coordinates with the scene kinematics for every frame and reports them "
               "back, recording every message exchanged (recorder.cosimlog). No graphics.",
               "cosim-recorder"};
  app.set_version_flag("--version", cosim::protocol::version_banner("cosim-recorder"));
  double open_timeout_s = 10, frame_timeout_s = 30;
  app.footer(cosim::protocol::channel_help() +
             "tcp: from another machine: set COSIM_TCP_TOKEN to the token cosim-dynamics printed.\n" +
             "Examples:\n"
             "  cosim-recorder --channel fifo:/tmp/run --out RUN_DIR   join a cosim-dynamics, record what it saw");
  app.add_option("--channel", options.client.channel, cosim::protocol::visual_channel_forms() + ", as given to cosim-dynamics")
      ->capture_default_str();
  cosim::util::add_path_option(app, "--scene", options.scene,
                 "scene folder, project file or URDF file (default: the folder named after the model the dynamics "
                 "announces, lowercase, under $COSIM_SCENES_DIR or <install>/share/cosim/scenes)");
  cosim::util::add_folder_list_option(app, "--package-path", options.package_path,
                 "folder holding the packages of a URDF's package://NAME/... meshes (repeatable or ':'-separated; "
                 "searched before $COSIM_PACKAGE_PATH)");
  cosim::util::add_path_option(app, "--out", options.out_dir, "folder for recorder.log and recorder.cosimlog (default: none kept)");
  app.add_option("--open-timeout", open_timeout_s, "seconds to wait for the dynamics")
      ->check(cosim::util::finite_range(0, 86400))
      ->capture_default_str();
  app.add_option("--frame-timeout", frame_timeout_s, "seconds to wait for each frame")
      ->check(cosim::util::finite_range(0.001, 86400))
      ->capture_default_str();
  app.add_option("--slow-ms", options.slow_ms, "testing: sleep this many ms per frame, like a slow renderer")
      ->check(cosim::util::finite_range(0, 60000))
      ->capture_default_str();
  cosim::util::add_path_option(app, "--replay", options.replay, "play a recorded run (frames.cosimlog) instead of connecting");
  app.add_flag("--as-fast-as-possible", options.as_fast_as_possible, "with --replay: do not wait for the recorded fps");
  app.add_flag("-q,--quiet", options.quiet, "no summary on stdout");
  app.add_option("--protocol-major", options.client.protocol_major, "testing: answer with this protocol major")
      ->group("");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  options.client.open_timeout = std::chrono::milliseconds(static_cast<long>(open_timeout_s * 1000));
  options.client.frame_timeout = std::chrono::milliseconds(static_cast<long>(frame_timeout_s * 1000));
  options.client.peer_kind = "recorder";
  cosim::protocol::install_stop_signal_handlers();
  return run_recorder(options);
}
