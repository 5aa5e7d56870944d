#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <set>

namespace cosim::dynamics::robotino_common {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(RobotinoGeometry, JointNamesFollowTheScene) {
  const auto names = robotino_joint_names();
  ASSERT_EQ(names.size(), kRobotinoJointCount);
  EXPECT_EQ(names[kRobotinoJointX], "Robotino/x");
  EXPECT_EQ(names[kRobotinoJointY], "Robotino/y");
  EXPECT_EQ(names[kRobotinoJointPhi], "Robotino/phi");
  EXPECT_EQ(names[kRobotinoJointAxle1], "Robotino/axle1");
  EXPECT_EQ(names[kRobotinoJointAxle1 + 2], "Robotino/axle3");
  EXPECT_EQ(names[robotino_roller_joint(0, 0)], "Robotino/Wheel_1/roller1");
  EXPECT_EQ(names[robotino_roller_joint(1, 2)], "Robotino/Wheel_2/roller3");
  EXPECT_EQ(names[robotino_roller_joint(2, 5)], "Robotino/Wheel_3/roller6");
  EXPECT_EQ(names.back(), "Robotino/Wheel_3/roller6");
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST(RobotinoGeometry, InverseKinematicsIsTheJacobian) {
  const RobotinoGeometry g;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int n = 0; n < 200; ++n) {
    const double phi = 4 * u(rng);
    const Eigen::Vector3d v(u(rng), u(rng), u(rng));
    const Eigen::Vector3d a = robotino_wheel_speeds(g, phi, v);
    const Eigen::Vector3d b = robotino_jacobian(g, phi) * v;
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-13 * (1 + a.norm()));
  }
}

TEST(RobotinoGeometry, InverseKinematicsIsNoSlipRollingOfEachWheelCentre) {
  // Independent rigid-body check: wheel centre p_i = p + R(cos φ_i, sin φ_i), velocity
  // ṗ_i = v + φ̇·ẑ × (p_i − p); along y_i it must be −Rw·ω_i, along x_i it is v_ix.
  const RobotinoGeometry g{0.05, 0.2, 0.015};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int n = 0; n < 200; ++n) {
    const double phi = 3 * u(rng);
    const Eigen::Vector3d v(u(rng), u(rng), u(rng));
    const Eigen::Vector3d omega = robotino_wheel_speeds(g, phi, v);
    const Eigen::Vector3d side = robotino_side_velocities(phi, v(0), v(1));
    for (int i = 0; i < 3; ++i) {
      const double phi_i = phi + kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
      const Eigen::Vector2d r(g.wheel_distance_m * std::cos(phi_i), g.wheel_distance_m * std::sin(phi_i));
      const Eigen::Vector2d p_dot(v(0) - v(2) * r(1), v(1) + v(2) * r(0));
      const Eigen::Vector2d x_i(std::cos(phi_i), std::sin(phi_i));
      const Eigen::Vector2d y_i(-std::sin(phi_i), std::cos(phi_i));
      EXPECT_NEAR(p_dot.dot(y_i), -g.wheel_radius_m * omega(i), 1e-14);
      EXPECT_NEAR(p_dot.dot(x_i), side(i), 1e-14);
    }
  }
}

TEST(RobotinoGeometry, PureRotationTurnsEveryWheelBackwards) {
  const RobotinoGeometry g;
  const Eigen::Vector3d omega = robotino_wheel_speeds(g, 0.3, {0, 0, 1.5});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(omega(i), -0.132 * 1.5 / 0.040, 1e-14);
}

TEST(RobotinoGeometry, ForwardOfInverseIsIdentityOverManyPoses) {
  const RobotinoGeometry g;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 0; n < 2000; ++n) {
    const double phi = 10 * u(rng);
    const Eigen::Vector3d v(2 * u(rng), 2 * u(rng), 3 * u(rng));
    const Eigen::Vector3d back = robotino_chassis_velocity(g, phi, robotino_wheel_speeds(g, phi, v));
    EXPECT_LE((back - v).cwiseAbs().maxCoeff(), 1e-12) << phi;
  }
}

TEST(RobotinoGeometry, ForwardKinematicsIsLeastSquaresForInconsistentSpeeds) {
  // Square J: any ω is reachable, so the residual of the least-squares solution is zero.
  const RobotinoGeometry g;
  const Eigen::Vector3d omega(1.0, -2.0, 0.5);
  const Eigen::Vector3d v = robotino_chassis_velocity(g, 0.7, omega);
  EXPECT_LE((robotino_jacobian(g, 0.7) * v - omega).norm(), 1e-13);
}

TEST(RobotinoGeometry, ContactRollerIsNearestToBottom) {
  const double pitch = kPi / 3;
  EXPECT_EQ(robotino_roller_contact(0.0).roller, 0);
  EXPECT_EQ(robotino_roller_contact(pitch / 2 - 1e-12).roller, 0);
  EXPECT_EQ(robotino_roller_contact(pitch / 2 + 1e-12).roller, 5);  // θ > 0 brings roller 6 down
  EXPECT_EQ(robotino_roller_contact(-pitch / 2 - 1e-12).roller, 1);
  EXPECT_EQ(robotino_roller_contact(pitch).roller, 5);
  EXPECT_EQ(robotino_roller_contact(-2 * kPi).roller, 0);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-400, 400);
  for (int n = 0; n < 5000; ++n) {
    const double theta = u(rng);
    const RollerContact c = robotino_roller_contact(theta);
    // Brief's formula: j = round(−θ/(π/3)) mod 6 (ties have measure zero here).
    const long j = ((std::lround(-theta / pitch) % 6) + 6) % 6;
    EXPECT_EQ(c.roller, j) << theta;
    EXPECT_LE(std::abs(c.theta_b_rad), pitch / 2 + 1e-12) << theta;
    // Roller j sits at j·π/3 about the axle: θ + j·π/3 ≡ θ_b (mod 2π).
    const double diff = theta + c.roller * pitch - c.theta_b_rad;
    EXPECT_NEAR(diff, std::round(diff / (2 * kPi)) * 2 * kPi, 1e-11) << theta;
  }
}

TEST(RobotinoGeometry, RollingArm) {
  const RobotinoGeometry g;
  EXPECT_DOUBLE_EQ(robotino_rolling_arm_m(g, 0.0), 0.012);
  EXPECT_NEAR(robotino_min_rolling_arm_m(g), 0.012 - 0.040 * (1 - std::sqrt(3.0) / 2), 1e-16);
  EXPECT_DOUBLE_EQ(robotino_rolling_arm_m(g, -kPi / 6), robotino_min_rolling_arm_m(g));
}

}  // namespace
}  // namespace cosim::dynamics::robotino_common
