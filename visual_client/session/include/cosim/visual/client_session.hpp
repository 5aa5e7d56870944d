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
#include "cosim/util/errors.hpp"
#include "cosim/visual/frame_source.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/cosimlog.hpp"

namespace cosim::visual {

/// A Hello that does not fit the scene; code() is what the peer is told.
class MappingError : public util::BadInputError {
 public:
  MappingError(v1::ErrorCode code, const std::string& message) : util::BadInputError(message), code_(code) {}
  v1::ErrorCode code() const noexcept { return code_; }

 private:
  v1::ErrorCode code_;
};

/// How a Hello's joints and probes map onto a scene.
struct HelloMapping {
  std::vector<int> scene_index_of_hello_joint;  ///< Frame value i goes to scene joint [i]
  std::vector<std::string> probe_names;         ///< reported, in Welcome order
  std::vector<int> reported_probes;             ///< scene probe index of each
};

/// What is wrong with a Hello on its own (before any scene): "" if nothing. Checks fps
/// (finite, > 0), frame_count (> 0), mode (one of the three), sim times, and that no joint
/// or probe is named twice.
std::string hello_problem(const v1::Hello& hello);

/// What is wrong with `frame` as the next one after `last_seq` at `last_t_s` of a run
/// announced by `hello`: "" if nothing. Checks the sequence (no gaps, not past frame_count),
/// the joint value count, finite values, and a finite sim time that moves forward.
std::string frame_problem(const v1::Frame& frame, const v1::Hello& hello, std::uint64_t last_seq, double last_t_s);

/// Checks a Hello against the scene (DESIGN.md "Protocol": every Hello joint must be a driven
/// scene joint and the reverse; requested probes must exist). Throws MappingError naming them all.
HelloMapping map_hello(const v1::Hello& hello, const scene::SceneModel& scene);

struct ClientOptions {
  std::string channel;                                ///< a --channel value, as given to the dynamics
  std::chrono::milliseconds open_timeout{10'000};     ///< wait for the dynamics' FIFOs and Hello
  std::chrono::milliseconds frame_timeout{30'000};    ///< longest silence between two frames
  std::uint32_t protocol_major = 0;                   ///< test hook: answer with another major (0 = ours)
  std::string peer_kind = "recorder";                 ///< "recorder" or "visual", sent in Welcome
};

/// The visual side of a session, shared by cosim-recorder and cosim-visual: connects and
/// takes the Hello (version checked), checks it against the scene (joints, probes) and
/// answers Welcome, then
/// hands out frames with joint values in scene order and sends the probe reports back.
/// In free/realtime mode it always hands out the newest frame that has arrived and counts
/// the older ones as skipped, so a slow renderer never builds a queue.
class ClientSession final : public FrameSource {
 public:
  /// `record` (may be null) receives every envelope as it crosses the wire.
  ClientSession(ClientOptions options, util::EventLog& log, wire::CosimLogWriter* record);

  /// Opens options.channel, waits for the Hello and checks its protocol version (an
  /// incompatible dynamics is told so). Throws util::CosimError or wire::ChannelSetupError.
  const v1::Hello& connect();
  /// The same over a channel already open (tests: in-memory, fault injection).
  const v1::Hello& connect(std::unique_ptr<wire::Channel> channel);
  /// Checks the Hello against `scene` (which must outlive the session) and answers Welcome,
  /// or tells the dynamics what does not match and throws MappingError.
  void accept(const scene::SceneModel& scene) override;
  const v1::Hello& hello() const override { return hello_; }

  /// Waits for the next frame to show. False once the dynamics said Bye (answered).
  bool next_frame() override;
  std::uint64_t seq() const override { return seq_; }
  double sim_time_s() const override { return sim_time_s_; }
  std::int64_t received_ns() const { return received_ns_; }
  /// Joint values of the current frame in scene::SceneModel::joint_names() order.
  std::span<const double> q_scene() const override { return q_scene_; }
  /// Scene indices of the probes to report, in Welcome order.
  std::span<const int> reported_probes() const override { return reported_probes_; }

  /// Sends the ProbeReport of the current frame; p_WP in reported_probes() order [m].
  void report(std::span<const Eigen::Vector3d> p_WP) override;
  /// Tells the dynamics why this side stops (best effort, never throws; once per session).
  void fail(int exit_code, const std::string& message) noexcept override;

  std::uint64_t frames_received() const override { return frames_received_; }
  ReportDelay last_report_delay() const override { return delay_; }
  std::uint64_t frames_skipped() const override { return frames_skipped_; }
  std::uint64_t reports_sent() const { return reports_sent_; }

 private:
  void accept_frame(const v1::Frame& frame);
  void send_error(v1::ErrorCode code, const std::string& message) noexcept;
  ClientOptions options_;
  util::EventLog& log_;
  wire::CosimLogWriter* record_;
  std::unique_ptr<protocol::Connection> connection_;
  v1::Hello hello_;
  std::uint32_t major_ = 0, minor_ = 0;  // negotiated
  std::vector<int> scene_index_of_hello_joint_;
  std::vector<int> reported_probes_;
  std::vector<double> q_scene_;
  v1::Envelope in_;
  v1::Envelope out_;
  ReportDelay delay_;
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
