// How accurate the robotino backend is, against itself and against seed 000:
// - the seed-literal preset (scenes/robotino/params/seed000.params: plain PID, φ_ref in eq. 22)
//   meets the deviations the paper reports in Fig. 26c, with gains a 24 V drive allows;
// - the solution converges with the tolerance (~10× per decade), pose and electrical outputs;
// - at the default tolerance the electrical outputs are within 1 % of the converged ones and
//   every output sample names the right roller.
// Figures and tables: MODEL.md §7, from scripts/robotino_study.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "sanitized_build.hpp"

namespace cosim::dynamics::robotino {
using robotino_common::robotino_param_specs;

namespace {

namespace out = robotino_output;

const std::filesystem::path kSeedParams = std::filesystem::path(COSIM_SCENES_DIR) / "robotino" / "params" /
                                          "seed000.params";

std::unique_ptr<RobotinoBackend> make_robotino(bool seed, const std::vector<std::string>& overrides = {}) {
  const Params params = Params::resolve("robotino", robotino_param_specs(), seed ? &kSeedParams : nullptr, overrides);
  auto backend = make_robotino_backend(params, 0.0);
  return std::unique_ptr<RobotinoBackend>(static_cast<RobotinoBackend*>(backend.release()));
}

// The outputs of a run sampled every 0.02 s, as dynamics.csv has them.
struct Samples {
  std::vector<std::vector<double>> samples;
  double peak(std::size_t first, std::size_t count = 3) const {
    double p = 0.0;
    for (const auto& s : samples) {
      for (std::size_t j = first; j < first + count; ++j) p = std::max(p, std::abs(s[j]));
    }
    return p;
  }
  // Largest |value| for t ≥ 5 s (after the initial transient, as Fig. 26c).
  double after_transient(std::size_t column) const {
    double p = 0.0;
    for (std::size_t k = 250; k < samples.size(); ++k) p = std::max(p, std::abs(samples[k][column]));
    return p;
  }
};

Samples run(RobotinoBackend& b, double duration_s) {
  Samples r;
  const auto steps = static_cast<int>(std::lround(duration_s / 0.02));
  for (int k = 1; k <= steps; ++k) {
    b.advance_to(k * 0.02);
    r.samples.emplace_back(b.outputs().begin(), b.outputs().end());
  }
  return r;
}

std::vector<std::string> tolerance(double tol) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", tol);
  return {std::string("solver_rtol=") + text, std::string("solver_atol=") + text};
}

// Largest |a − b| over the samples, over `count` columns from `first`.
double max_difference(const Samples& a, const Samples& b, std::size_t first, std::size_t count = 1) {
  double d = 0.0;
  for (std::size_t k = 0; k < a.samples.size(); ++k) {
    for (std::size_t j = first; j < first + count; ++j) d = std::max(d, std::abs(a.samples[k][j] - b.samples[k][j]));
  }
  return d;
}

TEST(RobotinoSeed000, PresetMeetsFig26cAfterTheTransient) {
  // Seed 000 §4: "order of several 10⁻⁶ m for Xc and less than 2·10⁻⁵ m for Yc, and 10⁻⁶ rad
  // for angle φ (after initial transient state)". Bounds: "several" read as 5e-6 m; 2e-5 m as
  // written; "10⁻⁶ rad" as 1e-6 (converged value 9.3e-7; the default-tolerance run differs from
  // it by < 1e-9, convergence test below).
  auto b = make_robotino(true);
  EXPECT_TRUE(b->config().model.reference_heading) << "the preset uses φ_ref in eq. 22";
  const Samples r = run(*b, 50.0);
  EXPECT_LE(r.after_transient(out::kDx), 5e-6);
  EXPECT_LT(r.after_transient(out::kDy), 2e-5);
  EXPECT_LE(r.after_transient(out::kDphi), 1e-6);
  // What a real drive allows: 24 V never reached (11.4 V on the rose; 13.6 V at 0.85 ms as the
  // currents build up, between these samples), the drives never saturate.
  EXPECT_LE(r.peak(out::kVoltage1), 0.6 * 24.0);
  EXPECT_EQ(r.peak(out::kSaturated1), 0.0);
  RecordProperty("dx_m", std::to_string(r.after_transient(out::kDx)));
  RecordProperty("dy_m", std::to_string(r.after_transient(out::kDy)));
  RecordProperty("dphi_rad", std::to_string(r.after_transient(out::kDphi)));
}

TEST(RobotinoSeed000, PresetGainsPlaceEachDrivesPolesAt2000PerSecond) {
  // The closed loop of one drive, La·J·s³ + (Ra·J + kt·Kd)·s² + kt·(ke + Kp)·s + kt·Ki, with
  // the effective motor-side inertia J = 4e-5 kg·m² (MODEL.md §2): (s + 2000)³ to the 4
  // digits the preset file gives.
  const auto backend = make_robotino(true);
  const robotino_common::ModelParams& m = backend->config().model;
  const double j = 4e-5;
  const double a3 = m.inductance_H * j;
  const double a2 = m.resistance_ohm * j + m.torque_constant_N_m_per_A * m.kd_V_s2_per_rad;
  const double a1 = m.torque_constant_N_m_per_A * (m.back_emf_V_s_per_rad + m.kp_V_s_per_rad);
  const double a0 = m.torque_constant_N_m_per_A * m.ki_V_per_rad;
  const double p = 2000.0;
  EXPECT_NEAR(a2 / a3, 3 * p, 3 * p * 1e-3);
  EXPECT_NEAR(a1 / a3, 3 * p * p, 3 * p * p * 1e-3);
  EXPECT_NEAR(a0 / a3, p * p * p, p * p * p * 1e-3);
}

TEST(RobotinoSeed000, WithTheDefaultGainsAPlainPidMissesFig26c) {
  // Why the preset has its own gains: the default ones (poles at −600 1/s), sized for the
  // feed-forward, leave the heading ~30× off without it (gain sweep, MODEL.md §7).
  auto b = make_robotino(true, {"pid_kp_V_s_per_rad=7.4", "pid_ki_V_per_rad=1500", "pid_kd_V_s2_per_rad=7.8e-3"});
  const Samples r = run(*b, 50.0);
  EXPECT_GT(r.after_transient(out::kDphi), 1e-5);
}

// Tolerances of the convergence study and the reference.
const std::vector<double> kTolerances{1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
constexpr double kReferenceTolerance = 1e-12;

TEST(RobotinoConvergence, PoseAndElectricalOutputsConvergeWithTheTolerance) {
  // A numerical property of the solver, 8 s under the sanitizers for no memory path the other
  // robotino tests do not take: Release only (sanitized_build.hpp).
  if (test::kSanitizedBuild) GTEST_SKIP() << "Release only (sanitized_build.hpp)";
  // Over 20 s of the default configuration: the difference to a run at 1e-12 falls with the
  // tolerance. BDF with error control gives a global error roughly proportional to the
  // tolerance (~10× per decade); asked: ≥ 10⁴ over the six decades 1e-4 → 1e-10, and no decade
  // worse than the one before by more than 3× (step-size selection makes single decades noisy).
  auto reference = make_robotino(false, tolerance(kReferenceTolerance));
  const Samples ref = run(*reference, 20.0);
  std::vector<double> pose, current, voltage;
  for (const double tol : kTolerances) {
    auto b = make_robotino(false, tolerance(tol));
    const Samples r = run(*b, 20.0);
    pose.push_back(std::max(max_difference(r, ref, out::kDx), max_difference(r, ref, out::kDy)));
    current.push_back(max_difference(r, ref, out::kCurrent1, 3));
    voltage.push_back(max_difference(r, ref, out::kVoltage1, 3));
    RecordProperty("pose_m_at_" + std::to_string(tol), std::to_string(pose.back()));
  }
  for (const auto* series : {&pose, &current, &voltage}) {
    const std::vector<double>& e = *series;
    EXPECT_LE(e.back(), e.front() * 1e-4) << "pose/current/voltage #" << (series - &pose);
    for (std::size_t k = 1; k < e.size(); ++k) EXPECT_LE(e[k], 3.0 * e[k - 1]) << "decade " << k;
  }
}

TEST(RobotinoConvergence, ElectricalOutputsAreWithinOnePercentAtTheDefaultTolerance) {
  if (test::kSanitizedBuild) GTEST_SKIP() << "Release only (sanitized_build.hpp): 18 s under the sanitizers";
  // At the default 1e-6, for the default and the seed-literal configuration over 50 s:
  // currents and voltages within 1 % of their peak of the converged run (1e-12), electrical
  // energy in within 1 %, and every sample on the same roller as the converged run (measured:
  // 0.36 % / 0.24 % currents, 0.05 % / 0.16 % voltages, 0.06 % / 0.07 % energy).
  for (const bool seed : {false, true}) {
    auto converged = make_robotino(seed, tolerance(kReferenceTolerance));
    auto standard = make_robotino(seed);
    const Samples ref = run(*converged, 50.0);
    const Samples r = run(*standard, 50.0);
    EXPECT_LE(max_difference(r, ref, out::kCurrent1, 3), 0.01 * ref.peak(out::kCurrent1)) << seed;
    EXPECT_LE(max_difference(r, ref, out::kVoltage1, 3), 0.01 * ref.peak(out::kVoltage1)) << seed;
    const double energy_in = ref.samples.back()[out::kEnergyIn];
    EXPECT_LE(std::abs(r.samples.back()[out::kEnergyIn] - energy_in), 0.01 * std::abs(energy_in)) << seed;
    EXPECT_EQ(max_difference(r, ref, out::kContact1, 3), 0.0) << seed;
  }
}

}  // namespace
}  // namespace cosim::dynamics::robotino
