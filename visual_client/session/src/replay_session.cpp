#include "cosim/visual/replay_session.hpp"

#include <algorithm>
#include <thread>

#include "cosim/util/errors.hpp"
#include "cosim/visual/client_session.hpp"

namespace cosim::visual {

namespace {
/// A run folder stands for its frames.cosimlog.
std::filesystem::path recording_in(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) ? path / "frames.cosimlog" : path;
}
}  // namespace

ReplaySession::ReplaySession(const std::filesystem::path& given, bool as_fast_as_possible, util::EventLog& log)
    : path_(recording_in(given)), as_fast_as_possible_(as_fast_as_possible), log_(log) {
  try {
    reader_ = std::make_unique<wire::CosimLogReader>(path_);
  } catch (const std::exception& e) {
    throw util::BadInputError(std::string("--replay: ") + e.what());
  }
  // The Hello opens every recording; the ProbeReports of the run come back interleaved
  // with the frames, so the whole log is read once up front for them (it is small: ~300 B a frame).
  bool have_hello = false;
  while (read_next(record_)) {
    if (record_.envelope.has_hello()) {
      hello_ = record_.envelope.hello();
      have_hello = true;
    } else if (record_.envelope.has_probe_report()) {
      const auto& report = record_.envelope.probe_report();
      if (report.frame_seq() == 0) continue;
      if (recorded_positions_.size() < report.frame_seq()) recorded_positions_.resize(report.frame_seq());
      recorded_positions_[report.frame_seq() - 1].assign(report.positions_m().begin(), report.positions_m().end());
    }
  }
  if (!have_hello) throw util::BadInputError("--replay " + path_.string() + ": no Hello in the recording");
  if (const std::string problem = hello_problem(hello_); !problem.empty()) {
    throw util::BadInputError("--replay " + path_.string() + ": " + problem);
  }
  reader_ = std::make_unique<wire::CosimLogReader>(path_);  // again, from the start, for the frames
  log_.info("replay of " + path_.string() + ": run " + hello_.run_id() + ", backend " + hello_.backend() + ", " +
            std::to_string(hello_.frame_count()) + " frames at " + std::to_string(hello_.fps()) + " fps" +
            (as_fast_as_possible_ ? ", as fast as possible" : ""));
}

void ReplaySession::accept(const scene::SceneModel& scene) {
  HelloMapping mapping = map_hello(hello_, scene);
  scene_index_of_hello_joint_ = std::move(mapping.scene_index_of_hello_joint);
  reported_probes_ = std::move(mapping.reported_probes);
  q_scene_.assign(scene.joint_names().size(), 0.0);
}

bool ReplaySession::read_next(wire::CosimLogReader::Record& record) {
  try {
    return reader_->next(record);
  } catch (const std::exception& e) {
    throw util::BadInputError(std::string("--replay: ") + e.what());
  }
}

bool ReplaySession::next_frame() {
  while (read_next(record_)) {
    if (!record_.envelope.has_frame()) continue;
    const v1::Frame& frame = record_.envelope.frame();
    if (const std::string problem = frame_problem(frame, hello_, seq_, sim_time_s_); !problem.empty()) {
      throw util::BadInputError("--replay " + path_.string() + ": " + problem);
    }
    seq_ = frame.seq();
    sim_time_s_ = frame.sim_time_s();
    delay_ = {frame.last_report_seq(), frame.last_delay_frames(), frame.last_rtt_us()};
    for (std::size_t i = 0; i < scene_index_of_hello_joint_.size(); ++i) {
      q_scene_[static_cast<std::size_t>(scene_index_of_hello_joint_[i])] = frame.joint_values(static_cast<int>(i));
    }
    if (frames_ == 0) {
      start_ = std::chrono::steady_clock::now();
      first_t_s_ = sim_time_s_;
    } else if (!as_fast_as_possible_) {
      // At the recorded pace: sim time follows wall time.
      std::this_thread::sleep_until(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                 std::chrono::duration<double>(sim_time_s_ - first_t_s_)));
    }
    ++frames_;
    return true;
  }
  log_.info("replay done: " + std::to_string(frames_) + " frames; " + std::to_string(compared_) +
            " probe reports compared with the recording, max difference " + std::to_string(max_difference_m_) + " m");
  return false;
}

void ReplaySession::report(std::span<const Eigen::Vector3d> p_WP) {
  if (seq_ == 0 || seq_ > recorded_positions_.size()) return;
  const auto& recorded = recorded_positions_[seq_ - 1];
  if (recorded.size() != 3 * p_WP.size()) return;
  for (std::size_t i = 0; i < p_WP.size(); ++i) {
    const Eigen::Vector3d then(recorded[3 * i], recorded[3 * i + 1], recorded[3 * i + 2]);
    max_difference_m_ = std::max(max_difference_m_, (p_WP[i] - then).norm());
  }
  ++compared_;
}

}  // namespace cosim::visual
