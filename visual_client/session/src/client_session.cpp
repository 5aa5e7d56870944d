#include "cosim/visual/client_session.hpp"

#include <algorithm>
#include <cmath>

#include "cosim/protocol/channel_spec.hpp"
#include "cosim/scene/joint_match.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::visual {

namespace {
using std::chrono::milliseconds;
}  // namespace

std::string hello_problem(const v1::Hello& hello) {
  if (!std::isfinite(hello.fps()) || hello.fps() <= 0) return "Hello has fps " + std::to_string(hello.fps()) + ", expected > 0";
  if (hello.frame_count() == 0) return "Hello announces 0 frames";
  if (hello.mode() != v1::MODE_LOCKSTEP && hello.mode() != v1::MODE_FREE && hello.mode() != v1::MODE_REALTIME) {
    return "Hello has mode " + std::to_string(static_cast<int>(hello.mode())) + ", not lockstep, free or realtime";
  }
  if (!std::isfinite(hello.sim_start_s()) || !std::isfinite(hello.sim_end_s())) return "Hello has a non-finite sim time";
  for (const auto* names : {&hello.joint_names(), &hello.probe_names()}) {
    std::vector<std::string> sorted(names->begin(), names->end());
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) return "Hello names '" + util::printable(*twice) + "' twice";
  }
  return "";
}

std::string frame_problem(const v1::Frame& frame, const v1::Hello& hello, std::uint64_t last_seq, double last_t_s) {
  const std::string which = "Frame " + std::to_string(frame.seq());
  if (frame.seq() != last_seq + 1) {
    return which + " follows frame " + std::to_string(last_seq) + ": frames must come without gaps";
  }
  if (frame.seq() > hello.frame_count()) {
    return which + " is past the " + std::to_string(hello.frame_count()) + " frames the Hello announced";
  }
  if (frame.joint_values_size() != hello.joint_names_size()) {
    return which + " has " + std::to_string(frame.joint_values_size()) + " joint values, Hello listed " +
           std::to_string(hello.joint_names_size());
  }
  for (int i = 0; i < frame.joint_values_size(); ++i) {
    if (!std::isfinite(frame.joint_values(i))) {
      return which + ": joint " + util::printable(hello.joint_names(i)) + " is " + std::to_string(frame.joint_values(i));
    }
  }
  if (!std::isfinite(frame.sim_time_s()) || (last_seq > 0 && !(frame.sim_time_s() > last_t_s))) {
    return which + " has sim time " + std::to_string(frame.sim_time_s()) + " after " + std::to_string(last_t_s) +
           ": time must move forward";
  }
  return "";
}

HelloMapping map_hello(const v1::Hello& hello, const scene::SceneModel& scene) {
  HelloMapping mapping;
  const std::vector<std::string> joints(hello.joint_names().begin(), hello.joint_names().end());
  const scene::JointMatch match = scene::match_joints(joints, scene);
  if (!match.ok()) {
    throw MappingError(v1::ERROR_CODE_JOINT_MISMATCH, "joint mismatch between backend " + hello.backend() +
                                                          " and scene " + scene.name() + ": " +
                                                          match.describe("driven by the scene but not sent"));
  }
  mapping.scene_index_of_hello_joint = match.scene_index;
  // Probes: those asked for, else all of the scene.
  mapping.probe_names.assign(hello.probe_names().begin(), hello.probe_names().end());
  if (mapping.probe_names.empty()) {
    for (const auto& probe : scene.probes()) mapping.probe_names.push_back(probe.name);
  }
  std::string unknown;
  for (const auto& name : mapping.probe_names) {
    const int index = scene.find_probe(name);
    if (index < 0) unknown += (unknown.empty() ? "" : ", ") + name;
    mapping.reported_probes.push_back(index);
  }
  if (!unknown.empty()) {
    throw MappingError(v1::ERROR_CODE_BAD_INPUT, "probes not in scene " + scene.name() + ": " + unknown);
  }
  return mapping;
}

ClientSession::ClientSession(ClientOptions options, util::EventLog& log, wire::CosimLogWriter* record)
    : options_(std::move(options)), log_(log), record_(record) {}

const v1::Hello& ClientSession::connect() {
  const protocol::ChannelSpec spec = protocol::parse_channel_spec(options_.channel);
  if (spec.none()) {
    throw util::BadInputError("--channel " + options_.channel + ": the visual side needs a channel to a dynamics process");
  }
  return connect(protocol::open_channel(spec, protocol::ChannelRole::visual, options_.open_timeout,
                                       protocol::notices_to(log_)));
}

const v1::Hello& ClientSession::connect(std::unique_ptr<wire::Channel> channel) {
  connection_ = std::make_unique<protocol::Connection>(std::move(channel), wire::Direction::to_dynamics, record_);
  log_.info("connected on " + connection_->describe());
  connection_->set_context("during the handshake");

  v1::Envelope first;
  if (!connection_->receive(first, options_.open_timeout)) {
    throw util::PeerError("no Hello from the dynamics within " + std::to_string(options_.open_timeout.count()) +
                          " ms on " + connection_->describe());
  }
  if (first.has_error()) protocol::throw_peer_error(first.error(), "peer");
  if (!first.has_hello()) {
    throw util::PeerError(std::string("expected Hello from the dynamics, got ") + protocol::body_name(first));
  }
  hello_ = first.hello();
  if (const std::string problem = hello_problem(hello_); !problem.empty()) throw util::PeerError(problem);
  major_ = options_.protocol_major != 0 ? options_.protocol_major : protocol::kProtocolMajor;
  const std::string self = "cosim-" + options_.peer_kind;
  try {
    minor_ = protocol::negotiate(major_, protocol::kProtocolMinor, hello_.protocol(), self, "cosim-dynamics");
  } catch (const util::VersionMismatchError& e) {
    send_error(v1::ERROR_CODE_VERSION_MISMATCH, e.what());  // with the specific code, then on to main
    throw;
  }
  return hello_;
}

void ClientSession::accept(const scene::SceneModel& scene) {
  std::vector<std::string> probe_names;
  try {
    HelloMapping mapping = map_hello(hello_, scene);
    scene_index_of_hello_joint_ = std::move(mapping.scene_index_of_hello_joint);
    reported_probes_ = std::move(mapping.reported_probes);
    probe_names = std::move(mapping.probe_names);
  } catch (const MappingError& e) {
    send_error(e.code(), e.what());  // with the specific code, then on to main
    throw;
  }

  v1::Envelope welcome_envelope;
  v1::Welcome& welcome = *welcome_envelope.mutable_welcome();
  welcome.mutable_protocol()->set_major(major_);
  welcome.mutable_protocol()->set_minor(minor_);
  welcome.set_scene(scene.name());
  for (const auto& name : probe_names) welcome.add_probe_names(name);
  welcome.mutable_joint_mapping()->set_matched(static_cast<std::uint32_t>(hello_.joint_names_size()));
  welcome.set_software_version(protocol::software_version());
  welcome.set_peer_kind(options_.peer_kind);
  connection_->send(welcome_envelope, options_.open_timeout);
  connection_->set_context("");
  q_scene_.assign(scene.joint_names().size(), 0.0);
  drop_stale_ = hello_.mode() == v1::MODE_FREE || hello_.mode() == v1::MODE_REALTIME;
  log_.info("session " + util::printable(hello_.run_id()) + ": backend " + util::printable(hello_.backend()) + ", " +
            std::to_string(hello_.joint_names_size()) + " joints, " + std::to_string(hello_.frame_count()) +
            " frames at " + std::to_string(hello_.fps()) + " fps, protocol " +
            protocol::version_string(major_, minor_));
}

void ClientSession::accept_frame(const v1::Frame& frame) {
  if (const std::string problem = frame_problem(frame, hello_, frames_received_, sim_time_s_); !problem.empty()) {
    throw util::PeerError(problem);
  }
  ++frames_received_;
  seq_ = frame.seq();
  sim_time_s_ = frame.sim_time_s();
  received_ns_ = util::steady_ns();
  delay_ = {frame.last_report_seq(), frame.last_delay_frames(), frame.last_rtt_us()};
  for (std::size_t i = 0; i < scene_index_of_hello_joint_.size(); ++i) {
    q_scene_[static_cast<std::size_t>(scene_index_of_hello_joint_[i])] = frame.joint_values(static_cast<int>(i));
  }
}

bool ClientSession::next_frame() {
  if (done_) return false;
  if (bye_pending_) {
    v1::Envelope bye;
    bye.mutable_bye()->set_reason("end of run");
    bye.mutable_bye()->set_frames_handled(frames_received_);
    bye.mutable_bye()->set_frames_skipped(frames_skipped_);
    // The dynamics may already be gone after a lockstep run; its Bye was the last word.
    try {
      connection_->send(bye, milliseconds(1000));
    } catch (const util::PeerError&) {
    }
    log_.info("dynamics said Bye after " + std::to_string(frames_received_) + " frames; " +
              std::to_string(frames_skipped_) + " skipped");
    done_ = true;
    return false;
  }
  bool have_frame = false;
  // Wait for one message, then (free/realtime) take everything already queued, keeping the newest frame.
  bool wait = true;
  while (true) {
    if (!wait && !connection_->readable_now()) break;
    if (!connection_->receive(in_, wait ? options_.frame_timeout : milliseconds(0))) {
      if (wait) {
        throw util::PeerError("no frame from the dynamics within " + std::to_string(options_.frame_timeout.count()) +
                              " ms after frame " + std::to_string(seq_));
      }
      break;
    }
    wait = false;
    if (in_.has_frame()) {
      if (have_frame) ++frames_skipped_;
      accept_frame(in_.frame());
      have_frame = true;
      if (!drop_stale_) break;  // lockstep: one frame, one report
    } else if (in_.has_bye()) {
      if (frames_received_ < hello_.frame_count()) {
        throw util::PeerError("the dynamics ended the session at frame " + std::to_string(frames_received_) + " of " +
                              std::to_string(hello_.frame_count()) + " (Bye: " + util::printable(in_.bye().reason()) +
                              ")");
      }
      bye_pending_ = true;
      break;
    } else if (in_.has_error()) {
      protocol::throw_peer_error(in_.error(), "peer");
    } else {
      throw util::PeerError(std::string("unexpected ") + protocol::body_name(in_) + " from the dynamics");
    }
  }
  if (have_frame) return true;
  return next_frame();  // only a Bye arrived: answer it
}

void ClientSession::report(std::span<const Eigen::Vector3d> p_WP) {
  v1::ProbeReport& report = *out_.mutable_probe_report();
  report.set_frame_seq(seq_);
  report.set_sim_time_s(sim_time_s_);
  auto* positions = report.mutable_positions_m();
  positions->Resize(static_cast<int>(3 * p_WP.size()), 0.0);
  double* data = positions->mutable_data();
  for (std::size_t i = 0; i < p_WP.size(); ++i) {
    data[3 * i] = p_WP[i].x();
    data[3 * i + 1] = p_WP[i].y();
    data[3 * i + 2] = p_WP[i].z();
  }
  report.set_received_ns(received_ns_);
  report.set_frames_skipped(frames_skipped_);
  report.set_reported_ns(util::steady_ns());
  connection_->send(out_, options_.frame_timeout);
  ++reports_sent_;
}

void ClientSession::send_error(v1::ErrorCode code, const std::string& message) noexcept {
  if (!connection_ || error_sent_) return;
  error_sent_ = true;
  connection_->send_error_noexcept(code, "cosim-" + options_.peer_kind + ": " + message);
}

void ClientSession::fail(int exit_code, const std::string& message) noexcept {
  send_error(protocol::error_code_for_exit(exit_code), message);
}

}  // namespace cosim::visual
