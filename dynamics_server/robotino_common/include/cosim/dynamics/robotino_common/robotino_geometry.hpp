#pragma once
/// @file
/// Robotino kinematic conventions (seed 000 §3.1-3.3), shared by the kinematic and the
/// dynamic robotino backends and followed exactly by scenes/robotino/.
///
/// Chassis pose (x, y, φ) in the world frame W. Wheel i = 1, 2, 3 has its outward axle x_i at
/// φ_i = φ + δ_i, δ = (π/3, π, −π/3); its centre is at R·(cos φ_i, sin φ_i) from C; its angle θ_i
/// is a right-handed rotation about x_i. No-slip rolling: the wheel centre moves along
/// y_i = (−sin φ_i, cos φ_i) at −Rw·ω_i. Side motion along x_i is carried by the roller in
/// contact: v_ix = r_roll·ω_roll (right-hand rule about +y_i at the contact point).

#include <array>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace cosim::dynamics::robotino_common {

/// Geometric parameters of a Robotino (defaults: Robotino 2, openrobotino api2 OmniDriveModel.h;
/// roller radius is an assumption).
struct RobotinoGeometry {
  double wheel_radius_m = 0.040;       ///< Rw [m]
  double wheel_distance_m = 0.132;     ///< R, chassis centre C to wheel centre C_i [m]
  double roller_max_radius_m = 0.012;  ///< r_max, roller radius at its widest point [m]
};

inline constexpr int kRobotinoWheelCount = 3;
inline constexpr int kRobotinoRollersPerWheel = 6;
/// Angle between neighbouring rollers about the axle [rad].
inline constexpr double kRobotinoRollerPitch_rad = std::numbers::pi / 3.0;
/// δ_i: axle direction of wheel i relative to the heading, φ_i = φ + δ_i [rad].
inline constexpr std::array<double, 3> kRobotinoAxleOffset_rad{
    std::numbers::pi / 3.0, std::numbers::pi, -std::numbers::pi / 3.0};

/// Joint layout of the 24 Robotino joints (Frame order).
inline constexpr std::size_t kRobotinoJointX = 0;      ///< "Robotino/x" [m]
inline constexpr std::size_t kRobotinoJointY = 1;      ///< "Robotino/y" [m]
inline constexpr std::size_t kRobotinoJointPhi = 2;    ///< "Robotino/phi" [rad]
inline constexpr std::size_t kRobotinoJointAxle1 = 3;  ///< "Robotino/axle1".."axle3" = θ_i [rad]
inline constexpr std::size_t kRobotinoJointRoller = 6;  ///< first roller joint [rad]
inline constexpr std::size_t kRobotinoJointCount = 24;

/// Index of "Robotino/Wheel_{wheel+1}/roller{roller+1}" (wheel 0..2, roller 0..5).
constexpr std::size_t robotino_roller_joint(int wheel, int roller) {
  return kRobotinoJointRoller + static_cast<std::size_t>(wheel * kRobotinoRollersPerWheel + roller);
}

/// The 24 scoped scene joint names: x, y, phi, axle1..3, then Wheel_1..3 roller1..6.
std::vector<std::string> robotino_joint_names();

/// Appends one output column per wheel: prefix1suffix, prefix2suffix, prefix3suffix.
void append_per_wheel_names(std::vector<std::string>& names, const std::string& prefix, const std::string& suffix);

/// Jacobian J(φ) with ω = J·v_W, v_W = (ẋ [m/s], ẏ [m/s], φ̇ [rad/s]), ω = wheel speeds [rad/s]:
/// row i = (sin φ_i, −cos φ_i, −R) / Rw.
Eigen::Matrix3d robotino_jacobian(const RobotinoGeometry& geometry, double phi_rad);

/// Inverse kinematics: wheel speeds ω_i = (ẋ sin φ_i − ẏ cos φ_i − R φ̇) / Rw [rad/s].
Eigen::Vector3d robotino_wheel_speeds(const RobotinoGeometry& geometry, double phi_rad,
                                      const Eigen::Vector3d& v_W);

/// Forward kinematics: chassis velocity v_W = (ẋ, ẏ, φ̇) from wheel speeds ω [rad/s] by least
/// squares, min ‖J·v_W − ω‖ (seed 001); J is square and invertible here, so this is J⁻¹·ω.
Eigen::Vector3d robotino_chassis_velocity(const RobotinoGeometry& geometry, double phi_rad,
                                          const Eigen::Vector3d& omega_rad_per_s);

/// Side velocities v_ix = ẋ cos φ_i + ẏ sin φ_i of the wheel centres along their axles [m/s].
Eigen::Vector3d robotino_side_velocities(double phi_rad, double vx_m_per_s, double vy_m_per_s);

/// The roller of a wheel touching the ground at wheel angle θ.
struct RollerContact {
  int roller;            ///< 0..5 (joint "roller{roller+1}")
  std::int64_t sector;   ///< n = nearest integer to θ/(π/3); roller = (−n) mod 6
  double theta_b_rad;    ///< θ_b = θ − n·π/3 in [−π/6, π/6] [rad], the roller's tilt from vertical
};

/// Contact roller at wheel angle θ_rad: roller j is in contact when θ + j·π/3 is nearest to
/// 0 mod 2π. Switches happen at θ = π/6 + m·π/3 (ties go to the higher sector).
RollerContact robotino_roller_contact(double theta_rad);

/// Sector n of wheel angle θ (see RollerContact); the contact roller changes when n changes.
std::int64_t robotino_contact_sector(double theta_rad);

/// Roller (0..5) in contact throughout sector n: (−n) mod 6.
int robotino_sector_roller(std::int64_t sector);

/// Rolling arm r_roll = r_max − Rw·(1 − cos θ_b) [m] (seed 000 §3.2 eq. 12).
double robotino_rolling_arm_m(const RobotinoGeometry& geometry, double theta_b_rad);

/// Smallest rolling arm, at θ_b = ±π/6 [m]; must be > 0 for the roller speed to be finite.
double robotino_min_rolling_arm_m(const RobotinoGeometry& geometry);

}  // namespace cosim::dynamics::robotino_common
