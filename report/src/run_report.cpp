#include "cosim/report/run_report.hpp"
#include "cosim/report/gnuplot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <span>
#include <stdexcept>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/report/plot_axes.hpp"
#include "cosim/run/run_folder.hpp"
#include "cosim/run/run_summary.hpp"
#include "cosim/util/csv_reader.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/json_writer.hpp"
#include "cosim/util/text.hpp"

namespace cosim::report {

namespace {

namespace fs = std::filesystem;

/// Seconds of initial transient left out of the deviation figures (seed 000 Fig. 26c).
constexpr double kTransient_s = 5.0;

util::Summary summary_of(std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return util::summarize(copy);
}

/// Worst (largest) value over several columns, row by row.
std::vector<double> worst_over(const util::CsvTable& table, const std::vector<std::string>& columns) {
  std::vector<double> worst(table.rows(), 0.0);
  for (const auto& name : columns) {
    const auto v = table.column(name);
    for (std::size_t r = 0; r < v.size(); ++r) worst[r] = std::max(worst[r], v[r]);
  }
  return worst;
}

/// Columns whose difference between two runs of one scenario is drawn with --compare (seed 004
/// Figs. 8-10: roller 1's centre, vertical, between the contact trackers).
struct DifferenceColumn {
  const char* column;
  const char* label;
  const char* unit;
};
constexpr DifferenceColumn kDifferenceColumns[] = {{"roller1_z_m", "position [m]", "m"},
                                                   {"roller1_vz_m_per_s", "velocity [m/s]", "m/s"},
                                                   {"roller1_az_m_per_s2", "acceleration [m/s²]", "m/s²"}};
constexpr const char* kDifferenceColumnNames[] = {"roller1_z_m", "roller1_vz_m_per_s", "roller1_az_m_per_s2"};

/// World-frame speeds and their references (seed 002's outputs): {actual, reference}.
constexpr const char* kSpeedColumns[3][2] = {{"vx_m_per_s", "vx_ref_m_per_s"},
                                             {"vy_m_per_s", "vy_ref_m_per_s"},
                                             {"omega_rad_per_s", "omega_ref_rad_per_s"}};
/// The same, as the speeds plot declares them.
constexpr const char* kSpeedColumnNames[] = {"vx_m_per_s",      "vx_ref_m_per_s",     "vy_m_per_s",
                                             "vy_ref_m_per_s",  "omega_rad_per_s",    "omega_ref_rad_per_s"};

bool has_speed_references(const util::CsvTable& t) {
  return std::all_of(std::begin(kSpeedColumns), std::end(kSpeedColumns),
                     [&](const auto& c) { return t.has(c[0]) && t.has(c[1]); });
}

/// Errors per phase: each stretch where the reference moves, with the stop after it, named by
/// the axes that move (X, Y, XY, turn); rows before the first move (settling) are left out.
std::vector<SpeedPhase> speed_phases(const util::CsvTable& t) {
  std::vector<SpeedPhase> phases;
  if (!has_speed_references(t)) return phases;
  const auto time = t.column("t_s");
  std::array<std::span<const double>, 3> actual, reference;
  for (std::size_t a = 0; a < 3; ++a) {
    actual[a] = t.column(kSpeedColumns[a][0]);
    reference[a] = t.column(kSpeedColumns[a][1]);
  }
  const auto moving_axes = [&](std::size_t r) {
    std::string axes;
    if (reference[0][r] != 0.0) axes += "X";
    if (reference[1][r] != 0.0) axes += "Y";
    if (reference[2][r] != 0.0) axes += axes.empty() ? "turn" : "+turn";
    return axes;
  };
  for (std::size_t r = 0; r < time.size(); ++r) {
    const std::string axes = moving_axes(r);
    const bool starts = !axes.empty() && (r == 0 || moving_axes(r - 1).empty());
    if (starts) phases.push_back({axes, time[r], time[r], {}, {}, 0});
    if (phases.empty()) continue;
    SpeedPhase& ph = phases.back();
    ph.to_s = time[r];
    for (std::size_t a = 0; a < 3; ++a) {
      const double e = std::abs(actual[a][r] - reference[a][r]);
      ph.max_abs[a] = std::max(ph.max_abs[a], e);
      ph.rms[a] += e * e;
    }
    ++ph.rows;
  }
  for (auto& ph : phases) {
    for (auto& v : ph.rms) v = std::sqrt(v / std::max<std::size_t>(1, ph.rows));
  }
  return phases;
}

struct Loaded {
  util::CsvTable dynamics, probes;
  run::RunSummary run;
};

Loaded load(const fs::path& run_dir) {
  const run::RunFolder folder{run_dir};
  std::error_code ec;
  if (!fs::exists(folder.run_json(), ec)) {
    throw util::BadInputError(platform::utf8(folder.run_json()) + ": no such file (is " + platform::utf8(run_dir) +
                              " a run folder?)");
  }
  Loaded l;
  l.run = run::read_run_summary(folder.run_json());
  l.dynamics = util::CsvTable::read(folder.dynamics_csv());
  l.probes = util::CsvTable::read(folder.probes_csv());
  return l;
}

/// dynamics.csv column of the joint whose scoped name ends in "/<leaf>", e.g. "Robotino/x_m".
std::string joint_column(const Loaded& l, const std::string& leaf, const char* unit) {
  for (const auto& joint : l.run.joint_names) {
    if (joint.size() > leaf.size() && joint.ends_with("/" + leaf)) return joint + unit;
  }
  return "";
}

/// Refuses to write `path` if it is a symbolic link: a run folder from elsewhere could point
/// plots/ or report.md at any file the user can write.


/// The name a run goes by in a legend: its folder's name (also given with a trailing slash).
std::string folder_label(const fs::path& run_dir) {
  const fs::path normal = run_dir.lexically_normal();
  return platform::utf8(normal.has_filename() ? normal.filename() : normal.parent_path().filename());
}

std::string col(const util::CsvTable& t, const std::string& name) {
  const int i = t.index(name);
  if (i < 0) throw std::runtime_error("no column '" + name + "'");
  return std::to_string(i + 1);  // gnuplot counts from 1
}

}  // namespace

RunFacts read_run(const fs::path& run_dir) {
  const Loaded l = load(run_dir);
  RunFacts f;
  f.run_id = l.run.run_id;
  f.backend = l.run.backend;
  f.mode = l.run.mode;
  f.scene = l.run.scene;
  f.status = l.run.status;
  f.fps = l.run.fps;
  f.frames_sent = l.run.totals.frames_sent;
  f.frames_skipped = l.run.totals.frames_skipped_by_visual;
  f.overruns = l.run.totals.overruns;
  f.probes = l.run.probe_names;
  if (f.status == "running") {
    f.notes.push_back("run.json still says \"running\": the dynamics ended without finishing it (killed?); "
                      "the figures below cover what was written until then.");
  }
  for (const auto* table : {&l.dynamics, &l.probes}) {
    if (table->torn_line() != 0) {
      f.notes.push_back(table->path().filename().string() + ": its last line (" + std::to_string(table->torn_line()) +
                        ") was cut off mid-row and is left out.");
    }
  }
  f.reports = l.probes.rows();
  f.delay_frames = summary_of(l.probes.column("delay_frames"));
  f.delay_sim_s = summary_of(l.probes.column("delay_sim_s"));
  f.rtt_us = summary_of(l.probes.column("rtt_us"));
  std::vector<std::string> same, arrival;
  for (const auto& p : f.probes) {
    same.push_back(p + "/diff_same_time_m");
    arrival.push_back(p + "/diff_at_arrival_m");
  }
  const auto worst_same = worst_over(l.probes, same);
  const auto worst_arrival = worst_over(l.probes, arrival);
  f.diff_same_time_m = summary_of(worst_same);
  f.diff_at_arrival_m = summary_of(worst_arrival);

  const std::string x = joint_column(l, "x", "_m"), y = joint_column(l, "y", "_m"), phi = joint_column(l, "phi", "_rad");
  f.has_reference = !x.empty() && !y.empty() && !phi.empty() && l.dynamics.has("x_ref_m") &&
                    l.dynamics.has("y_ref_m") && l.dynamics.has("phi_ref_rad");
  if (f.has_reference) {
    const auto t = l.dynamics.column("t_s");
    const auto xs = l.dynamics.column(x), ys = l.dynamics.column(y), phis = l.dynamics.column(phi);
    const auto xr = l.dynamics.column("x_ref_m"), yr = l.dynamics.column("y_ref_m"),
               phir = l.dynamics.column("phi_ref_rad");
    for (std::size_t r = 0; r < t.size(); ++r) {
      if (t[r] < kTransient_s) continue;
      ++f.reference_rows;
      f.max_dev_x_m = std::max(f.max_dev_x_m, std::abs(xs[r] - xr[r]));
      f.max_dev_y_m = std::max(f.max_dev_y_m, std::abs(ys[r] - yr[r]));
      f.max_dev_phi_rad = std::max(f.max_dev_phi_rad, std::abs(phis[r] - phir[r]));
    }
  }
  f.speed_phases = speed_phases(l.dynamics);
  return f;
}

std::string metrics_json(const RunFacts& f) {
  util::JsonWriter json;
  json.field("schema_version", kMetricsSchemaVersion)
      .field("run_id", f.run_id)
      .field("backend", f.backend)
      .field("mode", f.mode)
      .field("scene", f.scene)
      .field("status", f.status)
      .field("fps", f.fps)
      .field("frames_sent", f.frames_sent)
      .field("reports", static_cast<std::uint64_t>(f.reports))
      .field("frames_skipped", f.frames_skipped)
      .field("overruns", f.overruns)
      .field("probe_names", std::span<const std::string>(f.probes));
  util::write_statistics(json, "delay_frames", f.delay_frames);
  util::write_statistics(json, "delay_sim_s", f.delay_sim_s);
  util::write_statistics(json, "rtt_us", f.rtt_us);
  util::write_statistics(json, "diff_same_time_m", f.diff_same_time_m);
  util::write_statistics(json, "diff_at_arrival_m", f.diff_at_arrival_m);
  // After the transient; null without a reference or before its end.
  const bool deviation = f.has_reference && f.reference_rows > 0;
  const double none = std::numeric_limits<double>::quiet_NaN();
  json.begin_object("deviation")
      .field("after_s", kTransient_s)
      .field("rows", static_cast<std::uint64_t>(f.reference_rows))
      .field("max_x_m", deviation ? f.max_dev_x_m : none)
      .field("max_y_m", deviation ? f.max_dev_y_m : none)
      .field("max_phi_rad", deviation ? f.max_dev_phi_rad : none)
      .end_object();
  // Phases keyed by their number (from 1), each with its name: one name may come twice.
  json.begin_object("speed_phases");
  for (std::size_t i = 0; i < f.speed_phases.size(); ++i) {
    const SpeedPhase& ph = f.speed_phases[i];
    json.begin_object(std::to_string(i + 1))
        .field("name", ph.name)
        .field("from_s", ph.from_s)
        .field("to_s", ph.to_s)
        .field("rows", static_cast<std::uint64_t>(ph.rows))
        .field("max_abs_vx_m_per_s", ph.max_abs[0])
        .field("rms_vx_m_per_s", ph.rms[0])
        .field("max_abs_vy_m_per_s", ph.max_abs[1])
        .field("rms_vy_m_per_s", ph.rms[1])
        .field("max_abs_omega_rad_per_s", ph.max_abs[2])
        .field("rms_omega_rad_per_s", ph.rms[2])
        .end_object();
  }
  json.end_object();
  json.field("notes", std::span<const std::string>(f.notes));
  return json.str();
}

namespace {

/// One row-by-row difference between two runs, for the plot and report.md.
struct Difference {
  const char* column;
  double max_abs = 0;
  Bounds drawn;  // the differences, for the axis
};

/// What every plot reads: this run (and the compared one), the picture's size, the plots
/// folder. One member function per plot recipe, returning its gnuplot script after the header.
struct Plotter {
  Plotter(const fs::path& run_dir_in, const RunFacts& facts, const Loaded& run, const fs::path& compare_run_in,
          const Loaded& other_run, int width_px, int height_px)
      : run_dir(run_dir_in),
        f(facts),
        l(run),
        compare_run(compare_run_in),
        other(other_run),
        compare(!compare_run_in.empty()),
        w(width_px),
        h(height_px),
        plots(run_dir_in / "plots"),
        d(run.dynamics),
        p(run.probes),
        have_reports(p.rows() > 0 && !f.probes.empty()),
        probe(f.probes.empty() ? "" : f.probes.front()),
        note_px(panel_x_room(width_px, 1).length_px) {}

  std::string path();
  std::string virtual_minus_dynamic();
  std::string deviation();
  std::string delay_histogram();
  std::string contact_trail();
  std::string contact();
  std::string contact_forces();
  std::string speeds();
  std::string difference();

  // Every axis is chosen from the values gnuplot will draw (see plot_axes.hpp): time runs
  // across the whole width, the panels of a plot are stacked 1, 2 or 3 high.
  static Bounds bounds_of(std::initializer_list<std::span<const double>> columns) {
    Bounds b;
    for (const auto column : columns) b.add(column);
    return b;
  }
  Axis time_axis(const Bounds& t_s) const { return linear_axis(t_s, panel_x_room(w, 1), 1.0, "s"); }
  // The y axis of one panel and its note (`when_zero` says why a series can be all zero).
  std::string y_panel(const Axis& y, const std::string& when_zero = "") const {
    return axis_commands('y', y) + note_label(y.note == "all zero" && !when_zero.empty() ? when_zero : y.note, note_px);
  }

  const fs::path& run_dir;
  const RunFacts& f;
  const Loaded& l;
  const fs::path& compare_run;
  const Loaded& other;
  const bool compare;
  const int w, h;
  const fs::path plots;
  const util::CsvTable& d;
  const util::CsvTable& p;
  const bool have_reports;
  const std::string probe;
  const double note_px;
  const std::string dyn = "'../dynamics.csv' skip 1", prb = "'../probes.csv' skip 1";
  std::vector<Difference> differences;  // filled by difference(), for report.md
};

// 1. The path traversed: dynamic probe, virtual probe, reference, X and Y at one scale.
std::string Plotter::path() {
  Bounds x = bounds_of({d.column(probe + "/x_m")}), y = bounds_of({d.column(probe + "/y_m")});
  std::string curves = dyn + " using " + col(d, probe + "/x_m") + ":" + col(d, probe + "/y_m") +
                       " with lines lw 2 lc rgb '#1f77b4' title 'dynamic'";
  if (have_reports) {
    x.add(p.column(probe + "/virtual_x_m"));
    y.add(p.column(probe + "/virtual_y_m"));
    curves += ", " + prb + " using " + col(p, probe + "/virtual_x_m") + ":" + col(p, probe + "/virtual_y_m") +
              " with points pt 7 ps 0.35 lc rgb '#d62728' title 'virtual'";
  }
  if (d.has("x_ref_m")) {
    x.add(d.column("x_ref_m"));
    y.add(d.column("y_ref_m"));
    curves += ", " + dyn + " using " + col(d, "x_ref_m") + ":" + col(d, "y_ref_m") +
              " with lines dt 2 lc rgb 'gray40' title 'reference (chassis centre)'";
  }
  // A probe at rest is a point in 0.2 m of floor around it.
  const MapAxes map = map_axes(x, y, panel_x_room(w, 1), panel_y_room(h, 1), 0.1, "m");
  return "set title 'Path of " + gnuplot_quoted(probe) +
         "' noenhanced\nset xlabel 'X [m]'\nset ylabel 'Y [m]'\nset size ratio -1\n" + axis_commands('x', map.x) +
         axis_commands('y', map.y) + note_label(map.note, note_px) + "plot " + curves + "\n";
}

// 2. Virtual minus dynamic, at the frame's time and at the report's arrival.
std::string Plotter::virtual_minus_dynamic() {
  const std::string t = col(p, "t_frame_s");
  std::string body = "set multiplot layout 2,1 title 'Virtual minus dynamic probe " + gnuplot_quoted(probe) +
                     "' noenhanced\n" +
                     "set xlabel 't [s]'\n" + axis_commands('x', time_axis(bounds_of({p.column("t_frame_s")})));
  struct Panel {
    const char* label;
    const char* prefix;
    std::string when_zero;
  };
  const Panel panels[] = {
      {"same time", "dynamic_", "all zero: the visual side puts the probe exactly where the dynamics does"},
      {"at arrival", "dynamic_at_arrival_",
       f.mode == "lockstep" ? "all zero (lockstep: the visual side shows every frame)" : "all zero"}};
  for (const Panel& panel : panels) {
    const char* colors[] = {"#1f77b4", "#2ca02c", "#9467bd"};
    Bounds diff_m;
    std::string curves;
    int i = 0;
    for (const char* axis : {"x", "y", "z"}) {
      const std::string virtual_column = probe + "/virtual_" + axis + "_m";
      const std::string dynamic_column = probe + "/" + panel.prefix + axis + "_m";
      const auto virtual_m = p.column(virtual_column), dynamic_m = p.column(dynamic_column);
      for (std::size_t r = 0; r < virtual_m.size(); ++r) diff_m.add(virtual_m[r] - dynamic_m[r]);
      curves += (i > 0 ? ", " : "") + prb + " using " + t + ":(column(" + col(p, virtual_column) + ")-column(" +
                col(p, dynamic_column) + ")) with lines lc rgb '" + colors[i] + "' title 'Δ" +
                static_cast<char>(std::toupper(axis[0])) + "'";
      ++i;
    }
    // Differences of a few mm are what a lagging visual side shows: a zero line on ±1 mm.
    body += "set ylabel '" + std::string(panel.label) + " [m]'\n" +
            y_panel(linear_axis(diff_m, panel_y_room(h, 2), 1e-3, "m"), panel.when_zero) + "plot " + curves + "\n";
  }
  return body + "unset multiplot\n";
}

// 3. Deviation from the reference (Fig. 26c), after the initial transient.
std::string Plotter::deviation() {
  // One curve per run: this one, and the compared one (by absolute path) labelled by folder.
  const auto curve = [&](const Loaded& run, const std::string& file, const std::string& leaf, const char* unit,
                         const std::string& ref, const std::string& title, const char* color) {
    const util::CsvTable& table = run.dynamics;
    const std::string t = col(table, "t_s");
    return file + " using " + t + ":(column(" + t + ") >= " + util::format("%g", kTransient_s) + " ? column(" +
           col(table, joint_column(run, leaf, unit)) + ")-column(" + col(table, ref) + ") : NaN) with lines lw 1.5 lc rgb '" +
           color + "' " + (compare ? "title '" + gnuplot_quoted(title) + "' noenhanced" : std::string("notitle"));
  };
  const std::string other_file = compare ? "'" + gnuplot_quoted(platform::utf8(fs::absolute(compare_run) / "dynamics.csv")) + "' skip 1" : "";
  struct Quantity {
    const char* leaf;
    const char* column_unit;
    const char* ref;
    const char* label;
    const char* unit;
  };
  const Quantity quantities[] = {{"x", "_m", "x_ref_m", "X − X_{ref} [m]", "m"},
                                 {"y", "_m", "y_ref_m", "Y − Y_{ref} [m]", "m"},
                                 {"phi", "_rad", "phi_ref_rad", "φ − φ_{ref} [rad]", "rad"}};
  // What gnuplot draws, for the axes: the rows after the transient, of both runs.
  Bounds t_s, deviation[3];
  for (const Loaded* run : {&l, &other}) {
    if (run == &other && !compare) continue;
    const auto t = run->dynamics.column("t_s");
    for (std::size_t r = 0; r < t.size(); ++r) {
      if (t[r] >= kTransient_s) t_s.add(t[r]);
    }
    for (std::size_t q = 0; q < std::size(quantities); ++q) {
      const auto actual = run->dynamics.column(joint_column(*run, quantities[q].leaf, quantities[q].column_unit));
      const auto reference = run->dynamics.column(quantities[q].ref);
      for (std::size_t r = 0; r < t.size(); ++r) {
        if (t[r] >= kTransient_s) deviation[q].add(actual[r] - reference[r]);
      }
    }
  }
  AxisRoom t_room = panel_x_room(w, 1);
  // The key beside the plot takes the longest folder name and its line sample.
  if (compare) {
    const std::size_t key_chars = std::max(folder_label(run_dir).size(), folder_label(compare_run).size()) + 8;
    t_room.length_px = std::max(40.0, t_room.length_px - kCharWidth_px * static_cast<double>(key_chars));
  }
  std::string body = "set multiplot layout 3,1 title 'Deviation from the reference, t ≥ " + util::format("%g", kTransient_s) +
                     " s'\n" + (compare ? "set key outside right top\n" : "") + "set xlabel 't [s]'\n" +
                     axis_commands('x', linear_axis(t_s, t_room, 1.0, "s"));
  for (std::size_t i = 0; i < std::size(quantities); ++i) {
    const Quantity& q = quantities[i];
    std::string line = "plot " + curve(l, dyn, q.leaf, q.column_unit, q.ref, folder_label(run_dir), "#1f77b4");
    if (compare) line += ", " + curve(other, other_file, q.leaf, q.column_unit, q.ref, folder_label(compare_run), "#d62728");
    // Deviations are mm (mrad) after the transient: a zero line on ±1 mm (±1 mrad).
    body += std::string("set ylabel '") + q.label + "'\n" +
            y_panel(linear_axis(deviation[i], panel_y_room(h, 3), 1e-3, q.unit),
                    "all zero: the pose follows its reference exactly") +
            line + "\n";
  }
  return body + "unset multiplot\n";
}

// 4. Delay histograms: in frames and round trip in microseconds, each panel titled with
// what it leaves out (or that it shows everything, up to the max).
std::string Plotter::delay_histogram() {
  const AxisRoom x_room = panel_x_room(w, 2), count_room = panel_y_room(h, 1);
  // Delays in frames: few distinct values, all shown, one bin each.
  const Histogram frames = histogram(p.column("delay_frames"), x_room, count_room,
                                     {.bin = 1, .unit = "frames", .integer_values = true});
  // Round trips: the bulk up to twice the p99 when the max lies beyond (one stall would
  // squeeze every other report into a corner), at least 10 µs.
  const Histogram rtt =
      histogram(p.column("rtt_us"), x_room, count_room, {.clip_factor = 2, .min_range = 10, .unit = "µs"});
  // Each panel's title, on as many lines as its half of the width needs.
  const auto shown = [&](const Histogram& hist, const std::string& max) {
    return "set title " + gnuplot_lines(hist.note.empty() ? "all shown, max " + max : hist.note, 0.5 * w - 20) +
           " font ',10' noenhanced\n";
  };
  std::string body = "set multiplot layout 1,2 title 'Probe report delays (" + std::to_string(p.rows()) +
                     " reports)'\nset style fill solid 0.6\nbin(x,w) = w*floor(x/w + 0.5)\n";
  body += shown(frames, util::format("%g", frames.max) + (frames.max == 1 ? " frame" : " frames")) +
          "set xlabel 'delay [frames]'\nset ylabel 'reports [per 1-frame bin]'\nset boxwidth 0.8\n" +
          axis_commands('x', frames.x) + axis_commands('y', frames.count) + "plot " + prb + " using (bin(column(" +
          col(p, "delay_frames") + "),1)):(1.0) smooth frequency with boxes lc rgb '#1f77b4' notitle\n";
  // The bin width exactly as binned here (17 digits), so that gnuplot's bins are these.
  body += shown(rtt, with_unit(rtt.max, "µs")) + "set xlabel " +
          gnuplot_lines("round trip Frame → ProbeReport [µs]", 0.5 * w - 20) + "\nset ylabel 'reports [per " +
          util::format("%g", rtt.bin) + " µs bin]'\nset boxwidth " + util::format("%.17g", 0.8 * rtt.bin) + "\n" +
          axis_commands('x', rtt.x) + axis_commands('y', rtt.count) + "plot " + prb + " using (bin(column(" +
          col(p, "rtt_us") + ")," + util::format("%.17g", rtt.bin) +
          ")):(1.0) smooth frequency with boxes lc rgb '#ff7f0e' notitle\nunset multiplot\n";
  return body;
}

// 5a. Where the wheel touches the floor (omniwheel), beside the wheel centre.
std::string Plotter::contact_trail() {
  const std::string x_joint = joint_column(l, "x", "_m"), y_joint = joint_column(l, "y", "_m");
  const MapAxes map = map_axes(bounds_of({d.column("px_m"), d.column(x_joint)}),
                               bounds_of({d.column("py_m"), d.column(y_joint)}), panel_x_room(w, 1), panel_y_room(h, 1),
                               0.1, "m");
  return "set title 'Contact point on the floor and wheel centre'\nset xlabel 'X [m]'\nset ylabel 'Y [m]'\n"
         "set size ratio -1\n" + axis_commands('x', map.x) + axis_commands('y', map.y) +
         note_label(map.note, note_px) + "plot " + dyn + " using " + col(d, "px_m") + ":" + col(d, "py_m") +
         " with points pt 7 ps 0.3 lc rgb '#d62728' title 'contact point', " + dyn + " using " +
         col(d, x_joint) + ":" + col(d, y_joint) + " with lines lw 1.5 lc rgb '#1f77b4' title 'wheel centre'\n";
}

// 5b. The contact: which roller, its axial offset, how it slides.
std::string Plotter::contact() {
  const std::string t = col(d, "t_s"), slip = col(d, "slip_m_per_s");
  const AxisRoom y_room = panel_y_room(h, 3);
  const Axis slip_axis = log_axis(bounds_of({d.column("slip_m_per_s")}), y_room, 1e-3, "m/s");
  // Roller numbers are steps: half a roller of room above and below, so that the top and
  // bottom ones are not drawn on the border.
  const Bounds rollers = bounds_of({d.column("contact_roller")});
  Bounds roller_room = rollers;
  if (rollers.count > 0) {
    roller_room.add(rollers.min - 0.5);
    roller_room.add(rollers.max + 0.5);
  }
  Axis roller_axis = linear_axis(roller_room, y_room, 1, "", true);
  if (rollers.count > 0 && rollers.min == rollers.max) roller_axis.note = "constant: roller " + util::format("%g", rollers.min);
  // On the log axis what is > 0 (the note counts the rest); all zero, drawn as it is.
  const std::string slip_values = slip_axis.log ? "(column(" + slip + ") > 0 ? column(" + slip + ") : NaN)" : slip;
  return "set multiplot layout 3,1 title 'Contact: roller, axial offset, slip'\nset xlabel 't [s]'\n" +
         axis_commands('x', time_axis(bounds_of({d.column("t_s")}))) + "set ylabel 'roller in contact [number]'\n" +
         y_panel(roller_axis) + "plot " + dyn +
         " using " + t + ":" + col(d, "contact_roller") + " with steps lc rgb '#1f77b4' notitle\n"
         "set ylabel 'μ_{ax} [m]'\n" + y_panel(linear_axis(bounds_of({d.column("mu_axial_m")}), y_room, 1e-3, "m")) +
         "plot " + dyn + " using " + t + ":" + col(d, "mu_axial_m") + " with points pt 7 ps 0.3 lc rgb '#d62728' notitle\n"
         "set ylabel '|v_P| [m/s]'\n" + y_panel(slip_axis) + "plot " + dyn + " using " + t + ":" + slip_values +
         " with lines lc rgb '#2ca02c' notitle\nunset multiplot\n";
}

// 5c. The floor and servo reactions.
std::string Plotter::contact_forces() {
  const std::string t = col(d, "t_s");
  const AxisRoom y_room = panel_y_room(h, 3);
  // N = M·g exactly (the centre of mass stays at height R); drawn is what the accelerations
  // say minus it, a check of the assembly at rounding level (a zero line on ±1e-12 N).
  std::string normal_panel;
  if (d.has("normal_check_N")) {
    const auto check_N = d.column("normal_check_N"), normal_N = d.column("normal_N");
    Bounds residual_N;
    for (std::size_t r = 0; r < check_N.size(); ++r) residual_N.add(check_N[r] - normal_N[r]);
    normal_panel = "set ylabel 'Σ m (a_z + g) − N [N]'\n" +
                   y_panel(linear_axis(residual_N, y_room, 1e-12, "N"), "all zero: the assembly agrees to the last bit") +
                   "plot " + dyn + " using " + t + ":(column(" + col(d, "normal_check_N") + ")-column(" +
                   col(d, "normal_N") + ")) with lines lc rgb '#ff7f0e' notitle\n";
  } else {
    normal_panel = "set ylabel 'normal [N]'\n" + y_panel(linear_axis(bounds_of({d.column("normal_N")}), y_room, 1, "N")) +
                   "plot " + dyn + " using " + t + ":" + col(d, "normal_N") + " with lines lc rgb '#1f77b4' notitle\n";
  }
  return "set multiplot layout 3,1 title 'Floor and servo reactions (N = M g = " +
         util::format("%.6g", d.rows() > 0 ? d.column("normal_N")[0] : 0.0) + " N)'\nset xlabel 't [s]'\n" +
         axis_commands('x', time_axis(bounds_of({d.column("t_s")}))) + normal_panel +
         "set ylabel 'friction [N]'\n" +
         y_panel(linear_axis(bounds_of({d.column("ft_x_N"), d.column("ft_y_N")}), y_room, 1, "N")) +
         "plot " + dyn + " using " + t + ":" + col(d, "ft_x_N") + " with lines lc rgb '#2ca02c' title 'F_x', " +
         dyn + " using " + t + ":" + col(d, "ft_y_N") + " with lines lc rgb '#9467bd' title 'F_y'\n"
         "set ylabel 'servo torque [N m]'\n" +
         y_panel(linear_axis(bounds_of({d.column("servo_torque_N_m")}), y_room, 0.01, "N m")) +
         "plot " + dyn + " using " + t + ":" + col(d, "servo_torque_N_m") +
         " with lines lc rgb '#d62728' notitle\nunset multiplot\n";
}

// 7. Speeds against their references (seed 002 Fig. 12); the errors per phase are in report.md.
std::string Plotter::speeds() {
  const std::string t = col(d, "t_s");
  std::string body = "set multiplot layout 3,1 title 'Speeds and their references (world frame)'\nset key bottom right\n"
                     "set xlabel 't [s]'\n" + axis_commands('x', time_axis(bounds_of({d.column("t_s")})));
  const char* labels[3] = {"dX/dt [m/s]", "dY/dt [m/s]", "dφ/dt [rad/s]"};
  const char* units[3] = {"m/s", "m/s", "rad/s"};
  for (int a = 0; a < 3; ++a) {
    // An axis never driven is a zero line on ±0.1 m/s (rad/s), the order of the moves.
    const Bounds speed = bounds_of({d.column(kSpeedColumns[a][0]), d.column(kSpeedColumns[a][1])});
    body += std::string("set ylabel '") + labels[a] + "'\n" +
            y_panel(linear_axis(speed, panel_y_room(h, 3), 0.1, units[a]), "all zero: not driven") + "plot " + dyn +
            " using " + t + ":" + col(d, kSpeedColumns[a][1]) + " with lines dt 2 lw 2 lc rgb 'gray40' title 'reference', " +
            dyn + " using " + t + ":" + col(d, kSpeedColumns[a][0]) + " with lines lc rgb '#1f77b4' title 'actual'\n";
  }
  return body + "unset multiplot\n";
}

// 6. Difference between two runs of one scenario (seed 004 Figs. 8-10), row by row.
std::string Plotter::difference() {
  const auto t = d.column("t_s"), t_other = other.dynamics.column("t_s");
  const std::size_t rows = std::min(t.size(), t_other.size());
  for (std::size_t r = 0; r < rows; ++r) {
    if (std::abs(t[r] - t_other[r]) > 1e-9) {
      throw util::BadInputError(platform::utf8(compare_run / "dynamics.csv") + ": row " + std::to_string(r + 2) +
                               " is at t = " + util::format("%.9g", t_other[r]) + " s, this run's at " + util::format("%.9g", t[r]) +
                               " s: the runs must have the same output times to be compared row by row");
    }
  }
  const fs::path table = plots / "difference.csv";
  refuse_link(table);
  std::ofstream out(table);
  out << "t_s";
  std::vector<std::span<const double>> mine, theirs;
  for (const auto& c : kDifferenceColumns) {
    out << ",abs_diff_" << c.column;
    mine.push_back(d.column(c.column));
    theirs.push_back(other.dynamics.column(c.column));
    differences.push_back({c.column, 0.0, {}});
  }
  out << "\n";
  Bounds t_s;
  for (std::size_t r = 0; r < rows; ++r) {
    out << util::format("%.9g", t[r]);
    t_s.add(t[r]);
    for (std::size_t c = 0; c < mine.size(); ++c) {
      const double diff = std::abs(mine[c][r] - theirs[c][r]);
      differences[c].max_abs = std::max(differences[c].max_abs, diff);
      differences[c].drawn.add(diff);
      out << "," << util::format("%.17g", diff);
    }
    out << "\n";
  }
  out.close();
  if (!out) throw util::OutputError(platform::utf8(table) + ": cannot write");
  std::string body = "set multiplot layout 3,1 title '|" + gnuplot_quoted(folder_label(run_dir)) + " − " +
                     gnuplot_quoted(folder_label(compare_run)) + "|, roller 1 centre, vertical' noenhanced\n"
                     "set xlabel 't [s]'\n" + axis_commands('x', time_axis(t_s));
  for (std::size_t c = 0; c < std::size(kDifferenceColumns); ++c) {
    // Log: the differences span decades. Identical runs (all zero) get a zero line on ±1e-12.
    const Axis y = log_axis(differences[c].drawn, panel_y_room(h, 3), 1e-12, kDifferenceColumns[c].unit);
    const std::string k = std::to_string(c + 2);
    body += std::string("set ylabel '") + kDifferenceColumns[c].label + "'\n" +
            y_panel(y, "all zero: the runs agree to the last bit") + "plot 'difference.csv' skip 1 using 1:" +
            (y.log ? "(column(" + k + ") > 0 ? column(" + k + ") : NaN)" : k) + " with lines lc rgb '#1f77b4' notitle\n";
  }
  return body + "unset multiplot\n";
}

constexpr const char* kReferenceColumns[] = {"x_ref_m", "y_ref_m", "phi_ref_rad"};
constexpr const char* kPoseJoints[] = {"x", "y", "phi"};
constexpr const char* kPlanarJoints[] = {"x", "y"};
constexpr const char* kContactTrailColumns[] = {"px_m", "py_m"};
constexpr const char* kContactColumns[] = {"mu_axial_m", "slip_m_per_s", "contact_roller"};
constexpr const char* kContactForceColumns[] = {"normal_N", "ft_x_N", "ft_y_N", "servo_torque_N_m"};

using Compared = PlotNeeds::Compared;

// The report's plots, in drawing order: what each needs, and the member that draws it. A plot
// is drawn when its needs hold (plots_for); tests/unit/report checks the needs against the
// outputs every registered backend declares.
const PlotRecipeInfo kPlotRecipes[] = {
    {"path", "the first probe's path: dynamic, virtual (reported), reference", {.first_probe = true}},
    {"virtual_minus_dynamic", "virtual minus dynamic probe, at the frame's time and at the report's arrival",
     {.probe_reports = true}},
    {"deviation", "the pose's deviation from the reference after the transient (seed 000 Fig. 26c)",
     {.columns = kReferenceColumns, .joints = kPoseJoints, .after_transient = true, .compared = Compared::kBoth}},
    {"delay_histogram", "report delays in frames and round trips in µs", {.probe_reports = true}},
    {"contact_trail", "the contact point on the floor and the wheel centre (omniwheel)",
     {.columns = kContactTrailColumns, .joints = kPlanarJoints}},
    {"contact", "the roller in contact, its axial offset and the slip (omniwheel)", {.columns = kContactColumns}},
    {"contact_forces", "floor and servo reactions (omniwheel)", {.columns = kContactForceColumns}},
    {"speeds", "world-frame speeds against their references (seed 002 Fig. 12)", {.columns = kSpeedColumnNames}},
    {"difference", "|this run − the compared run| of roller 1's vertical motion, row by row (seed 004 Figs. 8-10)",
     {.columns = kDifferenceColumnNames, .compared = Compared::kRequired}},
};
using Draw = std::string (Plotter::*)();
constexpr Draw kDraw[] = {&Plotter::path,          &Plotter::virtual_minus_dynamic, &Plotter::deviation,
                          &Plotter::delay_histogram, &Plotter::contact_trail,       &Plotter::contact,
                          &Plotter::contact_forces,  &Plotter::speeds,              &Plotter::difference};
static_assert(std::size(kDraw) == std::size(kPlotRecipes), "one draw member per recipe, in the same order");

bool has_column(const RunShape& run, std::string_view name) {
  return std::find(run.dynamics_columns.begin(), run.dynamics_columns.end(), name) != run.dynamics_columns.end();
}

bool has_joint(const RunShape& run, std::string_view leaf) {
  return std::any_of(run.joint_names.begin(), run.joint_names.end(), [&](const std::string& joint) {
         return joint.size() > leaf.size() && joint.ends_with(leaf) && joint[joint.size() - leaf.size() - 1] == '/';
  });
}

bool meets(const PlotNeeds& needs, const RunShape& run) {
  return std::all_of(needs.columns.begin(), needs.columns.end(), [&](const char* c) { return has_column(run, c); }) &&
         std::all_of(needs.joints.begin(), needs.joints.end(), [&](const char* j) { return has_joint(run, j); }) &&
         (!needs.first_probe || (!run.first_probe.empty() && has_column(run, run.first_probe + "/x_m"))) &&
         (!needs.probe_reports || run.probe_reports) && (!needs.after_transient || run.after_transient);
}

bool drawn(const PlotNeeds& needs, const RunShape& run, const RunShape* compared) {
  if (!meets(needs, run)) return false;
  switch (needs.compared) {
    case Compared::kIgnored: return true;
    case Compared::kBoth: return compared == nullptr || meets(needs, *compared);
    case Compared::kRequired: return compared != nullptr && meets(needs, *compared);
  }
  return false;
}

RunShape shape_of(const Loaded& run) {
  RunShape shape;
  shape.dynamics_columns = run.dynamics.columns();
  shape.joint_names = run.run.joint_names;
  shape.first_probe = run.run.probe_names.empty() ? "" : run.run.probe_names.front();
  shape.probe_reports = run.probes.rows() > 0 && !run.run.probe_names.empty();
  const auto t = run.dynamics.column("t_s");
  shape.after_transient = std::any_of(t.begin(), t.end(), [](double t_s) { return t_s >= kTransient_s; });
  return shape;
}

}  // namespace

std::span<const PlotRecipeInfo> plot_recipes() { return kPlotRecipes; }

std::vector<std::string> plots_for(const RunShape& run, const RunShape* compared) {
  std::vector<std::string> names;
  for (const PlotRecipeInfo& recipe : kPlotRecipes) {
    if (drawn(recipe.needs, run, compared)) names.emplace_back(recipe.name);
  }
  return names;
}

WrittenReport write_report(const fs::path& run_dir, const RunFacts& f, int w, int h, const fs::path& compare_run) {
  const Loaded l = load(run_dir);
  const bool compare = !compare_run.empty();
  const Loaded other = compare ? load(compare_run) : Loaded{};
  const RunFacts of = compare ? read_run(compare_run) : RunFacts{};
  const bool compare_deviation = compare && of.has_reference && of.reference_rows > 0 && f.has_reference;
  const bool compare_difference =
      compare && std::all_of(std::begin(kDifferenceColumns), std::end(kDifferenceColumns), [&](const auto& c) {
        return l.dynamics.has(c.column) && other.dynamics.has(c.column);
      });
  if (compare && !compare_deviation && !compare_difference) {
    throw util::BadInputError(platform::utf8(compare_run / "dynamics.csv") +
                              ": nothing to compare with: neither a deviation from a reference after the transient "
                             "in both runs nor roller1_z_m, roller1_vz_m_per_s, roller1_az_m_per_s2 in both");
  }
  Plotter plotter(run_dir, f, l, compare_run, other, w, h);
  const fs::path& plots = plotter.plots;
  refuse_link(plots);
  refuse_link(run_dir / "report.md");
  if (std::error_code ec; !fs::create_directories(plots, ec) && ec) {
    throw util::OutputError(platform::utf8(plots) + ": cannot create: " + platform::error_text(ec));
  }
  WrittenReport written;
  const RunShape shape = shape_of(l), other_shape = compare ? shape_of(other) : RunShape{};
  for (std::size_t i = 0; i < std::size(kPlotRecipes); ++i) {
    const PlotRecipeInfo& recipe = kPlotRecipes[i];
    if (!drawn(recipe.needs, shape, compare ? &other_shape : nullptr)) continue;
    const std::string name(recipe.name);
    const std::string body = (plotter.*kDraw[i])();
    const fs::path script = plots / (name + ".gp");
    refuse_link(script);
    refuse_link(plots / (name + ".png"));  // gnuplot opens it by name
    std::ofstream out(script);
    out << png_header(w, h, name + ".png") << body;
    out.close();
    if (!out) throw util::OutputError(platform::utf8(script) + ": cannot write (disk full?)");
    if (const std::string said = run_gnuplot(plots, script); !said.empty()) {
      written.gnuplot_messages.push_back(platform::utf8(script) + ": " + said);
    }
    written.pngs.push_back(plots / (name + ".png"));
  }
  const bool have_reports = plotter.have_reports;
  const std::vector<Difference>& differences = plotter.differences;

  // report.md: the facts, computed from the files, and the plots.
  std::ofstream md(run_dir / "report.md");
  md << "# cosim run " << md_text(f.run_id) << "\n\n";
  md << "backend `" << md_text(f.backend) << "`, mode `" << md_text(f.mode) << "`, " << util::format("%g", f.fps)
     << " fps, " << (f.scene.empty() ? "no scene" : "scene `" + md_text(f.scene) + "`")  // --channel none may have none
     << ", status **" << f.status << "**\n\n";
  for (const auto& note : f.notes) md << "> **Note:** " << md_text(note) << "\n\n";
  md << "| count | value |\n|---|---|\n";
  md << "| frames sent | " << f.frames_sent << " |\n| probe reports | " << f.reports << " |\n";
  md << "| frames skipped by the visual side | " << f.frames_skipped << " |\n| realtime overruns | " << f.overruns
     << " |\n\n";
  if (f.frames_sent == 0) {
    // A table of nan in every cell says nothing: there was no one to measure against.
    md << "No visual side in this run (no frame was sent: `--channel none`): no delays or probe differences.\n\n";
  } else {
    md << "| quantity | count | p50 | p99 | max |\n|---|---|---|---|---|\n";
    const auto row = [&](const char* name, const util::Summary& s) {
      md << "| " << name << " | " << s.count << " | " << util::format("%.9g", s.p50) << " | "
         << util::format("%.9g", s.p99) << " | " << util::format("%.9g", s.max) << " |\n";
    };
    row("delay_frames", f.delay_frames);
    row("delay_sim_s", f.delay_sim_s);
    row("rtt_us", f.rtt_us);
    row("diff_same_time_m", f.diff_same_time_m);
    row("diff_at_arrival_m", f.diff_at_arrival_m);
    md << "\n";
  }
  if (f.has_reference && f.reference_rows == 0) {
    md << "The run is shorter than the initial transient (" << util::format("%g", kTransient_s)
       << " s): no deviation from the reference to show.\n\n";
  }
  if (f.has_reference && f.reference_rows > 0) {
    md << "Deviation from the reference for t ≥ " << util::format("%g", kTransient_s) << " s: max |X − X_ref| = "
       << util::format("%.3g", f.max_dev_x_m) << " m, max |Y − Y_ref| = " << util::format("%.3g", f.max_dev_y_m)
       << " m, max |φ − φ_ref| = " << util::format("%.3g", f.max_dev_phi_rad) << " rad.\n\n";
  }
  if (!f.speed_phases.empty()) {
    md << "Speed errors per phase (each move with the stop after it; max and RMS of |actual − reference|):\n\n"
       << "| phase | from [s] | to [s] | max \\|ΔẊ\\| [m/s] | RMS | max \\|ΔẎ\\| [m/s] | RMS | max \\|Δφ̇\\| [rad/s] | RMS |\n"
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& ph : f.speed_phases) {
      md << "| " << ph.name << " | " << util::format("%.3f", ph.from_s) << " | " << util::format("%.3f", ph.to_s);
      for (std::size_t a = 0; a < 3; ++a) md << " | " << util::format("%.3g", ph.max_abs[a]) << " | " << util::format("%.3g", ph.rms[a]);
      md << " |\n";
    }
    md << "\n";
  }
  if (compare_difference) {
    md << "Compared with run `" << md_text(folder_label(compare_run)) << "` (backend `" << md_text(of.backend)
       << "`), row by row: max |Δ|";
    for (const auto& diff : differences) md << (&diff == &differences.front() ? " " : ", ") << diff.column << " " << util::format("%.3g", diff.max_abs);
    md << ".\n\n";
  }
  if (compare_deviation) {
    md << "Compared with run `" << md_text(folder_label(compare_run)) << "` (backend `" << md_text(of.backend)
       << "`): max |X − X_ref| = " << util::format("%.3g", of.max_dev_x_m) << " m, max |Y − Y_ref| = "
       << util::format("%.3g", of.max_dev_y_m) << " m, max |φ − φ_ref| = " << util::format("%.3g", of.max_dev_phi_rad) << " rad.\n\n";
  }
  for (const auto& png : written.pngs) {
    md << "![" << png.stem().string() << "](plots/" << png.filename().string() << ")\n\n";
  }
  if (!have_reports && f.frames_sent > 0) md << "No probe reports in this run: no delay plots.\n";
  md.close();
  if (!md) throw util::OutputError(platform::utf8(run_dir / "report.md") + ": cannot write (disk full?)");
  return written;
}

}  // namespace cosim::report
