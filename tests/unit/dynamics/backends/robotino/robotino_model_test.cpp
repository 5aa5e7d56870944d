// The Robotino DAE against independent computations: reference accelerations by finite
// differences of RoseReference, the analytic Jacobian by finite differences of the residual,
// BlockLu against Eigen's dense LU on the model's own Jacobian (BlockLu alone:
// dae/block_lu_test.cpp).
#include "cosim/dynamics/robotino/robotino_model.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "cosim/dae/block_lu.hpp"

namespace cosim::dynamics::robotino {
using reference::RoseParams;
using reference::RoseReference;
using reference::RoseSample;
using robotino_common::ModelParams;
using robotino_common::ReferenceState;
using robotino_common::rose_reference_state;

namespace {

constexpr std::size_t kN = var::kCount;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

// A plausible state away from roller switches (θ_b within ±25°, so ±h never crosses a kink),
// moving close to the reference at t so that the drives are mostly not saturated.
struct State {
  std::vector<double> y = std::vector<double>(kN, 0.0);
  std::vector<double> yp = std::vector<double>(kN, 0.0);
};

State random_state(std::mt19937_64& rng, double t = 1.0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const RoseSample ref = RoseReference(RoseParams{}).at(t);
  State s;
  s.y[var::kDx] = 1e-4 * u(rng);
  s.y[var::kDy] = 1e-4 * u(rng);
  s.y[var::kDphi] = 1e-2 * u(rng);
  s.y[var::kVx] = ref.vx_m_per_s + 0.01 * u(rng);
  s.y[var::kVy] = ref.vy_m_per_s + 0.01 * u(rng);
  s.y[var::kOmegaZ] = ref.omega_rad_per_s + 0.01 * u(rng);
  for (std::size_t i = 0; i < 3; ++i) {
    const double sector = std::round(20.0 * u(rng));
    s.y[var::kTheta + i] = sector * std::numbers::pi / 3 + 0.43 * u(rng);
    s.y[var::kCurrent + i] = 0.2 * u(rng);
    s.y[var::kPidInt + i] = 1e-3 * u(rng);
    s.y[var::kForceRoll + i] = 3.0 * u(rng);
    s.y[var::kForceSide + i] = 0.5 * u(rng);
    s.y[var::kVoltage + i] = 10.0 * u(rng);
  }
  for (double& v : s.yp) v = 0.5 * u(rng);
  return s;
}

Matrix analytic(const RobotinoDae& dae, double t, double cj, const State& s) {
  Matrix j(kN, kN);
  dae.jacobian(t, cj, s.y, s.yp, {j.data(), kN});
  return j;
}

// Central differences along (e_j, c_j·e_j), the direction IDA's Newton matrix describes.
Matrix finite_difference(const RobotinoDae& dae, double t, double cj, const State& s) {
  Matrix j(kN, kN);
  std::vector<double> rp(kN), rm(kN);
  for (std::size_t c = 0; c < kN; ++c) {
    const double h = 1e-6 * std::max(1.0, std::abs(s.y[c]));
    State plus = s;
    State minus = s;
    plus.y[c] += h;
    plus.yp[c] += cj * h;
    minus.y[c] -= h;
    minus.yp[c] -= cj * h;
    dae.residual(t, plus.y, plus.yp, rp);
    dae.residual(t, minus.y, minus.yp, rm);
    for (std::size_t r = 0; r < kN; ++r)
      j(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = (rp[r] - rm[r]) / (2 * h);
  }
  return j;
}

// The drives in `modes` (wheel 1..3): the PID rows, or the saturated rows with the
// back-calculation term in the integrator's row.
void expect_jacobian_matches(const ModelParams& params, int seed,
                             std::array<DriveMode, 3> modes = {DriveMode::kLinear, DriveMode::kLinear,
                                                               DriveMode::kLinear}) {
  RobotinoDae dae(params, RoseParams{});
  for (int i = 0; i < 3; ++i) dae.set_drive_mode(i, modes[static_cast<std::size_t>(i)]);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    const double t = 0.37 + 2.3 * trial;
    const State s = random_state(rng, t);
    for (const double cj : {30.0, 3e3}) {
      const Matrix a = analytic(dae, t, cj, s);
      const Matrix f = finite_difference(dae, t, cj, s);
      for (std::size_t i = 0; i < 3; ++i) {
        // The voltage row depends on the integral exactly when the drive follows its command.
        const auto row = static_cast<Eigen::Index>(var::kVoltage + i);
        const auto col = static_cast<Eigen::Index>(var::kPidInt + i);
        ASSERT_EQ(a(row, col) != 0.0, modes[i] == DriveMode::kLinear) << "wheel " << i;
      }
      for (Eigen::Index r = 0; r < a.rows(); ++r) {
        // FD error ~h²·F''' plus rounding ~eps·|F|/h: relative to the row's largest entry.
        const double scale = std::max(1.0, a.row(r).cwiseAbs().maxCoeff());
        for (Eigen::Index c = 0; c < a.cols(); ++c) {
          ASSERT_NEAR(a(r, c), f(r, c), 2e-6 * scale)
              << "row " << r << " col " << c << " cj " << cj << " trial " << trial;
        }
      }
    }
  }
}

TEST(RobotinoModel, ReferenceAccelerationsAreDerivativesOfTheRose) {
  const RoseReference rose{RoseParams{}};
  const double h = 1e-4;
  for (double t = 0.0; t < 50.0; t += 0.731) {
    const ReferenceState s = rose_reference_state(rose, t);
    const RoseSample a = rose.at(t - h);
    const RoseSample b = rose.at(t + h);
    // Central differences err by h²/6·|x'''| ≲ 1e-9 here.
    EXPECT_NEAR(s.ax_m_per_s2, (b.vx_m_per_s - a.vx_m_per_s) / (2 * h), 1e-7) << t;
    EXPECT_NEAR(s.ay_m_per_s2, (b.vy_m_per_s - a.vy_m_per_s) / (2 * h), 1e-7) << t;
    EXPECT_NEAR(s.omega_dot_rad_per_s2, (b.omega_rad_per_s - a.omega_rad_per_s) / (2 * h), 1e-7) << t;
    EXPECT_EQ(s.pose.x_m, rose.at(t).x_m);
  }
}

TEST(RobotinoModel, JacobianMatchesFiniteDifferences) { expect_jacobian_matches(ModelParams{}, 1); }

TEST(RobotinoModel, JacobianMatchesFiniteDifferencesWithoutInductanceOrRollerInertia) {
  ModelParams p;
  p.inductance_H = 0.0;
  p.roller_inertia_kg_m2 = 0.0;
  p.rotor_inertia_kg_m2 = 0.0;
  p.ff_inertia = 0.0;
  expect_jacobian_matches(p, 2);
}

TEST(RobotinoModel, JacobianMatchesFiniteDifferencesWhenTheDrivesSaturate) {
  expect_jacobian_matches(ModelParams{}, 3, {DriveMode::kHigh, DriveMode::kLinear, DriveMode::kLow});
  ModelParams no_antiwindup;
  no_antiwindup.antiwindup_time_s = 0.0;
  expect_jacobian_matches(no_antiwindup, 4, {DriveMode::kLow, DriveMode::kHigh, DriveMode::kLinear});
}

TEST(RobotinoModel, JacobianMatchesFiniteDifferencesWithTheReferenceHeading) {
  ModelParams p;
  p.reference_heading = true;
  expect_jacobian_matches(p, 5);
  p.ff_inertia = 0.0;
  p.ff_back_emf = 0.0;
  expect_jacobian_matches(p, 6, {DriveMode::kLinear, DriveMode::kLow, DriveMode::kHigh});
}

TEST(RobotinoModel, SaturatedDrivesApplyTheLimitAndWindBackTheIntegral) {
  std::mt19937_64 rng(7);
  const State s = random_state(rng, 3.1);
  const RobotinoDae linear(ModelParams{}, RoseParams{});
  RobotinoDae saturated(ModelParams{}, RoseParams{});
  saturated.set_drive_mode(0, DriveMode::kHigh);
  saturated.set_drive_mode(1, DriveMode::kLow);
  std::vector<double> r_lin(kN), r_sat(kN);
  linear.residual(3.1, s.y, s.yp, r_lin);
  saturated.residual(3.1, s.y, s.yp, r_sat);
  const ModelParams p;
  for (std::size_t i = 0; i < 2; ++i) {
    const double limit = i == 0 ? p.voltage_limit_V : -p.voltage_limit_V;
    // r_u = u − U: the voltage row no longer holds the command.
    EXPECT_DOUBLE_EQ(r_sat[var::kVoltage + i], s.y[var::kVoltage + i] - limit);
    // r_u(linear) = u − u_cmd gives u_cmd; the integrator's row gains −(U − u_cmd)/(Ki·T_t).
    const double command = s.y[var::kVoltage + i] - r_lin[var::kVoltage + i];
    EXPECT_NEAR(r_sat[var::kPidInt + i] - r_lin[var::kPidInt + i],
                -(limit - command) / (p.ki_V_per_rad * p.antiwindup_time_s),
                1e-9 * std::abs(limit - command) / (p.ki_V_per_rad * p.antiwindup_time_s));
  }
  EXPECT_EQ(r_sat[var::kVoltage + 2], r_lin[var::kVoltage + 2]);
  EXPECT_EQ(r_sat[var::kPidInt + 2], r_lin[var::kPidInt + 2]);
}


TEST(RobotinoModel, DifferentialIdAndTolerances) {
  ModelParams p;
  const RobotinoDae dae(p, RoseParams{});
  for (std::size_t j = 0; j < kN; ++j) {
    EXPECT_EQ(dae.differential_id(j), j < var::kForceRoll ? 1.0 : 0.0) << j;
    EXPECT_GT(dae.abs_tolerance(j, 1e-6), 0.0);
  }
  p.inductance_H = 0.0;
  const RobotinoDae algebraic(p, RoseParams{});
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(algebraic.differential_id(var::kCurrent + i), 0.0);
}

TEST(RobotinoModel, RejectsNonPhysicalParameters) {
  ModelParams p;
  p.mass_kg = 0.0;
  EXPECT_THROW(RobotinoDae(p, RoseParams{}), std::invalid_argument);
  p = ModelParams{};
  p.geometry.roller_max_radius_m = 0.005;  // below its sag Rw(1 − cos 30°) = 5.36 mm
  EXPECT_THROW(RobotinoDae(p, RoseParams{}), std::invalid_argument);
}

TEST(RobotinoModel, JacobianHasTheBlockStructureBlockLuNeeds) {
  const RobotinoDae dae(ModelParams{}, RoseParams{});
  std::mt19937_64 rng(4);
  std::vector<int> role(kN, 0);
  for (const std::size_t j : RobotinoDae::block_outputs()) role[j] = 1;
  for (const std::size_t j : RobotinoDae::block_diagonal()) role[j] = 2;
  for (int trial = 0; trial < 10; ++trial) {
    const Matrix a = analytic(dae, 1.0 + trial, 500.0, random_state(rng, 1.0 + trial));
    for (std::size_t c = 0; c < kN; ++c) {
      for (std::size_t r = 0; r < kN; ++r) {
        if (r == c) continue;
        const double v = a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
        if (role[c] == 1) {
          EXPECT_EQ(v, 0.0) << "output column " << c << " used by row " << r;
        }
        if (role[c] == 2 && role[r] == 2) {
          EXPECT_EQ(v, 0.0) << "diagonal block (" << r << ", " << c << ")";
        }
      }
    }
  }
}

TEST(RobotinoModel, BlockLuSolvesLikeADenseLu) {
  const RobotinoDae dae(ModelParams{}, RoseParams{});
  dae::BlockLu lu(kN, RobotinoDae::block_outputs(), RobotinoDae::block_diagonal());
  EXPECT_EQ(lu.kept_size(), 13u);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Matrix a = analytic(dae, 0.5 + trial, trial % 2 ? 50.0 : 5e4, random_state(rng, 0.5 + trial));
    Eigen::VectorXd b(kN);
    for (Eigen::Index i = 0; i < b.size(); ++i) b(i) = u(rng);
    const Eigen::VectorXd expected = a.partialPivLu().solve(b);
    ASSERT_EQ(lu.setup({a.data(), kN}), 0);
    std::vector<double> x(kN);
    lu.solve({b.data(), kN}, x);
    const double residual = (a * Eigen::Map<Eigen::VectorXd>(x.data(), kN) - b).cwiseAbs().maxCoeff();
    EXPECT_LE(residual, 1e-9 * (a.cwiseAbs().maxCoeff() * expected.cwiseAbs().maxCoeff() + 1.0)) << trial;
    for (std::size_t i = 0; i < kN; ++i) {
      EXPECT_NEAR(x[i], expected(static_cast<Eigen::Index>(i)),
                  1e-9 * (1.0 + std::abs(expected(static_cast<Eigen::Index>(i)))))
          << i;
    }
    // In place (x and b the same memory).
    std::vector<double> inplace(b.data(), b.data() + kN);
    lu.solve(inplace, inplace);
    EXPECT_EQ(inplace, x);
  }
}

}  // namespace
}  // namespace cosim::dynamics::robotino
