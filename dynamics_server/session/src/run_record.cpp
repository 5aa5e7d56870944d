#include "cosim/dynamics/session/run_record.hpp"

#include <cassert>

#include "cosim/protocol/version.hpp"

namespace cosim::dynamics::session {

namespace {
constexpr const char* kAxes[] = {"x", "y", "z"};
constexpr std::size_t kComparisonLeadColumns = 7;  // frame_seq .. frames_skipped
constexpr std::size_t kComparisonColumnsPerProbe = 3 + 3 + 1 + 3 + 1;
}  // namespace

RunRecord::RunRecord(const run::RunFolder& folder, std::span<const std::string> joint_columns,
                     std::span<const std::string> probe_names, std::span<const std::string> output_names)
    : probe_count_(probe_names.size()) {
  std::vector<std::string> columns{"t_s"};
  columns.insert(columns.end(), joint_columns.begin(), joint_columns.end());
  for (const auto& probe : probe_names) {
    for (const char* axis : kAxes) columns.push_back(probe + "/" + axis + "_m");
  }
  columns.insert(columns.end(), output_names.begin(), output_names.end());
  dynamics_csv_ = std::make_unique<util::CsvWriter>(folder.dynamics_csv(), columns);
  state_row_.resize(columns.size());

  std::vector<std::string> probe_columns{"frame_seq",   "t_frame_s", "t_consumed_s",  "delay_frames",
                                         "delay_sim_s", "rtt_us",    "frames_skipped"};
  for (const auto& probe : probe_names) {
    for (const char* axis : kAxes) probe_columns.push_back(probe + "/virtual_" + axis + "_m");
    for (const char* axis : kAxes) probe_columns.push_back(probe + "/dynamic_" + axis + "_m");
    probe_columns.push_back(probe + "/diff_same_time_m");
    for (const char* axis : kAxes) probe_columns.push_back(probe + "/dynamic_at_arrival_" + axis + "_m");
    probe_columns.push_back(probe + "/diff_at_arrival_m");
  }
  assert(probe_columns.size() == kComparisonLeadColumns + kComparisonColumnsPerProbe * probe_count_);
  probes_csv_ = std::make_unique<util::CsvWriter>(folder.probes_csv(), probe_columns);
  comparison_row_.resize(probe_columns.size());
  frames_log_ = std::make_unique<wire::CosimLogWriter>(folder.frames_log(), protocol::kProtocolMajor,
                                                       protocol::kProtocolMinor);
}

void RunRecord::write_state(double t_s, std::span<const double> q, std::span<const Eigen::Vector3d> p_WP,
                            std::span<const double> outputs) {
  auto out = state_row_.begin();
  *out++ = t_s;
  out = std::copy(q.begin(), q.end(), out);
  for (const auto& p : p_WP) {
    *out++ = p.x();
    *out++ = p.y();
    *out++ = p.z();
  }
  out = std::copy(outputs.begin(), outputs.end(), out);
  dynamics_csv_->row(std::span<const double>(state_row_.data(), static_cast<std::size_t>(out - state_row_.begin())));
}

void RunRecord::write_comparison(const Comparison& c) {
  auto out = comparison_row_.begin();
  *out++ = static_cast<double>(c.frame_seq);
  *out++ = c.t_frame_s;
  *out++ = c.t_consumed_s;
  *out++ = c.delay_frames;
  *out++ = c.delay_sim_s;
  *out++ = c.rtt_us;
  *out++ = static_cast<double>(c.frames_skipped);
  for (std::size_t p = 0; p < probe_count_; ++p) {
    for (int a = 0; a < 3; ++a) *out++ = c.virtual_p_WP[p][a];
    for (int a = 0; a < 3; ++a) *out++ = c.dynamic_p_WP[p][a];
    *out++ = c.diff_same_time_m[p];
    for (int a = 0; a < 3; ++a) *out++ = c.arrival_p_WP[p][a];
    *out++ = c.diff_at_arrival_m[p];
  }
  probes_csv_->row(comparison_row_);
}

void RunRecord::flush() {
  dynamics_csv_->flush();
  probes_csv_->flush();
  frames_log_->flush();
}

}  // namespace cosim::dynamics::session
