#include "run_dynamics.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/session/frame_loop.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/session/probe_comparator.hpp"
#include "cosim/dynamics/session/probe_kinematics.hpp"
#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/dynamics/session/run_record.hpp"
#include "cosim/run/run_folder.hpp"
#include "cosim/run/run_summary.hpp"
#include "cosim/dynamics/session/server_session.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/scene/joint_match.hpp"
#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/util/record_file.hpp"
#include "cosim/util/text.hpp"

namespace cosim::dynamics {
using registry::BackendEntry;
using registry::find_backend;
using session::ComparisonSummary;
using session::FrameLoop;
using session::LoopSettings;
using session::PeerInfo;
using session::ProbeComparator;
using session::ProbeKinematics;
using session::RunRecord;
using session::ServerSession;
using session::SessionPlan;


namespace {

using Clock = std::chrono::steady_clock;

/// Largest frame count and dynamics.csv row count of one run.
constexpr double kMaxFrames = 1e7;

// The scene of a run without a visual side whose default scene drives other joints: one
// instance per first name component, the backend's joints in it ("Rover/base/x": instance
// Rover, group base, joint x), no geometry and no probes. Empty if a name is not scoped.
std::optional<scene::SceneModel> joints_only_scene(const std::string& backend, std::span<const std::string> joints,
                                                   std::span<const JointKind> kinds) {
  scene::SceneBuilder b;
  b.set_name(backend + " joints");
  b.set_root(std::filesystem::current_path().root_path());
  std::map<std::string, int, std::less<>> instance_frames;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string& name = joints[i];
    const std::size_t first = name.find('/'), last = name.rfind('/');
    if (first == std::string::npos || first == 0 || last + 1 == name.size()) return std::nullopt;
    const std::string instance = name.substr(0, first);
    auto [it, added] = instance_frames.try_emplace(instance, -1);
    if (added) it->second = b.add_instance(-1, instance, Eigen::Isometry3d::Identity());
    const bool prismatic = i < kinds.size() && kinds[i] == JointKind::prismatic;
    b.add_joint(it->second, {.name = name.substr(last + 1),
                             .group = last > first ? name.substr(first + 1, last - first - 1) : std::string(),
                             .drive = prismatic ? scene::DriveType::prismatic : scene::DriveType::revolute,
                             .driven = true});
  }
  return std::move(b).build();
}

const char* mode_name(v1::Mode mode) {
  switch (mode) {
    case v1::MODE_LOCKSTEP: return "lockstep";
    case v1::MODE_FREE: return "free";
    case v1::MODE_REALTIME: return "realtime";
    default: return "unspecified";
  }
}

/// One run of cosim-dynamics, in the order things happen; each step may throw, and
/// conclude() reports whatever state the run reached.
class DynamicsRun {
 public:
  explicit DynamicsRun(const DynamicsOptions& options) : options_(options) {}

  /// Checks options, makes the backend, loads the scene: everything that can be wrong with
  /// the input, before any file is written.
  void prepare();
  void print_probes() const;
  /// Creates the run folder and its files, connects, runs the frames.
  void execute();
  /// Logs the outcome, tells the peer, writes run.json, prints the summary. Never throws.
  int conclude(const protocol::Outcome& outcome) noexcept;

 private:
  std::string run_json(const protocol::Outcome& outcome, double wall_s) const;
  void print_summary(double wall_s) const;
  /// Sets the run's length and frame count; throws BadInputError naming `what` (the option, or
  /// the backend's natural duration) for a length that is not > 0 or gives no or too many frames.
  void set_duration(double duration_s, const std::string& what);
  /// Frames sent to a peer (0 without one) and the largest skip count the peer reported.
  std::pair<std::uint64_t, std::uint64_t> sent_and_skipped(const ComparisonSummary& s) const;
  std::vector<std::string> joint_columns() const;

  const DynamicsOptions& options_;
  double duration_s_ = 0.0;  // simulated time [s]: --duration, else the backend's natural duration
  std::uint64_t frame_count_ = 0;
  protocol::ChannelSpec channel_;
  std::filesystem::path scene_path_;
  std::unique_ptr<Params> params_;
  std::unique_ptr<Backend> backend_;
  std::optional<scene::SceneModel> scene_;
  std::optional<ProbeKinematics> kinematics_;
  std::optional<ProbeComparator> comparator_;
  std::optional<run::RunFolder> folder_;
  std::unique_ptr<util::EventLog> log_;
  std::unique_ptr<util::ReservedFile> run_json_;  // written at the start, replaced at the end
  std::unique_ptr<RunRecord> record_;
  std::unique_ptr<ServerSession> session_;
  std::optional<FrameLoop> loop_;
  PeerInfo peer_;
  std::vector<std::string> notes_;  // before the log exists
  Clock::time_point wall_start_ = Clock::now();
};

void DynamicsRun::set_duration(double duration_s, const std::string& what) {
  if (!(duration_s > 0) || !std::isfinite(duration_s)) throw util::BadInputError(what + " must be > 0");
  const double frames = std::floor(duration_s * options_.fps + 1e-9);
  if (frames < 1) {
    throw util::BadInputError(what + util::format(" %g s at --fps %g gives no frame", duration_s, options_.fps));
  }
  // A run's per-frame and per-row state is preallocated: its size is capped (docs/design.md).
  if (frames > kMaxFrames) {
    throw util::BadInputError(what + util::format(" %g s at --fps %g", duration_s, options_.fps) +
                              util::format(" gives more than %.0f frames; shorten the run or lower --fps", kMaxFrames));
  }
  if (std::floor(duration_s / options_.output_step_s) > kMaxFrames) {
    throw util::BadInputError(what + util::format(" %g s at --output-step %g s", duration_s, options_.output_step_s) +
                              util::format(" gives more than %.0f dynamics.csv rows", kMaxFrames));
  }
  duration_s_ = duration_s;
  frame_count_ = static_cast<std::uint64_t>(frames);
}

void DynamicsRun::prepare() {
  if (!(options_.fps > 0) || !std::isfinite(options_.fps)) throw util::BadInputError("--fps must be > 0");
  if (!(options_.output_step_s > 0)) throw util::BadInputError("--output-step must be > 0");
  if (!(options_.rate > 0)) throw util::BadInputError("--rate must be > 0");
  if (options_.duration_s) set_duration(*options_.duration_s, "--duration");  // said before any backend is made
  channel_ = protocol::parse_channel_spec(options_.channel);  // a bad --channel is bad input, said now

  const BackendEntry* entry = &find_backend(options_.backend);
  // A parameter file is looked for as a model file is: as given, then under the scenes root
  // (scenes/robotino/params/seed000.params from anywhere).
  std::optional<std::filesystem::path> params_file;
  if (options_.params_file) {
    params_file = scene::find_input_file(*options_.params_file);
    if (!params_file) {
      std::vector<std::string> places;
      for (const auto& candidate : scene::input_file_candidates(*options_.params_file)) {
        places.push_back(platform::utf8(candidate));
      }
      throw util::BadInputError("--params " + platform::utf8(*options_.params_file) + ": no parameter file at " +
                                util::join(places, " nor "));
    }
  }
  params_ = std::make_unique<Params>(Params::resolve(entry->name, entry->param_specs(),
                                                     params_file ? &*params_file : nullptr, options_.param_overrides));
  params_->set_package_path(options_.package_path);  // a URDF model's meshes, as the scene's
  backend_ = entry->make(*params_, 0.0);
  notes_.push_back("backend " + backend_->name() + " (model " + backend_->model_name() +
                   (backend_->model_file().empty() ? "" : " from " + backend_->model_file()) + "), " +
                   std::to_string(backend_->joint_names().size()) + " joints");
  if (!options_.duration_s) {  // after make(): a file the duration reads has been checked there
    set_duration(entry->natural_duration_s(*params_), "the backend's natural duration");
    notes_.push_back(util::format("duration %g s: the backend's natural duration (--duration not given)", duration_s_));
  }

  scene_path_ = options_.scene;
  if (scene_path_.empty() && entry->scene_for != nullptr) scene_path_ = entry->scene_for(*params_);
  if (scene_path_.empty()) scene_path_ = scene::find_default_scene(entry->default_scene);
  scene_.emplace(scene::SceneModel::load(scene_path_, {.package_path = options_.package_path}));
  // No visual side, and no scene or probe asked for: a default scene driving other joints
  // would only have given the probes, so the run goes on with the backend's joints alone.
  if (channel_.none() && options_.scene.empty() && options_.probes.empty() &&
      !scene::match_joints(backend_->joint_names(), *scene_).ok()) {
    if (auto joints_only = joints_only_scene(backend_->name(), backend_->joint_names(), backend_->joint_kinds())) {
      notes_.push_back("channel none: the default scene " + scene_path_.string() +
                       " drives other joints than the backend; running without a scene (no probes)");
      scene_ = std::move(joints_only);
      scene_path_.clear();
    }
  }
  const std::string backend_label = "backend " + backend_->name() +
                                    (backend_->model_file().empty() ? "" : " (model " + backend_->model_file() + ")");
  kinematics_.emplace(*scene_, backend_->joint_names(), options_.probes, scene_path_.string(), backend_label,
                      backend_->joint_kinds());
  comparator_.emplace(kinematics_->probe_names().size(), frame_count_);
  notes_.push_back("scene " + scene_->name() + (scene_path_.empty() ? "" : " from " + scene_path_.string()) +
                   ", probes: " + util::join(kinematics_->probe_names()));
}

// dynamics.csv's joint columns: name + unit suffix from the scene's joint; without a scene,
// from the backend's kind of joint, and none where the backend does not know it (a
// trajectory CSV's column is rad or m as its joint is, which only a scene tells).
std::vector<std::string> DynamicsRun::joint_columns() const {
  if (!scene_path_.empty()) return kinematics_->joint_columns(backend_->joint_names());
  const std::span<const JointKind> kinds = backend_->joint_kinds();
  std::vector<std::string> columns;
  for (std::size_t i = 0; i < backend_->joint_names().size(); ++i) {
    const JointKind kind = i < kinds.size() ? kinds[i] : JointKind::unknown;
    columns.push_back(backend_->joint_names()[i] +
                      (kind == JointKind::prismatic ? "_m" : kind == JointKind::revolute ? "_rad" : ""));
  }
  return columns;
}

// --list-probes: every probe of the run's scene, one line each, the compared ones marked.
void DynamicsRun::print_probes() const {
  const std::vector<std::string>& compared = kinematics_->probe_names();
  std::printf("probes of scene %s (%s), %zu; * compared in this run (--probe, else the scene's default)\n",
              scene_->name().c_str(), scene_path_.string().c_str(), scene_->probes().size());
  for (const scene::Probe& probe : scene_->probes()) {
    const bool is_compared = std::find(compared.begin(), compared.end(), probe.name) != compared.end();
    const scene::Frame& frame = scene_->frames()[static_cast<std::size_t>(probe.frame)];
    std::printf("%s %s  on %s at (%g, %g, %g) m; %s; %s\n", is_compared ? "*" : " ", probe.name.c_str(),
                frame.name.c_str(), probe.p_FP_m.x(), probe.p_FP_m.y(), probe.p_FP_m.z(),
                scene_->frame_moves(probe.frame) ? "moves" : "fixed",
                probe.generated ? "placed by the reader" : "written in the scene");
  }
}

void DynamicsRun::execute() {
  prepare();
  if (options_.list_probes) return print_probes();
  folder_ = options_.out_dir.empty() ? run::create_new_run_folder(run::default_run_dir(options_.backend))
                                     : run::create_run_folder(options_.out_dir);
  // run.json first, with room for the final one: a disk that fills during the run cannot
  // take the record of how it ended. 64 KiB is ten times the size of a Robotino run.json.
  run_json_ = std::make_unique<util::ReservedFile>(
      folder_->run_json(), run_json(protocol::Outcome{util::kExitOk, "running", ""}, 0.0), 64 * 1024);
  log_ = std::make_unique<util::EventLog>("cosim-dynamics", folder_->event_log(), false);
  log_->info("command: " + options_.command_line);
  for (const auto& note : notes_) log_->info(note);
  backend_->set_message_sink([this](std::string_view line) { log_->info(line); });  // an FMU's log
  record_ = std::make_unique<RunRecord>(*folder_, joint_columns(),
                                        kinematics_->probe_names(), backend_->output_names());

  const protocol::ChannelSpec& spec = channel_;
  if (spec.none()) {
    log_->info("channel none: running without a visual side");
  } else {
    log_->info("waiting for the visual side on " + spec.text +
               util::format(" (timeout %g s)", static_cast<double>(options_.open_timeout.count()) / 1000.0));
    session_ = std::make_unique<ServerSession>(
        protocol::open_channel(spec, protocol::ChannelRole::dynamics, options_.open_timeout, protocol::notices_to(*log_)),
        &record_->frames_log(),
        options_.open_timeout, options_.report_timeout);
    log_->info("connected on " + session_->describe());
    SessionPlan plan;
    plan.run_id = folder_->dir.filename().string();
    plan.backend = backend_->name();
    plan.model = backend_->model_name();
    plan.joint_names = backend_->joint_names();
    plan.probe_names = kinematics_->probe_names();
    plan.fps = options_.fps;
    plan.mode = options_.mode;
    plan.frame_count = frame_count_;
    plan.protocol_major = options_.protocol_major;
    peer_ = session_->handshake(plan);
    log_->info("handshake done: peer " + peer_.kind + " " + peer_.software_version + ", scene " + peer_.scene + ", " +
               std::to_string(peer_.joints_matched) + " joints matched");
  }

  LoopSettings settings;
  settings.fps = options_.fps;
  settings.frame_count = frame_count_;
  settings.duration_s = duration_s_;
  settings.output_step_s = options_.output_step_s;
  settings.mode = options_.mode;
  settings.rate = options_.rate;
  settings.report_timeout = options_.report_timeout;
  settings.progress = options_.progress;
  loop_.emplace(*backend_, *kinematics_, *record_, *comparator_, session_.get(), settings, *log_);
  log_->info(std::string("running ") + std::to_string(frame_count_) + " frames at " + util::format("%g", options_.fps) +
             " fps, mode " + mode_name(options_.mode));
  loop_->run();
  loop_->finish();
  record_->flush();
}

int DynamicsRun::conclude(const protocol::Outcome& outcome) noexcept {
  if (!log_) {  // no log yet: the error line is all there is (and run.json, if it exists)
    if (outcome.exit_code != util::kExitOk) std::fprintf(stderr, "cosim-dynamics: error: %s\n", outcome.message.c_str());
    if (run_json_) {
      try {
        run_json_->replace(run_json(outcome, 0.0));
      } catch (const std::exception&) {
        // Said on stderr already; the reserved run.json keeps "running".
      }
    }
    return outcome.exit_code;
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - wall_start_).count();
  protocol::Outcome ended = outcome;
  if (ended.exit_code == util::kExitInterrupted && loop_) {
    // Where the stop found the run, whichever wait it interrupted.
    ended.message = util::format("interrupted by a signal at frame %.0f of %.0f", static_cast<double>(loop_->frames_sent()),
                        static_cast<double>(frame_count_)) +
                    util::format(" (t = %g s)", backend_->time_s());
  }
  if (ended.exit_code != util::kExitOk) {
    log_->error(ended.message);
    if (session_) session_->fail(ended.exit_code, "cosim-dynamics: " + ended.message);
  }
  if (record_) {
    try {
      record_->flush();
    } catch (const std::exception& e) {
      // The tables end on whole rows; a run that was fine until now failed in its last write.
      log_->error(e.what());
      if (ended.exit_code == util::kExitOk) ended = protocol::outcome_of(std::current_exception());
    }
  }
  if (ended.exit_code == util::kExitOk) log_->info("run complete");
  try {
    run_json_->replace(run_json(ended, wall_s));
  } catch (const std::exception& e) {
    log_->error(std::string("cannot write run.json: ") + e.what());
  }
  print_summary(wall_s);
  return ended.exit_code;
}

std::string DynamicsRun::run_json(const protocol::Outcome& outcome, double wall_s) const {
  const ComparisonSummary s = comparator_ ? comparator_->summary() : ComparisonSummary{};
  run::RunSummary r;
  r.run_id = folder_->dir.filename().string();
  r.status = outcome.status;
  r.error = outcome.message;
  r.command = options_.command_line;
  r.finished_utc = util::utc_iso8601();
  r.wall_s = wall_s;
  r.software_version = protocol::software_version();
  r.protocol_version = protocol::version_string(protocol::kProtocolMajor, protocol::kProtocolMinor);
  r.protobuf_version = google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION);
  r.backend = options_.backend;
  r.model = backend_ ? backend_->model_name() : "";
  r.scene = scene_path_.string();
  r.scene_name = scene_ ? scene_->name() : "";
  r.mode = mode_name(options_.mode);
  r.fps = options_.fps;
  r.rate = options_.rate;
  r.duration_s = duration_s_;
  r.output_step_s = options_.output_step_s;
  r.channel = options_.channel;
  r.frame_count = frame_count_;
  if (params_) {
    for (const auto& entry : params_->entries()) {
      r.parameters.push_back({entry.key, entry.text ? run::RunParameter::Value(*entry.text) : entry.value, entry.unit,
                              entry.origin});
    }
  }
  if (backend_) r.joint_names = backend_->joint_names();
  if (kinematics_) r.probe_names = kinematics_->probe_names();
  r.peer_kind = peer_.kind;
  r.peer_software_version = peer_.software_version;
  r.peer_scene = peer_.scene;
  const auto [frames_sent, skipped] = sent_and_skipped(s);
  run::RunTotals& t = r.totals;
  t.frames_sent = frames_sent;
  t.reports_received = s.reports;
  t.frames_skipped_by_visual = skipped;
  t.overruns = loop_ ? loop_->overruns() : 0;
  t.dynamics_csv_rows = record_ ? record_->state_rows() : 0;
  t.delay_frames = s.delay_frames;
  t.delay_sim_s = s.delay_sim_s;
  t.rtt_us = s.rtt_us;
  t.diff_same_time_m = s.diff_same_time_m;
  t.diff_at_arrival_m = s.diff_at_arrival_m;
  return run::to_json(r);
}

std::pair<std::uint64_t, std::uint64_t> DynamicsRun::sent_and_skipped(const ComparisonSummary& s) const {
  const std::uint64_t frames_sent = session_ && loop_ ? loop_->frames_sent() : 0;
  return {frames_sent, std::max(s.frames_skipped, session_ ? session_->peer_frames_skipped() : 0)};
}

void DynamicsRun::print_summary(double wall_s) const {
  const ComparisonSummary s = comparator_ ? comparator_->summary() : ComparisonSummary{};
  const auto [frames_sent, skipped] = sent_and_skipped(s);
  std::printf("run folder: %s\n", platform::utf8(folder_->dir).c_str());
  std::printf("wall time %.3f s; frames sent %llu, reports %llu, skipped by visual %llu, overruns %llu\n", wall_s,
              static_cast<unsigned long long>(frames_sent), static_cast<unsigned long long>(s.reports),
              static_cast<unsigned long long>(skipped),
              static_cast<unsigned long long>(loop_ ? loop_->overruns() : 0));
  if (s.reports > 0) {
    std::printf("delay_frames p50 %.0f p99 %.0f max %.0f; rtt_us p50 %.1f p99 %.1f max %.1f\n", s.delay_frames.p50,
                s.delay_frames.p99, s.delay_frames.max, s.rtt_us.p50, s.rtt_us.p99, s.rtt_us.max);
    std::printf("diff_same_time_m max %.3g; diff_at_arrival_m p50 %.3g max %.3g\n", s.diff_same_time_m.max,
                s.diff_at_arrival_m.p50, s.diff_at_arrival_m.max);
  }
  std::fflush(stdout);
}

}  // namespace

int run_dynamics(const DynamicsOptions& options) {
  DynamicsRun run(options);
  protocol::Outcome outcome;
  try {
    run.execute();
  } catch (...) {  // the one place cosim-dynamics catches (STYLE 9)
    outcome = protocol::outcome_of(std::current_exception());
  }
  return run.conclude(outcome);
}

}  // namespace cosim::dynamics
