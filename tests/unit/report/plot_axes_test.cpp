// The axes cosim-report chooses for its plots: a constant series gets a range of its own and
// a note (not gnuplot's fallback ±1), a histogram says what it leaves out, tic labels fit.
#include "cosim/report/plot_axes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cosim::report {
namespace {

Bounds bounds_of(const std::vector<double>& values) {
  Bounds b;
  b.add(values);
  return b;
}

/// The labels gnuplot prints for an axis: the multiples of its step in range, in its format
/// (a tic within 1e-9 of a step beyond an end is a tic at the end, the range's rounding).
std::vector<std::string> labels_of(const Axis& axis) {
  std::vector<std::string> labels;
  const double first = std::ceil(axis.lo / axis.tic_step - 1e-9), last = std::floor(axis.hi / axis.tic_step + 1e-9);
  for (double k = first; k <= last; ++k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, axis.format.c_str(), k == 0 ? 0.0 : k * axis.tic_step);
    labels.emplace_back(buf);
  }
  return labels;
}

/// Labels side by side on a horizontal axis of length_px: each one's text kCharWidth_px a
/// character, centred on its tic; true if no two touch.
bool labels_apart(const Axis& axis, double length_px) {
  const auto labels = labels_of(axis);
  const double px_per_unit = length_px / (axis.hi - axis.lo);
  for (std::size_t i = 1; i < labels.size(); ++i) {
    const double centres_px = axis.tic_step * px_per_unit;
    const double half_widths_px = 0.5 * kCharWidth_px * static_cast<double>(labels[i - 1].size() + labels[i].size());
    if (centres_px <= half_widths_px) return false;
  }
  return true;
}

TEST(PlotAxes, AnAllZeroSeriesGetsASmallRangeOfItsOwnAndSaysSo) {
  // Lockstep: virtual minus dynamic is 0 in every row. gnuplot alone would draw it on [-1:1] m
  // and warn; here ±1 mm, the span asked for, and the note.
  const Axis y = linear_axis(bounds_of(std::vector<double>(500, 0.0)), {200, false}, 1e-3, "m");
  EXPECT_EQ(y.note, "all zero");
  EXPECT_FALSE(y.log);
  EXPECT_DOUBLE_EQ(y.lo, -1e-3);
  EXPECT_DOUBLE_EQ(y.hi, 1e-3);
  EXPECT_LT(y.lo, 0.0);
  EXPECT_GT(y.hi, 0.0);
  EXPECT_NE(axis_commands('y', y).find("set yrange [-0.001:0.001]"), std::string::npos) << axis_commands('y', y);
}

TEST(PlotAxes, AConstantSeriesIsCentredAndItsLabelsStillDiffer) {
  // A constant height of 1000.25 m: the relative half-span 1e-6·v (1 mm) is below the asked
  // 5 mm, which wins; the labels need enough digits to tell the tics apart.
  const Axis y = linear_axis(bounds_of({1000.25, 1000.25, 1000.25}), {300, false}, 5e-3, "m");
  EXPECT_EQ(y.note, "constant: 1000.25 m");
  EXPECT_LT(y.lo, 1000.25);
  EXPECT_GT(y.hi, 1000.25);
  // v ± 5 mm widened to whole tic steps: a step is at most the 10 mm span, so at most 10 mm
  // more on each side.
  EXPECT_LE(y.hi - y.lo, 30e-3);
  EXPECT_GE(y.hi - y.lo, 10e-3 * (1 - 1e-9));  // 1e-9: rounding of v ± 5 mm at 1000 m, ~1e-13 relative
  const auto labels = labels_of(y);
  EXPECT_GE(labels.size(), 2u);
  EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), labels.size())
      << "two tics with one label: " << y.format;
  // A large value: the relative half-span (1e-6·v) wins over the asked 1 mm.
  const Axis far = linear_axis(bounds_of({4e6, 4e6}), {300, false}, 1e-3, "m");
  EXPECT_GE(far.hi - far.lo, 2 * 4.0 * (1 - 1e-9));  // 1e-9: rounding of 4e6 ± 4, ~1e-16 relative
  EXPECT_LE(far.lo, 4e6 - 4.0);
  const auto far_labels = labels_of(far);
  EXPECT_EQ(std::set<std::string>(far_labels.begin(), far_labels.end()).size(), far_labels.size()) << far.format;
}

TEST(PlotAxes, ASeriesAtRoundingLevelAroundAValueIsConstantToo) {
  // 0.3 and its neighbour double: no label could tell them apart.
  const double v = 0.3, next = std::nextafter(0.3, 1.0);
  const Axis y = linear_axis(bounds_of({v, next, v}), {300, false}, 1e-3, "m");
  EXPECT_EQ(y.note.rfind("constant to 12 digits: 0.3", 0), 0u) << y.note;
  // 0.3 ± 1 mm, widened to whole steps (to within rounding of the step's multiples).
  EXPECT_LE(y.lo, 0.299 + 1e-15);
  EXPECT_GE(y.hi, 0.301 - 1e-15);
}

TEST(PlotAxes, NoValuesAtAllIsSaid) {
  const Axis y = linear_axis(bounds_of({NAN, INFINITY}), {300, false}, 0.5, "m");
  EXPECT_EQ(y.note, "no values");
  EXPECT_LT(y.lo, y.hi);
}

TEST(PlotAxes, AVaryingSeriesKeepsItsValuesAndSaysNothing) {
  const Axis y = linear_axis(bounds_of({-0.0123, 0.0377, 0.01}), {300, false}, 1e-3, "m");
  EXPECT_TRUE(y.note.empty()) << y.note;
  EXPECT_LE(y.lo, -0.0123);
  EXPECT_GE(y.hi, 0.0377);
  // Whole tic steps at both ends (like gnuplot's autoscaling), to the rounding of a multiple
  // of the step (1e-16 of it; 1e-9 is far from any real miss, half a step).
  EXPECT_NEAR(std::remainder(y.lo, y.tic_step), 0.0, 1e-9 * y.tic_step);
  EXPECT_NEAR(std::remainder(y.hi, y.tic_step), 0.0, 1e-9 * y.tic_step);
}

TEST(PlotAxes, AValueAHairBelowAWholeStepStaysInRange) {
  // A robot driving along y = 0 with MuJoCo's y at -1.4e-19: within the rounding slack of the
  // tic 0, but gnuplot drops a line whose ends are both outside the range (a gap in the path).
  const Axis y = linear_axis(bounds_of({-1.4e-19, -3.8e-19, 0.41}), {300, false}, 1e-3, "m");
  EXPECT_LE(y.lo, -3.8e-19);
  EXPECT_GE(y.hi, 0.41);
  EXPECT_EQ(std::stod(labels_of(y).front()), 0.0) << "the labels stay on whole steps";
}

TEST(PlotAxes, TicLabelsNeverOverlapWhateverTheWidth) {
  // Round trips up to 23456 µs on axes from 40 px (a squeezed panel) to 2000 px wide: the
  // labels, 9 px a character, never touch, and there are never more than kMaxTicLabels.
  for (const double length_px : {40.0, 100.0, 180.0, 360.0, 860.0, 2000.0}) {
    for (const auto& values : std::vector<std::vector<double>>{{0, 23456}, {0.0001, 0.0098}, {-3.7e-9, 2.2e-9}, {997, 1003}}) {
      const Axis x = linear_axis(bounds_of(values), {length_px, true}, 1e-3, "µs");
      const auto labels = labels_of(x);
      EXPECT_LE(static_cast<int>(labels.size()), kMaxTicLabels) << length_px << " px, " << values[1];
      EXPECT_TRUE(labels_apart(x, length_px) || labels.size() <= 1)
          << length_px << " px, up to " << values[1] << ": step " << x.tic_step << " format " << x.format;
      EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), labels.size()) << x.format;
    }
  }
  // Vertically the labels are one line high: a 100 px panel holds no more than four of them
  // (24 px apart, a 16 px line and room between).
  const Axis y = linear_axis(bounds_of({0, 10}), {100, false}, 1, "N");
  EXPECT_GE(100 * y.tic_step / (y.hi - y.lo), 24.0);
}

TEST(PlotAxes, AHistogramSaysHowManyValuesLieBeyondItsRange) {
  // 1000 round trips of 100..199 µs and 3 stalls of 5, 8 and 12 ms: the range ends near twice
  // the p99 (398 µs) and the title says what is not shown.
  std::vector<double> rtt_us;
  for (int i = 0; i < 1000; ++i) rtt_us.push_back(100 + i % 100);
  for (const double stall_us : {5000.0, 8000.0, 12000.0}) rtt_us.push_back(stall_us);
  const Histogram h = histogram(rtt_us, {360, true}, {460, false}, {.clip_factor = 2, .min_range = 10, .unit = "µs"});
  EXPECT_EQ(h.above, 3u);
  EXPECT_DOUBLE_EQ(h.max, 12000.0);
  EXPECT_LT(h.x.hi, 5000.0) << "a stall is inside the range";
  EXPECT_GE(h.x.hi, 199.0) << "the bulk is cut";
  EXPECT_LE(h.x.lo, 100.0 - 0.5 * h.bin);
  // Bins of 10 µs (398/40 rounded up to 1, 2, 5 × 10^k), the last one shown the one of 398 µs:
  // its upper edge is 405 µs.
  EXPECT_EQ(h.bin, 10.0);
  EXPECT_EQ(h.x.hi, 405.0);
  EXPECT_EQ(h.note, "3 above 405 µs not shown (max 12 ms)");
  // The count axis holds the fullest bin, counted here bin by bin as gnuplot forms them.
  std::size_t fullest = 0;
  for (double centre = 0; centre <= h.x.hi; centre += h.bin) {
    const auto n = std::count_if(rtt_us.begin(), rtt_us.end(),
                                 [&](double v) { return std::floor(v / h.bin + 0.5) * h.bin == centre; });
    fullest = std::max(fullest, static_cast<std::size_t>(n));
  }
  EXPECT_GE(h.count.hi, static_cast<double>(fullest));
  EXPECT_EQ(h.count.lo, 0.0);
  EXPECT_TRUE(labels_apart(h.x, 360)) << h.x.tic_step;
}

TEST(PlotAxes, AHistogramWhoseMaxIsNearTheBulkShowsItAll) {
  // Max 300 µs against a p99 of about 199: within twice the p99, so shown, and nothing to say.
  std::vector<double> rtt_us;
  for (int i = 0; i < 1000; ++i) rtt_us.push_back(100 + i % 100);
  rtt_us.push_back(300);
  const Histogram h = histogram(rtt_us, {360, true}, {460, false}, {.clip_factor = 2, .min_range = 10, .unit = "µs"});
  EXPECT_EQ(h.above, 0u);
  EXPECT_TRUE(h.note.empty()) << h.note;
  EXPECT_GE(h.x.hi, 300.0);
}

TEST(PlotAxes, DelaysInFramesAreWholeBinsUpToTheMax) {
  // Lockstep: every delay is 0 frames. One bar, a range of one frame, whole-frame tics.
  const Histogram lockstep = histogram(std::vector<double>(200, 0.0), {360, true}, {460, false},
                                       {.bin = 1, .unit = "frames", .integer_values = true});
  EXPECT_DOUBLE_EQ(lockstep.x.lo, -0.5);
  EXPECT_DOUBLE_EQ(lockstep.x.hi, 0.5);
  EXPECT_EQ(lockstep.x.tic_step, 1.0);
  EXPECT_GE(lockstep.count.hi, 200.0);
  EXPECT_TRUE(lockstep.note.empty());
  // Free mode with a stall of 57 frames: all shown, tics still whole and apart.
  std::vector<double> delays{0, 1, 1, 2, 3, 57};
  const Histogram free = histogram(delays, {180, true}, {460, false}, {.bin = 1, .unit = "frames", .integer_values = true});
  EXPECT_DOUBLE_EQ(free.x.hi, 57.5);
  EXPECT_EQ(free.above, 0u);
  EXPECT_EQ(free.x.tic_step, std::floor(free.x.tic_step));
  EXPECT_TRUE(labels_apart(free.x, 180)) << free.x.tic_step;
}

TEST(PlotAxes, ALogAxisCountsTheZerosItCannotDraw) {
  const Axis some = log_axis(bounds_of({0, 0, 3e-9, 2e-4, 0}), {300, false}, 1e-12, "m");
  EXPECT_TRUE(some.log);
  EXPECT_EQ(some.note, "3 of 5 values are 0: not on the log axis");
  EXPECT_DOUBLE_EQ(some.lo, 1e-9);
  EXPECT_DOUBLE_EQ(some.hi, 1e-3);
  // All zero: nothing for a log axis; a linear zero line instead.
  const Axis zeros = log_axis(bounds_of({0, 0, 0}), {300, false}, 1e-12, "m");
  EXPECT_FALSE(zeros.log);
  EXPECT_EQ(zeros.note, "all zero");
  EXPECT_NE(axis_commands('y', zeros).find("unset logscale y"), std::string::npos);
  // Labels every 5 decades over 10^-18..10^-7 on a short axis: at the multiples of 5.
  const Axis decades = log_axis(bounds_of({2e-18, 3e-8}), {100, false}, 1e-12, "m");
  EXPECT_DOUBLE_EQ(decades.lo, 1e-18);
  EXPECT_DOUBLE_EQ(decades.tic_step, 1e5);
  EXPECT_NE(axis_commands('y', decades).find("set ytics 1.0000000000000001e-15, 100000\nset mytics 5\n"), std::string::npos)
      << axis_commands('y', decades);
  // A constant: the decade around it.
  const Axis constant = log_axis(bounds_of({2.5e-6, 2.5e-6}), {300, false}, 1e-12, "m/s");
  EXPECT_EQ(constant.note, "constant: 2.5e-06 m/s");
  EXPECT_DOUBLE_EQ(constant.lo, 1e-6);
  EXPECT_DOUBLE_EQ(constant.hi, 1e-5);
}

TEST(PlotAxes, AStraightRunOnAMapKeepsItsOtherCoordinateReadable) {
  // Straight along X from 0 to 4 m at Y = 0.2 m: Y gets X's 4 m span around 0.2, not ±1 %.
  const MapAxes map = map_axes(bounds_of({0, 1, 4}), bounds_of({0.2, 0.2, 0.2}), {860, true}, {510, false}, 0.1, "m");
  EXPECT_EQ(map.note, "Y constant: 0.2 m");
  EXPECT_LE(map.y.lo, 0.2 - 2.0);
  EXPECT_GE(map.y.hi, 0.2 + 2.0);
  EXPECT_LE(map.x.lo, 0.0);
  EXPECT_GE(map.x.hi, 4.0);
  // At rest: ±0.1 m around the point (1e-12: the rounding of 1 − 0.1, far below a label's digits).
  const MapAxes rest = map_axes(bounds_of({1, 1}), bounds_of({2, 2}), {860, true}, {510, false}, 0.1, "m");
  EXPECT_EQ(rest.note, "X and Y constant: (1, 2) m");
  EXPECT_LE(rest.x.lo, 0.9 + 1e-12);
  EXPECT_GE(rest.y.hi, 2.1 - 1e-12);
}

TEST(PlotAxes, NotesAreQuotedForGnuplot) {
  EXPECT_EQ(note_label("", 500), "unset label 1\n");
  EXPECT_EQ(note_label("it's \"zero\" \\o/", 500),
            "set label 1 \"it's \\\"zero\\\" \\\\o/\" at graph 0.5, graph 0.25 center front noenhanced\n");
  // Broken at spaces into lines that fit, 9 px a character (µ is one, though two bytes).
  EXPECT_EQ(gnuplot_lines("3 above 405 µs not shown (max 12 ms)", 16 * kCharWidth_px),
            "\"3 above 405 µs\\nnot shown (max\\n12 ms)\"");
  EXPECT_EQ(gnuplot_lines("unbreakable_word ok", 4 * kCharWidth_px), "\"unbreakable_word\\nok\"");
  EXPECT_EQ(with_unit(250, "µs"), "250 µs");
  EXPECT_EQ(with_unit(137.5, "µs"), "137.5 µs");
  EXPECT_EQ(with_unit(1234, "µs"), "1.234 ms");
  EXPECT_EQ(with_unit(2.5e6, "µs"), "2.5 s");
}

}  // namespace
}  // namespace cosim::report
