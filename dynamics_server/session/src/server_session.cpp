#include "cosim/dynamics/session/server_session.hpp"

#include <algorithm>

#include "cosim/protocol/version.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::dynamics::session {

ServerSession::ServerSession(std::unique_ptr<wire::Channel> channel, wire::CosimLogWriter* record,
                             std::chrono::milliseconds open_timeout, std::chrono::milliseconds io_timeout)
    : connection_(std::move(channel), wire::Direction::to_visual, record),
      open_timeout_(open_timeout),
      io_timeout_(io_timeout) {}

const PeerInfo& ServerSession::handshake(const SessionPlan& plan) {
  const std::uint32_t major = plan.protocol_major != 0 ? plan.protocol_major : protocol::kProtocolMajor;
  v1::Envelope hello_envelope;
  v1::Hello& hello = *hello_envelope.mutable_hello();
  hello.mutable_protocol()->set_major(major);
  hello.mutable_protocol()->set_minor(protocol::kProtocolMinor);
  hello.set_software_version(protocol::software_version());
  hello.set_run_id(plan.run_id);
  hello.set_backend(plan.backend);
  hello.set_model(plan.model);
  for (const auto& name : plan.joint_names) hello.add_joint_names(name);
  for (const auto& name : plan.probe_names) hello.add_probe_names(name);
  hello.set_fps(plan.fps);
  hello.set_mode(plan.mode);
  hello.set_sim_start_s(0.0);
  hello.set_sim_end_s(static_cast<double>(plan.frame_count) / plan.fps);
  hello.set_frame_count(static_cast<std::uint32_t>(plan.frame_count));
  connection_.set_context("during the handshake");
  connection_.send(hello_envelope, open_timeout_);

  v1::Envelope reply;
  if (!connection_.receive(reply, open_timeout_)) {
    throw util::PeerError("no Welcome from the visual side within " + std::to_string(open_timeout_.count()) +
                          " ms on " + connection_.describe());
  }
  if (reply.has_error()) protocol::throw_peer_error(reply.error(), "peer");
  if (!reply.has_welcome()) {
    throw util::PeerError(std::string("expected Welcome from the visual side, got ") + protocol::body_name(reply));
  }
  const v1::Welcome& welcome = reply.welcome();
  // An incompatible peer is told by whoever ends the process (fail()), with the code of the error.
  protocol::negotiate(major, protocol::kProtocolMinor, welcome.protocol(), "cosim-dynamics", "visual side");
  // The reports come in Welcome's probe order; it must be the order we asked for.
  const std::vector<std::string> reported(welcome.probe_names().begin(), welcome.probe_names().end());
  if (reported != plan.probe_names) {
    throw util::PeerError("visual side reports probes [" + util::join(reported) + "], expected [" + util::join(plan.probe_names) +
                          "]");
  }
  peer_.kind = util::printable(welcome.peer_kind());
  peer_.software_version = util::printable(welcome.software_version());
  peer_.scene = util::printable(welcome.scene());
  peer_.joints_matched = welcome.joint_mapping().matched();
  connection_.set_context("");
  return peer_;
}

std::int64_t ServerSession::send_frame(std::uint64_t seq, double t_s, std::span<const double> q,
                                       const ReportFeedback& feedback) {
  v1::Frame& frame = *out_.mutable_frame();
  frame.set_seq(seq);
  frame.set_sim_time_s(t_s);
  auto* values = frame.mutable_joint_values();
  values->Resize(static_cast<int>(q.size()), 0.0);
  std::copy(q.begin(), q.end(), values->mutable_data());
  frame.set_last_report_seq(feedback.last_report_seq);
  frame.set_last_delay_frames(feedback.last_delay_frames);
  frame.set_last_rtt_us(feedback.last_rtt_us);
  const std::int64_t sent_ns = util::steady_ns();
  frame.set_sent_ns(sent_ns);
  connection_.send(out_, io_timeout_);
  return sent_ns;
}

const v1::ProbeReport* ServerSession::receive(std::chrono::milliseconds timeout) {
  if (peer_said_bye_ || !connection_.receive(in_, timeout)) return nullptr;
  received_ns_ = util::steady_ns();
  switch (in_.body_case()) {
    case v1::Envelope::kProbeReport: return &in_.probe_report();
    case v1::Envelope::kError: protocol::throw_peer_error(in_.error(), "peer");
    case v1::Envelope::kBye:
      peer_said_bye_ = true;
      bye_reason_ = util::printable(in_.bye().reason());
      peer_frames_skipped_ = in_.bye().frames_skipped();
      return nullptr;
    default:
      throw util::PeerError(std::string("unexpected ") + protocol::body_name(in_) + " from the visual side");
  }
}

void ServerSession::send_bye(std::uint64_t frames_sent) noexcept {
  connection_.send_bye_noexcept("end of run", frames_sent);
}

void ServerSession::fail(int exit_code, const std::string& message) noexcept {
  if (failed_) return;
  failed_ = true;
  connection_.send_error_noexcept(protocol::error_code_for_exit(exit_code), message);
}

}  // namespace cosim::dynamics::session
