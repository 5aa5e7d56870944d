// The sweep file's own metrics (docs/sweeps.md, "Metrics"): each statistic against values
// worked by hand on a small table, windows with their 1 ns of slack, differences to a reference
// run row by row, and every way a table cannot give a metric named.
#include "cosim/sweep/metrics.hpp"

#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/test/scratch_dir.hpp"

namespace cosim::sweep {
namespace {

using ::testing::HasSubstr;
using Stat = ColumnMetric::Stat;

class SweepMetrics : public test::ScratchDirTest {
 protected:
  // t = 0, 0.1, …, 0.4 (as a run writes them: sums of steps, not exact tenths); a ramp, a
  // signed column, a flag that rises at 0.2 s.
  util::CsvTable run() {
    return util::CsvTable::read(write("run.csv",
                                      "t_s,a_m,b_m,flag\n"
                                      "0,1,-3,0\n"
                                      "0.1,2,0.5,0\n"
                                      "0.20000000000000001,3,2,1\n"
                                      "0.30000000000000004,4,-1,1\n"
                                      "0.4,5,0,0\n"));
  }
  static ColumnMetric metric(Stat stat, std::vector<std::string> columns = {"a_m"}) {
    ColumnMetric m;
    m.name = "m";
    m.where = "metrics[0]";
    m.stat = stat;
    m.columns = std::move(columns);
    return m;
  }
};

TEST_F(SweepMetrics, EachStatisticOfOneColumn) {
  const util::CsvTable t = run();
  EXPECT_EQ(evaluate(metric(Stat::initial), t, nullptr), 1);
  EXPECT_EQ(evaluate(metric(Stat::final), t, nullptr), 5);
  EXPECT_EQ(evaluate(metric(Stat::min, {"b_m"}), t, nullptr), -3);
  EXPECT_EQ(evaluate(metric(Stat::max, {"b_m"}), t, nullptr), 2);
  EXPECT_EQ(evaluate(metric(Stat::max_abs, {"b_m"}), t, nullptr), 3);
  EXPECT_DOUBLE_EQ(evaluate(metric(Stat::mean), t, nullptr), 3);
  EXPECT_DOUBLE_EQ(evaluate(metric(Stat::rms), t, nullptr), std::sqrt((1 + 4 + 9 + 16 + 25) / 5.0));
  // Trapezoids of a ramp from 1 to 5 over 0.4 s: exact, 1.2 (up to the times' rounding).
  EXPECT_NEAR(evaluate(metric(Stat::integral), t, nullptr), 1.2, 1e-15);
  EXPECT_DOUBLE_EQ(evaluate(metric(Stat::first_nonzero_t, {"flag"}), t, nullptr), 0.2);
  EXPECT_EQ(evaluate(metric(Stat::count_nonzero, {"flag"}), t, nullptr), 2);
}

TEST_F(SweepMetrics, SeveralColumnsAreTakenTogether) {
  const util::CsvTable t = run();
  EXPECT_EQ(evaluate(metric(Stat::max_abs, {"a_m", "b_m"}), t, nullptr), 5);
  EXPECT_EQ(evaluate(metric(Stat::min, {"a_m", "b_m"}), t, nullptr), -3);
  EXPECT_EQ(evaluate(metric(Stat::count_nonzero, {"b_m", "flag"}), t, nullptr), 4 + 2);
}

TEST_F(SweepMetrics, AWindowHoldsTheRowsWithinANanosecondOfItsEnds) {
  const util::CsvTable t = run();
  ColumnMetric m = metric(Stat::max);
  m.from_s = 0.1;
  m.to_s = 0.3;  // the row at 0.30000000000000004 is inside
  EXPECT_EQ(evaluate(m, t, nullptr), 4);
  m.stat = Stat::initial;
  EXPECT_EQ(evaluate(m, t, nullptr), 2);
  m.from_s = 0.41;
  m.to_s = 1;
  EXPECT_TRUE(std::isnan(evaluate(m, t, nullptr))) << "no row: no value";
  ColumnMetric never = metric(Stat::first_nonzero_t, {"flag"});
  never.to_s = 0.15;
  EXPECT_TRUE(std::isnan(evaluate(never, t, nullptr)));
}

TEST_F(SweepMetrics, AgainstAReferenceTheStatisticIsOfTheDifferenceRowByRow) {
  const util::CsvTable t = run();
  const util::CsvTable ref = util::CsvTable::read(write("ref.csv",
                                                        "t_s,a_m,b_m,flag\n"
                                                        "0,1,-3,0\n"
                                                        "0.1,2.5,0.5,0\n"
                                                        "0.20000000000000001,2,2,1\n"));
  // Over the rows both have (the reference ended early): a − ref = 0, −0.5, 1.
  EXPECT_EQ(evaluate(metric(Stat::max_abs), t, &ref), 1);
  EXPECT_EQ(evaluate(metric(Stat::min), t, &ref), -0.5);
  EXPECT_EQ(evaluate(metric(Stat::final), t, &ref), 1);
  EXPECT_EQ(evaluate(metric(Stat::max_abs), t, &t), 0) << "a point is its own reference";
  const util::CsvTable other_step = util::CsvTable::read(write("coarse.csv", "t_s,a_m,b_m,flag\n0,1,1,0\n0.2,1,1,0\n"));
  try {
    (void)evaluate(metric(Stat::max_abs), t, &other_step);
    ADD_FAILURE() << "runs at other output steps compared";
  } catch (const util::BadInputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("metrics[0] (m): "));
    EXPECT_THAT(e.what(), HasSubstr("run.csv line 3 is at t_s = 0.1 where its reference "));
    EXPECT_THAT(e.what(), HasSubstr("(compared runs need the same output step)"));
  }
}

TEST_F(SweepMetrics, AColumnTheRunLacksIsNamedWithTheFile) {
  const util::CsvTable t = run();
  try {
    (void)evaluate(metric(Stat::final, {"i1_A"}), t, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const util::BadInputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("metrics[0] (m): no column 'i1_A' in "));
    EXPECT_THAT(e.what(), HasSubstr("run.csv (it has t_s, a_m, b_m, flag)"));
  }
}

TEST_F(SweepMetrics, ANanInTheWindowGivesNoValue) {
  const util::CsvTable t = util::CsvTable::read(write("nan.csv", "t_s,a_m\n0,1\n0.1,nan\n0.2,3\n"));
  EXPECT_TRUE(std::isnan(evaluate(metric(Stat::max), t, nullptr)));
  ColumnMetric before = metric(Stat::max);
  before.to_s = 0.05;
  EXPECT_EQ(evaluate(before, t, nullptr), 1);
}

// A study whose backends write other columns (a regression over backends): a column some runs
// lack leaves their cells empty; one no run has is the file's mistake.
TEST_F(SweepMetrics, AColumnOnlySomeRunsHaveIsEmptyWhereMissingAndNoRunHavingItIsAProblem) {
  Spec spec;
  spec.file = "study.json";
  for (const char* id : {"p0000", "p0001", "p0002"}) spec.points.push_back(Point{id, "robotino", {}, 0});
  write("p0000/dynamics.csv", "t_s,energy_balance_J\n0,0\n0.1,-2e-6\n");
  write("p0001/dynamics.csv", "t_s,x_m\n0,0\n0.1,1\n");
  // p0002 did not finish: no table, no problem.
  ColumnMetric balance = metric(Stat::max_abs, {"energy_balance_J"});
  ColumnMetric typo = metric(Stat::max_abs, {"energy_balanse_J"});
  typo.where = "metrics[1]";
  spec.metrics = {balance, typo};
  const MetricValues v = column_metrics(spec, dir_, {true, true, false});
  ASSERT_EQ(v.values.size(), 3u);
  EXPECT_EQ(v.values[0][0], 2e-6);
  EXPECT_TRUE(std::isnan(v.values[1][0])) << "this run writes no energies";
  EXPECT_TRUE(std::isnan(v.values[2][0]));
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_THAT(v.problems[0], HasSubstr("study.json: metrics[1] (m): no column 'energy_balanse_J' in "));
  EXPECT_THAT(v.problems[0], HasSubstr("p0000"));
}

}  // namespace
}  // namespace cosim::sweep
