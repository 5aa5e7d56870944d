// The robotino backend (seed 000 §3-4) as a whole: tracking accuracy of Fig. 26c, the voltage
// limit, an energy balance, switch angles, determinism, no allocation per frame, and the
// parameter errors (agreement with the kinematic backend: registry/robotino_vs_kinematic_test.cpp).
// Each 50 s run takes ~50 ms.
#include "cosim/dynamics/robotino/robotino_backend.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "cosim/test/allocation_probe.hpp"

namespace cosim::dynamics::robotino {
using reference::RoseParams;
using reference::RoseReference;
using reference::RoseSample;
using robotino_common::robotino_contact_sector;
using robotino_common::robotino_joint_names;
using robotino_common::robotino_param_specs;
using robotino_common::robotino_roller_contact;
using robotino_common::robotino_roller_joint;
using robotino_common::robotino_sector_roller;

namespace {

using ::testing::HasSubstr;
namespace out = robotino_output;
constexpr double kPitch = std::numbers::pi / 3;  // roller pitch, written out independently

// Through the registry factory, as cosim-dynamics builds it.
std::unique_ptr<RobotinoBackend> make(const std::vector<std::string>& overrides = {}, double t0_s = 0.0) {
  auto backend =
      make_robotino_backend(Params::resolve("robotino", robotino_param_specs(), nullptr, overrides), t0_s);
  return std::unique_ptr<RobotinoBackend>(static_cast<RobotinoBackend*>(backend.release()));
}

double out_of(const Backend& b, std::size_t index) { return b.outputs()[index]; }
double theta(const Backend& b, int wheel) { return b.joint_values()[3 + static_cast<std::size_t>(wheel)]; }

// Largest deviations from the reference for t ≥ t_from_s, and the peak voltage.
struct Tracking {
  double dx_m = 0, dy_m = 0, dphi_rad = 0, peak_u_V = 0;
};

Tracking run_rose(RobotinoBackend& b, double duration_s, double step_s = 0.02, double t_from_s = 5.0) {
  Tracking r;
  const auto steps = static_cast<int>(std::lround(duration_s / step_s));
  for (int k = 1; k <= steps; ++k) {
    b.advance_to(k * step_s);
    for (int i = 0; i < 3; ++i)
      r.peak_u_V = std::max(r.peak_u_V, std::abs(out_of(b, out::kVoltage1 + static_cast<std::size_t>(i))));
    if (b.time_s() < t_from_s) continue;
    r.dx_m = std::max(r.dx_m, std::abs(out_of(b, out::kDx)));
    r.dy_m = std::max(r.dy_m, std::abs(out_of(b, out::kDy)));
    r.dphi_rad = std::max(r.dphi_rad, std::abs(out_of(b, out::kDphi)));
  }
  return r;
}

TEST(RobotinoBackend, StartsOnTheReferenceWithWheelsAndRollersAtZero) {
  for (const double t0 : {0.0, 7.3}) {
    auto b = make({}, t0);
    const RoseSample s = RoseReference(RoseParams{}).at(t0);
    EXPECT_EQ(b->joint_names(), robotino_joint_names());
    EXPECT_EQ(b->output_names().size(), out::kCount);
    EXPECT_EQ(b->joint_values()[0], s.x_m);
    EXPECT_EQ(b->joint_values()[1], s.y_m);
    EXPECT_EQ(b->joint_values()[2], s.phi_rad);
    for (std::size_t j = 3; j < 24; ++j) EXPECT_EQ(b->joint_values()[j], 0.0) << j;
    EXPECT_NEAR(out_of(*b, out::kVx), s.vx_m_per_s, 1e-15);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(out_of(*b, out::kContact1 + static_cast<std::size_t>(i)), 1.0);
    EXPECT_EQ(out_of(*b, out::kEnergyBalance), 0.0);
  }
  EXPECT_EQ(make()->output_names()[out::kEnergyBalance], "energy_balance_J");
  EXPECT_EQ(make()->output_names()[out::kVoltage1 + 2], "u3_V");
}

TEST(RobotinoBackend, TracksTheRoseWithinTheSeedsAccuracyAndTheVoltageLimit) {
  // Seed 000 Fig. 26c after the initial transient: a few 1e-6 m in X, < 2e-5 m in Y,
  // ~1e-6 rad in φ. The issue asks ≤ 2e-5 m and ≤ 1e-5 rad; with the inertial feed-forward
  // the model tracks to ~1e-7 (MODEL.md §7), which the second bound keeps.
  auto b = make();
  const Tracking r = run_rose(*b, 50.0);
  EXPECT_LE(r.dx_m, 2e-5);
  EXPECT_LE(r.dy_m, 2e-5);
  EXPECT_LE(r.dphi_rad, 1e-5);
  EXPECT_LE(std::max({r.dx_m, r.dy_m}), 5e-7);
  EXPECT_LE(r.dphi_rad, 5e-8);
  EXPECT_LE(r.peak_u_V, 24.0);
  EXPECT_GT(r.peak_u_V, 5.0);
  long switches = 0;
  for (int i = 0; i < 3; ++i) switches += b->switch_count(i);
  EXPECT_GT(switches, 900);
  RecordProperty("dx_m", std::to_string(r.dx_m));
  RecordProperty("dy_m", std::to_string(r.dy_m));
  RecordProperty("dphi_rad", std::to_string(r.dphi_rad));
  RecordProperty("peak_u_V", std::to_string(r.peak_u_V));
}

TEST(RobotinoBackend, WithoutTheInertialFeedForwardTheDeviationIsTheSeedsOrder) {
  auto b = make({"pid_ff_inertia=0"});
  const Tracking r = run_rose(*b, 50.0);
  EXPECT_LE(std::max(r.dx_m, r.dy_m), 2e-5);
  EXPECT_LE(r.dphi_rad, 1e-5);
  EXPECT_GT(r.dy_m, 5e-7) << "the feed-forward is what brings it below";
}

double stored0_J(const std::vector<std::string>& overrides) {
  return out_of(*make(overrides), out::kEnergyStored);
}

// E_in − E_R − (E_stored − E_stored(0)) of a run.
double energy_balance_J(const std::vector<std::string>& overrides, double duration_s) {
  auto b = make(overrides);
  const auto steps = static_cast<int>(std::lround(duration_s / 0.02));
  for (int k = 1; k <= steps; ++k) b->advance_to(k * 0.02);
  EXPECT_GT(out_of(*b, out::kEnergyRes), 0.1);  // energy did flow
  EXPECT_NEAR(out_of(*b, out::kEnergyBalance),
              out_of(*b, out::kEnergyIn) - out_of(*b, out::kEnergyRes) - out_of(*b, out::kEnergyStored) +
                  stored0_J(overrides),
              1e-12);
  return out_of(*b, out::kEnergyBalance);
}

TEST(RobotinoBackend, EnergyBalanceClosesToSolverTolerance) {
  // Electrical power in = armature losses + d/dt (kinetic + magnetic energy): the no-slip
  // forces do no work and the reducer is lossless. The residual is the solver's error, so it
  // shrinks with the tolerance (0.06 J at the default 1e-6 over 50 s, MODEL.md §7).
  const double loose = std::abs(energy_balance_J({"solver_rtol=1e-7", "solver_atol=1e-7"}, 10.0));
  const double tight = std::abs(energy_balance_J({"solver_rtol=1e-9", "solver_atol=1e-9"}, 10.0));
  const double standard = std::abs(energy_balance_J({}, 50.0));
  EXPECT_LE(tight, 1e-5);          // 3.0e-6 J measured; throughput ~0.7 J in 10 s
  EXPECT_LE(tight, loose / 20.0);  // 1.3e-4 J at 1e-7
  EXPECT_LE(standard, 0.1);
  RecordProperty("balance_1e-9_10s_J", std::to_string(tight));
}

TEST(RobotinoBackend, RollerSwitchesHappenAtTheSectorEdges) {
  auto b = make();
  std::array<long, 3> seen{};
  std::array<double, 3> theta_before{};
  long checked = 0;
  for (int k = 1; k <= 4000; ++k) {  // 20 s in 5 ms steps: at most one switch per wheel and step
    for (int i = 0; i < 3; ++i) theta_before[static_cast<std::size_t>(i)] = theta(*b, i);
    b->advance_to(k * 0.005);
    for (int i = 0; i < 3; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      // The contact output agrees with the wheel angle (robotino_geometry's convention).
      EXPECT_EQ(out_of(*b, out::kContact1 + ui), robotino_roller_contact(theta(*b, i)).roller + 1) << k;
      const long count = b->switch_count(i);
      ASSERT_LE(count - seen[ui], 1) << "wheel " << i + 1 << " at t " << b->time_s();
      if (count == seen[ui]) continue;
      seen[ui] = count;
      const RollerSwitch& s = b->last_switch(i);
      const int dir = s.to_sector > s.from_sector ? 1 : -1;
      ASSERT_EQ(std::abs(s.to_sector - s.from_sector), 1);
      // Switch at θ = (n ± ½)·π/3, located to the root-finding tolerance.
      const double edge = (static_cast<double>(s.from_sector) + 0.5 * dir) * kPitch;
      EXPECT_NEAR(s.theta_rad, edge, 1e-9) << "wheel " << i + 1 << " switch " << count;
      EXPECT_GT(s.t_s, b->time_s() - 0.005);
      EXPECT_LE(s.t_s, b->time_s());
      // The edge lies between the wheel angles before and after.
      EXPECT_LE(std::min(theta_before[ui], theta(*b, i)), edge + 1e-12);
      EXPECT_GE(std::max(theta_before[ui], theta(*b, i)), edge - 1e-12);
      ++checked;
    }
  }
  // Every sector edge crossed was reported: the count equals the sectors travelled (the default
  // rose never reverses a wheel).
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b->switch_count(i), std::abs(robotino_contact_sector(theta(*b, i)))) << "wheel " << i + 1;
  }
  EXPECT_GT(checked, 300);
}

TEST(RobotinoBackend, OnlyTheRollerInContactTurns) {
  auto b = make();
  std::vector<double> before(b->joint_values().begin(), b->joint_values().end());
  for (int k = 1; k <= 1000; ++k) {
    b->advance_to(k * 0.01);
    for (int i = 0; i < 3; ++i) {
      const long na = robotino_contact_sector(before[3 + static_cast<std::size_t>(i)]);
      const long nb = robotino_contact_sector(theta(*b, i));
      std::array<bool, 6> may_move{};
      for (long n = std::min(na, nb); n <= std::max(na, nb); ++n)
        may_move[static_cast<std::size_t>(robotino_sector_roller(n))] = true;
      for (int j = 0; j < 6; ++j) {
        const std::size_t joint = robotino_roller_joint(i, j);
        if (may_move[static_cast<std::size_t>(j)]) {
          EXPECT_NE(b->joint_values()[joint], before[joint]) << "wheel " << i + 1 << " roller " << j + 1;
        } else {
          EXPECT_EQ(b->joint_values()[joint], before[joint]) << "wheel " << i + 1 << " roller " << j + 1;
        }
      }
    }
    before.assign(b->joint_values().begin(), b->joint_values().end());
  }
}

TEST(RobotinoBackend, RestartingAtEverySwitchGivesTheSameRun) {
  auto a = make();
  auto b = make({"solver_restart_at_switch=1"});
  double pose = 0, wheel = 0, roller = 0;
  for (int k = 1; k <= 1000; ++k) {
    a->advance_to(k * 0.02);
    b->advance_to(k * 0.02);
    for (std::size_t j = 0; j < 24; ++j) {
      const double d = std::abs(a->joint_values()[j] - b->joint_values()[j]);
      (j < 3 ? pose : j < 6 ? wheel : roller) = std::max(j < 3 ? pose : j < 6 ? wheel : roller, d);
    }
  }
  // Both are within their errors against a 1e-10 run: pose 7e-8 / 4e-8 m, wheels 5e-4 /
  // 1.7e-3 rad, rollers 0.027 / 0.020 rad (the roller rate depends on r_roll(θ)).
  EXPECT_LE(pose, 3e-7);
  EXPECT_LE(wheel, 5e-3);
  EXPECT_LE(roller, 0.1);
  EXPECT_GT(b->solver_stats().reinits, 300);
  EXPECT_EQ(a->solver_stats().reinits, 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(a->switch_count(i), b->switch_count(i));
}

TEST(RobotinoBackend, BlockAndDenseLinearSolversGiveTheSameRun) {
  RobotinoConfig block;
  RobotinoConfig dense;
  dense.solver.block_linear_solver = false;
  RobotinoBackend a(block, 0.0);
  RobotinoBackend b(dense, 0.0);
  for (int k = 1; k <= 250; ++k) {
    a.advance_to(k * 0.02);
    b.advance_to(k * 0.02);
  }
  double pose = 0, wheel = 0, roller = 0;
  for (std::size_t j = 0; j < 24; ++j) {
    const double d = std::abs(a.joint_values()[j] - b.joint_values()[j]);
    (j < 3 ? pose : j < 6 ? wheel : roller) = std::max(j < 3 ? pose : j < 6 ? wheel : roller, d);
  }
  // Different rounding in the Newton solves, hence slightly different steps.
  EXPECT_LE(pose, 1e-7);
  EXPECT_LE(wheel, 1e-4);
  EXPECT_LE(roller, 1e-3);
}

TEST(RobotinoBackend, RerunIsBitwiseEqual) {
  const auto trace = [] {
    auto b = make();
    std::vector<double> all;
    for (int k = 1; k <= 1000; ++k) {
      b->advance_to(k * 0.02);
      all.insert(all.end(), b->joint_values().begin(), b->joint_values().end());
      all.insert(all.end(), b->outputs().begin(), b->outputs().end());
    }
    return all;
  };
  const std::vector<double> first = trace();
  const std::vector<double> second = trace();
  ASSERT_EQ(first.size(), second.size());
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0);
}

TEST(RobotinoBackend, AdvancingDoesNotAllocate) {
  // Also when restarting at every switch (IdaSolver::reinit_consistent instead of IDACalcIC).
  for (const char* restart : {"solver_restart_at_switch=0", "solver_restart_at_switch=1"}) {
    auto b = make({restart});
    b->advance_to(0.02);
    const ::cosim::test::AllocationProbe probe;
    for (int k = 2; k <= 1000; ++k) b->advance_to(k * 0.02);  // ~370 switches
    b->advance_to(20.0 + 1e-9);
    EXPECT_EQ(probe.count(), 0u) << restart;
  }
}

TEST(RobotinoBackend, StartingAtRestSaturatesThenLeavesTheLimit) {
  // The 0.6 m/s step of the reference asks for ~1500 V: the drives start saturated (an event
  // state, not a clamp inside the residual), follow their commands again once the speeds have
  // caught up, and the voltage never exceeds the limit.
  auto b = make({"start_moving=0"});
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(out_of(*b, out::kSaturated1 + static_cast<std::size_t>(i)), 0.0) << i;
    EXPECT_EQ(std::abs(out_of(*b, out::kVoltage1 + static_cast<std::size_t>(i))), 24.0) << i;
    EXPECT_GT(std::abs(out_of(*b, out::kCommand1 + static_cast<std::size_t>(i))), 24.0) << i;
  }
  double peak = 0;
  for (int k = 1; k <= 50; ++k) {
    b->advance_to(k * 0.02);
    for (int i = 0; i < 3; ++i)
      peak = std::max(peak, std::abs(out_of(*b, out::kVoltage1 + static_cast<std::size_t>(i))));
  }
  EXPECT_EQ(peak, 24.0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out_of(*b, out::kSaturated1 + static_cast<std::size_t>(i)), 0.0) << i;
    EXPECT_GE(b->saturation_switch_count(i), 2) << "entered at t0 and left: " << i;
    // Back in the linear mode the applied voltage is the command.
    EXPECT_EQ(out_of(*b, out::kVoltage1 + static_cast<std::size_t>(i)),
              out_of(*b, out::kCommand1 + static_cast<std::size_t>(i)));
  }
}

// The largest pose difference between two runs, sampled every 0.02 s over duration_s.
double max_pose_difference_m(RobotinoBackend& a, RobotinoBackend& b, double duration_s) {
  double worst = 0.0;
  const auto steps = static_cast<int>(std::lround(duration_s / 0.02));
  for (int k = 1; k <= steps; ++k) {
    a.advance_to(k * 0.02);
    b.advance_to(k * 0.02);
    worst = std::max({worst, std::abs(out_of(a, out::kDx) - out_of(b, out::kDx)),
                      std::abs(out_of(a, out::kDy) - out_of(b, out::kDy))});
  }
  return worst;
}

TEST(RobotinoBackend, StartingAtRestCompletesAtTightTolerances) {
  // With the clamp inside the residual, IDA stopped with IDA_CONV_FAIL at t ≈ 0.14 s for
  // tolerances 1e-10 ... 1e-12 (the Newton matrix flipped between saturated and linear rows).
  // Saturation as an event keeps each mode smooth; the run completes with and without restarts
  // at the roller switches, with and without anti-windup, and agrees with a looser run.
  for (const char* antiwindup : {"pid_antiwindup_time_s=2e-3", "pid_antiwindup_time_s=0"}) {
    for (const char* restart : {"solver_restart_at_switch=0", "solver_restart_at_switch=1"}) {
      auto tight = make({"start_moving=0", "solver_rtol=1e-11", "solver_atol=1e-11", antiwindup, restart});
      auto loose = make({"start_moving=0", "solver_rtol=1e-8", "solver_atol=1e-8", antiwindup, restart});
      // 1e-8 is converged to ~1e-8 m (convergence study, MODEL.md §7); the bound allows 10×.
      EXPECT_LE(max_pose_difference_m(*tight, *loose, 10.0), 1e-7) << antiwindup << ' ' << restart;
      EXPECT_GE(tight->saturation_switch_count(0), 2) << antiwindup << ' ' << restart;
    }
  }
}

TEST(RobotinoBackend, LowerVoltageLimitIsHonoured) {
  auto b = make({"motor_voltage_limit_V=9"});
  const Tracking r = run_rose(*b, 10.0);
  EXPECT_LE(r.peak_u_V, 9.0);
  EXPECT_EQ(r.peak_u_V, 9.0);
}

TEST(RobotinoBackend, AlgebraicCurrentsWhenTheInductanceIsZero) {
  // Tight tolerances: at the default 1e-6 the PID turns integration error into current
  // jitter of a few mA from sample to sample (and msvcrt's libm jitters differently from
  // glibc's), which would swamp the difference this test looks at.
  auto a = make({"solver_rtol=1e-9", "solver_atol=1e-9"});
  auto b = make({"solver_rtol=1e-9", "solver_atol=1e-9", "motor_inductance_H=0"});
  const Tracking ra = run_rose(*a, 10.0);
  const Tracking rb = run_rose(*b, 10.0);
  EXPECT_LE(std::max(rb.dx_m, rb.dy_m), 1e-6);
  // La/Ra = 1.5 ms: the currents barely differ (measured 1e-6 A of a 0.08 A peak).
  EXPECT_NEAR(out_of(*a, out::kCurrent1), out_of(*b, out::kCurrent1), 1e-4);
  EXPECT_NEAR(out_of(*a, out::kDx), out_of(*b, out::kDx), 1e-6);
  (void)ra;
}

TEST(RobotinoBackend, ParameterErrorsNameTheKey) {
  const auto fails = [&](const std::vector<std::string>& cli, const std::string& key) {
    try {
      (void)make_robotino_backend(Params::resolve("robotino", robotino_param_specs(), nullptr, cli), 0.0);
      ADD_FAILURE() << "no exception for " << cli.front();
    } catch (const ParamError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr(key));
    }
  };
  fails({"wheel_inertia=1"}, "wheel_inertia");
  fails({"mass_kg=-1"}, "mass_kg");
  fails({"motor_voltage_limit_V=1e9"}, "motor_voltage_limit_V");
  fails({"start_moving=0.5"}, "start_moving");
  fails({"solver_restart_at_switch=2"}, "solver_restart_at_switch");
  fails({"roller_max_radius_m=0.005"}, "roller_max_radius_m");
  for (const ParamSpec& spec : robotino_param_specs()) {
    EXPECT_FALSE(spec.source.empty()) << spec.key;
  }
}

}  // namespace
}  // namespace cosim::dynamics::robotino
