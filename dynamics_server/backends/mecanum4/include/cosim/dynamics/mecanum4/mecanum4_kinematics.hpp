#pragma once
/// @file
/// The four-Mecanum-wheel platform of seed 002 (spec seeds_002_004 §A.2.1-A.2.3, A.3): wheel
/// layout, the inverse Jacobian (eqs. 7-8), the forward one by pseudo-inverse (eq. 14), the
/// reduced model's omni-wheel Jacobian (eq. 17) and the 10 s manoeuvre. Pure math, no solver.
/// Body frame B: x_B lateral (to the right), y_B forward, z_B up; ζ̇ = (v_x, v_y, Ω) in B.

#include <Eigen/Core>

#include "cosim/dynamics/reference/trapezoid.hpp"

namespace cosim::dynamics::mecanum4 {
using reference::Trapezoid;


using Vector3 = Eigen::Vector3d;
using Matrix43 = Eigen::Matrix<double, 4, 3>;
using Matrix34 = Eigen::Matrix<double, 3, 4>;
using Vector4 = Eigen::Vector4d;

inline constexpr int kWheels = 4;

/// Seed 002 Table II, and the layout that makes its eqs. (7)-(8) and Table I agree (spec A.2.1):
/// wheel 1 rear-left (−l_x, −l_y), 2 front-left (−l_x, +l_y), 3 front-right (+l_x, +l_y), 4
/// rear-right (+l_x, −l_y); contact-roller angles γ = −45°, +45°, −45°, +45°.
struct Geometry {
  double half_track_m = 0.294;   ///< l_x: half the distance between the front wheels (along x_B)
  double half_base_m = 0.200;    ///< l_y: half the distance between front and rear (along y_B)
  double wheel_radius_m = 0.076; ///< R

  /// (p_ix, p_iy) of wheel i (0-based) in B, at the hub.
  Eigen::Vector2d wheel_position(int i) const;
  /// γ_i [rad].
  double roller_angle_rad(int i) const;
  /// u_i = (cos γ_i, sin γ_i, 0): the contact roller's axis in B.
  Vector3 roller_axis(int i) const;
  /// d'_i = −sign(γ_i)·u_i: the equivalent omni wheel's rolling direction (spec A.2.3).
  Vector3 omni_drive(int i) const;
  /// a'_i = e_z × d'_i: its actuated axle.
  Vector3 omni_axle(int i) const;
};

/// ω = J·ζ̇ (eqs. 7-8), from no slip along each contact roller's axis.
Matrix43 inverse_jacobian(const Geometry& g);
/// J⁺ = (JᵀJ)⁻¹Jᵀ (eq. 14): ζ̇ = J⁺·ω.
Matrix34 forward_jacobian(const Geometry& g);
/// ω' = J_omni·ζ̇ (eq. 17): the equivalent omni wheels' speeds about a'_i.
Matrix43 omni_jacobian(const Geometry& g);
/// n = (1, −1, −1, 1)/4: c_ω = n·ω vanishes for kinematically consistent wheel speeds (K-inv).
Vector4 consistency_row();

/// R_rot(θ): world to body, [cos θ  sin θ  0; −sin θ  cos θ  0; 0 0 1] (eq. 10).
Eigen::Matrix3d world_to_body(double theta_rad);

/// Spec A.3: settle, X move, stop, Y move, stop, diagonal back to the origin, stop, turn, stop.
/// Times and distances are assumptions of the spec (the paper's Fig. 11 is not readable).
struct Manoeuvre {
  double settle_s = 0.2;          ///< seed 002 §VI
  double leg_m = 1.0;             ///< each translation, per axis
  double speed_m_per_s = 1.0;     ///< seed 002 §VI
  double accel_m_per_s2 = 2.5;    ///< seed 002 §VI
  double stop_s = 0.4;
  double turn_rad = 3.141592653589793;  ///< 180°, counter-clockwise
  double turn_rate_rad_per_s = 1.0;     ///< seed 002 §VI
  double turn_accel_rad_per_s2 = 6.283185307179586;  ///< 2π (seed 002 §VI: "limited to")

  Trapezoid x_move() const;
  Trapezoid y_move() const;
  Trapezoid diagonal() const;  ///< per axis, towards the origin
  Trapezoid turn() const;
};

/// Reference pose and its first two derivatives in the world frame: (X, Y, θ).
struct ReferenceSample {
  Vector3 pose, velocity, acceleration;
};
ReferenceSample reference_at(const Manoeuvre& m, double t_s);

}  // namespace cosim::dynamics::mecanum4
