#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"

#include <cmath>

#include <Eigen/QR>

namespace cosim::dynamics::robotino_common {
namespace {

// cos φ_i, sin φ_i for φ_i = φ + δ_i from one sincos of φ and exact constants for δ_i
// (sin π is 0 here, not 1.2e-16).
struct AxleDirections {
  std::array<double, 3> c;
  std::array<double, 3> s;
};

AxleDirections axle_directions(double phi_rad) {
  constexpr double kHalfSqrt3 = 0.86602540378443864676;
  constexpr std::array<double, 3> kCosDelta{0.5, -1.0, 0.5};
  constexpr std::array<double, 3> kSinDelta{kHalfSqrt3, 0.0, -kHalfSqrt3};
  const double c = std::cos(phi_rad);
  const double s = std::sin(phi_rad);
  AxleDirections d;
  for (std::size_t i = 0; i < 3; ++i) {
    d.c[i] = c * kCosDelta[i] - s * kSinDelta[i];
    d.s[i] = s * kCosDelta[i] + c * kSinDelta[i];
  }
  return d;
}

}  // namespace

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
  const AxleDirections d = axle_directions(phi_rad);
  Eigen::Matrix3d J;
  for (std::size_t i = 0; i < 3; ++i) {
    J.row(static_cast<Eigen::Index>(i)) << d.s[i], -d.c[i], -geometry.wheel_distance_m;
  }
  return J / geometry.wheel_radius_m;
}

Eigen::Vector3d robotino_wheel_speeds(const RobotinoGeometry& geometry, double phi_rad,
                                      const Eigen::Vector3d& v_W) {
  // Same rows as robotino_jacobian, without building the matrix (hot path).
  const AxleDirections d = axle_directions(phi_rad);
  Eigen::Vector3d omega;
  for (std::size_t i = 0; i < 3; ++i) {
    omega(static_cast<Eigen::Index>(i)) =
        (v_W(0) * d.s[i] - v_W(1) * d.c[i] - geometry.wheel_distance_m * v_W(2)) /
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
  const AxleDirections d = axle_directions(phi_rad);
  Eigen::Vector3d v_side;
  for (std::size_t i = 0; i < 3; ++i) {
    v_side(static_cast<Eigen::Index>(i)) = vx_m_per_s * d.c[i] + vy_m_per_s * d.s[i];
  }
  return v_side;
}

std::int64_t robotino_contact_sector(double theta_rad) {
  return static_cast<std::int64_t>(std::floor(theta_rad / kRobotinoRollerPitch_rad + 0.5));
}

int robotino_sector_roller(std::int64_t sector) {
  const auto rollers = static_cast<std::int64_t>(kRobotinoRollersPerWheel);
  return static_cast<int>(((-sector) % rollers + rollers) % rollers);
}

RollerContact robotino_roller_contact(double theta_rad) {
  const std::int64_t n = robotino_contact_sector(theta_rad);
  return {robotino_sector_roller(n), n, theta_rad - static_cast<double>(n) * kRobotinoRollerPitch_rad};
}

double robotino_rolling_arm_m(const RobotinoGeometry& geometry, double theta_b_rad) {
  return geometry.roller_max_radius_m - geometry.wheel_radius_m * (1.0 - std::cos(theta_b_rad));
}

double robotino_min_rolling_arm_m(const RobotinoGeometry& geometry) {
  return robotino_rolling_arm_m(geometry, kRobotinoRollerPitch_rad / 2.0);
}

void append_per_wheel_names(std::vector<std::string>& names, const std::string& prefix, const std::string& suffix) {
  for (int i = 1; i <= kRobotinoWheelCount; ++i) names.push_back(prefix + std::to_string(i) + suffix);
}

}  // namespace cosim::dynamics::robotino_common
