// IdaSolver (the DAE kit's IDA wrapper) on a small index-1 DAE with a closed-form solution:
// y0' = y1, 0 = y1 − cos t − y0/2, so y0 = 1.4·e^(t/2) − 0.4·cos t + 0.8·sin t.
#include "cosim/dae/ida_solver.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cosim/util/errors.hpp"

namespace cosim::dae {
namespace {

double exact(double t) { return 1.4 * std::exp(0.5 * t) - 0.4 * std::cos(t) + 0.8 * std::sin(t); }
double exact_rate(double t) { return 0.7 * std::exp(0.5 * t) + 0.4 * std::sin(t) + 0.8 * std::cos(t); }

class SmallDae final : public DaeSystem {
 public:
  int residual(double t, std::span<const double> y, std::span<const double> yp,
               std::span<double> r) override {
    r[0] = yp[0] - y[1];
    r[1] = y[1] - std::cos(t) - 0.5 * y[0];
    return 0;
  }
  int jacobian(double, double cj, std::span<const double>, std::span<const double>,
               DenseMatrixRef j) override {
    j(0, 0) = cj;
    j(0, 1) = -1.0;
    j(1, 0) = -0.5;
    j(1, 1) = 1.0;
    return 0;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    g[0] = y[0] - 2.0;  // crossed once, near t = 0.79
    return 0;
  }
};

struct Fixture {
  SmallDae dae;
  std::array<double, 2> atol{1e-10, 1e-10};
  std::array<double, 2> id{1.0, 0.0};
  IdaOptions options() {
    IdaOptions o;
    o.rtol = 1e-10;
    o.atol = atol;
    o.differential = id;
    o.max_step_s = 0.05;
    o.root_count = 1;
    return o;
  }
};

TEST(IdaSolver, CalcIcThenStepsFollowTheExactSolutionAndFindTheRoot) {
  Fixture f;
  const std::array<double, 2> y0{1.0, 0.0};  // y1 inconsistent: IDACalcIC fixes it
  const std::array<double, 2> yp0{0.0, 0.0};
  IdaSolver solver("test", f.dae, 2, 0.0, y0, yp0, f.options());
  solver.correct_initial_conditions(0.05);
  EXPECT_NEAR(solver.consistent_y()[1], 1.5, 1e-9);
  EXPECT_NEAR(solver.consistent_yp()[0], 1.5, 1e-9);
  double root_t = -1.0;
  std::array<double, 2> y{}, yp{};
  while (solver.current_time_s() < 2.0) {
    if (solver.step(2.0) == IdaSolver::Stop::kRoot) {
      root_t = solver.returned_time_s();
      EXPECT_EQ(solver.roots_found()[0], 1);
    }
    // The dense output over the last step matches the exact solution.
    const double tn = solver.current_time_s();
    const double h = solver.last_step_s();
    for (const double s : {0.0, 0.3, 0.7, 1.0}) {
      const double t = tn - s * h;
      solver.interpolate(t, y, yp);
      ASSERT_NEAR(y[0], exact(t), 1e-7) << t;
      ASSERT_NEAR(yp[0], exact_rate(t), 1e-5) << t;
    }
  }
  // Bisection on the exact solution for y0 = 2.
  double lo = 0.0, hi = 2.0;
  for (int i = 0; i < 100; ++i) ((exact(0.5 * (lo + hi)) < 2.0) ? lo : hi) = 0.5 * (lo + hi);
  EXPECT_NEAR(root_t, lo, 1e-9);
  EXPECT_GT(solver.stats().steps, 10);
}

TEST(IdaSolver, ReinitConsistentAgreesWithCalcIc) {
  Fixture f;
  // Some state at t = 1.3 with wrong y1 and y0'.
  const double t = 1.3;
  std::array<double, 2> y{exact(t), 7.0};
  std::array<double, 2> yp{-3.0, 0.0};
  IdaSolver a("test", f.dae, 2, t, y, yp, f.options());
  a.correct_initial_conditions(t + 0.05);
  IdaSolver b("test", f.dae, 2, 0.0, y, yp, f.options());
  b.reinit_consistent(t, y, yp);
  EXPECT_NEAR(y[1], a.consistent_y()[1], 1e-12);
  EXPECT_NEAR(yp[0], a.consistent_yp()[0], 1e-12);
  EXPECT_NEAR(y[1], exact_rate(t), 1e-9);
  EXPECT_EQ(b.consistent_y()[1], y[1]);
  EXPECT_EQ(b.stats().reinits, 1);
  // And integration continues from there.
  while (b.current_time_s() < 1.5) b.step(1.5);
  std::array<double, 2> yi{}, ypi{};
  b.interpolate(1.5, yi, ypi);
  EXPECT_NEAR(yi[0], exact(1.5), 1e-7);
}

TEST(IdaSolver, RejectsInconsistentSizesAndInterpolationBeforeAStep) {
  Fixture f;
  const std::array<double, 2> y0{1.0, 1.5};
  const std::array<double, 1> short_vector{0.0};
  EXPECT_THROW(IdaSolver("test", f.dae, 2, 0.0, y0, short_vector, f.options()), std::invalid_argument);
  IdaSolver solver("test", f.dae, 2, 0.0, y0, std::array<double, 2>{1.5, 0.0}, f.options());
  std::array<double, 2> y{}, yp{};
  EXPECT_THROW(solver.interpolate(0.0, y, yp), SolverError) << "no step taken yet";
}

// Fails (unrecoverably) once t passes 0.5.
class FailingDae final : public DaeSystem {
 public:
  int residual(double t, std::span<const double> y, std::span<const double> yp,
               std::span<double> r) override {
    r[0] = yp[0] - y[1];
    r[1] = y[1] - 1.0;
    return t > 0.5 ? -1 : 0;
  }
  int jacobian(double, double cj, std::span<const double>, std::span<const double>,
               DenseMatrixRef j) override {
    j(0, 0) = cj;
    j(0, 1) = -1.0;
    j(1, 0) = 0.0;
    j(1, 1) = 1.0;
    return 0;
  }
  int roots(double, std::span<const double>, std::span<const double>, std::span<double> g) override {
    g[0] = 1.0;
    return 0;
  }
};

TEST(IdaSolver, AFailingModelIsASolverErrorWithIdasMessage) {
  Fixture f;
  FailingDae dae;
  const std::array<double, 2> y0{0.0, 1.0};
  const std::array<double, 2> yp0{1.0, 0.0};
  IdaSolver solver("backend test", dae, 2, 0.0, y0, yp0, f.options());
  try {
    while (solver.current_time_s() < 1.0) solver.step(1.0);
    FAIL() << "no exception";
  } catch (const SolverError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("backend test: IDA IDASolve failed (IDA_RES_FAIL)"), std::string::npos) << what;
    // A numerical failure for the process: exit code 5 when it reaches main().
    const util::CosimError& as_cosim = e;
    EXPECT_EQ(as_cosim.exit_code(), util::kExitNumerical);
  }
}

// An ODE y' = −y without root functions: the DaeSystem defaults (no roots()) suffice, every
// component differential.
class DecayOde final : public DaeSystem {
 public:
  int residual(double, std::span<const double> y, std::span<const double> yp,
               std::span<double> r) override {
    r[0] = yp[0] + y[0];
    return 0;
  }
  int jacobian(double, double cj, std::span<const double>, std::span<const double>,
               DenseMatrixRef j) override {
    j(0, 0) = cj + 1.0;
    return 0;
  }
};

TEST(IdaSolver, AnOdeWithoutRootsIsADaeWithEveryComponentDifferential) {
  DecayOde ode;
  const std::array<double, 1> atol{1e-12};
  const std::array<double, 1> id{1.0};
  IdaOptions options;
  options.rtol = 1e-10;
  options.atol = atol;
  options.differential = id;
  const std::array<double, 1> y0{1.0};
  const std::array<double, 1> yp0{-1.0};  // consistent already
  IdaSolver solver("test", ode, 1, 0.0, y0, yp0, options);
  while (solver.current_time_s() < 1.0) {
    EXPECT_EQ(solver.step(1.0), IdaSolver::Stop::kStep);
  }
  std::array<double, 1> y{}, yp{};
  solver.interpolate(1.0, y, yp);
  // rtol 1e-10 per step over ~100 steps: the global error stays well below 1e-8.
  EXPECT_NEAR(y[0], std::exp(-1.0), 1e-8);
  // The interpolant's derivative is one order less accurate than its value.
  EXPECT_NEAR(yp[0], -std::exp(-1.0), 1e-6);
  EXPECT_EQ(solver.stats().root_returns, 0);
}

}  // namespace
}  // namespace cosim::dae
