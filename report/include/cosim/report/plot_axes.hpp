#pragma once

// The axes of cosim-report's plots, chosen here rather than by gnuplot's autoscaling: a
// constant series gets a range and a note instead of gnuplot's fallback ±1 (and its warning),
// a histogram says what it leaves out, and tic labels are spaced so that they never overlap.

#include <cstddef>
#include <limits>
#include <span>
#include <string>

namespace cosim::report {

/// Smallest and largest finite value a panel draws (NaN and ±inf are not drawn: left out).
struct Bounds {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  std::size_t count = 0;  ///< finite values seen
  std::size_t positive = 0;  ///< of them > 0 (what a log axis can show)
  double min_positive = std::numeric_limits<double>::infinity();

  void add(double v);
  void add(std::span<const double> values) {
    for (const double v : values) add(v);
  }
};

/// Room for the tic labels of one axis: the axis' length on the PNG and which way it runs.
struct AxisRoom {
  double length_px = 0;
  bool horizontal = true;
};

/// Plot area of one panel of a width_px × height_px PNG split in rows × cols (gnuplot's
/// multiplot layout), less the margins its tic labels, axis labels and titles take (estimated
/// on the small side, so that labels spaced for it fit in the real one).
AxisRoom panel_x_room(int width_px, int cols);
AxisRoom panel_y_room(int height_px, int rows);

/// One axis as drawn: its range, tic step, label format, and what the reader must be told.
struct Axis {
  double lo = 0, hi = 0;  ///< range shown, in the values' unit (log: powers of ten)
  double tic_step = 0;    ///< between labelled tics (log: the factor between them)
  bool log = false;
  std::string format;  ///< gnuplot format of the tic labels: printf "%.2f", "%.1e"; log "10^{%T}"
  /// "all zero", "constant: 0.05 m", "no values", "12 of 500 values are 0: not on the log axis";
  /// empty when the values simply vary.
  std::string note;
};

/// Width of a character of the plots' font (DejaVu Sans 11 in pngcairo: 40 digits span 360 px).
constexpr double kCharWidth_px = 9;

/// At most this many labels on one axis: more are not read anyway.
constexpr int kMaxTicLabels = 8;

/// A linear axis over `bounds`: widened to whole tic steps, with at most kMaxTicLabels labels
/// spaced to fit `room`. A constant value v (a spread within 1e-12·|v|, below what any label
/// shows) gets v ± max(1e-6·|v|, min_half_span) and the note "all zero" or "constant: v unit";
/// no values at all get ±min_half_span and the note "no values". With integer_tics the tic
/// step is a whole number (frames, roller numbers, counts).
Axis linear_axis(const Bounds& bounds, AxisRoom room, double min_half_span, const std::string& unit,
                 bool integer_tics = false);

/// The axes of a map drawn at equal scale (gnuplot's `set size ratio -1`) in a plot area of
/// x_room × y_room: a coordinate that does not vary gets the other's span around its value (a
/// run straight along X is a line across the map, not a sliver), both constant ±min_half_span.
struct MapAxes {
  Axis x, y;
  std::string note;  ///< "Y constant: 0 m", "X and Y constant: (1, 2) m"; empty when both vary
};
MapAxes map_axes(const Bounds& x, const Bounds& y, AxisRoom x_room, AxisRoom y_room, double min_half_span,
                 const std::string& unit);

/// A log axis over the positive values of `bounds`, from the decade below the smallest to the
/// decade above the largest, labels every 1, 2, 5, ... decades as they fit. Values that are 0
/// (or negative) cannot be drawn there: the note counts them. A constant positive value v gets
/// the decade around it (and the note "constant: v unit"). With no positive value it is
/// linear_axis (log false, note "all zero"): the caller draws the values as they are.
Axis log_axis(const Bounds& bounds, AxisRoom room, double min_half_span, const std::string& unit);

/// A histogram of values in bins of width `bin`, centred on its multiples (what gnuplot's
/// w*floor(x/w + 0.5) does), and the range it shows.
struct Histogram {
  double bin = 1;  ///< bin width [unit]
  Axis x;          ///< the values' axis: from the bin at 0 to the last bin shown
  Axis count;      ///< values per bin, from 0
  std::size_t above = 0;  ///< values in bins right of the range shown
  double max = 0;         ///< the largest value
  /// When values are left out: "3 above 405 µs not shown (max 12 ms)"; empty when all are shown.
  std::string note;
};

/// How a histogram chooses its bins and range.
struct HistogramRule {
  double bin = 0;  ///< bin width [unit]; 0: 1, 2 or 5 × 10^k for about 40 bins over the range
  /// Show the bulk, not one outlier squeezed into a corner: when the max is beyond
  /// clip_factor·p99, the range ends at clip_factor·p99 and the note says what lies beyond.
  /// 0: always up to the max.
  double clip_factor = 0;
  double min_range = 0;  ///< the range reaches at least this far [unit]
  std::string unit;      ///< "µs" (the note then says 1.2 ms, 3.4 s), "frames", ...
  bool integer_values = false;  ///< whole-number tics on the values' axis
};

Histogram histogram(std::span<const double> values, AxisRoom x_room, AxisRoom count_room, const HistogramRule& rule);

/// `value` with its unit for a note, to 4 digits (a bin edge such as 137.5 as it is): "250 µs",
/// "1.234 ms" (µs turn into ms and s as they grow).
std::string with_unit(double value, const std::string& unit);

/// The gnuplot commands that draw `axis` as axis 'x' or 'y': range, tics, format, log scale.
/// The note is not among them (see note_label).
std::string axis_commands(char name, const Axis& axis);

/// The gnuplot commands that put `note` in the middle of a panel width_px wide, under where a
/// flat line lies (broken into lines that fit), or take the last one away when it is empty.
std::string note_label(const std::string& note, double width_px);

/// `text` as a gnuplot string in double quotes, broken at spaces into lines of at most width_px
/// (kCharWidth_px a character; a word longer than that stays whole).
std::string gnuplot_lines(const std::string& text, double width_px);

}  // namespace cosim::report
