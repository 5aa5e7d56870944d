// The kinematic backend against independent computations: the analytic rose, an arc-length
// identity for the wheel angles, independent quadrature of the roller equations, finite
// differences with forward kinematics.
#include "cosim/dynamics/kinematic/kinematic_backend.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <Eigen/LU>
#include <gtest/gtest.h>

#include "cosim/test/allocation_probe.hpp"
#include "quadrature.hpp"

namespace cosim::dynamics::kinematic {
using reference::RoseParams;
using reference::RoseReference;
using reference::RoseSample;
using robotino_common::RobotinoGeometry;
using robotino_common::robotino_chassis_velocity;
using robotino_common::robotino_jacobian;
using robotino_common::robotino_min_rolling_arm_m;
using robotino_common::robotino_wheel_speeds;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kPitch = kPi / 3;  // roller pitch, written out independently of the header
namespace out = kinematic_output;

std::unique_ptr<KinematicBackend> make_default(double t0_s = 0.0,
                                               const RobotinoGeometry& geometry = {}) {
  return std::make_unique<KinematicBackend>(geometry, RoseParams{}, t0_s);
}

// A chassis radius so large that R·φ̇ exceeds s·sin 60° near the petal tips: wheels 1 and 3
// reverse repeatedly (the default Robotino never does), exercising the extremum handling.
const RobotinoGeometry kReversing{0.040, 0.6, 0.012};

double theta(const Backend& b, int wheel) { return b.joint_values()[3 + static_cast<std::size_t>(wheel)]; }
double roller(const Backend& b, int wheel, int j) {
  return b.joint_values()[6 + static_cast<std::size_t>(6 * wheel + j)];
}
// Sector n = nearest integer to θ/(π/3); roller in contact = (−n) mod 6.
long sector_of(double th) { return std::lround(std::floor(th / kPitch + 0.5)); }
int roller_of(long n) { return static_cast<int>(((-n) % 6 + 6) % 6); }

// Independent wheel angles. With the heading tangent to the path, v = s·(cos φ, sin φ), the
// IK gives ω_i = (s·sin δ_i − R·φ̇)/Rw, hence θ_i(t) = (sin δ_i·L(t) − R·(φ(t) − φ(0)))/Rw with
// L the arc length, integrated here by an 8-node Gauss rule on a 10 ms grid.
class IndependentWheelAngles {
 public:
  // Angles are zero at t_start_s (the backend's t0).
  IndependentWheelAngles(const RoseParams& rose_params, const RobotinoGeometry& g, double t_end_s,
                         double t_start_s = 0.0)
      : rose_(rose_params), g_(g), rule_(test::gauss_legendre(8)), phi0_(rose_.at(0).phi_rad) {
    arc_.push_back(0.0);
    for (int k = 0; k * kGrid_s < t_end_s + 1.0; ++k) {
      arc_.push_back(arc_.back() + test::integrate(rule_, [this](double t) { return speed_at(t); },
                                                   k * kGrid_s, (k + 1) * kGrid_s, 1));
    }
    for (int i = 0; i < 3; ++i) start_[static_cast<std::size_t>(i)] = theta(i, t_start_s);
  }
  // Arc length L(t) [m].
  double arc_m(double t) const {
    const auto k = static_cast<std::size_t>(std::floor(t / kGrid_s));
    const double t_k = static_cast<double>(k) * kGrid_s;
    return arc_[k] + (t > t_k ? test::integrate(rule_, [this](double u) { return speed_at(u); }, t_k, t, 1) : 0.0);
  }
  double theta(int wheel, double t) const {
    const double delta = kDelta[static_cast<std::size_t>(wheel)];
    return (std::sin(delta) * arc_m(t) - g_.wheel_distance_m * (rose_.at(t).phi_rad - phi0_)) /
               g_.wheel_radius_m -
           start_[static_cast<std::size_t>(wheel)];
  }
  // v_ix = s·cos δ_i.
  double side_velocity(int wheel, double t) const {
    const RoseSample s = rose_.at(t);
    return std::hypot(s.vx_m_per_s, s.vy_m_per_s) * std::cos(kDelta[static_cast<std::size_t>(wheel)]);
  }
  double arm_m(double theta_b) const {
    return g_.roller_max_radius_m - g_.wheel_radius_m * (1 - std::cos(theta_b));
  }
  // ∫ v_ix / r_roll dt over [a, b] for the roller of sector n.
  double roller_increment(int wheel, long n, double a, double b) const {
    return test::integrate(
        rule_, [&](double t) { return side_velocity(wheel, t) / arm_m(theta(wheel, t) - n * kPitch); },
        a, b, 4);
  }
  // Time in [a, b] where θ_i crosses `level` (θ monotonic there).
  double crossing(int wheel, double level, double a, double b) const {
    const bool rising = theta(wheel, b) > theta(wheel, a);
    for (int it = 0; it < 80 && b - a > 1e-15; ++it) {
      const double m = 0.5 * (a + b);
      ((theta(wheel, m) < level) == rising ? a : b) = m;
    }
    return 0.5 * (a + b);
  }

 private:
  static constexpr double kGrid_s = 0.01;
  static constexpr std::array<double, 3> kDelta{kPi / 3, kPi, -kPi / 3};
  double speed_at(double t) const {
    const RoseSample s = rose_.at(t);
    return std::hypot(s.vx_m_per_s, s.vy_m_per_s);
  }
  RoseReference rose_;
  RobotinoGeometry g_;
  test::GaussRule rule_;
  double phi0_;
  std::vector<double> arc_;
  std::array<double, 3> start_{};
};

// Joint values at every frame of `fps` over [0, t_end].
std::vector<std::vector<double>> run(double fps, double t_end_s, const RobotinoGeometry& g = {}) {
  auto b = make_default(0.0, g);
  std::vector<std::vector<double>> frames{{b->joint_values().begin(), b->joint_values().end()}};
  const int n = static_cast<int>(std::lround(t_end_s * fps));
  for (int k = 1; k <= n; ++k) {
    b->advance_to(k / fps);
    frames.emplace_back(b->joint_values().begin(), b->joint_values().end());
  }
  return frames;
}

TEST(KinematicBackend, StartsOnTheReferenceWithWheelsAtZero) {
  for (const double t0 : {0.0, 7.3}) {
    auto b = make_default(t0);
    const RoseSample s = RoseReference(RoseParams{}).at(t0);
    EXPECT_EQ(b->time_s(), t0);
    EXPECT_EQ(b->joint_values()[0], s.x_m);
    EXPECT_EQ(b->joint_values()[1], s.y_m);
    EXPECT_EQ(b->joint_values()[2], s.phi_rad);
    for (std::size_t j = 3; j < 24; ++j) EXPECT_EQ(b->joint_values()[j], 0.0);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(b->outputs()[out::kContact1 + i], 1.0);
  }
  EXPECT_EQ(make_default()->output_names().size(), out::kCount);
}

TEST(KinematicBackend, ChassisFollowsTheAnalyticRoseAtFrameTimes) {
  auto b = make_default();
  const RoseReference rose{RoseParams{}};
  for (int k = 1; k <= 1000; ++k) {
    const double t = k / 20.0;
    b->advance_to(t);
    const RoseSample s = rose.at(t);
    ASSERT_EQ(b->joint_values()[0], s.x_m) << t;
    ASSERT_EQ(b->joint_values()[1], s.y_m) << t;
    ASSERT_EQ(b->joint_values()[2], s.phi_rad) << t;
    ASSERT_EQ(b->outputs()[out::kXRef], s.x_m);
    ASSERT_EQ(b->outputs()[out::kOmegaRef], s.omega_rad_per_s);
  }
}

TEST(KinematicBackend, WheelAnglesMatchArcLengthIdentity) {
  const IndependentWheelAngles ref(RoseParams{}, RobotinoGeometry{}, 50);
  auto b = make_default();
  double worst = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    const double t = k / 20.0;
    b->advance_to(t);
    for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(theta(*b, i) - ref.theta(i, t)));
  }
  // Both sides are ~1e-13 accurate quadratures of smooth integrands over 50 s.
  EXPECT_LE(worst, 1e-9);
  // Wheel 2 (δ = π) only turns with the chassis: θ_2 = −R·Δφ/Rw exactly.
  const RoseReference rose{RoseParams{}};
  EXPECT_NEAR(theta(*b, 1), -0.132 * (rose.at(50).phi_rad - rose.at(0).phi_rad) / 0.040, 1e-10);
}

TEST(KinematicBackend, ForwardKinematicsOfFiniteDifferencedWheelAnglesGivesReferenceVelocity) {
  const RobotinoGeometry g;
  const RoseReference rose{RoseParams{}};
  const double h = 1e-3;
  const int steps = 10000;  // 10 s
  auto b = make_default();
  std::vector<Eigen::Vector3d> th{{0, 0, 0}};
  for (int k = 1; k <= steps; ++k) {
    b->advance_to(k * h);
    th.emplace_back(theta(*b, 0), theta(*b, 1), theta(*b, 2));
  }
  // Tolerance: central differences err by h²/6·|θ'''| = h²/6·|ω''|; bound |ω''| from the
  // analytic IK speeds (second differences, 20% margin), plus rounding of θ (~1e-13 rad) / h.
  const auto ik = [&](double t) {
    const RoseSample s = rose.at(t);
    return robotino_wheel_speeds(g, s.phi_rad, {s.vx_m_per_s, s.vy_m_per_s, s.omega_rad_per_s});
  };
  double max_w2 = 0.0;
  for (int k = 1; k < steps; ++k) {
    const double t = k * h;
    max_w2 = std::max(max_w2, ((ik(t + h) - 2 * ik(t) + ik(t - h)) / (h * h)).cwiseAbs().maxCoeff());
  }
  const double tol_omega = 1.2 * h * h / 6 * max_w2 + 2e-13 / h;
  double worst_ratio = 0.0;
  for (int k = 1; k < steps; ++k) {
    const double t = k * h;
    const Eigen::Vector3d omega_fd = (th[k + 1] - th[k - 1]) / (2 * h);
    const RoseSample s = rose.at(t);
    const Eigen::Vector3d v = robotino_chassis_velocity(g, s.phi_rad, omega_fd);
    // FK error ≤ ‖J⁻¹‖_∞·(ω error).
    const double gain = robotino_jacobian(g, s.phi_rad).inverse().cwiseAbs().rowwise().sum().maxCoeff();
    const Eigen::Vector3d err = v - Eigen::Vector3d(s.vx_m_per_s, s.vy_m_per_s, s.omega_rad_per_s);
    worst_ratio = std::max(worst_ratio, err.cwiseAbs().maxCoeff() / (gain * tol_omega));
  }
  EXPECT_LE(worst_ratio, 1.0) << "tol_omega = " << tol_omega;
  EXPECT_LT(tol_omega, 1e-5);  // the bound is tight enough to mean something
}

void expect_frame_pattern_independent(const RobotinoGeometry& g) {
  const auto a = run(20, 50, g);
  const auto b = run(50, 50, g);
  double worst = 0.0;
  for (std::size_t m = 0; m <= 500; ++m) {  // common times m·0.1 s
    const auto& qa = a[2 * m];
    const auto& qb = b[5 * m];
    for (std::size_t j = 0; j < qa.size(); ++j) worst = std::max(worst, std::abs(qa[j] - qb[j]));
  }
  EXPECT_LE(worst, 1e-9);
  // Irregular steps, including ones far below and above the 5 ms substep.
  auto c = make_default(0.0, g);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> step(1e-5, 0.2);
  double t = 0;
  while (t < 50) {
    t = std::min(50.0, t + step(rng));
    c->advance_to(t);
  }
  for (std::size_t j = 0; j < 24; ++j) EXPECT_NEAR(c->joint_values()[j], a.back()[j], 1e-9) << j;
}

TEST(KinematicBackend, AnglesDoNotDependOnFramePattern) { expect_frame_pattern_independent({}); }

TEST(KinematicBackend, AnglesDoNotDependOnFramePatternWhenWheelsReverse) {
  expect_frame_pattern_independent(kReversing);
}

TEST(KinematicBackend, RollerIncrementsMatchIndependentIntegrationIncludingSwitches) {
  // Per frame and wheel: expected increments of the rollers from the independent wheel angle,
  // split at the independently located crossing θ_i = π/6 + mπ/3. A switch time off by δt
  // moves ~|v/r|·δt ≈ 70·δt rad between two rollers, so 1e-9 rad pins it to ~1e-11 s.
  const IndependentWheelAngles ref(RoseParams{}, RobotinoGeometry{}, 50);
  auto b = make_default();
  std::array<int, 3> switches{};
  double worst = 0.0;
  std::vector<double> before(b->joint_values().begin(), b->joint_values().end());
  for (int k = 1; k <= 1000; ++k) {
    const double ta = (k - 1) / 20.0;
    const double tb = k / 20.0;
    b->advance_to(tb);
    for (int i = 0; i < 3; ++i) {
      const long na = sector_of(before[3 + i]);
      const long nb = sector_of(theta(*b, i));
      ASSERT_LE(std::abs(nb - na), 1) << "at most one switch per 50 ms with the default rose";
      std::array<double, 6> expected{};
      if (na == nb) {
        expected[roller_of(na)] = ref.roller_increment(i, na, ta, tb);
      } else {
        ++switches[i];
        const double level = (std::max(na, nb) - 0.5) * kPitch;
        const double ts = ref.crossing(i, level, ta, tb);
        expected[roller_of(na)] = ref.roller_increment(i, na, ta, ts);
        expected[roller_of(nb)] = ref.roller_increment(i, nb, ts, tb);
      }
      for (int j = 0; j < 6; ++j) {
        const double got = roller(*b, i, j) - before[6 + 6 * i + j];
        worst = std::max(worst, std::abs(got - expected[j]));
      }
    }
    before.assign(b->joint_values().begin(), b->joint_values().end());
  }
  EXPECT_LE(worst, 1e-9);
  for (int i = 0; i < 3; ++i) EXPECT_GT(switches[i], 20) << "wheel " << i + 1;
}

TEST(KinematicBackend, OnlyTheContactRollerTurns) {
  auto b = make_default();
  std::vector<double> before(b->joint_values().begin(), b->joint_values().end());
  int switch_steps = 0;
  for (int k = 1; k <= 5000; ++k) {
    b->advance_to(k / 100.0);
    for (int i = 0; i < 3; ++i) {
      const long na = sector_of(before[3 + i]);
      const long nb = sector_of(theta(*b, i));
      std::array<bool, 6> may_move{};
      for (long n = std::min(na, nb); n <= std::max(na, nb); ++n) may_move[roller_of(n)] = true;
      switch_steps += na != nb;
      for (int j = 0; j < 6; ++j) {
        const double moved = roller(*b, i, j) - before[6 + 6 * i + j];
        if (may_move[j]) {
          EXPECT_NE(moved, 0.0) << "wheel " << i + 1 << " roller " << j + 1 << " t " << k / 100.0;
        } else {
          EXPECT_EQ(moved, 0.0) << "wheel " << i + 1 << " roller " << j + 1 << " t " << k / 100.0;
        }
      }
    }
    before.assign(b->joint_values().begin(), b->joint_values().end());
  }
  EXPECT_GT(switch_steps, 60);
}

// Σ_j ∫ r_roll,j dq_j over [0, T] per wheel, from the backend's roller angles only: per 0.25 ms
// step and per roller sector crossed, ∫ r dq ≈ Δq / mean(1/r), mean(1/r) over the θ sub-range by
// Simpson (r_j(θ) = r_max − Rw(1 − cos(θ − nπ/3))). Exact for constant v and linear θ, O(Δt²)
// otherwise: measured over 10 s with reversing wheels 1.5e-7 m at 1 ms, 3.8e-8 at 0.5 ms,
// 9.5e-9 at 0.25 ms (default Robotino: < 1e-9), hence the 1e-7 m tolerance below.
std::array<double, 3> rolled_distance(const RobotinoGeometry& g, double t_end_s) {
  const auto inv_arm = [&](double th, long n) {
    return 1.0 / (g.roller_max_radius_m - g.wheel_radius_m * (1 - std::cos(th - n * kPitch)));
  };
  auto b = make_default(0.0, g);
  std::array<double, 3> rolled{};
  std::vector<double> before(b->joint_values().begin(), b->joint_values().end());
  const double dt = 2.5e-4;
  for (int k = 1; k * dt <= t_end_s + 1e-12; ++k) {
    b->advance_to(k * dt);
    for (int i = 0; i < 3; ++i) {
      const double th_a = before[3 + i];
      const double th_b = theta(*b, i);
      const long na = sector_of(th_a);
      const long nb = sector_of(th_b);
      for (long n = std::min(na, nb); n <= std::max(na, nb); ++n) {
        const double lo = std::max(std::min(th_a, th_b), (n - 0.5) * kPitch);
        const double hi = std::min(std::max(th_a, th_b), (n + 0.5) * kPitch);
        const double mean_inv = (inv_arm(lo, n) + 4 * inv_arm(0.5 * (lo + hi), n) + inv_arm(hi, n)) / 6;
        const int j = roller_of(n);
        rolled[i] += (roller(*b, i, j) - before[6 + 6 * i + j]) / mean_inv;
      }
    }
    before.assign(b->joint_values().begin(), b->joint_values().end());
  }
  return rolled;
}

TEST(KinematicBackend, SideDisplacementEqualsRolledDistance) {
  // Σ_j ∫ r_roll,j dq_j must equal ∫ v_ix dt = cos δ_i·L(T), L from the independent arc length.
  const RobotinoGeometry g;
  const double arc = IndependentWheelAngles(RoseParams{}, g, 10).arc_m(10.0);
  EXPECT_GT(arc, 2.0);
  const auto rolled = rolled_distance(g, 10.0);
  EXPECT_NEAR(rolled[0], std::cos(kPi / 3) * arc, 1e-7);
  EXPECT_NEAR(rolled[1], -arc, 1e-7);
  EXPECT_NEAR(rolled[2], std::cos(-kPi / 3) * arc, 1e-7);
}

TEST(KinematicBackend, WheelReversalsKeepAnglesAndRollingConsistent) {
  // Wheels 1 and 3 reverse; check that they do, then the same identities as above.
  auto b = make_default(0.0, kReversing);
  std::array<int, 3> reversals{};
  std::array<long, 3> lowest_sector{};
  std::array<long, 3> highest_sector{};
  double previous_omega1 = b->outputs()[out::kOmega1];
  long previous_n1 = 0;
  int sector_reversals = 0;
  int last_direction = 0;
  const IndependentWheelAngles ref(RoseParams{}, kReversing, 50);
  double worst_theta = 0.0;
  for (int k = 1; k <= 5000; ++k) {
    const double t = k / 100.0;
    b->advance_to(t);
    const double omega1 = b->outputs()[out::kOmega1];
    reversals[0] += (omega1 > 0) != (previous_omega1 > 0);
    previous_omega1 = omega1;
    for (int i = 0; i < 3; ++i) {
      lowest_sector[i] = std::min(lowest_sector[i], sector_of(theta(*b, i)));
      highest_sector[i] = std::max(highest_sector[i], sector_of(theta(*b, i)));
      worst_theta = std::max(worst_theta, std::abs(theta(*b, i) - ref.theta(i, t)));
    }
    const long n1 = sector_of(theta(*b, 0));
    if (n1 != previous_n1) {
      const int direction = n1 > previous_n1 ? 1 : -1;
      sector_reversals += last_direction != 0 && direction != last_direction;
      last_direction = direction;
      previous_n1 = n1;
    }
  }
  EXPECT_GE(reversals[0], 4);
  EXPECT_GE(sector_reversals, 2) << "switches happen in both directions";
  EXPECT_LE(worst_theta, 1e-9);
  const double arc = ref.arc_m(10.0);
  const auto rolled = rolled_distance(kReversing, 10.0);
  EXPECT_NEAR(rolled[0], std::cos(kPi / 3) * arc, 1e-7);
  EXPECT_NEAR(rolled[1], -arc, 1e-7);
  EXPECT_NEAR(rolled[2], std::cos(-kPi / 3) * arc, 1e-7);
}

TEST(KinematicBackend, BriefExcursionIntoTheNextRollerBetweenGaussNodesIsResolved) {
  // Wheel 1 of kReversing stops and turns back at t_r. Start the backend at t0 such that θ_1
  // peaks δ = ½|ω̇|τ² past the switch angle π/6: roller 6 touches for 2τ = 0.4 ms only. One 4 ms
  // frame holds the excursion between its Gauss nodes, so only the extremum sample sees it.
  const RobotinoGeometry& g = kReversing;
  const RoseReference rose{RoseParams{}};
  const auto omega1 = [&](double t) {
    const RoseSample s = rose.at(t);
    return robotino_wheel_speeds(g, s.phi_rad, {s.vx_m_per_s, s.vy_m_per_s, s.omega_rad_per_s})(0);
  };
  double t_r = 0.0;  // first + to − sign change of ω_1 after 1 s
  for (double t = 1.0; t < 50.0; t += 1e-3) {
    if (omega1(t) > 0 && omega1(t + 1e-3) <= 0) {
      double a = t;
      double b = t + 1e-3;
      for (int it = 0; it < 80; ++it) ((omega1(0.5 * (a + b)) > 0) ? a : b) = 0.5 * (a + b);
      t_r = 0.5 * (a + b);
      break;
    }
  }
  ASSERT_GT(t_r, 1.0);
  const double tau = 2e-4;
  const double omega_dot = (omega1(t_r + 1e-6) - omega1(t_r - 1e-6)) / 2e-6;
  const double peak = kPitch / 2 + 0.5 * std::abs(omega_dot) * tau * tau;
  const IndependentWheelAngles from_zero(RoseParams{}, g, t_r + 1);
  double lo = t_r - 1.0;  // θ_1(t_r) − θ_1(t0) = peak, by bisection on t0 (ω_1 > 0 before t_r)
  double hi = t_r;
  ASSERT_GT(from_zero.theta(0, t_r) - from_zero.theta(0, lo), peak);
  for (int it = 0; it < 80; ++it) {
    const double mid = 0.5 * (lo + hi);
    ((from_zero.theta(0, t_r) - from_zero.theta(0, mid) > peak) ? lo : hi) = mid;
  }
  const double t0 = 0.5 * (lo + hi);
  const IndependentWheelAngles ref(RoseParams{}, g, t_r + 1, t0);
  ASSERT_NEAR(ref.theta(0, t_r), peak, 1e-12);

  const double ta = t_r - 1.5e-3;  // nodes at 0.19, 0.92, 2.0, 3.08, 3.81 ms; excursion 1.3–1.7 ms
  const double tb = t_r + 2.5e-3;
  auto b = make_default(t0, g);
  b->advance_to(ta);
  ASSERT_EQ(sector_of(theta(*b, 0)), 0);
  const double roller1_before = roller(*b, 0, 0);
  b->advance_to(tb);
  ASSERT_EQ(sector_of(theta(*b, 0)), 0);
  const double t1 = ref.crossing(0, kPitch / 2, t_r - 2 * tau, t_r);
  const double t2 = ref.crossing(0, kPitch / 2, t_r, t_r + 2 * tau);
  EXPECT_NEAR(t2 - t1, 2 * tau, 2e-6);
  const double expected_roller6 = ref.roller_increment(0, 1, t1, t2);
  const double expected_roller1 = ref.roller_increment(0, 0, ta, t1) + ref.roller_increment(0, 0, t2, tb);
  EXPECT_GT(std::abs(expected_roller6), 1e-3);
  EXPECT_NEAR(roller(*b, 0, 5), expected_roller6, 1e-9);
  EXPECT_NEAR(roller(*b, 0, 0) - roller1_before, expected_roller1, 1e-9);
}

TEST(KinematicBackend, OutputsAreConsistentWithJointsAndKinematics) {
  const RobotinoGeometry g;
  auto b = make_default();
  for (int k = 1; k <= 600; ++k) {
    b->advance_to(k / 30.0);
    const auto o = b->outputs();
    for (const double v : o) ASSERT_TRUE(std::isfinite(v));
    const Eigen::Vector3d w = robotino_wheel_speeds(
        g, o[out::kPhiRef], {o[out::kVxRef], o[out::kVyRef], o[out::kOmegaRef]});
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(o[out::kOmega1 + i], w(i));
      EXPECT_EQ(o[out::kContact1 + i], roller_of(sector_of(theta(*b, i))) + 1);
      EXPECT_NEAR(o[out::kRollingArm1 + i] * o[out::kRollerSpeed1 + i], o[out::kSideVelocity1 + i], 1e-15);
      EXPECT_GE(o[out::kRollingArm1 + i], robotino_min_rolling_arm_m(g) - 1e-15);
      EXPECT_LE(o[out::kRollingArm1 + i], g.roller_max_radius_m);
    }
  }
  const std::vector<std::string> expected_names{
      "x_ref_m",          "y_ref_m",          "phi_ref_rad",          "vx_ref_m_per_s",
      "vy_ref_m_per_s",   "omega_ref_rad_per_s", "omega1_rad_per_s", "omega2_rad_per_s",
      "omega3_rad_per_s", "contact1",         "contact2",             "contact3",
      "v_side1_m_per_s",  "v_side2_m_per_s",  "v_side3_m_per_s",      "r_roll1_m",
      "r_roll2_m",        "r_roll3_m",        "omega_roll1_rad_per_s", "omega_roll2_rad_per_s",
      "omega_roll3_rad_per_s"};
  EXPECT_EQ(b->output_names(), expected_names);
  EXPECT_EQ(b->output_index("contact2"), out::kContact1 + 1);
  EXPECT_EQ(b->output_index("r_roll1_m"), out::kRollingArm1);
}

TEST(KinematicBackend, ParametersReachTheModel) {
  const std::vector<std::string> cli{"rose_petals=5", "rose_amplitude_m=1.5", "wheel_radius_m=0.05"};
  const Params params = Params::resolve("kinematic", kinematic_param_specs(), nullptr, cli);
  auto b = make_kinematic_backend(params, 0.0);
  b->advance_to(3.0);
  const RoseSample s = RoseReference({1.5, 5.0, 0.1, 5 * kPi / 6}).at(3.0);
  EXPECT_EQ(b->joint_values()[0], s.x_m);
  EXPECT_EQ(b->joint_values()[2], s.phi_rad);
  const double expected_w2 = -0.132 * s.omega_rad_per_s / 0.05;  // wheel 2: −R·φ̇/Rw
  EXPECT_NEAR(b->outputs()[out::kOmega1 + 1], expected_w2, 1e-13);
}

TEST(KinematicBackend, AdvanceDoesNotAllocate) {
  auto b = make_default();
  b->advance_to(0.05);
  const ::cosim::test::AllocationProbe probe;
  for (int k = 2; k <= 200; ++k) b->advance_to(k * 0.05);
  EXPECT_EQ(probe.count(), 0u);
}

}  // namespace
}  // namespace cosim::dynamics::kinematic
