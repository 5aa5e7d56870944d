#pragma once

#include <array>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/util/stats.hpp"

namespace cosim::report {

/// Speed errors over one phase of a manoeuvre: a stretch where the reference moves, with the
/// stop after it (seed 002 Fig. 12).
struct SpeedPhase {
  std::string name;              ///< the axes that move: "X", "Y", "XY", "turn", …
  double from_s = 0, to_s = 0;   ///< first and last row
  std::array<double, 3> max_abs{}, rms{};  ///< |actual − reference| of Ẋ, Ẏ [m/s], φ̇ [rad/s]
  std::size_t rows = 0;
};

/// What a report says about a run, computed from its files (run.json, dynamics.csv,
/// probes.csv), not copied from the dynamics' own summary: the report is a second opinion.
struct RunFacts {
  std::string run_id, backend, mode, scene, status;
  double fps = 0;
  std::uint64_t frames_sent = 0, frames_skipped = 0, overruns = 0;  // from run.json
  std::size_t reports = 0;                                         // rows of probes.csv
  std::vector<std::string> probes;
  util::Summary delay_frames, delay_sim_s, rtt_us, diff_same_time_m, diff_at_arrival_m;
  // Deviation from the reference after the first 5 s (if the backend writes references).
  bool has_reference = false;
  std::size_t reference_rows = 0;  // dynamics.csv rows after the transient
  double max_dev_x_m = 0, max_dev_y_m = 0, max_dev_phi_rad = 0;
  /// What the reader of the report must know about the files themselves: a run that never
  /// ended (run.json still "running": the dynamics was killed), a torn last row left out.
  std::vector<std::string> notes;
  /// Per-phase speed errors, for runs with vx, vy, omega and their references (mecanum4).
  std::vector<SpeedPhase> speed_phases;
};

/// Reads a run folder. Throws std::runtime_error naming the file on missing or bad input.
RunFacts read_run(const std::filesystem::path& run_dir);

/// The metrics' schema in metrics_json (`cosim-report --json`): raised when a key changes
/// meaning or goes away; keys are only added within one version.
inline constexpr int kMetricsSchemaVersion = 1;

/// The facts as one JSON document (`cosim-report --json`, read by scripts/bench.sh, the study
/// scripts and sweeps): the run's identity and counts, the statistics of each delay and
/// difference (count, p50, p99, max, mean; null when there is none), the deviation from the
/// reference, the per-phase speed errors and the notes. docs/design.md lists the keys.
std::string metrics_json(const RunFacts& facts);

/// What decides which plots a run gets (the plot recipes' needs are checked against it).
struct RunShape {
  std::vector<std::string> dynamics_columns;  ///< dynamics.csv's header: t_s, joints, probes, outputs
  std::vector<std::string> joint_names;       ///< scoped joint names (run.json)
  std::string first_probe;                    ///< the first compared probe, "" if none
  bool probe_reports = false;                 ///< probes.csv has rows: a visual side reported
  bool after_transient = false;               ///< rows at or after the initial transient (5 s)
};

/// One plot of the report and what it needs from a run: the backend outputs it draws (columns
/// of dynamics.csv, the undeclared contract of old), joints by their last name part (x, y,
/// phi), the first probe's path, probe reports, rows after the transient; with --compare
/// whether the compared run must satisfy the same needs, and whether it is drawn only then.
struct PlotNeeds {
  std::span<const char* const> columns = {};
  std::span<const char* const> joints = {};
  bool first_probe = false;
  bool probe_reports = false;
  bool after_transient = false;
  enum class Compared {
    kIgnored,   ///< the compared run, if any, does not matter
    kBoth,      ///< with --compare, the compared run must satisfy the needs too
    kRequired,  ///< drawn only with --compare, both runs satisfying the needs
  } compared = Compared::kIgnored;
};

/// The report's plots in drawing order: each plots/<name>.png with what it needs.
struct PlotRecipeInfo {
  std::string_view name;
  std::string_view what;  ///< one line: what the plot shows
  PlotNeeds needs;
};
std::span<const PlotRecipeInfo> plot_recipes();

/// The names of the plots write_report draws for a run of this shape (and, with --compare, a
/// compared run of shape `compared`), in drawing order.
std::vector<std::string> plots_for(const RunShape& run, const RunShape* compared = nullptr);

/// What write_report drew, and what gnuplot said while drawing it.
struct WrittenReport {
  std::vector<std::filesystem::path> pngs;
  /// gnuplot's stderr of each plot it drew but had something to say about (a warning), as
  /// "<script>: <text>"; the text is also kept in plots/<name>.gnuplot.err. Empty: it said nothing.
  std::vector<std::string> gnuplot_messages;
};

/// Writes plots/<name>.gp and plots/<name>.png (via the gnuplot program) and report.md into
/// the run folder; returns the PNG paths and gnuplot's warnings. Every axis is set from the
/// values drawn (plot_axes.hpp): a constant series gets a range and a note, not gnuplot's ±1.
/// With `compare_run` (a second run folder, empty: none)
/// the deviation plot and report.md show its deviation from the reference beside this run's,
/// each labelled by its folder name; for runs with roller 1's vertical position, velocity and
/// acceleration (omniwheel), plots/difference.{csv,png} and report.md give their difference row
/// by row. Throws std::runtime_error if gnuplot is missing or fails, or there is nothing to
/// compare (neither both with a reference nor both with those columns, or other output times).
WrittenReport write_report(const std::filesystem::path& run_dir, const RunFacts& facts, int width_px, int height_px,
                           const std::filesystem::path& compare_run = {});

}  // namespace cosim::report
