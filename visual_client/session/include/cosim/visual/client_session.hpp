#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/protocol/connection.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/cosimlog.hpp"

namespace cosim::visual {

struct ClientOptions {
  std::string channel;                                ///< "fifo:DIR"
  std::chrono::milliseconds open_timeout{10'000};     ///< wait for the dynamics' FIFOs and Hello
  std::chrono::milliseconds frame_timeout{30'000};    ///< longest silence between two frames
  std::uint32_t protocol_major = 0;                   ///< test hook: answer with another major (0 = ours)
  std::string peer_kind = "recorder";                 ///< "recorder" or "visual", sent in Welcome
};

/// The visual side of a session, shared by cosim-recorder and cosim-visual: connects,
/// checks the Hello against the scene (version, joints, probes), answers Welcome, then
/// hands out frames with joint values in scene order and sends the probe reports back.
/// In free/realtime mode it always hands out the newest frame that has arrived and counts
/// the older ones as skipped, so a slow renderer never builds a queue.
class ClientSession {
 public:
  ClientSession(const scene::SceneModel& scene, ClientOptions options, util::EventLog& log,
                wire::CosimLogWriter* record);

  /// Connects and completes the handshake. Throws util::CosimError (exit codes 2, 3, 4).
  void connect_and_handshake();
  const v1::Hello& hello() const { return hello_; }

  /// Waits for the next frame to show. False once the dynamics said Bye (answered).
  bool next_frame();
  std::uint64_t seq() const { return seq_; }
  double sim_time_s() const { return sim_time_s_; }
  std::int64_t received_ns() const { return received_ns_; }
  /// Joint values of the current frame in scene::SceneModel::joint_names() order.
  std::span<const double> q_scene() const { return q_scene_; }
  /// Scene indices of the probes to report, in Welcome order.
  std::span<const int> reported_probes() const { return reported_probes_; }

  /// Sends the ProbeReport of the current frame; p_WP in reported_probes() order [m].
  void report(std::span<const Eigen::Vector3d> p_WP);
  /// Tells the dynamics why this side stops (best effort, never throws; once per session).
  void fail(int exit_code, const std::string& message) noexcept;

  std::uint64_t frames_received() const { return frames_received_; }
  std::uint64_t frames_skipped() const { return frames_skipped_; }
  std::uint64_t reports_sent() const { return reports_sent_; }

 private:
  void accept_frame(const v1::Frame& frame);
  void send_error(v1::ErrorCode code, const std::string& message) noexcept;
  const scene::SceneModel& scene_;
  ClientOptions options_;
  util::EventLog& log_;
  wire::CosimLogWriter* record_;
  std::unique_ptr<protocol::Connection> connection_;
  v1::Hello hello_;
  std::vector<int> scene_index_of_hello_joint_;
  std::vector<int> reported_probes_;
  std::vector<double> q_scene_;
  v1::Envelope in_;
  v1::Envelope out_;
  std::uint64_t seq_ = 0;
  double sim_time_s_ = 0;
  std::int64_t received_ns_ = 0;
  bool bye_pending_ = false;
  bool done_ = false;
  bool drop_stale_ = false;
  bool error_sent_ = false;
  std::uint64_t frames_received_ = 0, frames_skipped_ = 0, reports_sent_ = 0;
};

}  // namespace cosim::visual
