#pragma once

#include <atomic>
#include <chrono>
#include <limits>
#include <span>
#include <filesystem>
#include <memory>
#include <vector>

#include "cosim/scene/scene_model.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/visual/frame_source.hpp"
#include "cosim/wire/cosimlog.hpp"

namespace cosim::visual {

/// Plays a recorded run (frames.cosimlog of the dynamics, or a visual side's own recording)
/// again without a dynamics process: the Hello is checked against the scene like a live one,
/// frames come at the recorded fps (or as fast as possible), and each probe position computed
/// now is compared with the one reported during the run, if the recording holds it.
/// The frames are read and checked once, up front (~300 B each), so that the player can jump
/// to any time (request_seek(), from any thread: a time slider).
class ReplaySession final : public FrameSource {
 public:
  /// Reads the recording's Hello and reports: `recording` is a .cosimlog or a run folder (its
  /// frames.cosimlog). Throws util::BadInputError for an unreadable or corrupt log, or one
  /// without a Hello.
  ReplaySession(const std::filesystem::path& recording, bool as_fast_as_possible, util::EventLog& log);
  void accept(const scene::SceneModel& scene) override;

  const v1::Hello& hello() const override { return hello_; }
  bool next_frame() override;
  std::uint64_t seq() const override { return seq_; }
  double sim_time_s() const override { return sim_time_s_; }
  std::span<const double> q_scene() const override { return q_scene_; }
  std::span<const int> reported_probes() const override { return reported_probes_; }
  void report(std::span<const Eigen::Vector3d> p_WP) override;
  std::uint64_t frames_received() const override { return frames_shown_; }
  ReportDelay last_report_delay() const override { return delay_; }
  std::uint64_t frames_skipped() const override { return 0; }
  /// Reports compared so far and the largest |now − recorded| over them [m].
  std::optional<ReplayComparison> replay_comparison() const override {
    return ReplayComparison{compared_, max_difference_m_};
  }

  /// Recorded frames and the sim time [s] of the first and the last.
  std::size_t frame_count() const { return frames_in_log_.size(); }
  double first_time_s() const { return frames_in_log_.empty() ? 0 : frames_in_log_.front().t_s; }
  double last_time_s() const { return frames_in_log_.empty() ? 0 : frames_in_log_.back().t_s; }
  /// Joint values of recorded frame `index` (0-based, in log order) in scene order, after accept().
  void q_scene_of(std::size_t index, std::span<double> q) const;
  /// Index (0-based) of the current frame.
  std::size_t index() const { return cursor_ == 0 ? 0 : cursor_ - 1; }
  /// The next next_frame() returns the last frame at or before t_s (the first, before it)
  /// and counts as a jump. Thread-safe; the latest request wins.
  void request_seek(double t_s) noexcept;
  /// True if the current frame was reached by a seek (the frames before it were not shown).
  bool jumped() const { return jumped_; }

 private:
  /// One recorded frame as the replay needs it.
  struct RecordedFrame {
    std::uint64_t seq = 0;
    double t_s = 0;
    ReportDelay delay;
    std::vector<double> joint_values;  // in Hello order
  };
  bool read_next(wire::CosimLogReader& reader, wire::CosimLogReader::Record& record);
  std::filesystem::path path_;
  bool as_fast_as_possible_;
  util::EventLog& log_;
  v1::Hello hello_;
  std::vector<int> scene_index_of_hello_joint_;
  std::vector<int> reported_probes_;
  std::vector<double> q_scene_;
  std::vector<std::vector<double>> recorded_positions_;  // by frame seq - 1, filled lazily
  std::vector<RecordedFrame> frames_in_log_;
  std::size_t cursor_ = 0;  // index of the next frame to return
  std::atomic<double> seek_to_s_{std::numeric_limits<double>::quiet_NaN()};
  bool jumped_ = false;
  ReportDelay delay_;
  std::uint64_t seq_ = 0, compared_ = 0;
  std::uint64_t frames_shown_ = 0;  // returned by next_frame()
  std::uint64_t paced_ = 0;         // frames since the pace started (at the first, or a jump)
  double sim_time_s_ = 0, first_t_s_ = 0;
  double max_difference_m_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cosim::visual
