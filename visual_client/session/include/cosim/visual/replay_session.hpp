#pragma once

#include <chrono>
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
  std::uint64_t frames_received() const override { return frames_; }
  ReportDelay last_report_delay() const override { return delay_; }
  std::uint64_t frames_skipped() const override { return 0; }
  /// Largest |now − recorded| over the reports compared so far [m]; reports compared.
  double max_difference_to_recording_m() const { return max_difference_m_; }
  std::uint64_t reports_compared() const { return compared_; }

 private:
  bool read_next(wire::CosimLogReader::Record& record);
  std::filesystem::path path_;
  std::unique_ptr<wire::CosimLogReader> reader_;
  bool as_fast_as_possible_;
  util::EventLog& log_;
  v1::Hello hello_;
  std::vector<int> scene_index_of_hello_joint_;
  std::vector<int> reported_probes_;
  std::vector<double> q_scene_;
  std::vector<std::vector<double>> recorded_positions_;  // by frame seq - 1, filled lazily
  wire::CosimLogReader::Record record_;
  ReportDelay delay_;
  std::uint64_t seq_ = 0, frames_ = 0, compared_ = 0;
  double sim_time_s_ = 0, first_t_s_ = 0;
  double max_difference_m_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cosim::visual
