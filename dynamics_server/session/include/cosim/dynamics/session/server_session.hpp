#pragma once
/// \file
/// The dynamics side of a session, twin of visual::ClientSession: sends Hello and checks the
/// Welcome, sends Frames, takes in ProbeReports, ends with Bye (docs/protocol.md).

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cosim/dynamics/session/probe_comparator.hpp"
#include "cosim/protocol/connection.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/channel.hpp"
#include "cosim/wire/cosimlog.hpp"

namespace cosim::dynamics::session {

/// What the Hello announces.
struct SessionPlan {
  std::string run_id;
  std::string backend;
  std::string model;
  std::vector<std::string> joint_names;  ///< Frame order
  std::vector<std::string> probe_names;  ///< the probes to report, in this order
  double fps = 0;                        ///< [1/s]
  v1::Mode mode = v1::MODE_LOCKSTEP;
  std::uint64_t frame_count = 0;
  std::uint32_t protocol_major = 0;  ///< test hook: announce another major (0 = ours)
};

/// What the Welcome said about the visual side.
struct PeerInfo {
  std::string kind;  ///< "visual" or "recorder"
  std::string software_version;
  std::string scene;
  std::uint32_t joints_matched = 0;
};

class ServerSession {
 public:
  /// `record` (may be null) receives every envelope as it crosses the wire.
  /// `io_timeout` bounds each send, and the wait for the handshake's Welcome is open_timeout.
  ServerSession(std::unique_ptr<wire::Channel> channel, wire::CosimLogWriter* record,
                std::chrono::milliseconds open_timeout, std::chrono::milliseconds io_timeout);

  /// Sends Hello, waits for Welcome and checks it: protocol version (an incompatible peer is
  /// told, then util::VersionMismatchError), the probe order. Throws util::PeerError for a
  /// missing or wrong answer, or the peer's own Error as its exception.
  const PeerInfo& handshake(const SessionPlan& plan);

  /// Sends frame `seq` at sim time t_s with joint values q and the feedback of the last
  /// report. Returns the send time on the steady clock [ns] (Frame.sent_ns).
  std::int64_t send_frame(std::uint64_t seq, double t_s, std::span<const double> q, const ReportFeedback& feedback);

  /// Waits up to `timeout` (0 polls) for the next ProbeReport and returns it (valid until the
  /// next call), or null on timeout or once the peer said Bye. A Bye is noted (peer_said_bye());
  /// an Error is thrown as the peer's exception; anything else is a util::PeerError.
  const v1::ProbeReport* receive(std::chrono::milliseconds timeout);
  /// The steady-clock time [ns] the last message returned by receive() was taken in.
  std::int64_t received_ns() const { return received_ns_; }

  bool peer_said_bye() const { return peer_said_bye_; }
  const std::string& peer_bye_reason() const { return bye_reason_; }
  std::uint64_t peer_frames_skipped() const { return peer_frames_skipped_; }

  /// Best effort Bye with the number of frames sent. Never throws.
  void send_bye(std::uint64_t frames_sent) noexcept;
  /// Tells the peer why this side stops (best effort, once per session, never throws).
  void fail(int exit_code, const std::string& message) noexcept;

  /// Context for error messages, e.g. "during the handshake".
  void set_context(std::string context) { connection_.set_context(std::move(context)); }
  std::string describe() const { return connection_.describe(); }

 private:
  protocol::Connection connection_;
  std::chrono::milliseconds open_timeout_;
  std::chrono::milliseconds io_timeout_;
  PeerInfo peer_;
  v1::Envelope out_;
  v1::Envelope in_;
  std::int64_t received_ns_ = 0;
  bool peer_said_bye_ = false;
  std::string bye_reason_;
  std::uint64_t peer_frames_skipped_ = 0;
  bool failed_ = false;
};

}  // namespace cosim::dynamics::session
