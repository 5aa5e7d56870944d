#include "cosim/dynamics/robotino_geometry.hpp"

#include <cmath>

#include <Eigen/QR>

namespace cosim::dynamics {

std::vector<std::string> robotino_joint_names() {
  std::vector<std::string> names{"Robotino/x",     "Robotino/y",     "Robotino/phi",
                                 "Robotino/axle1", "Robotino/axle2", "Robotino/axle3"};
  names.reserve(kRobotinoJointCount);
  for (int wheel = 1; wheel <= kRobotinoWheelCount; ++wheel) {
    for (int roller = 1; roller <= kRobotinoRollersPerWheel; ++roller) {
      names.push_back("Robotino/Wheel_" + std::to_string(wheel) + "/roller" +
                      std::to_string(roller));
    }
  }
  return names;
}

Eigen::Matrix3d robotino_jacobian(const RobotinoGeometry& geometry, double phi_rad) {
  Eigen::Matrix3d J;
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const double phi_i = phi_rad + kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
    J.row(i) << std::sin(phi_i), -std::cos(phi_i), -geometry.wheel_distance_m;
  }
  return J / geometry.wheel_radius_m;
}

Eigen::Vector3d robotino_wheel_speeds(const RobotinoGeometry& geometry, double phi_rad,
                                      const Eigen::Vector3d& v_W) {
  // Same rows as robotino_jacobian, without building the matrix (hot path).
  Eigen::Vector3d omega;
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const double phi_i = phi_rad + kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
    omega(i) = (v_W(0) * std::sin(phi_i) - v_W(1) * std::cos(phi_i) -
                geometry.wheel_distance_m * v_W(2)) /
               geometry.wheel_radius_m;
  }
  return omega;
}

Eigen::Vector3d robotino_chassis_velocity(const RobotinoGeometry& geometry, double phi_rad,
                                          const Eigen::Vector3d& omega_rad_per_s) {
  // Least squares (seed 001): for this square, invertible J it equals J⁻¹·ω, but the same code
  // stays right for over-actuated layouts.
  return robotino_jacobian(geometry, phi_rad).colPivHouseholderQr().solve(omega_rad_per_s);
}

Eigen::Vector3d robotino_side_velocities(double phi_rad, double vx_m_per_s, double vy_m_per_s) {
  Eigen::Vector3d v_side;
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const double phi_i = phi_rad + kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
    v_side(i) = vx_m_per_s * std::cos(phi_i) + vy_m_per_s * std::sin(phi_i);
  }
  return v_side;
}

std::int64_t robotino_contact_sector(double theta_rad) {
  return static_cast<std::int64_t>(std::floor(theta_rad / kRobotinoRollerPitch_rad + 0.5));
}

RollerContact robotino_roller_contact(double theta_rad) {
  const std::int64_t n = robotino_contact_sector(theta_rad);
  const auto rollers = static_cast<std::int64_t>(kRobotinoRollersPerWheel);
  const int roller = static_cast<int>(((-n) % rollers + rollers) % rollers);
  return {roller, n, theta_rad - static_cast<double>(n) * kRobotinoRollerPitch_rad};
}

double robotino_rolling_arm_m(const RobotinoGeometry& geometry, double theta_b_rad) {
  return geometry.roller_max_radius_m - geometry.wheel_radius_m * (1.0 - std::cos(theta_b_rad));
}

double robotino_min_rolling_arm_m(const RobotinoGeometry& geometry) {
  return robotino_rolling_arm_m(geometry, kRobotinoRollerPitch_rad / 2.0);
}

}  // namespace cosim::dynamics
