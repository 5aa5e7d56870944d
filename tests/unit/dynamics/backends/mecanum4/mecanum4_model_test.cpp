// Seed 002's platform as a multibody model (spec A.4): it starts in static equilibrium (R7); the
// reduced model follows the manoeuvre phase by phase (R4) and slips on the diagonal only below
// the traction limit (R8); the energy balance closes (R9); the roller-level model agrees with
// the reduced one on the chassis speed (R10) and on the wheel speeds by eq. 17's factor (R2),
// and rides with the ripple of its roller transitions that the reduced one lacks (R5).
#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
#include "cosim/dynamics/format_number.hpp"
#include "sanitized_build.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

namespace cosim::dynamics::mecanum4 {
using reference::Trapezoid;

namespace {

namespace out = mecanum4_output;

std::unique_ptr<Mecanum4Backend> make(const std::vector<std::string>& overrides = {}) {
  auto b = make_mecanum4_backend(Params::resolve("mecanum4", mecanum4_param_specs(), nullptr, overrides), 0.0);
  return std::unique_ptr<Mecanum4Backend>(static_cast<Mecanum4Backend*>(b.release()));
}

TEST(Mecanum4Model, StartsInStaticEquilibrium) {
  for (const auto model : {mecanum4::WheelModel::kReduced, mecanum4::WheelModel::kRollers}) {
    mecanum4::ModelParams p;
    p.wheel_model = model;
    const mecanum4::Mecanum4Model m(p);
    mecanum4::Scratch scratch(m);
    mecanum4::Evaluation e;
    const auto y = m.initial_state();
    std::vector<double> y_dot(y.size());
    m.evaluate(0.0, y, y_dot, scratch, e);
    double worst = 0;
    for (double v : y_dot) worst = std::max(worst, std::abs(v));
    EXPECT_LE(worst, 1e-9) << static_cast<int>(model);
    for (int i = 0; i < mecanum4::kWheels; ++i) {
      EXPECT_NEAR(e.normal_N[static_cast<std::size_t>(i)], p.total_mass_kg() * p.gravity_m_per_s2 / 4, 1e-9);
      EXPECT_EQ(e.contacts[static_cast<std::size_t>(i)], 1);
    }
  }
}

TEST(Mecanum4Backend, SettlesWithinTheSettlingTime) {
  // R7: from static equilibrium nothing moves in the 0.2 s settle (spec: |ż| < 1e-4 m/s,
  // |s_i| < 1e-5 m); dropped from 5 mm (impact at sqrt(2 g h) = 0.31 m/s) the suspension (7.6 Hz,
  // ζ ≈ 0.5: e^(−ζωt) = 0.8 % left at 0.2 s) and the contacts (42 Hz) have settled to 2 % of the
  // impact speed and of the drop.
  const double impact_m_per_s = std::sqrt(2 * 9.81 * 0.005);
  for (const auto& [start, speed_bar, travel_bar] :
       {std::tuple{"start_height_m=0", 1e-4, 1e-5}, std::tuple{"start_height_m=0.005", 0.02 * impact_m_per_s, 0.02 * 0.005}}) {
    for (const char* model : {"wheel_model=reduced", "wheel_model=rollers"}) {
      auto b = make({start, model});
      b->advance_to(0.2);
      const auto nq = static_cast<std::size_t>(b->model().position_count());
      EXPECT_LE(std::abs(b->state()[nq + 2]), speed_bar) << start << " " << model << ": vertical speed";
      for (std::size_t i = 0; i < mecanum4::kWheels; ++i) {
        EXPECT_LE(std::abs(b->outputs()[out::kWheelBlock + out::kPerWheel * i + 6]), travel_bar)
            << start << " " << model << ": suspension " << i;
      }
    }
  }
}

// Per-phase max |v − v_ref| (translations, per axis) and |Ω − Ω_ref| (turn), seed 002 Fig. 12.
struct PhaseErrors {
  double x_move = 0, y_move = 0, diagonal = 0, turn = 0, diagonal_lag = 0;
};

struct Trajectory {
  PhaseErrors errors;
  std::vector<double> t, x, vx, az, omega1, balance, energy_in;
  std::array<double, 3> end_pose{};
};

Trajectory run(Mecanum4Backend& b, double t_end_s, double step_s = 0.005) {
  const mecanum4::Manoeuvre m;
  Trajectory r;
  for (int k = 1; k * step_s <= t_end_s + 1e-9; ++k) {
    const double t = k * step_s;
    b.advance_to(t);
    const auto o = b.outputs();
    const double ex = std::abs(o[out::kVx] - o[out::kVxRef]), ey = std::abs(o[out::kVy] - o[out::kVyRef]);
    const auto in = [&](const Trapezoid& move) { return t >= move.start_s && t <= move.end_s() + m.stop_s; };
    if (in(m.x_move())) r.errors.x_move = std::max({r.errors.x_move, ex, ey});
    if (in(m.y_move())) r.errors.y_move = std::max({r.errors.y_move, ex, ey});
    if (in(m.diagonal())) {
      r.errors.diagonal = std::max({r.errors.diagonal, ex, ey});
      r.errors.diagonal_lag = std::max(r.errors.diagonal_lag, o[out::kVx] - o[out::kVxRef]);  // v_ref < 0: behind
    }
    if (in(m.turn())) r.errors.turn = std::max(r.errors.turn, std::abs(o[out::kOmega] - o[out::kOmegaRef]));
    r.t.push_back(t);
    r.x.push_back(b.joint_values()[0]);
    r.vx.push_back(o[out::kVx]);
    r.az.push_back(o[out::kAz]);
    r.omega1.push_back(o[out::kWheelBlock]);
    r.balance.push_back(o[out::kEnergyBalance]);
    r.energy_in.push_back(o[out::kEnergyIn]);
  }
  r.end_pose = {b.joint_values()[0], b.joint_values()[1], b.joint_values()[3]};
  return r;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (const double x : v) m = std::max(m, std::abs(x));
  return m;
}

TEST(Mecanum4Backend, ReducedModelFollowsTheManoeuvrePhaseByPhase) {
  auto b = make();
  const Trajectory r = run(*b, 10.0);
  RecordProperty("x_move_m_per_s", format_number(r.errors.x_move));
  RecordProperty("diagonal_m_per_s", format_number(r.errors.diagonal));
  RecordProperty("turn_rad_per_s", format_number(r.errors.turn));
  // The spec's planar prototype: 0.027 m/s (X, Y), 0.028 m/s (diagonal), 0.026 rad/s (turn); ours
  // adds the suspension, pitch and roll, and the penalty contact: within 0.05.
  EXPECT_LE(r.errors.x_move, 0.05);
  EXPECT_LE(r.errors.y_move, 0.05);
  EXPECT_LE(r.errors.diagonal, 0.05);
  EXPECT_LE(r.errors.turn, 0.05);
  // The PI integrals put every wheel angle back on its reference: the pose closes up to the
  // slip (the prototype, without slip, to 4e-8 m).
  EXPECT_LE(std::hypot(r.end_pose[0], r.end_pose[1]), 2e-3);
  EXPECT_NEAR(r.end_pose[2], std::numbers::pi, 2e-3);
  // R9: work of the drives = Δ(kinetic + potential) + dissipation, to the solver's tolerance.
  EXPECT_LE(max_abs(r.balance), 1e-3 * r.energy_in.back()) << "of " << r.energy_in.back() << " J";
}

TEST(Mecanum4Backend, BelowTheTractionLimitTheDiagonalSlips) {
  // R8: on the diagonal two wheels push 25.6 N each against μ·35.6 N: μ ≥ 0.72 is needed. The
  // spec's prototype lagged by 0.21 m/s per axis at μ = 0.6 and by 0.028 m/s at 0.8.
  auto low = make({"friction_mu=0.6"});
  auto high = make({"friction_mu=0.8"});
  const mecanum4::Manoeuvre m;
  const double end = m.diagonal().end_s() + m.stop_s;
  const Trajectory slipping = run(*low, end), gripping = run(*high, end);
  RecordProperty("lag_mu06_m_per_s", format_number(slipping.errors.diagonal_lag));
  RecordProperty("lag_mu08_m_per_s", format_number(gripping.errors.diagonal_lag));
  EXPECT_GT(slipping.errors.diagonal_lag, 0.1);
  EXPECT_LT(gripping.errors.diagonal_lag, 0.05);
  EXPECT_LT(slipping.errors.x_move, 0.05) << "the X move needs only 12.8 N per wheel: no slip at 0.6";
}

// One-sided amplitude spectrum of `v` (mean removed) at frequency f [Hz], sampled every dt.
double amplitude_at(const std::vector<double>& v, double dt_s, double f_hz) {
  double mean = 0;
  for (const double x : v) mean += x / static_cast<double>(v.size());
  std::complex<double> sum = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    sum += (v[k] - mean) * std::polar(1.0, -2.0 * std::numbers::pi * f_hz * static_cast<double>(k) * dt_s);
  }
  return 2.0 * std::abs(sum) / static_cast<double>(v.size());
}

TEST(Mecanum4Backend, RollerModelAgreesWithTheReducedOneAndRidesWithTheRollerRipple) {
  // The X move (to 1.6 s) in both models, sampled at 1 kHz. Under the sanitizers (60 s there)
  // its first 0.3 s: the same roller contacts and switches, at a fifth of the cost; the cruise
  // and ripple checks need 0.6-1.0 s and run in Release.
  auto rollers = make({"wheel_model=rollers"});
  auto reduced = make({"wheel_model=reduced"});
  const double end = test::kSanitizedBuild ? 0.3 : 1.6, dt = 0.001;
  const Trajectory f = run(*rollers, end, dt), r = run(*reduced, end, dt);
  // R10: the chassis speed agrees within the ripple and the controllers' differences.
  double worst = 0;
  for (std::size_t k = 0; k < f.vx.size(); ++k) worst = std::max(worst, std::abs(f.vx[k] - r.vx[k]));
  RecordProperty("vx_rollers_minus_reduced_m_per_s", format_number(worst));
  EXPECT_LE(worst, 0.05);
  // … and on the path, within 2 % of the 1 m: both PI loops put the wheel angles on their
  // references, but a wheel of 16 contact spheres travels 16·(2(R − r_s)·sin(π/16) + r_s·π/8) =
  // 0.4750 m per turn, 0.52 % less than 2πR (it pivots over each sphere), and its rollers slip
  // a little at the ramps. Measured: 13 mm.
  double path = 0;
  for (std::size_t k = 0; k < f.x.size(); ++k) path = std::max(path, std::abs(f.x[k] - r.x[k]));
  RecordProperty("x_rollers_minus_reduced_m", format_number(path));
  EXPECT_LE(path, 0.02);
  if (test::kSanitizedBuild) {
    EXPECT_LE(max_abs(f.balance), 1e-3 * std::max(1.0, f.energy_in.back()));
    return;
  }
  EXPECT_LT(f.x.back(), r.x.back()) << "the sphere-polygon wheel falls short";
  EXPECT_LE(f.errors.x_move, 0.06);
  // R2: cruising (0.6 ... 1.0 s), the reduced wheel turns at √2/2 of the Mecanum wheel.
  double ratio_sum = 0;
  int n = 0;
  for (std::size_t k = 0; k < f.t.size(); ++k) {
    if (f.t[k] < 0.7 || f.t[k] > 1.0) continue;
    ratio_sum += r.omega1[k] / f.omega1[k];
    ++n;
  }
  EXPECT_NEAR(ratio_sum / n, std::sqrt(0.5), 0.02) << "eq. 17, up to the slip";
  // R5: the hub drops by (R − r_s)(1 − cos(π/16)) = 1.22 mm between rollers: in the cruise at
  // 1 m/s the roller passes come at 16·13.16/2π = 33.5 Hz; the chassis' vertical acceleration has
  // its peak there in the roller model and (almost) nothing in the reduced one.
  std::vector<double> az_f, az_r;
  for (std::size_t k = 0; k < f.t.size(); ++k) {
    if (f.t[k] >= 0.6 && f.t[k] < 1.0) {
      az_f.push_back(f.az[k]);
      az_r.push_back(r.az[k]);
    }
  }
  const double pass_hz = 16.0 * (1.0 / 0.076) / (2.0 * std::numbers::pi);
  const double peak_f = amplitude_at(az_f, dt, pass_hz), peak_r = amplitude_at(az_r, dt, pass_hz);
  double off_peak = 0;
  for (const double f_hz : {10.0, 20.0, 50.0, 60.0}) off_peak = std::max(off_peak, amplitude_at(az_f, dt, f_hz));
  RecordProperty("ripple_rollers_m_per_s2", format_number(peak_f));
  RecordProperty("ripple_reduced_m_per_s2", format_number(peak_r));
  EXPECT_GT(peak_f, 3.0 * off_peak) << "a peak at the roller-pass frequency";
  EXPECT_GT(peak_f, 100.0 * peak_r) << "the reduced model has no roller passes";
  EXPECT_LE(max_abs(f.balance), 1e-3 * std::max(1.0, f.energy_in.back()));
}

}  // namespace
}  // namespace cosim::dynamics::mecanum4
