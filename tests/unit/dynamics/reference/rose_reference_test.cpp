#include "cosim/dynamics/reference/rose_reference.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include <gtest/gtest.h>

#include "quadrature.hpp"

namespace cosim::dynamics::reference {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kEps = std::numeric_limits<double>::epsilon();

TEST(RoseReference, DefaultsAreSeedValues) {
  const RoseParams p;
  EXPECT_EQ(p.amplitude_m, 2.0);
  EXPECT_EQ(p.petals_k, 3.0);
  EXPECT_EQ(p.rate_rad_per_s, 0.1);
  EXPECT_EQ(p.phase_rad, 5 * kPi / 6);
}

TEST(RoseReference, DefaultStartsAtOriginHeadingMinusPiOver6) {
  const RoseSample s = RoseReference(RoseParams{}).at(0.0);
  EXPECT_NEAR(s.x_m, 0.0, 1e-15);
  EXPECT_NEAR(s.y_m, 0.0, 1e-15);
  EXPECT_NEAR(s.phi_rad, -kPi / 6, 1e-15);
  // Eq. 26 at ϕ = 5π/6: (Ẋ, Ẏ) = a·rate·k·(−sin kϕ)·(cos ϕ, sin ϕ) = 0.6·(√3/2, −1/2) m/s.
  EXPECT_NEAR(s.vx_m_per_s, 0.6 * std::sqrt(3.0) / 2, 1e-15);
  EXPECT_NEAR(s.vy_m_per_s, -0.3, 1e-15);
  // ω_ref where sin kϕ = ±1: rate·2k²/k² = 2·rate.
  EXPECT_NEAR(s.omega_rad_per_s, 0.2, 1e-15);
}

TEST(RoseReference, RejectsDegenerateParameters) {
  EXPECT_THROW(RoseReference({0.0, 3.0, 0.1, 0.0}), std::invalid_argument);
  EXPECT_THROW(RoseReference({2.0, 0.0, 0.1, 0.0}), std::invalid_argument);
  EXPECT_THROW(RoseReference({2.0, -1.0, 0.1, 0.0}), std::invalid_argument);
  EXPECT_THROW(RoseReference({2.0, 3.0, 0.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(RoseReference({2.0, 3.0, 0.1, std::nan("")}), std::invalid_argument);
}

std::string rose_case_name(const ::testing::TestParamInfo<RoseParams>& info) {
  static const char* const kNames[] = {"seed_default",       "k5_fast",       "k_half",
                                       "negative_amplitude", "negative_rate", "k1_circle"};
  return kNames[info.index];
}

// Several roses, including negative amplitude/rate (heading offset by π) and non-integer k.
class RoseCases : public ::testing::TestWithParam<RoseParams> {};

INSTANTIATE_TEST_SUITE_P(Roses, RoseCases,
                         ::testing::Values(RoseParams{}, RoseParams{1.5, 5.0, 0.3, 0.2},
                                           RoseParams{0.7, 0.5, 0.05, -1.0},
                                           RoseParams{-2.0, 3.0, 0.1, 5 * kPi / 6},
                                           RoseParams{2.0, 2.5, -0.2, 1.0},
                                           RoseParams{2.0, 1.0, 0.1, 0.3}),
                         rose_case_name);

TEST_P(RoseCases, HeadingAtZeroIsAtan2OfVelocityInHalfOpenRange) {
  const RoseSample s = RoseReference(GetParam()).at(0.0);
  EXPECT_GT(s.phi_rad, -kPi);
  EXPECT_LE(s.phi_rad, kPi);
  EXPECT_NEAR(s.phi_rad, std::atan2(s.vy_m_per_s, s.vx_m_per_s), 4 * kEps);
}

TEST_P(RoseCases, VelocityMatchesCentralDifferencesOfPosition) {
  const RoseParams p = GetParam();
  const RoseReference rose(p);
  // X = (a/2)[cos((k+1)ϕ) + cos((k−1)ϕ)], so |X'''| ≤ |a|·(|rate|(k+1))³; central difference
  // error ≤ h²/6·|X'''| plus rounding ~ 2·eps·|a|/h.
  const double h = 1e-4;
  const double third = std::abs(p.amplitude_m) * std::pow(std::abs(p.rate_rad_per_s) * (p.petals_k + 1), 3);
  const double tol = h * h / 6 * third + 4 * kEps * std::abs(p.amplitude_m) / h;
  for (double t = -3.0; t < 120.0; t += 0.173) {
    const RoseSample s = rose.at(t);
    const RoseSample ahead = rose.at(t + h);
    const RoseSample back = rose.at(t - h);
    EXPECT_NEAR(s.vx_m_per_s, (ahead.x_m - back.x_m) / (2 * h), tol) << t;
    EXPECT_NEAR(s.vy_m_per_s, (ahead.y_m - back.y_m) / (2 * h), tol) << t;
  }
}

TEST_P(RoseCases, OmegaMatchesCentralDifferencesOfHeading) {
  const RoseParams p = GetParam();
  const RoseReference rose(p);
  // φ = ϕ + F(kϕ) + c: φ''' = rate³·k³·F'''(kϕ); |F'''| ≤ 6·k·max(k², 1/k²)³ bounds it loosely.
  const double h = 1e-4;
  const double k = p.petals_k;
  const double spread = std::max(k * k, 1.0 / (k * k));
  const double third = std::pow(std::abs(p.rate_rad_per_s) * k, 3) * 6 * k * std::pow(spread, 3);
  const double tol = h * h / 6 * third + 4 * kEps * 100 / h;
  for (double t = -3.0; t < 120.0; t += 0.173) {
    const double fd = (rose.at(t + h).phi_rad - rose.at(t - h).phi_rad) / (2 * h);
    EXPECT_NEAR(rose.at(t).omega_rad_per_s, fd, tol) << t;
  }
}

TEST_P(RoseCases, HeadingIsIntegralOfOmega) {
  // Eq. 29: φ(t) = φ(0) + ∫₀ᵗ ω dt, with an independent 8-node Gauss rule on 0.05 s panels.
  const RoseReference rose(GetParam());
  const auto rule = test::gauss_legendre(8);
  const auto omega = [&](double t) { return rose.at(t).omega_rad_per_s; };
  double integral = 0.0;
  const double phi0 = rose.at(0.0).phi_rad;
  for (int k = 0; k < 1000; ++k) {
    integral += test::integrate(rule, omega, k * 0.05, (k + 1) * 0.05, 1);
    const double t = (k + 1) * 0.05;
    ASSERT_NEAR(rose.at(t).phi_rad - phi0, integral, 1e-10) << t;
  }
}

TEST_P(RoseCases, HeadingIsTangentToPathAndMovesForward) {
  const RoseReference rose(GetParam());
  for (double t = -5.0; t < 200.0; t += 0.0371) {
    const RoseSample s = rose.at(t);
    const double speed = std::hypot(s.vx_m_per_s, s.vy_m_per_s);
    const double c = std::cos(s.phi_rad);
    const double n = std::sin(s.phi_rad);
    ASSERT_GT(speed, 0.0);
    EXPECT_NEAR(c * s.vy_m_per_s - n * s.vx_m_per_s, 0.0, 1e-12 * speed) << t;
    EXPECT_NEAR(c * s.vx_m_per_s + n * s.vy_m_per_s, speed, 1e-12 * speed) << t;  // not backwards
    if (std::abs(s.vx_m_per_s) > 0.1 * speed) {
      EXPECT_NEAR(std::tan(s.phi_rad), s.vy_m_per_s / s.vx_m_per_s,
                  1e-11 * (1 + std::pow(s.vy_m_per_s / s.vx_m_per_s, 2)))
          << t;  // eq. 27
    }
  }
}

TEST(RoseReference, OmegaPositiveWithinAnalyticBounds) {
  // k ≥ 1, rate > 0: ω ∈ [2·rate, (k²+1)·rate], at sin kϕ = ±1 and cos kϕ = ±1.
  const RoseParams p;
  const RoseReference rose(p);
  double lo = 1e300;
  double hi = -1e300;
  for (double t = 0; t < 100.0; t += 0.001) {
    const double w = rose.at(t).omega_rad_per_s;
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  EXPECT_GE(lo, 0.2 - 1e-15);
  EXPECT_LE(hi, 1.0 + 1e-15);
  EXPECT_NEAR(lo, 0.2, 1e-6);
  EXPECT_NEAR(hi, 1.0, 1e-6);
}

TEST(RoseReference, ClosesAfterOneCycle) {
  // k = 3 (odd): the rose repeats after ϕ advances by π, i.e. π/rate = 31.4 s.
  const RoseReference rose(RoseParams{});
  const double period = kPi / 0.1;
  for (double t = 0; t < 40; t += 0.7) {
    const RoseSample a = rose.at(t);
    const RoseSample b = rose.at(t + period);
    EXPECT_NEAR(a.x_m, b.x_m, 1e-12);
    EXPECT_NEAR(a.y_m, b.y_m, 1e-12);
    EXPECT_NEAR(b.phi_rad - a.phi_rad, std::round((b.phi_rad - a.phi_rad) / (2 * kPi)) * 2 * kPi,
                1e-12);
  }
}

}  // namespace
}  // namespace cosim::dynamics::reference
