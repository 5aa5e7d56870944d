// A study's metrics, plots and report.md (study_report.hpp).
#include "cosim/sweep/study_report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "cosim/report/gnuplot.hpp"
#include "cosim/report/run_report.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/stats.hpp"
#include "cosim/util/text.hpp"

namespace cosim::sweep {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kPlotWidth_px = 900, kPlotHeight_px = 560;
constexpr std::size_t kMaxSeries = 8;  // more values of a second parameter: points, not lines


// A name safe as a file name: letters, digits, '_', '-', '.'; anything else '_'.
std::string file_name(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                    c == '.';
    out += ok ? c : '_';
  }
  return out;
}

bool numeric_everywhere(const Spec& spec, const std::string& key) {
  return std::all_of(spec.points.begin(), spec.points.end(), [&](const Point& p) {
    const auto it = p.params.find(key);
    return it != p.params.end() && std::holds_alternative<double>(it->second);
  });
}

// One plot: `metric` against swept parameter `x_key`, from `data` (name.dat: a block of "x y"
// lines per series, sorted by x, blocks apart by two blank lines); a line per series when
// there are several (named by `series_key` = each of `series_values`), points otherwise.
std::string plot_script(const std::string& png, const std::string& data, const std::string& metric,
                        const std::string& x_key, bool log_x, bool log_y, const std::string& series_key,
                        const std::vector<std::string>& series_values) {
  std::string gp = report::png_header(kPlotWidth_px, kPlotHeight_px, png);
  gp += "set datafile separator whitespace\nset format x '%g'\nset format y '%g'\n";
  gp += "set title '" + report::gnuplot_quoted(metric + " against " + x_key) + "' noenhanced\n";
  gp += "set xlabel '" + report::gnuplot_quoted(x_key) + "' noenhanced\nset ylabel '" + report::gnuplot_quoted(metric) +
        "' noenhanced\n";
  gp += std::string(log_x ? "set logscale x\n" : "") + (log_y ? "set logscale y\n" : "");
  gp += "set key noenhanced\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n";
  if (series_values.empty()) {
    return gp + "plot '" + data + "' using 1:2 with points pt 7 ps 1.2 title '" + report::gnuplot_quoted(metric) + "'\n";
  }
  gp += "plot ";
  for (std::size_t i = 0; i < series_values.size(); ++i) {
    gp += (i > 0 ? ", \\\n  '" : "'") + data + "' index " + std::to_string(i) + " using 1:2 with linespoints pt 7 title '" +
          report::gnuplot_quoted(series_key + " = " + series_values[i]) + "'";
  }
  return gp + "\n";
}

}  // namespace

std::size_t report_metric_count(const Spec& spec) {
  return kMetricColumns.size() + (spec.recorder ? kDelayColumns.size() : 0);
}

std::vector<std::string> metric_names(const Spec& spec) {
  std::vector<std::string> names(kMetricColumns.begin(), kMetricColumns.end());
  if (spec.recorder) names.insert(names.end(), kDelayColumns.begin(), kDelayColumns.end());
  for (const ColumnMetric& m : spec.metrics) names.push_back(m.name);
  return names;
}

std::vector<double> run_metrics(const fs::path& run_dir, bool delays) {
  std::vector<double> out(kMetricColumns.size() + (delays ? kDelayColumns.size() : 0), kNaN);
  try {
    const report::RunFacts f = report::read_run(run_dir);
    if (f.has_reference && f.reference_rows > 0) {
      out[0] = f.max_dev_x_m;
      out[1] = f.max_dev_y_m;
      out[2] = f.max_dev_phi_rad;
    }
    if (delays) {
      // A summary of no values is NaN already (util::Summary).
      const double d[] = {f.delay_frames.p50, f.delay_frames.max, f.delay_sim_s.max,
                          f.rtt_us.p50,       f.rtt_us.p99,       f.diff_at_arrival_m.max};
      std::copy(std::begin(d), std::end(d), out.begin() + static_cast<std::ptrdiff_t>(kMetricColumns.size()));
    }
  } catch (const std::exception&) {
    // a folder the report cannot read: no metrics (its row says how the run ended)
  }
  return out;
}

void write_study_report(const Spec& spec, const fs::path& dir, const std::vector<PointResult>& results,
                        const std::vector<std::string>& problems) {
  const fs::path plots = dir / "plots";
  report::refuse_link(plots);
  report::refuse_link(dir / "report.md");
  std::error_code ec;
  fs::create_directories(plots, ec);
  if (ec) throw util::OutputError(plots.string() + ": cannot create: " + ec.message());

  std::vector<std::string> keys;
  for (const std::string& key : spec.swept) {
    if (key != "backend") keys.push_back(key);
  }
  std::vector<std::string> metrics = metric_names(spec);
  metrics.emplace_back("wall_s");
  const auto metric_of = [&](const PointResult& r, std::size_t m) {
    return m == metrics.size() - 1 ? r.wall_s : (m < r.metrics.size() ? r.metrics[m] : kNaN);
  };

  std::vector<std::string> pngs, gnuplot_said, constant;
  std::string no_plots;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const bool has_value = std::any_of(results.begin(), results.end(),
                                       [&](const PointResult& r) { return r.ran && std::isfinite(metric_of(r, m)); });
    if (!has_value) continue;
    double y_min = std::numeric_limits<double>::infinity(), y_max = 0;
    for (const PointResult& r : results) {
      const double y = metric_of(r, m);
      if (r.ran && std::isfinite(y)) {
        y_min = std::min(y_min, y);
        y_max = std::max(y_max, y);
      }
    }
    if (y_min == y_max) {  // the same at every point: said in report.md, not drawn as a flat line
      constant.push_back(metrics[m] + " = " + value_text(y_min));
      continue;
    }
    const bool log_y = y_min > 0 && y_max / y_min >= 10;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (!numeric_everywhere(spec, keys[k])) continue;
      double x_min = std::numeric_limits<double>::infinity(), x_max = 0;
      for (const Point& p : spec.points) {
        const double x = std::get<double>(p.params.at(keys[k]));
        x_min = std::min(x_min, x);
        x_max = std::max(x_max, x);
      }
      const bool log_x = x_min > 0 && x_max / x_min >= 10;
      // A line per value of the other swept parameter, when there is exactly one other.
      std::string series_key;
      std::vector<std::string> series_values;
      const bool series_everywhere = keys.size() == 2 && std::all_of(spec.points.begin(), spec.points.end(), [&](const Point& p) {
        return p.params.count(keys[1 - k]) > 0;  // a cases axis may leave it out
      });
      if (series_everywhere) {
        series_key = keys[1 - k];
        std::set<std::string> seen;
        for (const Point& p : spec.points) {
          const std::string v = value_text(p.params.at(series_key));
          if (seen.insert(v).second) series_values.push_back(v);
        }
        if (series_values.size() > kMaxSeries) series_values.clear();
      }
      const std::string name = file_name(metrics[m] + "_vs_" + keys[k]);
      const fs::path script = plots / (name + ".gp"), data = plots / (name + ".dat");
      for (const fs::path& f : {script, data, plots / (name + ".png")}) report::refuse_link(f);
      {
        std::ofstream out(data);
        const std::size_t blocks = std::max<std::size_t>(1, series_values.size());
        for (std::size_t b = 0; b < blocks; ++b) {
          std::vector<std::pair<double, double>> xy;
          for (const PointResult& r : results) {
            if (!r.ran || !std::isfinite(metric_of(r, m))) continue;
            if (!series_values.empty() && value_text(r.point->params.at(series_key)) != series_values[b]) continue;
            xy.emplace_back(std::get<double>(r.point->params.at(keys[k])), metric_of(r, m));
          }
          std::sort(xy.begin(), xy.end());
          out << (b > 0 ? "\n\n" : "") << "# " << (series_values.empty() ? "all" : series_key + " = " + series_values[b])
              << "\n";
          for (const auto& [x, y] : xy) out << value_text(x) << " " << value_text(y) << "\n";
        }
        out.close();
        if (!out) throw util::OutputError(data.string() + ": cannot write");
      }
      std::ofstream out(script);
      out << plot_script(name + ".png", name + ".dat", metrics[m], keys[k], log_x, log_y, series_key, series_values);
      out.close();
      if (!out) throw util::OutputError(script.string() + ": cannot write");
      try {
        if (const std::string said = report::run_gnuplot(plots, script); !said.empty()) gnuplot_said.push_back(said);
        pngs.push_back(name + ".png");
      } catch (const util::BadInputError& e) {  // no gnuplot: the tables are the study
        no_plots = e.what();
        break;
      }
    }
    if (!no_plots.empty()) break;
  }

  std::map<std::string, int> by_status;
  for (const PointResult& r : results) ++by_status[r.status];
  std::ofstream md(dir / "report.md");
  md << "# cosim study " << report::md_text(dir.filename().string()) << "\n\n";
  md << "sweep file `" << report::md_text(spec.file.string()) << "`, " << results.size() << " points";
  for (const auto& [status, count] : by_status) md << ", " << count << " " << report::md_text(status);
  md << "; every point's parameters in `points.csv`, its outcome and metrics in `results.csv`, its run in `"
     << "<id>/`.\n\n";
  for (const std::string& problem : problems) md << "> **Error:** " << report::md_text(problem) << "\n\n";
  const auto swept_values = [&](const Point& p) {
    std::string params;
    for (const std::string& key : spec.swept) {
      const auto it = p.params.find(key);
      const std::string v = key == "backend" ? p.backend : it == p.params.end() ? "(base)" : value_text(it->second);
      params += (params.empty() ? "" : ", ") + key + " = " + v;
    }
    return report::md_text(params);
  };
  // The smallest and largest value of each metric, and where.
  for (std::size_t m = 0; m + 1 < metrics.size(); ++m) {
    const PointResult *lo = nullptr, *hi = nullptr;
    for (const PointResult& r : results) {
      if (!r.ran || m >= r.metrics.size() || !std::isfinite(r.metrics[m])) continue;
      if (lo == nullptr || r.metrics[m] < lo->metrics[m]) lo = &r;
      if (hi == nullptr || r.metrics[m] > hi->metrics[m]) hi = &r;
    }
    if (lo == nullptr || lo->metrics[m] == hi->metrics[m]) continue;  // none, or the same everywhere (below)
    md << "- " << report::md_text(metrics[m]) << ": smallest " << value_text(lo->metrics[m]) << " at " << lo->point->id
       << " (" << swept_values(*lo->point) << "), largest " << value_text(hi->metrics[m]) << " at " << hi->point->id
       << " (" << swept_values(*hi->point) << ")\n";
  }
  // Random samples or repetitions: each metric's distribution over the points.
  if (spec.samples > 0 || spec.repetitions > 1) {
    md << "\n| metric | points | mean | sd | min | median | max |\n|---|---|---|---|---|---|---|\n";
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      std::vector<double> values;
      for (const PointResult& r : results) {
        if (r.ran && std::isfinite(metric_of(r, m))) values.push_back(metric_of(r, m));
      }
      if (values.empty()) continue;
      const util::Summary sum = util::summarize(values);
      double var = 0;
      for (const double v : values) var += (v - sum.mean) * (v - sum.mean);
      const double sd = values.size() > 1 ? std::sqrt(var / static_cast<double>(values.size() - 1)) : 0.0;
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      md << "| " << report::md_text(metrics[m]) << " | " << values.size() << " | " << util::format("%.4g", sum.mean) << " | "
         << util::format("%.3g", sd) << " | " << util::format("%.4g", *lo) << " | " << util::format("%.4g", sum.p50) << " | "
         << util::format("%.4g", *hi) << " |\n";
    }
    md << "\n";
  }
  if (!constant.empty()) {
    md << "- the same at every point with a value (not drawn): " << report::md_text(util::join(constant, ", ")) << "\n";
  }
  md << "\n";
  if (!no_plots.empty()) md << "> **Note:** no plots: " << report::md_text(no_plots) << "\n\n";
  for (const std::string& said : gnuplot_said) md << "> **gnuplot:** " << report::md_text(said) << "\n\n";
  for (const std::string& png : pngs) md << "![" << png.substr(0, png.size() - 4) << "](plots/" << png << ")\n\n";
  md.close();
  if (!md) throw util::OutputError((dir / "report.md").string() + ": cannot write");
}

}  // namespace cosim::sweep
