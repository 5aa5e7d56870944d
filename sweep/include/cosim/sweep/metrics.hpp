#pragma once
/// @file
/// The study's own metrics (spec.hpp ColumnMetric, docs/sweeps.md "Metrics"): statistics of
/// dynamics.csv columns over a window of time, of one run or of its difference to its
/// reference point's run.

#include <filesystem>
#include <string>
#include <vector>

#include "cosim/sweep/spec.hpp"
#include "cosim/util/csv_reader.hpp"

namespace cosim::sweep {

/// Two output times closer than this [s] are the same row (they are sums of output steps), and
/// a row this close outside a window's end is inside it.
inline constexpr double kTimeSlack_s = 1e-9;

/// One metric of one run (`reference`: its reference's run, or null without `against`). NaN
/// when the window holds no row (or, for first_nonzero_t, no nonzero value). Throws
/// util::BadInputError for a column the run (or the reference) lacks, naming it and the file,
/// or for rows of the two runs at other times.
double evaluate(const ColumnMetric& metric, const util::CsvTable& run, const util::CsvTable* reference);

/// The file's metrics of every point: values[point][metric] (Spec::points, Spec::metrics
/// order), NaN for a point whose run did not finish (finished[point] false), whose reference's
/// did not, or that has no value. `problems`: one line per metric the runs cannot give (a
/// column no run has, runs at other output times), naming the sweep file, the metric and the
/// run: a mistake in the sweep file, which the caller reports after writing the results.
struct MetricValues {
  std::vector<std::vector<double>> values;
  std::vector<std::string> problems;
};
MetricValues column_metrics(const Spec& spec, const std::filesystem::path& dir, const std::vector<bool>& finished);

}  // namespace cosim::sweep
