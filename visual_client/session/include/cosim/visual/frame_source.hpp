#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <Eigen/Geometry>

#include "cosim/scene/scene.hpp"
#include "cosim/v1/cosim.pb.h"

namespace cosim::visual {

/// Where the visual side's frames come from: a live dynamics process (ClientSession) or a
/// recorded run (ReplaySession). The render loop and the recorder see only this.
/// First the run's Hello is known (hello()); then accept() binds the source to the scene
/// that shows it, which may have been chosen from the Hello; then frames flow.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  /// Checks the Hello against `scene` (which must outlive the source): every Hello joint a
  /// driven scene joint and the reverse, every requested probe in the scene. Throws
  /// MappingError (a util::BadInputError) naming them all.
  virtual void accept(const scene::SceneModel& scene) = 0;
  /// Waits for the next frame to show. False at the end of the run.
  virtual bool next_frame() = 0;
  virtual std::uint64_t seq() const = 0;
  virtual double sim_time_s() const = 0;
  /// Joint values of the current frame, in scene::SceneModel::joint_names() order.
  virtual std::span<const double> q_scene() const = 0;
  /// Scene indices of the probes to report, in report order.
  virtual std::span<const int> reported_probes() const = 0;
  /// Hands over the probe positions of the current frame [m, world].
  virtual void report(std::span<const Eigen::Vector3d> p_WP) = 0;
  virtual std::uint64_t frames_received() const = 0;
  virtual std::uint64_t frames_skipped() const = 0;
  /// The run's Hello (fps, frame count, end time, joints).
  virtual const v1::Hello& hello() const = 0;
  /// The dynamics' latest probe-report delay as of the current frame (Frame.last_*, protocol
  /// 1.1; zeros from a 1.0 peer or before the first report).
  struct ReportDelay {
    std::uint64_t report_seq = 0;
    std::uint32_t delay_frames = 0;
    double rtt_us = 0;
  };
  virtual ReportDelay last_report_delay() const = 0;
  /// A replay's probes recomputed now against the reports the run recorded: how many were
  /// compared and the largest difference [m]. Nothing for a live session.
  struct ReplayComparison {
    std::uint64_t reports_compared = 0;
    double max_difference_m = 0;
  };
  virtual std::optional<ReplayComparison> replay_comparison() const { return std::nullopt; }
  /// Tells the other side, if there is one, why this side stops. Never throws.
  virtual void fail(int /*exit_code*/, const std::string& /*message*/) noexcept {}
};

}  // namespace cosim::visual
