// The trajectory backend: the CSV's rows reproduced at their times, linear midpoints, the natural
// cubic spline (through the rows, C1 and C2 at the knots, zero curvature at the ends), rates
// against finite differences of the joint values, looping, and one clear error per bad CSV.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/dynamics/trajectory/trajectory_backend.hpp"
#include "cosim/test/allocation_probe.hpp"
#include "cosim/test/scratch_dir.hpp"
#include "param_error.hpp"

namespace cosim::dynamics::trajectory {
namespace {

using cosim::test::param_error;
using ::testing::HasSubstr;

// Two joints, uneven row spacing, a first row later than 0.
constexpr const char* kArm =
    "t_s,Arm/shoulder,Arm/slide\n"
    "0.5,0.0,0.10\n"
    "1.0,1.0,0.20\n"
    "2.5,-0.5,0.20\n"
    "3.0,0.25,0.05\n";

class TrajectoryBackendTest : public cosim::test::ScratchDirTest {
 protected:
  // Through the registry's path: declared parameters, CLI overrides.
  static std::unique_ptr<Backend> make(const std::vector<std::string>& cli, double t0_s = 0.0) {
    return make_trajectory_backend(Params::resolve("trajectory", trajectory_param_specs(), nullptr, cli), t0_s);
  }
  std::unique_ptr<Backend> make_arm(const std::string& interpolation, int loop = 0, double t0_s = 0.0) const {
    return make({"trajectory=" + write("arm.csv", kArm).string(), "interpolation=" + interpolation,
                 "loop=" + std::to_string(loop)},
                t0_s);
  }
  JointTrajectory read(Interpolation interpolation, bool loop = false) const {
    return JointTrajectory::read(write("arm.csv", kArm), interpolation, loop);
  }
  std::string refusal(const std::string& text) const {
    const auto path = write("bad.csv", text);
    return param_error([&] { (void)JointTrajectory::read(path, Interpolation::linear, false); });
  }

};

std::vector<double> values_at(const JointTrajectory& traj, double t_s) {
  std::vector<double> q(traj.joint_names().size()), qdot(q.size());
  traj.sample(t_s, q, qdot);
  return q;
}
std::vector<double> rates_at(const JointTrajectory& traj, double t_s) {
  std::vector<double> q(traj.joint_names().size()), qdot(q.size());
  traj.sample(t_s, q, qdot);
  return qdot;
}

TEST_F(TrajectoryBackendTest, NamesComeFromTheCsv) {
  const auto b = make_arm("linear");
  EXPECT_EQ(b->name(), "trajectory");
  EXPECT_EQ(b->model_name(), "Arm");
  EXPECT_EQ(b->joint_names(), (std::vector<std::string>{"Arm/shoulder", "Arm/slide"}));
  EXPECT_EQ(b->output_names(), (std::vector<std::string>{"Arm/shoulder_rate_per_s", "Arm/slide_rate_per_s"}));
  EXPECT_EQ(b->joint_kinds()[0], JointKind::unknown);
  EXPECT_THAT(b->model_file(), HasSubstr("arm.csv"));
}

TEST_F(TrajectoryBackendTest, ReproducesEveryRowAtItsTimeExactly) {
  for (const char* interpolation : {"linear", "cubic"}) {
    SCOPED_TRACE(interpolation);
    const JointTrajectory traj = read(interpolation == std::string("cubic") ? Interpolation::cubic : Interpolation::linear);
    for (std::size_t r = 0; r < traj.times_s().size(); ++r) {
      const std::vector<double> q = values_at(traj, traj.times_s()[r]);
      EXPECT_EQ(q[0], traj.row(r)[0]) << "row " << r;
      EXPECT_EQ(q[1], traj.row(r)[1]) << "row " << r;
    }
    // Through the backend, frame by frame: the rows at their times.
    const auto b = make_arm(interpolation);
    for (const double t : {0.5, 1.0, 2.5, 3.0}) {
      b->advance_to(t);
      EXPECT_EQ(b->joint_values()[0], traj.row(t == 0.5 ? 0 : t == 1.0 ? 1 : t == 2.5 ? 2 : 3)[0]) << t;
    }
  }
}

TEST_F(TrajectoryBackendTest, LinearIsTheSegmentBetweenRowsAndItsSlope) {
  const JointTrajectory traj = read(Interpolation::linear);
  EXPECT_DOUBLE_EQ(values_at(traj, 0.75)[0], 0.5);
  EXPECT_DOUBLE_EQ(values_at(traj, 0.75)[1], 0.15);
  EXPECT_DOUBLE_EQ(values_at(traj, 1.75)[0], 0.25);
  EXPECT_DOUBLE_EQ(values_at(traj, 2.0)[0], 0.0);
  EXPECT_DOUBLE_EQ(rates_at(traj, 0.75)[0], 2.0);   // 1 rad in 0.5 s
  EXPECT_DOUBLE_EQ(rates_at(traj, 1.75)[0], -1.0);  // −1.5 rad in 1.5 s
  EXPECT_DOUBLE_EQ(rates_at(traj, 1.0)[0], -1.0);   // at a row: the segment starting there
}

TEST_F(TrajectoryBackendTest, HeldBeforeTheFirstRowAndAfterTheLast) {
  const JointTrajectory traj = read(Interpolation::cubic);
  EXPECT_EQ(values_at(traj, 0.0), (std::vector<double>{0.0, 0.10}));
  EXPECT_EQ(rates_at(traj, 0.2), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(values_at(traj, 7.0), (std::vector<double>{0.25, 0.05}));
  EXPECT_EQ(rates_at(traj, 3.0), (std::vector<double>{0.0, 0.0}));
  // The backend's initial state at t0 = 0: the first row.
  const auto b = make_arm("linear");
  EXPECT_EQ(b->joint_values()[1], 0.10);
  EXPECT_EQ(b->outputs()[0], 0.0);
}

TEST_F(TrajectoryBackendTest, CubicSplineIsC1AndC2AtTheKnotsWithNaturalEnds) {
  const JointTrajectory traj = read(Interpolation::cubic);
  const auto times = traj.times_s();
  constexpr double e = 1e-7;  // [s]
  for (std::size_t r = 1; r + 1 < times.size(); ++r) {
    const double t = times[r];
    for (std::size_t c = 0; c < 2; ++c) {
      // Rate continuous across the knot.
      EXPECT_NEAR(rates_at(traj, t - e)[c], rates_at(traj, t + e)[c], 1e-5) << "knot " << r << " joint " << c;
      // Curvature continuous: one-sided second differences of the rate agree.
      const double left = (rates_at(traj, t - e)[c] - rates_at(traj, t - 2 * e)[c]) / e;
      const double right = (rates_at(traj, t + 2 * e)[c] - rates_at(traj, t + e)[c]) / e;
      EXPECT_NEAR(left, right, 1e-3) << "knot " << r << " joint " << c;
    }
  }
  // Natural ends: no curvature at the first and last rows.
  const double start = times.front(), end = times.back();
  EXPECT_NEAR((rates_at(traj, start + 2 * e)[0] - rates_at(traj, start + e)[0]) / e, 0.0, 1e-3);
  EXPECT_NEAR((rates_at(traj, end - e)[0] - rates_at(traj, end - 2 * e)[0]) / e, 0.0, 1e-3);
  // Not the linear interpolant between rows.
  EXPECT_GT(std::abs(values_at(traj, 1.75)[0] - 0.25), 1e-3);
}

TEST_F(TrajectoryBackendTest, RatesAreTheDerivativeOfTheValues) {
  for (const Interpolation interpolation : {Interpolation::linear, Interpolation::cubic}) {
    const JointTrajectory traj = read(interpolation);
    constexpr double h = 1e-6;  // [s]
    for (double t = 0.55; t < 3.0; t += 0.1) {
      const std::vector<double> qdot = rates_at(traj, t);
      for (std::size_t c = 0; c < 2; ++c) {
        const double fd = (values_at(traj, t + h)[c] - values_at(traj, t - h)[c]) / (2 * h);
        EXPECT_NEAR(qdot[c], fd, 1e-6) << "t " << t << " joint " << c;
      }
    }
  }
}

TEST_F(TrajectoryBackendTest, LoopsWithTheCsvSpanAsPeriod) {
  for (const Interpolation interpolation : {Interpolation::linear, Interpolation::cubic}) {
    const JointTrajectory traj = read(interpolation, /*loop=*/true);
    const double span = 2.5;  // 3.0 − 0.5
    for (double t = 0.6; t < 3.0; t += 0.13) {
      for (int k = 1; k <= 3; ++k) {
        const std::vector<double> a = values_at(traj, t);
        const std::vector<double> b = values_at(traj, t + k * span);
        EXPECT_NEAR(b[0], a[0], 1e-9) << t << " + " << k << " spans";
        EXPECT_NEAR(rates_at(traj, t + k * span)[1], rates_at(traj, t)[1], 1e-6);
      }
    }
    // The seam: the first row's values and the first segment's rate.
    EXPECT_EQ(values_at(traj, 3.0), (std::vector<double>{0.0, 0.10}));
    EXPECT_EQ(values_at(traj, 5.5), (std::vector<double>{0.0, 0.10}));
    EXPECT_NEAR(rates_at(traj, 3.0)[0], rates_at(traj, 0.5)[0], 1e-12);
    // Still held before the first row.
    EXPECT_EQ(values_at(traj, 0.1), (std::vector<double>{0.0, 0.10}));
  }
}

TEST_F(TrajectoryBackendTest, AnyStepFromANanosecondToSecondsGivesTheSameState) {
  const auto fine = make_arm("cubic", 1);
  const auto coarse = make_arm("cubic", 1);
  for (int k = 1; k <= 1000; ++k) fine->advance_to(1e-9 * k);
  fine->advance_to(7.3);
  coarse->advance_to(7.3);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(fine->joint_values()[i], coarse->joint_values()[i]);
    EXPECT_EQ(fine->outputs()[i], coarse->outputs()[i]);
  }
}

TEST_F(TrajectoryBackendTest, AdvancingDoesNotAllocate) {
  const auto b = make_arm("cubic", 1);
  b->advance_to(0.01);
  test::AllocationProbe probe;
  for (int k = 2; k <= 500; ++k) b->advance_to(0.01 * k);
  EXPECT_EQ(probe.count(), 0u);
}

TEST_F(TrajectoryBackendTest, EachBadCsvIsOneClearError) {
  EXPECT_THAT(refusal("t_s,A/x\n0,0\n1,1\n1,2\n"),
              HasSubstr("bad.csv:4: t_s = 1 is not later than the row before (1)"));
  EXPECT_THAT(refusal("t_s,A/x\n0,0\n2,1\n1,2\n"), HasSubstr("bad.csv:4: t_s = 1 is not later"));
  EXPECT_THAT(refusal("t_s,A/x,A/y\n0,0,0\n1,nan,1\n"), HasSubstr("bad.csv:3: column 'A/x': 'nan'"));
  EXPECT_THAT(refusal("t_s,A/x,A/y\n0,0,0\n1,1\n"), HasSubstr("bad.csv:3: 2 fields; the header has 3"));
  EXPECT_THAT(refusal("t_s,A/x\n0,0\n"), HasSubstr("bad.csv:2: 1 data row(s); at least 2 are needed"));
  EXPECT_THAT(refusal("t_s,A/x,B/y\n0,0,0\n1,1,1\n"),
              HasSubstr("bad.csv:1: column 'B/y' is a joint of model 'B', column 'A/x' of model 'A'"));
  EXPECT_THAT(refusal("t_s,x\n0,0\n1,1\n"), HasSubstr("bad.csv:1: column 'x' is not a scoped scene joint name"));
  EXPECT_THAT(refusal("time,A/x\n0,0\n1,1\n"), HasSubstr("bad.csv:1: the header must be 't_s,<Model/joint>,...'"));
  EXPECT_THAT(refusal("t_s\n0\n1\n"), HasSubstr("bad.csv:1: the header must be"));
  EXPECT_THAT(refusal("t_s,A/x,A/x\n0,0,0\n1,1,1\n"), HasSubstr("bad.csv:1: column 'A/x' given twice"));
  // An absolute path on every system (on Windows "/x" is relative to the drive).
  const std::string missing = (dir_ / "nonexistent" / "traj.csv").string();
  EXPECT_THAT(param_error([&] { (void)make({"trajectory=" + missing}); }),
              HasSubstr("parameter 'trajectory' = '" + missing + "': no trajectory CSV at " + missing));
}

TEST_F(TrajectoryBackendTest, TheDefaultDrivesTheRobotinoOnItsCircle) {
  const auto b = make({});
  EXPECT_EQ(b->model_name(), "Robotino");
  EXPECT_EQ(b->joint_names().size(), 24u);
  b->advance_to(5.0);  // a quarter of the 1 m circle (20 s): x = r, y = r
  EXPECT_NEAR(b->joint_values()[b->joint_index("Robotino/x")], 0.5, 1e-8);
  EXPECT_NEAR(b->joint_values()[b->joint_index("Robotino/y")], 0.5, 1e-8);
  EXPECT_NEAR(b->joint_values()[b->joint_index("Robotino/phi")], std::numbers::pi / 2, 1e-8);
  EXPECT_NEAR(b->outputs()[b->output_index("Robotino/phi_rate_per_s")], 2 * std::numbers::pi / 20, 1e-8);
}

}  // namespace
}  // namespace cosim::dynamics::trajectory
