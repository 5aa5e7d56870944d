#include "cosim/report/plot_axes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "cosim/util/stats.hpp"

namespace cosim::report {

namespace {

// What a tic label takes on the PNG (kCharWidth_px wide a digit, a line 16 px high).
constexpr double kLabelGapChars = 2;      // between two labels side by side
constexpr double kLabelPitchRows_px = 24;  // between the centres of two labels one above the other

// Margins of a panel outside its plot area (measured on the PNGs, rounded up): left, the y
// label and up to nine characters of tic label; right, the border; bottom, the x tic labels
// and the x label; top, a line of title.
constexpr int kSideMargins_px = 140;
constexpr int kUpDownMargins_px = 60;
constexpr int kMultiplotTitle_px = 30;

std::string printf_text(const std::string& format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format.c_str(), v);
  return buf;
}

/// Decimal exponent of a positive number, robust to log10's rounding at exact powers.
int exponent_of(double v) { return static_cast<int>(std::floor(std::log10(v) + 1e-9)); }

/// m × 10^e as the nearest double (a division for e < 0: 5 / 10^4 is 0.0005 exactly
/// rounded, 5 × 10^-4 is not), so that whole multiples print as they read.
double times_power_of_ten(double m, int e) { return e >= 0 ? m * std::pow(10.0, e) : m / std::pow(10.0, -e); }

/// The smallest of 1, 2, 5 × 10^k not below x > 0.
double nice_at_least(double x) {
  const int e = exponent_of(x);
  for (const double m : {1.0, 2.0, 5.0}) {
    if (times_power_of_ten(m, e) >= x * (1 - 1e-9)) return times_power_of_ten(m, e);
  }
  return times_power_of_ten(1.0, e + 1);
}

/// The next of 1, 2, 5 × 10^k after a nice step.
double next_nice(double step) { return nice_at_least(step * 1.5); }

/// printf format of labels every `step` up to |max_abs|: as many decimals as the step needs
/// (so that neighbouring labels always differ), in exponent form when that would be long.
std::string label_format(double step, double max_abs) {
  const int e = exponent_of(step);
  const int decimals = std::max(0, -e);
  if (max_abs >= 1e6 || decimals > 4) {
    const int digits = std::max(0, exponent_of(std::max(max_abs, step)) - e);
    return "%." + std::to_string(digits) + "e";
  }
  return "%." + std::to_string(decimals) + "f";
}

/// Multiples of step within [lo, hi] (a tic exactly at an end counts).
std::vector<double> tics_in(double lo, double hi, double step) {
  std::vector<double> tics;
  const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  for (double k = first; k <= last && tics.size() <= 1000; ++k) tics.push_back(k == 0 ? 0.0 : k * step);
  return tics;
}

struct Tics {
  double step = 1;
  std::string format;
};

/// Step and format for labels on the fixed range [lo, hi]: at most kMaxTicLabels of them,
/// each with room to spare beside (or above) its neighbours, the step at least min_step.
Tics fit_tics(double lo, double hi, AxisRoom room, bool integer_tics, double min_step) {
  const double span = hi - lo;
  double step = std::max(nice_at_least(span / (kMaxTicLabels - 1)), min_step);
  if (integer_tics) step = std::max(step, 1.0);
  for (int attempt = 0;; ++attempt) {
    const auto tics = tics_in(lo, hi, step);
    const std::string format = label_format(step, std::max(std::abs(lo), std::abs(hi)));
    std::size_t widest_chars = 0;
    for (const double t : tics) widest_chars = std::max(widest_chars, printf_text(format, t).size());
    const double spacing_px = room.length_px * step / span;
    const double needed_px =
        room.horizontal ? (static_cast<double>(widest_chars) + kLabelGapChars) * kCharWidth_px : kLabelPitchRows_px;
    // 60 steps up (1, 2, 5, 10, ...) leave one label at most: a guard, never reached.
    const bool fits = static_cast<int>(tics.size()) <= kMaxTicLabels && spacing_px >= needed_px;
    if (fits || tics.size() <= 1 || attempt > 60) {
      return {step, format};
    }
    step = next_nice(step);
  }
}

/// Values that do not vary, to below what any label shows (or none at all).
bool is_constant(const Bounds& b) {
  return b.count == 0 || b.max - b.min <= 1e-12 * std::max(std::abs(b.min), std::abs(b.max));
}

/// The middle of what a Bounds saw (0 if nothing).
double middle(const Bounds& b) { return b.count == 0 ? 0.0 : b.min == b.max ? b.min : 0.5 * (b.min + b.max); }

/// A number for a gnuplot command, exact (17 digits), 0 without a sign.
std::string number(double v) { return printf_text("%.17g", v == 0 ? 0.0 : v); }

/// A value for a note, to 9 digits, and its unit if it has one: "0.05 m", "2".
std::string value_text(double v, const std::string& unit) {
  return printf_text("%.9g", v) + (unit.empty() ? "" : " " + unit);
}

}  // namespace

void Bounds::add(double v) {
  if (!std::isfinite(v)) return;
  min = std::min(min, v);
  max = std::max(max, v);
  ++count;
  if (v > 0) {
    ++positive;
    min_positive = std::min(min_positive, v);
  }
}

AxisRoom panel_x_room(int width_px, int cols) {
  return {std::max(40.0, static_cast<double>(width_px) / std::max(1, cols) - kSideMargins_px), true};
}

AxisRoom panel_y_room(int height_px, int rows) {
  return {std::max(30.0, static_cast<double>(height_px - kMultiplotTitle_px) / std::max(1, rows) - kUpDownMargins_px),
          false};
}

Axis linear_axis(const Bounds& b, AxisRoom room, double min_half_span, const std::string& unit, bool integer_tics) {
  Axis axis;
  double lo = b.min, hi = b.max;
  if (b.count == 0) {
    lo = -min_half_span;
    hi = min_half_span;
    axis.note = "no values";
  } else if (is_constant(b)) {
    // A constant: gnuplot would widen it to ±1 (or ±1 %) and warn; here the range fits the unit.
    const double v = middle(b);
    const double half = std::max(1e-6 * std::abs(v), min_half_span);
    lo = v - half;
    hi = v + half;
    if (b.min == 0 && b.max == 0) {
      axis.note = "all zero";
    } else {
      axis.note = std::string(b.min == b.max ? "constant: " : "constant to 12 digits: ") + value_text(v, unit);
    }
  }
  // Whole tic steps at both ends, like gnuplot's autoscaling; the wider range may need a
  // coarser step, which widens it again: a few rounds settle it (the step only grows).
  double min_step = 0;
  for (int round = 0; round < 8; ++round) {
    const Tics tics = fit_tics(lo, hi, room, integer_tics, min_step);
    const double wide_lo = std::floor(lo / tics.step + 1e-9) * tics.step;
    const double wide_hi = std::ceil(hi / tics.step - 1e-9) * tics.step;
    const Tics wide = fit_tics(wide_lo, wide_hi, room, integer_tics, tics.step);
    if (wide.step == tics.step) {
      // A value a hair outside the whole steps (-1e-19 under 0) stays inside the range:
      // gnuplot drops a line whose ends are both outside it.
      axis.lo = std::min(wide_lo, lo);
      axis.hi = std::max(wide_hi, hi);
      axis.tic_step = wide.step;
      axis.format = wide.format;
      return axis;
    }
    min_step = wide.step;
  }
  // An axis too short for whole steps at both ends (across 0 that is three labels): the
  // range as it is, with what labels fit in it.
  const Tics tics = fit_tics(lo, hi, room, integer_tics, 0);
  axis.lo = lo;
  axis.hi = hi;
  axis.tic_step = tics.step;
  axis.format = tics.format;
  return axis;
}

MapAxes map_axes(const Bounds& x, const Bounds& y, AxisRoom x_room, AxisRoom y_room, double min_half_span,
                 const std::string& unit) {
  const bool x_constant = is_constant(x), y_constant = is_constant(y);
  const double span_x = x_constant ? 0.0 : x.max - x.min, span_y = y_constant ? 0.0 : y.max - y.min;
  const double half = std::max(span_x, span_y) > 0 ? 0.5 * std::max(span_x, span_y) : min_half_span;
  // A constant coordinate spans what the other does, around its value.
  const auto widened = [&](const Bounds& b, bool constant) {
    if (!constant) return b;
    Bounds wide;
    wide.add(middle(b) - half);
    wide.add(middle(b) + half);
    return wide;
  };
  const Bounds wx = widened(x, x_constant), wy = widened(y, y_constant);
  // Equal scale: the coordinate with less room per metre sets it; the other axis is shorter.
  const double px_per_unit = std::min(x_room.length_px / (wx.max - wx.min), y_room.length_px / (wy.max - wy.min));
  MapAxes map;
  map.x = linear_axis(wx, {(wx.max - wx.min) * px_per_unit, true}, min_half_span, unit);
  map.y = linear_axis(wy, {(wy.max - wy.min) * px_per_unit, false}, min_half_span, unit);
  if (x_constant && y_constant) {
    map.note = "X and Y constant: (" + printf_text("%.9g", middle(x)) + ", " + printf_text("%.9g", middle(y)) + ") " + unit;
  } else if (x_constant) {
    map.note = "X constant: " + value_text(middle(x), unit);
  } else if (y_constant) {
    map.note = "Y constant: " + value_text(middle(y), unit);
  }
  return map;
}

Axis log_axis(const Bounds& b, AxisRoom room, double min_half_span, const std::string& unit) {
  if (b.positive == 0) return linear_axis(b, room, min_half_span, unit);
  Axis axis;
  axis.log = true;
  axis.format = "10^{%T}";
  // Whole decades at both ends (gnuplot's log tics fall on them); a constant gets the decade
  // around it, or one on each side of an exact power of ten.
  int decade_lo = exponent_of(b.min_positive);
  int decade_hi = static_cast<int>(std::ceil(std::log10(b.max) - 1e-9));
  if (decade_hi <= decade_lo) {
    --decade_lo;
    decade_hi = decade_lo + 2;
  }
  if (b.max <= b.min_positive * (1 + 1e-12)) {
    axis.note = "constant: " + value_text(b.max, unit);
  }
  const int decades = decade_hi - decade_lo;
  // Labels every 1, 2, 5, 10, ... decades: as many as fit ("10^{-12}" is about 5 digits wide).
  int every = 1;
  for (int candidate : {1, 2, 5, 10, 20, 50, 100, 200, 500}) {
    every = candidate;
    const double spacing_px = room.length_px * candidate / decades;
    const double needed_px = room.horizontal ? (5 + kLabelGapChars) * kCharWidth_px : kLabelPitchRows_px;
    if (decades / candidate + 1 <= kMaxTicLabels && spacing_px >= needed_px) break;
  }
  axis.lo = times_power_of_ten(1.0, decade_lo);
  axis.hi = times_power_of_ten(1.0, decade_hi);
  axis.tic_step = times_power_of_ten(1.0, every);
  if (b.positive < b.count) {
    const std::size_t not_drawn = b.count - b.positive;
    axis.note += (axis.note.empty() ? "" : "; ") + std::to_string(not_drawn) + " of " + std::to_string(b.count) +
                 " values are " + (b.min < 0 ? "≤ 0" : "0") + ": not on the log axis";
  }
  return axis;
}

Histogram histogram(std::span<const double> values, AxisRoom x_room, AxisRoom count_room, const HistogramRule& rule) {
  Histogram h;
  std::vector<double> finite;
  for (const double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  if (finite.empty()) {
    h.bin = rule.bin > 0 ? rule.bin : 1;
    h.x = linear_axis(Bounds{}, x_room, h.bin, rule.unit, rule.integer_values);
    Bounds zero;
    zero.add(0.0);
    zero.add(1.0);
    h.count = linear_axis(zero, count_room, 1, "", true);
    h.note = "no values";
    return h;
  }
  const util::Summary s = util::summarize(finite);  // sorts finite
  h.max = s.max;
  double limit = h.max;
  if (rule.clip_factor > 0 && h.max > rule.clip_factor * s.p99) limit = rule.clip_factor * s.p99;
  limit = std::max(limit, rule.min_range);
  h.bin = rule.bin > 0 ? rule.bin : (limit > 0 ? nice_at_least(limit / 40) : 1.0);
  // Bins as gnuplot forms them (w*floor(x/w + 0.5)): index k covers [(k - ½)w, (k + ½)w).
  const auto bin_of = [&](double v) { return std::floor(v / h.bin + 0.5); };
  const double k_max = bin_of(std::max(limit, finite.front()));
  const double k_min = std::min(0.0, bin_of(finite.front()));
  std::map<double, std::size_t> counts;
  for (const double v : finite) {
    const double k = bin_of(v);
    if (k > k_max) {
      ++h.above;
    } else {
      ++counts[k];
    }
  }
  std::size_t most = 1;
  for (const auto& [k, n] : counts) most = std::max(most, n);
  h.x.lo = (k_min - 0.5) * h.bin;
  h.x.hi = (k_max + 0.5) * h.bin;
  const Tics tics = fit_tics(h.x.lo, h.x.hi, x_room, rule.integer_values, 0);
  h.x.tic_step = tics.step;
  h.x.format = tics.format;
  Bounds count_bounds;
  count_bounds.add(0.0);
  count_bounds.add(static_cast<double>(most));
  h.count = linear_axis(count_bounds, count_room, 1, "", true);
  if (h.above > 0) {
    h.note = std::to_string(h.above) + " above " + with_unit(h.x.hi, rule.unit) + " not shown (max " +
             with_unit(h.max, rule.unit) + ")";
  }
  return h;
}

std::string with_unit(double value, const std::string& unit) {
  char buf[64];
  if (unit == "µs" && std::abs(value) >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.4g s", value / 1e6);
  } else if (unit == "µs" && std::abs(value) >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.4g ms", value / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g %s", value, unit.c_str());
  }
  return buf;
}

std::string axis_commands(char name, const Axis& axis) {
  const std::string n(1, name);
  // Tics from the first multiple of the step in range: 0.5, 1.0, 1.5, not 0.3, 0.8, 1.3 (log:
  // decades that are multiples of the decades between labels, 10^-15, 10^-10, not 10^-13).
  double start = std::ceil(axis.lo / axis.tic_step - 1e-9) * axis.tic_step;
  std::string minor = "default";
  if (axis.log) {
    const int every = static_cast<int>(std::lround(std::log10(axis.tic_step)));
    const double first_decade = std::ceil(std::log10(axis.lo) / every - 1e-9) * every;
    start = times_power_of_ten(1.0, static_cast<int>(first_decade));
    if (every > 1) minor = std::to_string(every);  // a minor tic at each decade between labels
  }
  return (axis.log ? "set logscale " : "unset logscale ") + n + "\nset " + n + "range [" + number(axis.lo) + ":" +
         number(axis.hi) + "]\nset " + n + "tics " + number(start) + ", " + number(axis.tic_step) + "\nset m" + n +
         "tics " + minor + "\nset format " + n + " '" + axis.format + "'\n";
}

std::string note_label(const std::string& note, double width_px) {
  if (note.empty()) return "unset label 1\n";
  return "set label 1 " + gnuplot_lines(note, width_px) + " at graph 0.5, graph 0.25 center front noenhanced\n";
}

std::string gnuplot_lines(const std::string& text, double width_px) {
  const auto max_chars = static_cast<std::size_t>(std::max(1.0, width_px / kCharWidth_px));
  // Characters, not bytes: "µ" is two bytes of UTF-8 and one character on the PNG.
  const auto chars = [](const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  std::string out = "\"", line;
  const auto flush_word = [&](const std::string& word) {
    if (!line.empty() && chars(line) + 1 + chars(word) > max_chars) {
      out += line + "\\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  };
  std::string word;
  for (const char c : text) {
    if (c == ' ') {
      if (!word.empty()) flush_word(word);
      word.clear();
    } else if (c == '"' || c == '\\') {
      word += '\\';  // escaped inside gnuplot's double quotes
      word += c;
    } else {
      word += c;
    }
  }
  if (!word.empty()) flush_word(word);
  return out + line + "\"";
}

}  // namespace cosim::report
