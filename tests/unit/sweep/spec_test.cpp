// The sweep file (docs/sweeps.md): expansion in a fixed order with stable ids, grids, zipped
// axes, random samples reproducible from their seed, backends as an axis; every mistake one
// line naming the file and the key, and every point checked against its backend's declared
// parameters before anything runs.
#include "cosim/sweep/spec.hpp"

#include <cmath>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosim::sweep {
namespace {

using ::testing::HasSubstr;

Spec parse(const std::string& text) { return parse_spec(text, "study.json"); }

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const util::BadInputError& e) {
    return e.what();
  }
  return "(no error)";
}

double number(const Point& p, const std::string& key) { return std::get<double>(p.params.at(key)); }

TEST(SweepSpec, AGridIsTheProductWithTheFirstAxisSlowest) {
  const Spec s = parse(R"({"backend": "robotino", "duration_s": 2,
    "axes": [{"param": "mass_kg", "values": [9, 11]}, {"param": "pid_kp_V_s_per_rad", "linspace": [1, 2, 3]}]})");
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.points[0].id, "p0000");
  EXPECT_EQ(s.points[5].id, "p0005");
  EXPECT_EQ(number(s.points[0], "mass_kg"), 9);
  EXPECT_EQ(number(s.points[2], "mass_kg"), 9);
  EXPECT_EQ(number(s.points[3], "mass_kg"), 11);
  EXPECT_EQ(number(s.points[1], "pid_kp_V_s_per_rad"), 1.5);
  EXPECT_EQ(number(s.points[5], "pid_kp_V_s_per_rad"), 2);
  EXPECT_EQ(s.swept, (std::vector<std::string>{"mass_kg", "pid_kp_V_s_per_rad"}));
  EXPECT_EQ(s.duration_s, 2.0);
  for (const Point& p : s.points) EXPECT_EQ(p.backend, "robotino");
}

TEST(SweepSpec, SpacedValuesEndExactlyAndRoundBetween) {
  const Spec lin = parse(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "linspace": [0.1, 0.5, 5]}]})");
  std::vector<double> v;
  for (const Point& p : lin.points) v.push_back(number(p, "mass_kg"));
  EXPECT_EQ(v, (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5})) << "0.3, not 0.30000000000000004";
  const Spec log = parse(R"({"backend": "robotino", "axes": [{"param": "solver_rtol", "logspace": [1e-10, 1e-4, 7]}]})");
  ASSERT_EQ(log.points.size(), 7u);
  const double decades[] = {1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4};  // the literals, not pow(): mingw's is not exact
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(number(log.points[i], "solver_rtol"), decades[i]) << i;
}

TEST(SweepSpec, ZippedAxesGoInStepAndBackendsCanBeAnAxis) {
  const Spec zip = parse(R"({"backend": "robotino", "axes": [{"zip": [
    {"param": "mass_kg", "values": [9, 11, 13]}, {"param": "pid_kp_V_s_per_rad", "values": [5, 7, 9]}]}]})");
  ASSERT_EQ(zip.points.size(), 3u);
  EXPECT_EQ(number(zip.points[1], "mass_kg"), 11);
  EXPECT_EQ(number(zip.points[1], "pid_kp_V_s_per_rad"), 7);
  const Spec backends = parse(R"({"axes": [{"backend": ["robotino", "mecanum4", "omniwheel"]}], "repetitions": 2})");
  ASSERT_EQ(backends.points.size(), 6u);
  EXPECT_EQ(backends.points[0].backend, "robotino");
  EXPECT_EQ(backends.points[1].backend, "robotino");
  EXPECT_EQ(backends.points[1].repetition, 1);
  EXPECT_EQ(backends.points[4].backend, "omniwheel");
  EXPECT_EQ(backends.backends, (std::vector<std::string>{"robotino", "mecanum4", "omniwheel"}));
}

TEST(SweepSpec, CasesSetTheirKeysAndLeaveTheRestToTheBase) {
  const Spec s = parse(R"({"backend": "robotino", "params": {"mass_kg": 11},
    "axes": [{"param": "solver_rtol", "values": [1e-6, 1e-8]},
             {"cases": [{}, {"mass_kg": 8.8}, {"yaw_inertia_kg_m2": 0.15, "mass_kg": 13.2}]}]})");
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.swept, (std::vector<std::string>{"solver_rtol", "mass_kg", "yaw_inertia_kg_m2"}));
  EXPECT_EQ(number(s.points[0], "mass_kg"), 11) << "the base value where a case leaves the key out";
  EXPECT_EQ(s.points[0].params.count("yaw_inertia_kg_m2"), 0u) << "the backend's default";
  EXPECT_EQ(number(s.points[1], "mass_kg"), 8.8);
  EXPECT_EQ(number(s.points[5], "mass_kg"), 13.2);
  EXPECT_EQ(number(s.points[5], "yaw_inertia_kg_m2"), 0.15);
  EXPECT_EQ(number(s.points[5], "solver_rtol"), 1e-8);
}

TEST(SweepSpec, AMetricAgainstAReferenceFindsItsPointForEveryPoint) {
  const Spec s = parse(R"({"backend": "robotino",
    "axes": [{"param": "mass_kg", "values": [9, 11]}, {"param": "solver_rtol", "values": [1e-6, 1e-8, 1e-12]}],
    "metrics": [{"name": "dx_m", "column": "Robotino/x_m", "stat": "max_abs", "from_s": 5, "against": {"solver_rtol": 1e-12}},
                {"name": "i_peak_A", "columns": ["i1_A", "i2_A", "i3_A"], "stat": "max_abs", "to_s": 0.6}]})");
  ASSERT_EQ(s.metrics.size(), 2u);
  const ColumnMetric& dx = s.metrics[0];
  EXPECT_EQ(dx.stat, ColumnMetric::Stat::max_abs);
  EXPECT_EQ(dx.from_s, 5);
  EXPECT_EQ(dx.reference, (std::vector<std::size_t>{2, 2, 2, 5, 5, 5})) << "the same mass at 1e-12";
  EXPECT_TRUE(s.metrics[1].reference.empty());
  EXPECT_EQ(s.metrics[1].columns.size(), 3u);
}

TEST(SweepSpec, RandomSamplesAreTheSameForTheSameSeedAndEveryGridPoint) {
  const std::string text = R"({"backend": "robotino", "axes": [{"param": "pid_kp_V_s_per_rad", "values": [5, 7]}],
    "samples": {"count": 200, "seed": 42, "params": {"mass_kg": {"uniform": [10, 12]}, "yaw_inertia_kg_m2": {"normal": [0.6, 0.01]}}}})";
  const Spec a = parse(text), b = parse(text);
  ASSERT_EQ(a.points.size(), 400u);
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(number(a.points[i], "mass_kg"), number(b.points[i], "mass_kg")) << "same seed, same samples";
    EXPECT_EQ(number(a.points[i], "mass_kg"), number(a.points[200 + i], "mass_kg")) << "each grid point sees them all";
    EXPECT_GE(number(a.points[i], "mass_kg"), 10);
    EXPECT_LT(number(a.points[i], "mass_kg"), 12);
    const double x = number(a.points[i], "yaw_inertia_kg_m2");
    sum += x;
    sum_sq += x * x;
  }
  // 200 normal samples: the mean within 4 standard errors (4·0.01/√200 = 0.0028), the sd within 20 %.
  const double mean = sum / 200, sd = std::sqrt(sum_sq / 200 - mean * mean);
  EXPECT_NEAR(mean, 0.6, 0.0028);
  EXPECT_NEAR(sd, 0.01, 0.002);
  const Spec other = parse(R"({"backend": "robotino", "samples": {"count": 3, "seed": 43, "params": {"mass_kg": {"uniform": [10, 12]}}}})");
  const Spec first = parse(R"({"backend": "robotino", "samples": {"count": 3, "seed": 42, "params": {"mass_kg": {"uniform": [10, 12]}}}})");
  EXPECT_NE(number(other.points[0], "mass_kg"), number(first.points[0], "mass_kg"));
  // Fixed on every machine: mt19937_64's sequence is the standard's, and the formulas from its
  // bits to a value are ours, not a library's (which the standard leaves free).
  EXPECT_EQ(value_text(number(first.points[0], "mass_kg")), "11.510311065909079");
  EXPECT_EQ(value_text(number(first.points[1], "mass_kg")), "11.278062787709395");
}

TEST(SweepSpec, EveryMistakeIsOneLineNamingTheFileAndTheKey) {
  EXPECT_THAT(error_of("{"), HasSubstr("study.json: not JSON: "));
  EXPECT_THAT(error_of("{\"duration_s\": 1e999}"), HasSubstr("study.json: not JSON: "));  // beyond a double
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axis": []})"),
            "study.json: axis: unknown key (allowed: backend, params_file, params, duration_s, output_step_s, axes, "
            "samples, repetitions, metrics, recorder)");
  EXPECT_EQ(error_of(R"({"axes": []})"), "study.json: backend: missing: the backend every point runs");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "linspace": [1, 2]}]})"),
            "study.json: axes[0].linspace: expected [from, to, count] with an integer count >= 2");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "logspace": [0, 2, 3]}]})"),
            "study.json: axes[0].logspace: from and to must be > 0 (the values themselves, not exponents)");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [1], "linspace": [1, 2, 3]}]})"),
            "study.json: axes[0]: give exactly one of \"values\", \"linspace\", \"logspace\"");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9]}, {"param": "mass_kg", "values": [2]}]})"),
            "study.json: axes[1].param: parameter 'mass_kg' is varied twice");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"zip": [{"param": "a", "values": [1, 2]}, {"param": "b", "values": [1]}]}]})"),
            "study.json: axes[0].zip[1]: 1 values where the first has 2 (zipped axes go in step)");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "params": {"mass_kg": 9}, "axes": [{"param": "mass_kg", "values": [9]}]})"),
            "study.json: params.mass_kg: also varied by an axis or the samples");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "duration_s": -1})"), "study.json: duration_s: must be > 0");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "samples": {"count": 2, "params": {"mass_kg": {"uniform": [1, 2]}}}})"),
            "study.json: samples.seed: expected an integer >= 0 (the same seed gives the same samples)");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "samples": {"count": 2, "seed": 1, "params": {"mass_kg": {"uniform": [2, 1]}}}})"),
            "study.json: samples.params.mass_kg.uniform: expected low < high");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9, "heavy"]}]})").substr(0, 50),
            std::string("study.json: point p0001 (backend robotino, mass_kg").substr(0, 50));
}

TEST(SweepSpec, AKeyGivenTwiceIsRefusedWhereverItIs) {
  EXPECT_EQ(error_of(R"({"backend": "robotino", "backend": "mecanum4"})"), "study.json: backend: given twice");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9, [1, 2], {"a": 1}]},
                        {"param": "mass_kg", "values": [1], "param": "yaw_inertia_kg_m2"}]})"),
            "study.json: axes[1].param: given twice");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "params": {"mass_kg": 9, "solver_rtol": 1e-6, "mass_kg": 10}})"),
            "study.json: params.mass_kg: given twice");
  // The same key in sibling objects is no repetition.
  EXPECT_EQ(parse(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9]},
                     {"param": "yaw_inertia_kg_m2", "values": [0.2]}]})").points.size(), 1u);
}

TEST(SweepSpec, EveryMistakeInCasesAndMetricsIsOneLineNamingTheKey) {
  const std::string axes = R"("backend": "robotino", "axes": [{"param": "solver_rtol", "values": [1e-6, 1e-12]}])";
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"cases": []}]})"),
            "study.json: axes[0].cases: expected a non-empty list of {\"NAME\": value, ...}");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9]}, {"cases": [{"mass_kg": 2}]}]})"),
            "study.json: axes[1].cases[0].mass_kg: parameter 'mass_kg' is varied twice");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"cases": [{"backend": "mecanum4"}]}]})"),
            "study.json: axes[0].cases[0].backend: the backend is an axis of its own");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "column": "a", "stat": "median"}]})"),
            "study.json: metrics[0].stat: 'median' is none of initial, final, min, max, max_abs, mean, rms, integral, "
            "first_nonzero_t, count_nonzero");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x y", "column": "a", "stat": "max"}]})"),
            "study.json: metrics[0].name: expected 1 to 64 letters, digits, '_', '.', '-' (a column and a file name)");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "status", "column": "a", "stat": "max"}]})"),
            "study.json: metrics[0].name: 'status' is already a column of results.csv");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "column": "a", "columns": ["a", "b"], "stat": "max"}]})"),
            "study.json: metrics[0]: give exactly one of \"column\", \"columns\"");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "columns": ["a", "b"], "stat": "final"}]})"),
            "study.json: metrics[0].columns: several columns take min, max, max_abs or count_nonzero (over all of them); "
            "give one column for final");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "column": "a", "stat": "max", "from_s": 2, "to_s": 1}]})"),
            "study.json: metrics[0]: from_s after to_s");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "column": "a", "stat": "max", "against": {"mass_kg": 9}}]})"),
            "study.json: metrics[0].against.mass_kg: not a swept parameter (the reference differs from a point in swept "
            "values only)");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "x", "column": "a", "stat": "max", "against": {"solver_rtol": 1e-10}}]})"),
            "study.json: metrics[0].against: point p0000 (backend robotino, solver_rtol=1e-06) has no reference: no point "
            "with solver_rtol=1e-10 and its other values");
  EXPECT_EQ(error_of("{" + axes + R"(, "metrics": [{"name": "a", "column": "a", "stat": "max"}, {"name": "a", "column": "b", "stat": "max"}]})"),
            "study.json: metrics[1].name: 'a' is already a column of results.csv");
}

TEST(SweepSpec, RecorderPointsSweepTheirFpsAndModeAsTheLaunchersNotTheBackends) {
  const Spec s = parse(R"({"backend": "robotino", "recorder": {"mode": "free"},
    "axes": [{"param": "fps", "values": [20, 500]}, {"param": "mode", "values": ["free", "lockstep"]}]})");
  ASSERT_TRUE(s.recorder.has_value());
  EXPECT_EQ(s.recorder->mode, "free");
  EXPECT_EQ(s.recorder->fps, 20);
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(number(s.points[3], "fps"), 500);
  EXPECT_TRUE(is_side_key("fps"));
  EXPECT_FALSE(is_side_key("mass_kg"));
  EXPECT_EQ(error_of(R"({"backend": "robotino", "axes": [{"param": "fps", "values": [20]}]})"),
            "study.json: point p0000 (backend robotino, fps=20): fps: a setting of the recorder's points; add "
            "\"recorder\": {}");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "recorder": {}, "axes": [{"param": "fps", "values": [20, 0]}]})"),
            "study.json: point p0001 (backend robotino, fps=0): fps: expected frames per second in [0.01, 10000]");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "recorder": {}, "axes": [{"param": "mode", "values": ["fast"]}]})"),
            "study.json: point p0000 (backend robotino, mode=fast): mode: expected \"lockstep\", \"free\" or \"realtime\"");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "recorder": {"mode": "fast"}})"),
            "study.json: recorder.mode: expected \"lockstep\", \"free\" or \"realtime\"");
  EXPECT_EQ(error_of(R"({"backend": "robotino", "recorder": {"channel": "tcp"}})"),
            "study.json: recorder.channel: unknown key (allowed: fps, mode)");
}

TEST(SweepSpec, EveryPointIsCheckedAgainstItsBackendBeforeAnythingRuns) {
  // A value out of the parameter's declared range, in the fourth point only.
  EXPECT_THAT(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9, 11, 13, 2000]}]})"),
              HasSubstr("study.json: point p0003 (backend robotino, mass_kg=2000): "));
  EXPECT_THAT(error_of(R"({"backend": "robotino", "axes": [{"param": "mass_kg", "values": [9, 11, 13, 2000]}]})"),
              HasSubstr("mass_kg"));
  // A key one backend of the axis does not declare.
  EXPECT_THAT(error_of(R"({"axes": [{"backend": ["robotino", "mecanum4"]}], "params": {"pid_kp_V_s_per_rad": 5}})"),
              HasSubstr("study.json: point p0001 (backend mecanum4): "));
  // A file a text parameter names, looked for as cosim-dynamics looks for it.
  EXPECT_THAT(error_of(R"({"backend": "trajectory", "axes": [{"param": "trajectory", "values": ["/no/such.csv"]}]})"),
              HasSubstr("study.json: point p0000 (backend trajectory, trajectory=/no/such.csv): parameter 'trajectory' = "
                        "'/no/such.csv': no file at "));
  EXPECT_THAT(error_of(R"({"backend": "warp"})"), HasSubstr("study.json: point p0000 (backend warp): no backend 'warp' (this build has: "));
}

}  // namespace
}  // namespace cosim::sweep
