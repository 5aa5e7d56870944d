#pragma once
/// @file
/// A study's tables and plots (docs/sweeps.md): each point's metrics from its run folder, by
/// cosim-report's own code (report::read_run), and DIR/report.md with each metric drawn
/// against each swept parameter (gnuplot), into DIR/plots/.

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "cosim/sweep/spec.hpp"

namespace cosim::sweep {

/// The metrics results.csv gives each point, in its column order: the deviation from the
/// backend's reference after the transient (cosim-report --json "deviation"), NaN where the
/// run has none.
inline constexpr std::array<const char*, 3> kMetricColumns = {"max_dev_x_m", "max_dev_y_m", "max_dev_phi_rad"};

/// With the recorder (Spec::recorder), the delay metrics follow (cosim-report --json's
/// delay_frames, delay_sim_s, rtt_us and diff_at_arrival_m): the frames between a frame's sending and its report, median and
/// largest; the largest delay in simulated time; the round trip [µs], median and p99; the
/// largest distance of the probe from the dynamic model's at the report's arrival [m].
inline constexpr std::array<const char*, 6> kDelayColumns = {"delay_frames_p50", "delay_frames_max", "delay_sim_s_max",
                                                            "rtt_us_p50", "rtt_us_p99", "probe_diff_at_arrival_m_max"};

/// How many of results.csv's metrics come from the report: kMetricColumns, and kDelayColumns
/// with the recorder.
std::size_t report_metric_count(const Spec& spec);

/// Every metric column of results.csv, in order: the report's, then the sweep file's own.
std::vector<std::string> metric_names(const Spec& spec);

/// A run folder's metrics from the report (kMetricColumns, then with `delays` kDelayColumns);
/// NaN for what it does not have, or for a folder the report cannot read.
std::vector<double> run_metrics(const std::filesystem::path& run_dir, bool delays);

/// One point's row of results, as run_sweep tabulates it.
struct PointResult {
  const Point* point = nullptr;
  bool ran = false;
  int exit_code = -1;
  std::string status;  ///< run.json's, "lost" or "not_run"
  double wall_s = 0;
  int attempts = 0;
  std::string error;
  std::vector<double> metrics;  ///< metric_names order
};

/// Writes DIR/plots/*.png (each metric with a value, and the wall time, against each swept
/// numeric parameter; one line per value of a second swept parameter) and DIR/report.md.
/// Without gnuplot the report says so and lists no plots. `problems`: the sweep file's metrics
/// the runs could not give (metrics.hpp), listed first. Throws util::OutputError.
void write_study_report(const Spec& spec, const std::filesystem::path& dir, const std::vector<PointResult>& results,
                        const std::vector<std::string>& problems = {});

}  // namespace cosim::sweep
