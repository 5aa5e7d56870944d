#include "frame_loop.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/registry.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/connection.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/scene/joint_match.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/csv_writer.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/util/json_writer.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/fifo_channel.hpp"
#include "cosim/wire/interrupt.hpp"
#include "run_folder.hpp"

namespace cosim::dynamics {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

/// Frames remembered for the probe comparison; a report older than this is a protocol error.
constexpr std::uint64_t kFrameHistory = 1u << 14;

const char* mode_name(v1::Mode mode) {
  switch (mode) {
    case v1::MODE_LOCKSTEP: return "lockstep";
    case v1::MODE_FREE: return "free";
    case v1::MODE_REALTIME: return "realtime";
    default: return "unspecified";
  }
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

/// What the dynamics remembers of one sent frame, to compare the report against.
struct SentFrame {
  std::uint64_t seq = 0;
  double t_s = 0;
  std::int64_t sent_ns = 0;
  std::vector<Eigen::Vector3d> p_WP;  // dynamic probe positions at t_s
};

class FrameLoop {
 public:
  explicit FrameLoop(const DynamicsOptions& options) : options_(options) {}

  /// Checks options, makes the backend, loads the scene: everything that can be wrong with
  /// the input, before any file is written. Throws util::BadInputError.
  void prepare();
  /// Writes the run folder and runs the frames.
  void run(const RunFolder& folder, util::EventLog& log);
  void write_run_json(const std::string& status, const std::string& error, double wall_s);
  void tell_peer(int exit_code, const std::string& message) {
    if (connection_) connection_->send_error_noexcept(protocol::error_code_for_exit(exit_code), message);
  }
  RunSummary summary() const;

 private:
  void make_backend();
  void load_scene();
  void open_outputs();
  void connect();
  void handshake();
  void loop();
  void finish();
  void write_csv_row();
  void send_frame(std::uint64_t k, double t_s);
  void await_report(std::uint64_t k);
  void drain_reports();
  void handle(const v1::Envelope& envelope);
  void handle_report(const v1::ProbeReport& report);
  void dynamic_probes(std::vector<Eigen::Vector3d>& p_WP);
  void pace_realtime(double t_s);
  void show_progress(double t_s, bool final);

  /// Before the log exists, notes wait here.
  void note(const std::string& message) {
    if (log_ != nullptr) {
      log_->info(message);
    } else {
      early_notes_.push_back(message);
    }
  }

  const DynamicsOptions& options_;
  RunFolder folder_;
  util::EventLog* log_ = nullptr;
  std::vector<std::string> early_notes_;

  std::unique_ptr<Params> params_;
  std::unique_ptr<Backend> backend_;
  std::optional<scene::SceneModel> scene_;
  std::vector<int> scene_index_of_joint_;  // backend joint -> scene joint
  std::vector<int> probe_index_;           // reported probe -> scene probe
  std::vector<std::string> probe_names_;
  std::vector<double> q_scene_;
  std::vector<Eigen::Isometry3d> X_WF_;
  std::vector<Eigen::Vector3d> p_WP_all_;
  std::vector<Eigen::Vector3d> p_WP_row_;  // dynamic probes of a dynamics.csv row
  double probes_at_s_ = std::numeric_limits<double>::quiet_NaN();  // time p_WP_all_ belongs to

  std::unique_ptr<util::CsvWriter> dynamics_csv_;
  std::unique_ptr<util::CsvWriter> probes_csv_;
  std::vector<double> row_;
  std::unique_ptr<wire::CosimLogWriter> frames_log_;
  std::unique_ptr<protocol::Connection> connection_;
  std::string run_id_;
  std::uint64_t frame_count_ = 0;

  // Frame loop state, preallocated.
  v1::Envelope out_;
  v1::Envelope in_;
  std::vector<SentFrame> history_;
  std::uint64_t last_sent_ = 0;
  std::uint64_t last_reported_ = 0;
  bool peer_said_bye_ = false;
  std::string peer_kind_, peer_version_, peer_scene_;
  std::vector<double> delay_frames_, delay_sim_s_, rtt_us_, diff_same_, diff_arrival_;
  std::uint64_t frames_skipped_ = 0;
  std::uint64_t overruns_ = 0;
  Clock::time_point wall_start_;
  Clock::time_point last_progress_;
  double first_frame_t_s_ = 0;
  std::int64_t pace_anchor_ns_ = 0;  // realtime: steady ns of the first frame
};

void FrameLoop::make_backend() {
  const BackendEntry& entry = [&]() -> const BackendEntry& {
    try {
      return find_backend(options_.backend);
    } catch (const std::invalid_argument& e) {
      throw util::BadInputError(std::string("--backend: ") + e.what());
    }
  }();
  const std::filesystem::path* file = options_.params_file ? &*options_.params_file : nullptr;
  try {
    params_ = std::make_unique<Params>(
        Params::resolve(entry.name, entry.param_specs(), file, options_.param_overrides));
  } catch (const ParamError& e) {
    throw util::BadInputError(e.what());
  }
  backend_ = entry.make(*params_, 0.0);
  note("backend " + backend_->name() + " (model " + backend_->model_name() + "), " +
            std::to_string(backend_->joint_names().size()) + " joints");
}

void FrameLoop::load_scene() {
  try {
    scene_.emplace(scene::SceneModel::load(options_.scene));
  } catch (const scene::SceneError& e) {
    throw util::BadInputError(e.what());
  }
  // Every backend joint must be a driven scene joint and the reverse (DESIGN.md "Protocol").
  const scene::JointMatch match = scene::match_joints(backend_->joint_names(), *scene_);
  if (!match.ok()) {
    throw util::BadInputError("backend " + backend_->name() + " and scene " + options_.scene.string() +
                              " disagree on joints: " + match.describe("driven by the scene but not by the backend"));
  }
  scene_index_of_joint_ = match.scene_index;
  // Probes to compare: those asked for, or all of the scene.
  if (options_.probes.empty()) {
    for (const auto& probe : scene_->probes()) probe_names_.push_back(probe.name);
  } else {
    probe_names_ = options_.probes;
  }
  for (const auto& name : probe_names_) {
    const int index = scene_->find_probe(name);
    if (index < 0) throw util::BadInputError("--probe " + name + ": no such probe in scene " + options_.scene.string());
    probe_index_.push_back(index);
  }
  q_scene_.assign(scene_->joint_names().size(), 0.0);
  X_WF_.assign(scene_->frames().size(), Eigen::Isometry3d::Identity());
  p_WP_all_.assign(scene_->probes().size(), Eigen::Vector3d::Zero());
  p_WP_row_.assign(probe_names_.size(), Eigen::Vector3d::Zero());
  note("scene " + scene_->name() + " from " + options_.scene.string() + ", probes: " + join(probe_names_));
}

void FrameLoop::open_outputs() {
  // dynamics.csv: time, joint values, dynamic probe positions, backend outputs.
  std::vector<std::string> columns{"t_s"};
  for (std::size_t i = 0; i < backend_->joint_names().size(); ++i) {
    const std::string& name = backend_->joint_names()[i];
    const bool prismatic = [&] {
      for (const auto& f : scene_->frames()) {
        if (f.name == name) return f.drive == scene::DriveType::prismatic;
      }
      return false;
    }();
    columns.push_back(name + (prismatic ? "_m" : "_rad"));
  }
  for (const auto& probe : probe_names_) {
    for (const char* axis : {"x", "y", "z"}) columns.push_back(probe + "/" + axis + "_m");
  }
  for (const auto& output : backend_->output_names()) columns.push_back(output);
  dynamics_csv_ = std::make_unique<util::CsvWriter>(folder_.dynamics_csv(), columns);
  row_.resize(columns.size());

  std::vector<std::string> probe_columns{"frame_seq", "t_frame_s",  "t_consumed_s",  "delay_frames",
                                         "delay_sim_s", "rtt_us", "frames_skipped"};
  for (const auto& probe : probe_names_) {
    for (const char* axis : {"x", "y", "z"}) probe_columns.push_back(probe + "/virtual_" + axis + "_m");
    for (const char* axis : {"x", "y", "z"}) probe_columns.push_back(probe + "/dynamic_" + axis + "_m");
    probe_columns.push_back(probe + "/diff_same_time_m");
    for (const char* axis : {"x", "y", "z"}) probe_columns.push_back(probe + "/dynamic_at_arrival_" + axis + "_m");
    probe_columns.push_back(probe + "/diff_at_arrival_m");
  }
  probes_csv_ = std::make_unique<util::CsvWriter>(folder_.probes_csv(), probe_columns);
  frames_log_ = std::make_unique<wire::CosimLogWriter>(folder_.frames_log(), protocol::kProtocolMajor,
                                                       protocol::kProtocolMinor);
}

void FrameLoop::connect() {
  const protocol::ChannelSpec spec = protocol::parse_channel_spec(options_.channel);
  if (spec.kind == protocol::ChannelSpec::Kind::none) {
    log_->info("channel none: running without a visual side");
    return;
  }
  log_->info("waiting for the visual side on fifo:" + spec.fifo_dir.string() +
             fmt(" (timeout %g s)", static_cast<double>(options_.open_timeout.count()) / 1000.0));
  wire::FifoOptions fifo;
  fifo.dir = spec.fifo_dir;
  fifo.open_timeout = options_.open_timeout;
  connection_ = std::make_unique<protocol::Connection>(wire::FifoChannel::listen(fifo), wire::Direction::to_visual,
                                                       frames_log_.get());
  log_->info("connected on " + connection_->describe());
}

void FrameLoop::handshake() {
  const std::uint32_t major = options_.protocol_major != 0 ? options_.protocol_major : protocol::kProtocolMajor;
  v1::Envelope hello_envelope;
  v1::Hello& hello = *hello_envelope.mutable_hello();
  hello.mutable_protocol()->set_major(major);
  hello.mutable_protocol()->set_minor(protocol::kProtocolMinor);
  hello.set_software_version(protocol::software_version());
  hello.set_run_id(run_id_);
  hello.set_backend(backend_->name());
  hello.set_model(backend_->model_name());
  for (const auto& name : backend_->joint_names()) hello.add_joint_names(name);
  for (const auto& name : probe_names_) hello.add_probe_names(name);
  hello.set_fps(options_.fps);
  hello.set_mode(options_.mode);
  hello.set_sim_start_s(0.0);
  hello.set_sim_end_s(static_cast<double>(frame_count_) / options_.fps);
  hello.set_frame_count(static_cast<std::uint32_t>(frame_count_));
  connection_->set_context("during the handshake");
  connection_->send(hello_envelope, options_.open_timeout);

  v1::Envelope reply;
  if (!connection_->receive(reply, options_.open_timeout)) {
    throw util::PeerError("no Welcome from the visual side within " +
                          std::to_string(options_.open_timeout.count()) + " ms on " + connection_->describe());
  }
  if (reply.has_error()) protocol::throw_peer_error(reply.error(), "peer");
  if (!reply.has_welcome()) {
    throw util::PeerError(std::string("expected Welcome from the visual side, got ") + protocol::body_name(reply));
  }
  const v1::Welcome& welcome = reply.welcome();
  try {
    protocol::negotiate(major, protocol::kProtocolMinor, welcome.protocol(), "cosim-dynamics", "visual side");
  } catch (const util::VersionMismatchError& e) {
    tell_peer(util::kExitVersionMismatch, e.what());
    throw;
  }
  // The reports come in Welcome's probe order; it must be the order we asked for.
  std::vector<std::string> reported(welcome.probe_names().begin(), welcome.probe_names().end());
  if (reported != probe_names_) {
    throw util::PeerError("visual side reports probes [" + join(reported) + "], expected [" + join(probe_names_) + "]");
  }
  peer_kind_ = welcome.peer_kind();
  peer_version_ = welcome.software_version();
  peer_scene_ = welcome.scene();
  log_->info("handshake done: peer " + peer_kind_ + " " + peer_version_ + ", scene " + peer_scene_ + ", " +
            std::to_string(welcome.joint_mapping().matched()) + " joints matched");
}

void FrameLoop::dynamic_probes(std::vector<Eigen::Vector3d>& p_WP) {
  // An output step and a frame often fall on the same time: compute the kinematics once.
  if (backend_->time_s() != probes_at_s_) {
    const auto q = backend_->joint_values();
    for (std::size_t i = 0; i < q.size(); ++i) q_scene_[static_cast<std::size_t>(scene_index_of_joint_[i])] = q[i];
    scene_->world_transforms(q_scene_, X_WF_);
    scene_->probe_positions(X_WF_, p_WP_all_);
    probes_at_s_ = backend_->time_s();
  }
  for (std::size_t i = 0; i < probe_index_.size(); ++i) p_WP[i] = p_WP_all_[static_cast<std::size_t>(probe_index_[i])];
}

void FrameLoop::write_csv_row() {
  std::size_t c = 0;
  row_[c++] = backend_->time_s();
  for (const double q : backend_->joint_values()) row_[c++] = q;
  dynamic_probes(p_WP_row_);
  for (const auto& p : p_WP_row_) {
    row_[c++] = p.x();
    row_[c++] = p.y();
    row_[c++] = p.z();
  }
  for (const double v : backend_->outputs()) row_[c++] = v;
  dynamics_csv_->row(row_);
}

void FrameLoop::pace_realtime(double t_s) {
  // The schedule is anchored at the first frame's send time, on the clock of sent_ns, so
  // "no frame before its due time" holds exactly as a receiver can check it.
  if (pace_anchor_ns_ == 0) {
    pace_anchor_ns_ = util::steady_ns();
    return;
  }
  const auto due_ns = pace_anchor_ns_ + static_cast<std::int64_t>(std::ceil((t_s - first_frame_t_s_) / options_.rate * 1e9));
  const std::int64_t now_ns = util::steady_ns();
  if (now_ns > due_ns + 1'000'000) {
    ++overruns_;
    if (overruns_ <= 10 || overruns_ % 100 == 0) {
      log_->warn(fmt("realtime overrun #%.0f: frame at t=%.3f s sent %.1f ms late", static_cast<double>(overruns_), t_s,
                     static_cast<double>(now_ns - due_ns) / 1e6));
    }
    return;
  }
  // Wait for the due time on the channel, so reports are consumed (and timed) as they arrive.
  while (true) {
    const std::int64_t left_ns = due_ns - util::steady_ns();
    if (left_ns <= 0) break;
    if (left_ns >= 1'000'000 && connection_ && !peer_said_bye_) {
      if (connection_->receive(in_, milliseconds(left_ns / 1'000'000))) handle(in_);
    } else {
      std::this_thread::sleep_for(std::chrono::nanoseconds(left_ns));
    }
  }
}

void FrameLoop::send_frame(std::uint64_t k, double t_s) {
  SentFrame& sent = history_[k % kFrameHistory];
  sent.seq = k;
  sent.t_s = t_s;
  dynamic_probes(sent.p_WP);
  last_sent_ = k;
  if (!connection_) return;
  if (options_.mode == v1::MODE_REALTIME) pace_realtime(t_s);
  v1::Frame& frame = *out_.mutable_frame();
  frame.set_seq(k);
  frame.set_sim_time_s(t_s);
  const auto q = backend_->joint_values();
  auto* values = frame.mutable_joint_values();
  values->Resize(static_cast<int>(q.size()), 0.0);
  std::copy(q.begin(), q.end(), values->mutable_data());
  frame.set_last_report_seq(last_reported_);
  frame.set_last_delay_frames(static_cast<std::uint32_t>(delay_frames_.empty() ? 0.0 : delay_frames_.back()));
  frame.set_last_rtt_us(rtt_us_.empty() ? 0.0 : rtt_us_.back());
  sent.sent_ns = util::steady_ns();
  frame.set_sent_ns(sent.sent_ns);
  connection_->send(out_, options_.report_timeout);
}

void FrameLoop::handle_report(const v1::ProbeReport& report) {
  const std::int64_t received_ns = util::steady_ns();
  const std::uint64_t j = report.frame_seq();
  if (j == 0 || j > last_sent_ || j <= last_reported_) {
    throw util::PeerError("ProbeReport for frame " + std::to_string(j) + " is out of order (last frame sent " +
                          std::to_string(last_sent_) + ", last report " + std::to_string(last_reported_) + ")");
  }
  if (last_sent_ - j >= kFrameHistory - 1) {
    throw util::PeerError("ProbeReport for frame " + std::to_string(j) + " arrived " + std::to_string(last_sent_ - j) +
                          " frames late, beyond the comparison window");
  }
  if (static_cast<std::size_t>(report.positions_m_size()) != 3 * probe_names_.size()) {
    throw util::PeerError("ProbeReport for frame " + std::to_string(j) + " has " +
                          std::to_string(report.positions_m_size()) + " coordinates, expected " +
                          std::to_string(3 * probe_names_.size()) + " (3 per probe)");
  }
  last_reported_ = j;
  frames_skipped_ = std::max<std::uint64_t>(frames_skipped_, report.frames_skipped());
  const SentFrame& then = history_[j % kFrameHistory];
  const SentFrame& now = history_[last_sent_ % kFrameHistory];
  const double delay_frames = static_cast<double>(last_sent_ - j);
  const double delay_sim_s = now.t_s - then.t_s;
  const double rtt_us = static_cast<double>(received_ns - then.sent_ns) / 1e3;

  std::size_t c = 0;
  row_[c++] = static_cast<double>(j);
  row_[c++] = then.t_s;
  row_[c++] = now.t_s;
  row_[c++] = delay_frames;
  row_[c++] = delay_sim_s;
  row_[c++] = rtt_us;
  row_[c++] = static_cast<double>(report.frames_skipped());
  double worst_same = 0, worst_arrival = 0;
  for (std::size_t p = 0; p < probe_names_.size(); ++p) {
    const Eigen::Vector3d virtual_p(report.positions_m(3 * p), report.positions_m(3 * p + 1),
                                    report.positions_m(3 * p + 2));
    const double same = (virtual_p - then.p_WP[p]).norm();
    const double arrival = (virtual_p - now.p_WP[p]).norm();
    worst_same = std::max(worst_same, same);
    worst_arrival = std::max(worst_arrival, arrival);
    for (int a = 0; a < 3; ++a) row_[c++] = virtual_p[a];
    for (int a = 0; a < 3; ++a) row_[c++] = then.p_WP[p][a];
    row_[c++] = same;
    for (int a = 0; a < 3; ++a) row_[c++] = now.p_WP[p][a];
    row_[c++] = arrival;
  }
  probes_csv_->row(std::span<const double>(row_.data(), c));
  delay_frames_.push_back(delay_frames);
  delay_sim_s_.push_back(delay_sim_s);
  rtt_us_.push_back(rtt_us);
  diff_same_.push_back(worst_same);
  diff_arrival_.push_back(worst_arrival);
}

void FrameLoop::handle(const v1::Envelope& envelope) {
  switch (envelope.body_case()) {
    case v1::Envelope::kProbeReport: handle_report(envelope.probe_report()); return;
    case v1::Envelope::kError: protocol::throw_peer_error(envelope.error(), "peer");
    case v1::Envelope::kBye:
      peer_said_bye_ = true;
      frames_skipped_ = std::max<std::uint64_t>(frames_skipped_, envelope.bye().frames_skipped());
      if (last_sent_ < frame_count_) {
        throw util::PeerError("visual side ended the session at frame " + std::to_string(last_sent_) + " of " +
                              std::to_string(frame_count_) + ": " + envelope.bye().reason());
      }
      return;
    default:
      throw util::PeerError(std::string("unexpected ") + protocol::body_name(envelope) + " from the visual side");
  }
}

void FrameLoop::await_report(std::uint64_t k) {
  while (last_reported_ < k) {
    if (!connection_->receive(in_, options_.report_timeout)) {
      throw util::PeerError("no ProbeReport for frame " + std::to_string(k) + " within " +
                            std::to_string(options_.report_timeout.count()) + " ms (lockstep) on " +
                            connection_->describe());
    }
    handle(in_);
    if (peer_said_bye_) break;
  }
}

void FrameLoop::drain_reports() {
  while (!peer_said_bye_ && connection_->receive(in_, milliseconds(0))) handle(in_);
}

void FrameLoop::show_progress(double t_s, bool final) {
  if (!options_.progress) return;
  const auto now = Clock::now();
  if (!final && now - last_progress_ < milliseconds(250)) return;
  last_progress_ = now;
  const double wall_s = std::chrono::duration<double>(now - wall_start_).count();
  std::fprintf(stderr, "\rcosim-dynamics: t = %7.2f / %.2f s  frames %llu/%llu  reports %zu  %.0f frames/s   ", t_s,
               static_cast<double>(frame_count_) / options_.fps, static_cast<unsigned long long>(last_sent_),
               static_cast<unsigned long long>(frame_count_), rtt_us_.size(),
               wall_s > 0 ? static_cast<double>(last_sent_) / wall_s : 0.0);
  if (final) std::fputc('\n', stderr);
}

void FrameLoop::loop() {
  // Merge the frame grid (k / fps) and the output grid (n * output_step) by integer index
  // so that coinciding times are one event and no drift accumulates.
  const double fps = options_.fps;
  const double dt_out = options_.output_step_s;
  const auto output_count = static_cast<std::uint64_t>(std::floor(options_.duration_s / dt_out + 1e-9));
  std::uint64_t k = 1, n = 1;
  write_csv_row();  // initial state, t = 0
  wall_start_ = last_progress_ = Clock::now();
  first_frame_t_s_ = 1.0 / fps;
  if (connection_) connection_->set_context("");
  while (k <= frame_count_ || n <= output_count) {
    if (wire::stop_requested()) throw util::InterruptedError("interrupted at frame " + std::to_string(last_sent_));
    const double t_frame = k <= frame_count_ ? static_cast<double>(k) / fps : INFINITY;
    const double t_output = n <= output_count ? static_cast<double>(n) * dt_out : INFINITY;
    const double t = std::min(t_frame, t_output);
    const double eps = 1e-9 * std::max(1.0, t);
    const bool is_frame = t_frame <= t + eps;
    const bool is_output = t_output <= t + eps;
    const double t_event = is_frame ? t_frame : t_output;
    if (t_event > backend_->time_s()) backend_->advance_to(t_event);
    if (is_output) {
      write_csv_row();
      ++n;
    }
    if (is_frame) {
      send_frame(k, t_event);
      if (connection_) {
        if (options_.mode == v1::MODE_LOCKSTEP) {
          await_report(k);
        } else {
          drain_reports();
        }
        if (peer_said_bye_) break;
      }
      show_progress(t_event, false);
      ++k;
    }
  }
  show_progress(backend_->time_s(), true);
}

void FrameLoop::finish() {
  if (!connection_) return;
  connection_->set_context("at the end of the run");
  // Free/realtime: reports for the last frames are still on their way; collect them until
  // the visual side answers our Bye.
  connection_->send_bye_noexcept("end of run", last_sent_);
  const auto deadline = Clock::now() + options_.report_timeout;
  while (!peer_said_bye_) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      log_->warn("visual side did not answer Bye within " + std::to_string(options_.report_timeout.count()) + " ms");
      break;
    }
    try {
      if (!connection_->receive(in_, left)) continue;
    } catch (const util::PeerError&) {
      log_->warn("visual side closed the channel without Bye");
      break;
    }
    handle(in_);
  }
}

void FrameLoop::prepare() {
  if (!(options_.fps > 0) || !std::isfinite(options_.fps)) throw util::BadInputError("--fps must be > 0");
  if (!(options_.duration_s > 0) || !std::isfinite(options_.duration_s)) {
    throw util::BadInputError("--duration must be > 0");
  }
  if (!(options_.output_step_s > 0)) throw util::BadInputError("--output-step must be > 0");
  if (!(options_.rate > 0)) throw util::BadInputError("--rate must be > 0");
  frame_count_ = static_cast<std::uint64_t>(std::floor(options_.duration_s * options_.fps + 1e-9));
  if (frame_count_ == 0) {
    throw util::BadInputError(fmt("--duration %g s at --fps %g gives no frame", options_.duration_s, options_.fps));
  }
  protocol::parse_channel_spec(options_.channel);  // a bad --channel is bad input, said now
  make_backend();
  load_scene();
}

void FrameLoop::run(const RunFolder& folder, util::EventLog& log) {
  folder_ = folder;
  log_ = &log;
  for (const auto& message : early_notes_) log_->info(message);
  run_id_ = folder_.dir.filename().string();
  history_.resize(kFrameHistory);
  for (auto& sent : history_) sent.p_WP.assign(probe_names_.size(), Eigen::Vector3d::Zero());
  for (auto* v : {&delay_frames_, &delay_sim_s_, &rtt_us_, &diff_same_, &diff_arrival_}) v->reserve(frame_count_);
  open_outputs();
  connect();
  if (connection_) handshake();
  log_->info(std::string("running ") + std::to_string(frame_count_) + " frames at " + fmt("%g", options_.fps) +
             " fps, mode " + mode_name(options_.mode));
  try {
    loop();
  } catch (const util::InterruptedError&) {
    throw util::InterruptedError(fmt("interrupted by a signal at frame %.0f of %.0f (t = %g s)",
                                     static_cast<double>(last_sent_), static_cast<double>(frame_count_),
                                     backend_->time_s()));
  }
  finish();
  dynamics_csv_->flush();
  probes_csv_->flush();
  frames_log_->flush();
}

RunSummary FrameLoop::summary() const {
  RunSummary s;
  s.frames_sent = connection_ ? last_sent_ : 0;
  s.reports_received = rtt_us_.size();
  s.frames_skipped_by_visual = frames_skipped_;
  s.overruns = overruns_;
  s.csv_rows = dynamics_csv_ ? dynamics_csv_->rows() : 0;
  auto summarize_copy = [](std::vector<double> v) { return util::summarize(v); };
  s.delay_frames = summarize_copy(delay_frames_);
  s.delay_sim_s = summarize_copy(delay_sim_s_);
  s.rtt_us = summarize_copy(rtt_us_);
  s.diff_same_time_m = summarize_copy(diff_same_);
  s.diff_at_arrival_m = summarize_copy(diff_arrival_);
  return s;
}

void add_summary(util::JsonWriter& json, const char* key, const util::Summary& s) {
  json.begin_object(key)
      .field("count", static_cast<std::uint64_t>(s.count))
      .field("p50", s.p50)
      .field("p99", s.p99)
      .field("max", s.max)
      .field("mean", s.mean)
      .end_object();
}

void FrameLoop::write_run_json(const std::string& status, const std::string& error, double wall_s) {
  RunSummary s = summary();
  util::JsonWriter json;
  json.field("run_id", run_id_)
      .field("status", status)
      .field("error", error)
      .field("command", options_.command_line)
      .field("finished_utc", util::utc_iso8601())
      .field("wall_s", wall_s);
  json.begin_object("versions")
      .field("software", protocol::software_version())
      .field("protocol", protocol::version_string(protocol::kProtocolMajor, protocol::kProtocolMinor))
      .field("protobuf", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION))
      .end_object();
  json.field("backend", options_.backend)
      .field("model", backend_ ? backend_->model_name() : "")
      .field("scene", options_.scene.string())
      .field("scene_name", scene_ ? scene_->name() : "")
      .field("mode", mode_name(options_.mode))
      .field("fps", options_.fps)
      .field("rate", options_.rate)
      .field("duration_s", options_.duration_s)
      .field("output_step_s", options_.output_step_s)
      .field("channel", options_.channel)
      .field("frame_count", frame_count_);
  json.begin_object("parameters");
  if (params_) {
    for (const auto& entry : params_->entries()) {
      json.begin_object(entry.key).field("value", entry.value).field("unit", entry.unit).field("origin", entry.origin)
          .end_object();
    }
  }
  json.end_object();
  if (backend_) json.field("joint_names", std::span<const std::string>(backend_->joint_names()));
  json.field("probe_names", std::span<const std::string>(probe_names_));
  json.begin_object("peer").field("kind", peer_kind_).field("software_version", peer_version_)
      .field("scene", peer_scene_).end_object();
  json.begin_object("summary")
      .field("frames_sent", s.frames_sent)
      .field("reports_received", s.reports_received)
      .field("frames_skipped_by_visual", s.frames_skipped_by_visual)
      .field("overruns", s.overruns)
      .field("dynamics_csv_rows", s.csv_rows);
  add_summary(json, "delay_frames", s.delay_frames);
  add_summary(json, "delay_sim_s", s.delay_sim_s);
  add_summary(json, "rtt_us", s.rtt_us);
  add_summary(json, "diff_same_time_m", s.diff_same_time_m);
  add_summary(json, "diff_at_arrival_m", s.diff_at_arrival_m);
  json.end_object();
  json.write_file(folder_.run_json());
}

void print_summary(const RunSummary& s, const RunFolder& folder, double wall_s) {
  std::printf("run folder: %s\n", folder.dir.c_str());
  std::printf("wall time %.3f s; frames sent %llu, reports %llu, skipped by visual %llu, overruns %llu\n", wall_s,
              static_cast<unsigned long long>(s.frames_sent), static_cast<unsigned long long>(s.reports_received),
              static_cast<unsigned long long>(s.frames_skipped_by_visual),
              static_cast<unsigned long long>(s.overruns));
  if (s.reports_received > 0) {
    std::printf("delay_frames p50 %.0f p99 %.0f max %.0f; rtt_us p50 %.1f p99 %.1f max %.1f\n", s.delay_frames.p50,
                s.delay_frames.p99, s.delay_frames.max, s.rtt_us.p50, s.rtt_us.p99, s.rtt_us.max);
    std::printf("diff_same_time_m max %.3g; diff_at_arrival_m p50 %.3g max %.3g\n", s.diff_same_time_m.max,
                s.diff_at_arrival_m.p50, s.diff_at_arrival_m.max);
  }
  std::fflush(stdout);
}

}  // namespace

int run_dynamics(const DynamicsOptions& options) {
  FrameLoop loop(options);
  RunFolder folder;
  try {
    try {
      loop.prepare();
    } catch (const scene::SceneError& e) {
      throw util::BadInputError(e.what());
    }
    folder = create_run_folder(options.out_dir);
  } catch (const util::CosimError& e) {
    std::fprintf(stderr, "cosim-dynamics: error: %s\n", e.what());
    return e.exit_code();
  }
  util::EventLog log("cosim-dynamics", folder.event_log(), false);
  log.info("command: " + options.command_line);
  const auto wall_start = Clock::now();
  int code = util::kExitOk;
  std::string status = "ok", error;
  try {
    try {
      loop.run(folder, log);
    } catch (const util::CosimError&) {
      throw;
    } catch (const wire::ChannelSetupError& e) {
      if (e.kind() == wire::ChannelSetupError::Kind::bad_input) throw util::BadInputError(e.what());
      if (e.kind() == wire::ChannelSetupError::Kind::interrupted) throw util::InterruptedError(e.what());
      throw util::PeerError(e.what());
    } catch (const BackendError& e) {
      throw util::CosimError(util::kExitInternal, std::string("backend failed: ") + e.what());
    }
  } catch (const util::CosimError& e) {
    code = e.exit_code();
    error = e.what();
  } catch (const std::exception& e) {
    code = util::kExitInternal;
    error = std::string("internal error: ") + e.what();
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - wall_start).count();
  if (code != util::kExitOk && wire::stop_requested() && code != util::kExitInterrupted) {
    // The user stopped the run; what failed after that (a peer that stopped too) is a consequence.
    error = "interrupted by a signal (then: " + error + ")";
    code = util::kExitInterrupted;
  }
  if (code != util::kExitOk) {
    status = code == util::kExitInterrupted ? "interrupted" : "failed";
    log.error(error);
    loop.tell_peer(code, "cosim-dynamics: " + error);
  } else {
    log.info("run complete");
  }
  try {
    loop.write_run_json(status, error, wall_s);
  } catch (const std::exception& e) {
    log.error(std::string("cannot write run.json: ") + e.what());
  }
  print_summary(loop.summary(), folder, wall_s);
  return code;
}

}  // namespace cosim::dynamics
