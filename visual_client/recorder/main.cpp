// cosim-recorder: the recorder stub. Speaks the visual side of the protocol with the
// scene's kinematics and no graphics, so the whole loop runs headless (CI, benchmarks).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/util/cli.hpp"

#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/signals.hpp"
#include "cosim/protocol/version.hpp"
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
  std::filesystem::path scene = COSIM_DEFAULT_SCENE;
  std::filesystem::path out_dir;
  double slow_ms = 0;  // testing a slow renderer: sleep this long per frame shown
  std::filesystem::path replay;  // play a recorded run instead of connecting
  bool as_fast_as_possible = false;
  bool quiet = false;
};

int run_recorder(const RecorderOptions& options) {
  namespace fs = std::filesystem;
  std::unique_ptr<cosim::util::EventLog> log;
  std::unique_ptr<cosim::wire::CosimLogWriter> record;
  std::unique_ptr<cosim::visual::ClientSession> session;
  std::unique_ptr<cosim::visual::ReplaySession> replay;
  try {
    fs::path log_path;
    if (!options.out_dir.empty()) {
      std::error_code ec;
      fs::create_directories(options.out_dir, ec);
      if (ec) throw cosim::util::BadInputError("--out " + options.out_dir.string() + ": cannot create: " + ec.message());
      log_path = options.out_dir / "recorder.log";
    }
    log = std::make_unique<cosim::util::EventLog>("cosim-recorder", log_path, false);
    // The scene first: a bad scene is reported before anything waits on a peer.
    std::optional<cosim::scene::SceneModel> scene;
    try {
      scene.emplace(cosim::scene::SceneModel::load(options.scene));
    } catch (const cosim::scene::SceneError& e) {
      throw cosim::util::BadInputError(e.what());
    }
    log->info("scene " + scene->name() + " from " + options.scene.string() + ": " +
              std::to_string(scene->joint_names().size()) + " driven joints, " +
              std::to_string(scene->probes().size()) + " probes");
    if (!options.out_dir.empty()) {
      record = std::make_unique<cosim::wire::CosimLogWriter>(
          options.out_dir / "recorder.cosimlog", cosim::protocol::kProtocolMajor, cosim::protocol::kProtocolMinor);
    }
    cosim::visual::FrameSource* source = nullptr;
    if (!options.replay.empty()) {
      replay = std::make_unique<cosim::visual::ReplaySession>(*scene, options.replay, options.as_fast_as_possible, *log);
      source = replay.get();
    } else {
      session = std::make_unique<cosim::visual::ClientSession>(*scene, options.client, *log, record.get());
      session->connect_and_handshake();
      source = session.get();
    }

    // Preallocated per-frame state: the frame loop itself does not allocate.
    std::vector<Eigen::Isometry3d> X_WF(scene->frames().size(), Eigen::Isometry3d::Identity());
    std::vector<Eigen::Vector3d> p_WP_all(scene->probes().size(), Eigen::Vector3d::Zero());
    std::vector<Eigen::Vector3d> p_WP(source->reported_probes().size(), Eigen::Vector3d::Zero());
    const auto slow = std::chrono::duration<double, std::milli>(options.slow_ms);
    while (source->next_frame()) {
      if (cosim::wire::stop_requested()) throw cosim::util::InterruptedError("interrupted");
      scene->world_transforms(source->q_scene(), X_WF);
      scene->probe_positions(X_WF, p_WP_all);
      for (std::size_t i = 0; i < p_WP.size(); ++i) {
        p_WP[i] = p_WP_all[static_cast<std::size_t>(source->reported_probes()[i])];
      }
      if (options.slow_ms > 0) std::this_thread::sleep_for(slow);
      source->report(p_WP);
    }
    if (record) record->flush();
    std::string done = std::to_string(source->frames_received()) + " frames, " +
                       std::to_string(source->frames_skipped()) + " skipped";
    if (replay) {
      char diff[64];
      std::snprintf(diff, sizeof diff, "%.3g", replay->max_difference_to_recording_m());
      done += "; replayed probes vs recorded reports: " + std::to_string(replay->reports_compared()) +
              " compared, max difference " + diff + " m";
    }
    log->info("done: " + done);
    if (!options.quiet) std::printf("cosim-recorder: %s\n", done.c_str());
    return cosim::util::kExitOk;
  } catch (const cosim::util::CosimError& e) {
    if (cosim::wire::stop_requested() && e.exit_code() != cosim::util::kExitInterrupted) {
      // Stopped by the user; the peer's reaction to the same Ctrl-C is not the story.
      const std::string message = std::string("interrupted by a signal (then: ") + e.what() + ")";
      if (log) log->error(message);
      if (session) session->fail(cosim::util::kExitInterrupted, message);
      return cosim::util::kExitInterrupted;
    }
    if (log) {
      log->error(e.what());
    } else {
      std::fprintf(stderr, "cosim-recorder: error: %s\n", e.what());
    }
    if (session) session->fail(e.exit_code(), e.what());
    if (record) record->flush();
    return e.exit_code();
  } catch (const std::exception& e) {
    const std::string message = std::string("internal error: ") + e.what();
    if (log) {
      log->error(message);
    } else {
      std::fprintf(stderr, "cosim-recorder: error: %s\n", message.c_str());
    }
    if (session) session->fail(cosim::util::kExitInternal, message);
    return cosim::util::kExitInternal;
  }
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
  app.add_option("--channel", options.client.channel, "fifo:DIR, as given to cosim-dynamics")->capture_default_str();
  app.add_option("--scene", options.scene, "scene folder or project file")->capture_default_str();
  app.add_option("--out", options.out_dir, "folder for recorder.log and recorder.cosimlog (default: none kept)");
  app.add_option("--open-timeout", open_timeout_s, "seconds to wait for the dynamics")->capture_default_str();
  app.add_option("--frame-timeout", frame_timeout_s, "seconds to wait for each frame")->capture_default_str();
  app.add_option("--slow-ms", options.slow_ms, "testing: sleep this many ms per frame, like a slow renderer")
      ->capture_default_str();
  app.add_option("--replay", options.replay, "play a recorded run (frames.cosimlog) instead of connecting");
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
