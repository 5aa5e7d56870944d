// The study's own metrics from the points' dynamics.csv (metrics.hpp).
#include "cosim/sweep/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::sweep {

namespace fs = std::filesystem;

namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
// Reference runs held at once while tabulating: a study compares against few of its points,
// and a 50 s Robotino table at 0.02 s is about 1 MB.
constexpr std::size_t kCachedReferences = 64;

std::string what_of(const ColumnMetric& metric) { return metric.where + " (" + metric.name + ")"; }

std::string no_column(const std::string& what, const util::CsvTable& table, const std::string& name) {
  std::vector<std::string> some(table.columns().begin(),
                                table.columns().begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(12, table.columns().size())));
  return what + ": no column '" + name + "' in " + table.path().string() + " (it has " + util::join(some) +
         (table.columns().size() > 12 ? ", …" : "") + ")";
}

std::span<const double> column_of(const util::CsvTable& table, const std::string& name, const std::string& what) {
  if (!table.has(name)) throw util::BadInputError(no_column(what, table, name));
  return table.column(name);
}

// The first of the metric's columns a table lacks, as a message; empty when it has them all.
std::string first_missing(const ColumnMetric& metric, const util::CsvTable& table) {
  for (const std::string& c : metric.columns) {
    if (!table.has(c)) return no_column(what_of(metric), table, c);
  }
  return {};
}

}  // namespace

double evaluate(const ColumnMetric& metric, const util::CsvTable& run, const util::CsvTable* reference) {
  const std::string what = what_of(metric);
  const auto t = column_of(run, "t_s", what);
  std::vector<std::span<const double>> values, minus;
  for (const std::string& c : metric.columns) {
    values.push_back(column_of(run, c, what));
    if (reference != nullptr) minus.push_back(column_of(*reference, c, what));
  }
  std::size_t rows = run.rows();
  if (reference != nullptr) {
    // Row by row: both runs must sample the same times (the same output step); a run that
    // ended early (a numerical failure) is compared over the rows both have.
    const auto t_ref = column_of(*reference, "t_s", what);
    rows = std::min(rows, reference->rows());
    for (std::size_t k = 0; k < rows; ++k) {
      if (std::abs(t[k] - t_ref[k]) > kTimeSlack_s) {
        throw util::BadInputError(what + ": " + run.path().string() + " line " + std::to_string(run.line_of(k)) +
                                  " is at t_s = " + value_text(t[k]) + " where its reference " +
                                  reference->path().string() + " is at " + value_text(t_ref[k]) +
                                  " (compared runs need the same output step)");
      }
    }
  }
  const auto v = [&](std::size_t col, std::size_t k) {
    return values[col][k] - (reference != nullptr ? minus[col][k] : 0.0);
  };
  const auto inside = [&](std::size_t k) {
    return t[k] >= metric.from_s - kTimeSlack_s && t[k] <= metric.to_s + kTimeSlack_s;
  };

  using S = ColumnMetric::Stat;
  std::optional<std::size_t> first, last;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, peak = 0, sum = 0, sum_sq = 0, area = 0;
  std::size_t count = 0, nonzero = 0;
  for (std::size_t k = 0; k < rows; ++k) {
    if (!inside(k)) continue;
    for (std::size_t c = 0; c < values.size(); ++c) {
      const double x = v(c, k);
      if (std::isnan(x)) return kNoValue;  // a run table's "no value": no statistic
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      peak = std::max(peak, std::abs(x));
      nonzero += x != 0 ? 1 : 0;
    }
    const double x = v(0, k);
    if (metric.stat == S::first_nonzero_t && x != 0) return t[k];
    if (last) area += 0.5 * (t[k] - t[*last]) * (x + v(0, *last));  // trapezoids between rows
    sum += x;
    sum_sq += x * x;
    ++count;
    if (!first) first = k;
    last = k;
  }
  if (count == 0) return kNoValue;
  switch (metric.stat) {
    case S::initial: return v(0, *first);
    case S::final: return v(0, *last);
    case S::min: return lo;
    case S::max: return hi;
    case S::max_abs: return peak;
    case S::mean: return sum / static_cast<double>(count);
    case S::rms: return std::sqrt(sum_sq / static_cast<double>(count));
    case S::integral: return area;
    case S::first_nonzero_t: return kNoValue;  // never nonzero in the window
    case S::count_nonzero: return static_cast<double>(nonzero);
  }
  return kNoValue;
}

MetricValues column_metrics(const Spec& spec, const fs::path& dir, const std::vector<bool>& finished) {
  MetricValues out;
  out.values.assign(spec.points.size(), std::vector<double>(spec.metrics.size(), kNoValue));
  if (spec.metrics.empty()) return out;
  std::set<std::size_t> referenced;
  for (const ColumnMetric& m : spec.metrics) referenced.insert(m.reference.begin(), m.reference.end());
  std::map<std::size_t, util::CsvTable> cache;
  const auto load = [&](std::size_t i) -> std::optional<util::CsvTable> {
    try {
      return util::CsvTable::read(dir / spec.points[i].id / "dynamics.csv");
    } catch (const util::BadInputError&) {
      return std::nullopt;  // a run that wrote no table: its row says why
    }
  };
  const auto reference_table = [&](std::size_t i) -> const util::CsvTable* {
    if (const auto it = cache.find(i); it != cache.end()) return &it->second;
    auto table = load(i);
    if (!table) return nullptr;
    if (cache.size() >= kCachedReferences) cache.erase(cache.begin());
    return &cache.emplace(i, std::move(*table)).first->second;
  };
  std::set<std::size_t> reported;  // one problem line per metric
  // A column only some runs have (a backend axis: not every backend writes energies) leaves
  // the others' cells empty; a column no run has is a mistake in the file.
  std::vector<bool> found(spec.metrics.size(), false);
  std::vector<std::string> missing(spec.metrics.size());
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    if (!finished[i]) continue;
    std::optional<util::CsvTable> own;
    const util::CsvTable* run = nullptr;
    if (referenced.count(i)) {
      run = reference_table(i);
    } else {
      own = load(i);
      run = own ? &*own : nullptr;
    }
    if (run == nullptr) continue;
    // The table may be evicted by a reference loaded below: keep this point's own copy.
    if (referenced.count(i)) {
      own = *run;
      run = &*own;
    }
    for (std::size_t m = 0; m < spec.metrics.size(); ++m) {
      const ColumnMetric& metric = spec.metrics[m];
      const util::CsvTable* ref = nullptr;
      if (!metric.reference.empty()) {
        const std::size_t r = metric.reference[i];
        if (!finished[r] || (ref = (r == i ? run : reference_table(r))) == nullptr) continue;
      }
      std::string lacks = first_missing(metric, *run);
      if (lacks.empty() && ref != nullptr) lacks = first_missing(metric, *ref);
      if (!lacks.empty()) {
        if (missing[m].empty()) missing[m] = spec.file.string() + ": " + lacks;
        continue;
      }
      found[m] = true;
      try {
        out.values[i][m] = evaluate(metric, *run, ref);
      } catch (const util::BadInputError& e) {  // runs at other output times
        if (reported.insert(m).second) out.problems.push_back(spec.file.string() + ": " + e.what());
      }
    }
  }
  for (std::size_t m = 0; m < spec.metrics.size(); ++m) {
    if (!found[m] && !missing[m].empty()) out.problems.push_back(missing[m]);
  }
  return out;
}

}  // namespace cosim::sweep
