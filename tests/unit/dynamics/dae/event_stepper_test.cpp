// EventStepper (the DAE kit's event loop) on two models with closed-form event times:
//  - a point moving at unit speed through windows 0.1 wide (x' = 1, root at each window edge,
//    the equations unchanged: the rest of IDA's step holds, as for the backends' roller sectors);
//  - a ball bouncing with restitution e (every bounce restarts IDA, as a drive switch does).
#include "cosim/dae/event_stepper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "cosim/dae/dae_system.hpp"
#include "cosim/dae/ida_solver.hpp"

namespace cosim::dae {
namespace {

constexpr double kWidth = 0.1;  // window width [x units]
constexpr double kEntry = 1e-9;  // entry-side widening [x units]

// x' = 1 with one root function g = (x − lo)(hi − x), positive inside the window [lo, hi] the
// point is in and negative everywhere outside, so a step across several edges still shows a sign
// change after each; on_roots moves the window (bookkeeping, no restart).
class Windows final : public DaeSystem, public EventHandler {
 public:
  int residual(double, std::span<const double>, std::span<const double> yp, std::span<double> r) override {
    r[0] = yp[0] - 1.0;
    return 0;
  }
  int jacobian(double, double cj, std::span<const double>, std::span<const double>, DenseMatrixRef j) override {
    j(0, 0) = cj;
    return 0;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    // Widened by kEntry on the side just entered: the root is returned a hair past the edge, and
    // g must be positive there, not a rounding error below zero (robotino's windows do the same).
    const double lo = static_cast<double>(window) * kWidth - (window > 0 ? kEntry : 0.0);
    const double hi = static_cast<double>(window + 1) * kWidth;
    g[0] = (y[0] - lo) * (hi - y[0]);
    return 0;
  }
  void before_step(double t_n_s) override {
    step_ends.push_back(t_n_s);
    roots_in_step = 0;
  }
  AfterRoots on_roots(double t_s, std::span<const int> found) override {
    EXPECT_EQ(found.size(), 1u);
    EXPECT_NE(found[0], 0);
    root_times.push_back(t_s);
    most_roots_in_a_step = std::max(most_roots_in_a_step, ++roots_in_step);
    ++window;
    return AfterRoots::kStepHolds;
  }

  long window = 0;  // x in [window·w, (window + 1)·w]
  std::vector<double> root_times;
  std::vector<double> step_ends;
  int roots_in_step = 0;
  int most_roots_in_a_step = 0;
};

IdaOptions tight(std::span<const double> atol, std::span<const double> differential, double max_step_s) {
  IdaOptions options;
  options.rtol = 1e-10;
  options.atol = atol;
  options.differential = differential;
  options.max_step_s = max_step_s;
  options.root_count = 1;
  return options;
}

TEST(EventStepper, AppliesEveryRootOfALongStepAtItsTimeAndNoneBeyondTheAskedTime) {
  Windows model;
  const std::array<double, 1> y0{0.5 * kWidth}, yp0{1.0}, atol{1e-12}, differential{1.0};
  // Steps up to 0.5 hold five window edges each: without asking the rest of a step again after
  // a root, all but the first would be lost.
  IdaSolver solver("test", model, 1, 0.0, y0, yp0, tight(atol, differential, 0.5));
  EventStepper stepper(solver, model, 1);
  std::array<double, 1> y{}, yp{};
  stepper.state_at(0.0, y, yp);  // before any step: the start values
  EXPECT_EQ(y[0], y0[0]);
  EXPECT_EQ(yp[0], yp0[0]);
  // Outputs half-way between edges (x = t + w/2): the edge count is exact at each.
  for (int k = 1; k <= 30; ++k) {
    const double t_s = static_cast<double>(k) * kWidth;
    stepper.advance_to(t_s);
    EXPECT_EQ(model.window, k) << "at t = " << t_s;
    stepper.state_at(t_s, y, yp);
    EXPECT_NEAR(y[0], t_s + 0.5 * kWidth, 1e-9);
  }
  // Each edge once, at its time: x = t + w/2 reaches k·w at t = (k − 1/2)·w. (IDA locates a root
  // to about 100·ε·(|t| + |h|); 1e-9 leaves room for the state's own error at rtol 1e-10.)
  ASSERT_EQ(model.root_times.size(), 30u);
  for (std::size_t k = 0; k < model.root_times.size(); ++k) {
    EXPECT_NEAR(model.root_times[k], (static_cast<double>(k) + 0.5) * kWidth, 1e-9) << k;
  }
  // before_step sees each step's end once, in order, and never a root's time.
  ASSERT_FALSE(model.step_ends.empty());
  for (std::size_t i = 1; i < model.step_ends.size(); ++i) EXPECT_GT(model.step_ends[i], model.step_ends[i - 1]);
  EXPECT_GE(model.most_roots_in_a_step, 3);  // the path under test was taken
}

constexpr double kGravity = 9.81;    // [m/s²]
constexpr double kRestitution = 0.5; // [1]
constexpr double kDrop_m = 1.0;

// x' = v, v' = −g; a root at x = 0 reverses and scales v and restarts IDA there.
class Ball final : public DaeSystem, public EventHandler {
 public:
  int residual(double, std::span<const double> y, std::span<const double> yp, std::span<double> r) override {
    r[0] = yp[0] - y[1];
    r[1] = yp[1] + kGravity;
    return 0;
  }
  int jacobian(double, double cj, std::span<const double>, std::span<const double>, DenseMatrixRef j) override {
    j(0, 0) = cj;
    j(0, 1) = -1.0;
    j(1, 0) = 0.0;
    j(1, 1) = cj;
    return 0;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    g[0] = y[0];
    return 0;
  }
  AfterRoots on_roots(double t_s, std::span<const int>) override {
    std::array<double, 2> y{}, yp{};
    solver->interpolate(t_s, y, yp);
    const std::array<double, 2> y_after{0.0, -kRestitution * y[1]};
    const std::array<double, 2> yp_after{y_after[1], -kGravity};
    solver->reinit(t_s, y_after, yp_after);
    bounce_times.push_back(t_s);
    return AfterRoots::kRestarted;
  }

  IdaSolver* solver = nullptr;
  std::vector<double> bounce_times;
};

TEST(EventStepper, RestartsAtEachBounceAndKeepsARootBeyondTheAskedTimeForLater) {
  Ball model;
  const std::array<double, 2> y0{kDrop_m, 0.0}, yp0{0.0, -kGravity}, atol{1e-12, 1e-12}, differential{1.0, 1.0};
  IdaSolver solver("test", model, 2, 0.0, y0, yp0, tight(atol, differential, 0.05));
  model.solver = &solver;
  EventStepper stepper(solver, model, 1);
  // Closed form: first impact at √(2h/g) with speed v₁ = √(2gh); flight k lasts 2·eᵏ·v₁/g.
  const double v1 = std::sqrt(2.0 * kGravity * kDrop_m);
  std::vector<double> expected{std::sqrt(2.0 * kDrop_m / kGravity)};
  for (int k = 1; k < 6; ++k) expected.push_back(expected.back() + 2.0 * std::pow(kRestitution, k) * v1 / kGravity);
  std::array<double, 2> y{}, yp{};
  const double t_end_s = expected.back() + 0.01;
  for (int k = 1; 0.003 * k < t_end_s; ++k) {
    const double t_s = 0.003 * k;
    stepper.advance_to(t_s);
    std::size_t before = 0;
    while (before < expected.size() && expected[before] <= t_s) ++before;
    // No bounce applied beyond t_s, none missed before it (the outputs are ≥ 4e-5 s from a bounce).
    ASSERT_EQ(model.bounce_times.size(), before) << "at t = " << t_s;
    stepper.state_at(t_s, y, yp);
    ASSERT_GE(y[0], -1e-9) << "the ball is below the floor at t = " << t_s;
  }
  ASSERT_EQ(model.bounce_times.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(model.bounce_times[k], expected[k], 1e-8) << k;
  EXPECT_EQ(solver.stats().reinits, static_cast<long>(expected.size()));
}

TEST(EventStepper, RefusesMoreRootFunctionsThanItHolds) {
  Windows model;
  const std::array<double, 1> y0{0.05}, yp0{1.0}, atol{1e-12}, differential{1.0};
  IdaSolver solver("test", model, 1, 0.0, y0, yp0, tight(atol, differential, 0.5));
  EXPECT_THROW(EventStepper(solver, model, EventStepper::kMaxRoots + 1), std::invalid_argument);
}

}  // namespace
}  // namespace cosim::dae
