// The mecanum3vw backend (seed 003, spec seeds_002_004 §B.4) against exact invariants and an
// independent formulation: the Jacobian of eq. (9), the virtual-work torques against a
// Newton–Euler computation with the contact forces, tracking at solver level with the exact
// model, the closed-form decay of an initial offset, the steady circle torques, the power
// balance, bounded errors under a model mismatch (against the spec's independent prototype),
// and the contact-roller bookkeeping.
#include "cosim/dynamics/mecanum3vw/mecanum3vw_backend.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace cosim::dynamics::mecanum3vw {
namespace {

namespace out = mecanum3vw_output;
using mecanum3vw::Matrix3;
using mecanum3vw::Vector3;

std::unique_ptr<Mecanum3Backend> make(const std::vector<std::string>& overrides = {}) {
  auto backend = make_mecanum3vw_backend(Params::resolve("mecanum3vw", mecanum3vw_param_specs(), nullptr, overrides), 0.0);
  return std::unique_ptr<Mecanum3Backend>(static_cast<Mecanum3Backend*>(backend.release()));
}

double out_of(const Backend& b, std::size_t i) { return b.outputs()[i]; }

// Largest |e_x|, |e_y|, |e_ϑ| over a run sampled every 0.02 s.
struct Errors {
  double x = 0, y = 0, theta = 0;
};
Errors run(Backend& b, double duration_s) {
  Errors e;
  const auto steps = static_cast<int>(std::lround(duration_s / 0.02));
  for (int k = 1; k <= steps; ++k) {
    b.advance_to(k * 0.02);
    e.x = std::max(e.x, std::abs(out_of(b, out::kEx)));
    e.y = std::max(e.y, std::abs(out_of(b, out::kEy)));
    e.theta = std::max(e.theta, std::abs(out_of(b, out::kEPhi)));
  }
  return e;
}

constexpr double kLap_s = 2 * std::numbers::pi / 0.4;     // circle: one lap
constexpr double kFigure_s = 2 * std::numbers::pi / 0.2;  // eight: one figure

TEST(Mecanum3Model, JacobianIsEquation9AndJFIsItsInverse) {
  const mecanum3vw::Geometry g;
  const double a = g.front_axle_m, b = g.half_track_m, h = g.rear_wheel_m, r = g.wheel_radius_m;
  Matrix3 eq9;
  eq9 << 1, 1, a + b, 1, -1, -(a + b), 1, -1, h;
  eq9 /= r;
  EXPECT_LE((mecanum3vw::wheel_jacobian(g) - eq9).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((mecanum3vw::wheel_jacobian(g) * mecanum3vw::wheel_jacobian_inverse(g) - Matrix3::Identity()).cwiseAbs().maxCoeff(),
            1e-14);
  EXPECT_NEAR(eq9.determinant(), -2 * (a + b + h) / (r * r * r), 1e-9);
  // The spec's J_F with the defaults (the paper's eq. 18 middle factor follows its eq. 6 instead).
  EXPECT_NEAR(mecanum3vw::wheel_jacobian_inverse(g)(1, 1), 0.0027778, 1e-7);
  EXPECT_NEAR(mecanum3vw::wheel_jacobian_inverse(g)(2, 1), -0.1111111, 1e-7);
}

// Newton–Euler with the contact forces, independent of J_F: the contact roller spins freely
// about its axis u_i, so the floor's force on it has no moment about that axis: F_i = f_i·u_i
// (the constraint force of "no slip along u_i"). The body's Newton–Euler equations give f;
// each wheel's spin balance I_w·ω̇ = τ − b_w·ω − r·F_i,x (contact r below the axle) gives τ.
Vector3 newton_euler_torques(const mecanum3vw::Geometry& g, const mecanum3vw::Inertia& m, const Vector3& xi,
                             const Vector3& xi_dot) {
  Matrix3 a;
  std::array<Eigen::Vector2d, 3> n;
  for (int i = 0; i < 3; ++i) {
    const mecanum3vw::WheelPlace w = mecanum3vw::wheel_place(g, i);
    n[static_cast<std::size_t>(i)] = Eigen::Vector2d(1.0, w.sigma) / std::sqrt(2.0);  // u_i
    const Eigen::Vector2d& ni = n[static_cast<std::size_t>(i)];
    a.col(i) << ni.x(), ni.y(), w.x_m * ni.y() - w.y_m * ni.x();
  }
  const double vx = xi.x(), vy = xi.y(), om = xi.z();
  const Vector3 body(m.mass_kg * (xi_dot.x() - om * vy), m.mass_kg * (xi_dot.y() + om * vx),
                     m.yaw_inertia_kg_m2 * xi_dot.z());
  const Vector3 f = a.lu().solve(body);
  Vector3 tau;
  for (int i = 0; i < 3; ++i) {
    const mecanum3vw::WheelPlace w = mecanum3vw::wheel_place(g, i);
    // ω_i = (v_x − Ω·y_i + σ_i·(v_y + Ω·x_i))/r, differentiated.
    const double omega = (vx - om * w.y_m + w.sigma * (vy + om * w.x_m)) / g.wheel_radius_m;
    const double omega_dot =
        (xi_dot.x() - xi_dot.z() * w.y_m + w.sigma * (xi_dot.y() + xi_dot.z() * w.x_m)) / g.wheel_radius_m;
    tau[i] = m.wheel_inertia_kg_m2 * omega_dot + m.wheel_viscous_N_m_s * omega +
             g.wheel_radius_m * f[i] * n[static_cast<std::size_t>(i)].x();
  }
  return tau;
}

TEST(Mecanum3Model, VirtualWorkEqualsNewtonEulerAndInvertsTheForwardDynamics) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  mecanum3vw::Geometry g;
  mecanum3vw::Inertia m;
  m.wheel_viscous_N_m_s = 2e-3;
  for (int trial = 0; trial < 50; ++trial) {
    g.front_axle_m = 0.1 + 0.05 * u(rng);
    g.rear_wheel_m = 0.2 + 0.05 * u(rng);
    const Vector3 xi(u(rng), u(rng), 2 * u(rng));
    const Vector3 xi_dot(3 * u(rng), 3 * u(rng), 5 * u(rng));
    const Vector3 vw = mecanum3vw::virtual_work_torques(g, m, xi, xi_dot);
    // Torques of ~1 N·m; the two differ by rounding in two 3×3 solves.
    EXPECT_LE((vw - newton_euler_torques(g, m, xi, xi_dot)).cwiseAbs().maxCoeff(), 1e-12) << trial;
    EXPECT_LE((mecanum3vw::body_acceleration(g, m, xi, vw) - xi_dot).cwiseAbs().maxCoeff(), 1e-12) << trial;
  }
}

TEST(Mecanum3Backend, TracksBothPathsAtSolverLevelWithTheExactModel) {
  // With the controller's model equal to the plant, ë + K_P·ė + K_I·e = 0 from e(0) = 0: what
  // remains is the integrator's error (rtol 1e-10). Bound 1e-9 m / rad (spec T2).
  for (const char* path : {"path=circle", "path=eight"}) {
    auto b = make({path});
    const Errors e = run(*b, std::string(path) == "path=circle" ? kLap_s : kFigure_s);
    EXPECT_LE(e.x, 1e-9) << path;
    EXPECT_LE(e.y, 1e-9) << path;
    EXPECT_LE(e.theta, 1e-9) << path;
    RecordProperty(std::string(path) + "_max_error_m", std::to_string(std::max(e.x, e.y)));
  }
}

TEST(Mecanum3Backend, AnInitialOffsetDecaysAsTheClosedLoopLawSays) {
  // K_P = 20, K_I = 100: a double pole at −10 1/s, e_x(t) = 0.05·(1 + 10t)·e^(−10t) (spec T3).
  auto b = make({"initial_offset_x_m=0.05"});
  EXPECT_NEAR(out_of(*b, out::kEx), -0.05, 1e-15) << "e = q_d − q";
  double worst = 0.0, others = 0.0;
  for (int k = 1; k <= 150; ++k) {
    const double t = k * 0.02;
    b->advance_to(t);
    worst = std::max(worst, std::abs(out_of(*b, out::kEx) + 0.05 * (1 + 10 * t) * std::exp(-10 * t)));
    others = std::max({others, std::abs(out_of(*b, out::kEy)), std::abs(out_of(*b, out::kEPhi))});
  }
  EXPECT_LE(worst, 1e-9);
  EXPECT_LE(others, 1e-9);
}

TEST(Mecanum3Backend, SteadyCircleTorquesAndWheelSpeedsAreTheClosedForm) {
  // ξ = (0.4, 0, 0.4) on the circle: ω = J·ξ = (10, 6, 9.6) rad/s and τ = J_Fᵀ·c(ξ) + b_w·ω with
  // c = (0, m·Ω·v_x, 0) = (0, 1.6, 0) N: 1.6 N × (0.025, 0.0027778, −0.0277778) m (spec T5).
  auto b = make();
  const double bw = 1e-4;
  const double tau[] = {1.6 * 0.05 * 0.5 + bw * 10, 1.6 * 0.05 * (0.25 - 0.2) / (2 * 0.45) + bw * 6,
                        -1.6 * 0.05 * 0.25 / 0.45 + bw * 9.6};
  const double omega[] = {10.0, 6.0, 9.6};
  for (int k = 1; k <= 785; ++k) {
    b->advance_to(k * 0.02);
    for (std::size_t i = 0; i < 3; ++i) {
      // The tracking error (≤ 1e-10) perturbs the torques by ~K·e·m·r: 1e-8 N·m is 1e-6 of them.
      ASSERT_NEAR(out_of(*b, out::kOmega1 + i), omega[i], 1e-7) << i;
      ASSERT_NEAR(out_of(*b, out::kTau1 + i), tau[i], 1e-8) << i;
    }
  }
}

TEST(Mecanum3Backend, FigureEightTorquesAndSpeedsMatchTheSpecsPrototype) {
  // The spec's independent prototype (b_w = 0): τ1 ∈ [−0.025, 0.057], τ2 ∈ [−0.028, 0.031],
  // τ3 ∈ [−0.048, 0.014] N·m; max |ω| = (14.36, 10.36, 13.96) rad/s — to the digits it gives.
  auto b = make({"path=eight", "wheel_viscous_N_m_s=0"});
  std::array<double, 3> lo{}, hi{}, w{};
  for (int k = 1; k <= 1571; ++k) {
    b->advance_to(k * 0.02);
    for (std::size_t i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], out_of(*b, out::kTau1 + i));
      hi[i] = std::max(hi[i], out_of(*b, out::kTau1 + i));
      w[i] = std::max(w[i], std::abs(out_of(*b, out::kOmega1 + i)));
    }
  }
  const double lo_spec[] = {-0.025, -0.028, -0.048}, hi_spec[] = {0.057, 0.031, 0.014};
  const double w_spec[] = {14.36, 10.36, 13.96};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(lo[i], lo_spec[i], 0.0005) << i;
    EXPECT_NEAR(hi[i], hi_spec[i], 0.0005) << i;
    EXPECT_NEAR(w[i], w_spec[i], 0.005) << i;
  }
}

TEST(Mecanum3Backend, ModelMismatchKeepsTheErrorsBoundedAsThePrototype) {
  // Plant mass and inertia +20 %, controller unchanged, b_w = 0 (spec T4, prototype: circle
  // |e_x| = |e_y| = 3.0e-4 m, |e_ϑ| = 7.9e-5 rad; eight 7.7e-5 m, 3.0e-4 m, 9.2e-5 rad).
  const std::vector<std::string> mismatch{"plant_mass_scale=1.2", "plant_inertia_scale=1.2", "wheel_viscous_N_m_s=0"};
  auto circle = make(mismatch);
  std::vector<std::string> eight_overrides = mismatch;
  eight_overrides.push_back("path=eight");
  auto eight = make(eight_overrides);
  const Errors c = run(*circle, kLap_s);
  const Errors e = run(*eight, kFigure_s);
  // The prototype gives 2 digits: within 2 % of them.
  EXPECT_NEAR(c.x, 3.0e-4, 0.02 * 3.0e-4);
  EXPECT_NEAR(c.y, 3.0e-4, 0.02 * 3.0e-4);
  EXPECT_NEAR(c.theta, 7.9e-5, 0.02 * 7.9e-5);
  EXPECT_NEAR(e.x, 7.7e-5, 0.02 * 7.7e-5);
  EXPECT_NEAR(e.y, 3.0e-4, 0.02 * 3.0e-4);
  EXPECT_NEAR(e.theta, 9.2e-5, 0.02 * 9.2e-5);
}

TEST(Mecanum3Backend, PowerBalanceClosesAtSolverTolerance) {
  // Σ τ·ω = d/dt(½ ξᵀ(M_b + I_w JᵀJ)ξ) + b_w·|Jξ|² (spec T6), integrated over the figure-eight
  // with an initial offset (so that the kinetic energy changes).
  auto b = make({"path=eight", "initial_offset_x_m=0.05"});
  (void)run(*b, kFigure_s);
  EXPECT_GT(out_of(*b, out::kEnergyRes), 0.1) << "friction did work";
  EXPECT_LE(std::abs(out_of(*b, out::kEnergyBalance)), 1e-8);  // rtol 1e-10 of ~0.5 J flows
  RecordProperty("balance_J", std::to_string(out_of(*b, out::kEnergyBalance)));
}

TEST(Mecanum3Backend, OnlyTheContactRollerTurnsAndContactsChangeEvery30Degrees) {
  auto b = make();
  std::array<double, 36> before{};
  std::copy_n(b->joint_values().begin() + 6, 36, before.begin());
  for (int k = 1; k <= 500; ++k) {
    b->advance_to(k * 0.002);  // 1 s in steps of 2 ms: at most one contact change per step
    const auto q = b->joint_values();
    for (std::size_t i = 0; i < 3; ++i) {
      const double theta = q[3 + i];
      // Contact roller j = −round(θ/30°) mod 12 (1-based in the output).
      const auto expected = ((-std::lround(theta / (std::numbers::pi / 6))) % 12 + 12) % 12;
      ASSERT_EQ(out_of(*b, out::kContact1 + i), static_cast<double>(expected + 1)) << i << " θ " << theta << " t " << b->time_s();
      int moved = 0;
      for (std::size_t j = 0; j < 12; ++j) moved += q[6 + 12 * i + j] != before[12 * i + j];
      ASSERT_LE(moved, 2) << "the roller in contact, and the one that just left it";
    }
    std::copy_n(q.begin() + 6, 36, before.begin());
  }
  // 1 s at ω = 10, 6, 9.6 rad/s turns the wheels by 573°, 344°, 550°: 19, 11, 18 changes.
  EXPECT_EQ(b->switch_count(0), 19);
  EXPECT_EQ(b->switch_count(1), 11);
  EXPECT_EQ(b->switch_count(2), 18);
}

TEST(Mecanum3Backend, ParameterErrorsNameTheKey) {
  try {
    (void)make({"path=0.5"});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("path"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cosim::dynamics::mecanum3vw
