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
  std::unique_ptr<wire::CosimLogReader> reader;
  try {
    reader = std::make_unique<wire::CosimLogReader>(path_);
  } catch (const std::exception& e) {
    throw util::BadInputError(std::string("--replay: ") + e.what());
  }
  // The Hello opens every recording; the frames and the run's ProbeReports come interleaved.
  // All are read once, up front: a corrupt log fails before anything is shown, and the player
  // can jump to any frame.
  bool have_hello = false;
  std::uint64_t last_seq = 0;
  double last_t_s = 0;
  wire::CosimLogReader::Record record;
  while (read_next(*reader, record)) {
    if (record.envelope.has_hello()) {
      hello_ = record.envelope.hello();
      have_hello = true;
      if (const std::string problem = hello_problem(hello_); !problem.empty()) {
        throw util::BadInputError("--replay " + path_.string() + ": " + problem);
      }
    } else if (record.envelope.has_probe_report()) {
      const auto& report = record.envelope.probe_report();
      if (report.frame_seq() == 0) continue;
      if (recorded_positions_.size() < report.frame_seq()) recorded_positions_.resize(report.frame_seq());
      recorded_positions_[report.frame_seq() - 1].assign(report.positions_m().begin(), report.positions_m().end());
    } else if (record.envelope.has_frame() && have_hello) {
      const v1::Frame& frame = record.envelope.frame();
      if (const std::string problem = frame_problem(frame, hello_, last_seq, last_t_s); !problem.empty()) {
        throw util::BadInputError("--replay " + path_.string() + ": " + problem);
      }
      last_seq = frame.seq();
      last_t_s = frame.sim_time_s();
      frames_in_log_.push_back({frame.seq(), frame.sim_time_s(),
                                {frame.last_report_seq(), frame.last_delay_frames(), frame.last_rtt_us()},
                                {frame.joint_values().begin(), frame.joint_values().end()}});
    }
  }
  if (!have_hello) throw util::BadInputError("--replay " + path_.string() + ": no Hello in the recording");
  log_.info("replay of " + path_.string() + ": run " + hello_.run_id() + ", backend " + hello_.backend() + ", " +
            std::to_string(frames_in_log_.size()) + " of " + std::to_string(hello_.frame_count()) + " frames at " +
            std::to_string(hello_.fps()) + " fps" + (as_fast_as_possible_ ? ", as fast as possible" : ""));
}

void ReplaySession::accept(const scene::SceneModel& scene) {
  HelloMapping mapping = map_hello(hello_, scene);
  scene_index_of_hello_joint_ = std::move(mapping.scene_index_of_hello_joint);
  reported_probes_ = std::move(mapping.reported_probes);
  q_scene_.assign(scene.joint_names().size(), 0.0);
}

bool ReplaySession::read_next(wire::CosimLogReader& reader, wire::CosimLogReader::Record& record) {
  try {
    return reader.next(record);
  } catch (const std::exception& e) {
    throw util::BadInputError(std::string("--replay: ") + e.what());
  }
}

void ReplaySession::q_scene_of(std::size_t index, std::span<double> q) const {
  const auto& values = frames_in_log_.at(index).joint_values;
  for (std::size_t i = 0; i < scene_index_of_hello_joint_.size(); ++i) {
    q[static_cast<std::size_t>(scene_index_of_hello_joint_[i])] = values[i];
  }
}

void ReplaySession::request_seek(double t_s) noexcept { seek_to_s_.store(t_s, std::memory_order_relaxed); }

bool ReplaySession::next_frame() {
  jumped_ = false;
  if (const double t_s = seek_to_s_.exchange(std::numeric_limits<double>::quiet_NaN()); t_s == t_s) {  // not NaN
    // The last frame at or before t_s: the frames' times increase (checked up front).
    const auto after = std::upper_bound(frames_in_log_.begin(), frames_in_log_.end(), t_s,
                                        [](double t, const RecordedFrame& f) { return t < f.t_s; });
    cursor_ = after == frames_in_log_.begin() ? 0 : static_cast<std::size_t>(after - frames_in_log_.begin()) - 1;
    jumped_ = true;
    paced_ = 0;  // the pace starts again from here
  }
  if (cursor_ >= frames_in_log_.size()) {
    log_.info("replay done: " + std::to_string(frames_shown_) + " frames; " + std::to_string(compared_) +
              " probe reports compared with the recording, max difference " + std::to_string(max_difference_m_) + " m");
    return false;
  }
  const RecordedFrame& frame = frames_in_log_[cursor_++];
  seq_ = frame.seq;
  sim_time_s_ = frame.t_s;
  delay_ = frame.delay;
  for (std::size_t i = 0; i < scene_index_of_hello_joint_.size(); ++i) {
    q_scene_[static_cast<std::size_t>(scene_index_of_hello_joint_[i])] = frame.joint_values[i];
  }
  if (paced_ == 0) {
    start_ = std::chrono::steady_clock::now();
    first_t_s_ = sim_time_s_;
  } else if (!as_fast_as_possible_) {
    // At the recorded pace: sim time follows wall time.
    std::this_thread::sleep_until(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(sim_time_s_ - first_t_s_)));
  }
  ++paced_;
  ++frames_shown_;
  return true;
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
