#pragma once
/// @file
/// The three-Mecanum-wheel robot of seed 003 as specified in ../shared/specs/seeds_002_004.md §B
/// (equations in dynamics_server/backends/mecanum3vw/MODEL.md): wheel Jacobian (eq. 9), the
/// plant's forward dynamics under no-slip rolling (P), the inverse dynamics by virtual work
/// with the paper's errors corrected (VW), the tracking law (C), and the two reference paths.
/// Pure math, no solver. Body frame B at the CG: x forward, y left, z up; ξ = (v_x, v_y, Ω) in B.

#include <Eigen/Core>

namespace cosim::dynamics::mecanum3vw {

using Vector3 = Eigen::Vector3d;
using Matrix3 = Eigen::Matrix3d;

/// Layout (§B.2.1): wheel 1 at (+a, −b), 2 at (+a, +b), 3 at (−h, 0), all axles along y_B,
/// contact-roller axes at +45°, −45°, −45° to x_B. Defaults are assumptions (the paper gives none).
struct Geometry {
  double wheel_radius_m = 0.05;     ///< r
  double front_axle_m = 0.10;       ///< a: front axle ahead of the CG
  double half_track_m = 0.15;       ///< b: half track of the front wheels
  double rear_wheel_m = 0.20;       ///< h: rear wheel behind the CG
  double roller_radius_m = 0.010;   ///< r0: roller radius at its middle (visual roller rates)
};

/// Inertial parameters of one model (the plant's, or the controller's estimate of them).
struct Inertia {
  double mass_kg = 10.0;                   ///< m, wheels included
  double yaw_inertia_kg_m2 = 0.25;         ///< I about the CG
  double wheel_inertia_kg_m2 = 6.25e-4;    ///< I_w, one wheel about its axle
  double wheel_viscous_N_m_s = 0.0;        ///< b_w, viscous friction per wheel
};

/// Wheel i's position in B [m] and σ_i = tan γ'_i of its contact roller (±1).
struct WheelPlace {
  double x_m, y_m, sigma;
};
WheelPlace wheel_place(const Geometry& g, int wheel);

/// J: wheel speeds from body velocities, ω = J·ξ (eq. 9, from the layout).
Matrix3 wheel_jacobian(const Geometry& g);
/// J_F = J⁻¹ in closed form (the paper's Moore–Penrose inverse, eq. 11; J is square and regular).
Matrix3 wheel_jacobian_inverse(const Geometry& g);

/// M_b = diag(m, m, I).
Matrix3 body_mass(const Inertia& m);
/// c(ξ) = (−m·Ω·v_y, m·Ω·v_x, 0): the body-frame Coriolis/centripetal terms.
Vector3 coriolis(const Inertia& m, const Vector3& xi);

/// Wheel torques for body acceleration ξ̇ at velocity ξ by virtual work (VW):
/// τ = J_Fᵀ·(M_b·ξ̇ + c(ξ)) + I_w·J·ξ̇ + b_w·J·ξ.
Vector3 virtual_work_torques(const Geometry& g, const Inertia& m, const Vector3& xi, const Vector3& xi_dot);

/// Forward dynamics (P): ξ̇ from (M_b + I_w·JᵀJ)·ξ̇ + c(ξ) = Jᵀ·(τ − b_w·J·ξ).
Vector3 body_acceleration(const Geometry& g, const Inertia& m, const Vector3& xi, const Vector3& tau);

/// Kinetic energy ½·ξᵀ(M_b + I_w·JᵀJ)ξ [J].
double kinetic_energy_J(const Geometry& g, const Inertia& m, const Vector3& xi);

/// R(ϑ): world → body, [cos ϑ  sin ϑ  0; −sin ϑ  cos ϑ  0; 0 0 1].
Matrix3 world_to_body(double theta_rad);
/// S(ϑ) = dR/dϑ.
Matrix3 world_to_body_derivative(double theta_rad);

/// The reference paths of §B.3: pose q_d = (x, y, ϑ) in W and its first two derivatives.
enum class Path { kCircle = 0, kEight = 1 };
struct PathSample {
  Vector3 q, q_dot, q_ddot;
};
struct PathParams {
  Path path = Path::kCircle;
  double radius_m = 1.0;              ///< amplitude of x and y [m]
  double rate_rad_per_s = 0.4;        ///< ω of the circle; the eight's y runs at it, its x at half
  double heading0_rad = 1.5707963267948966;  ///< ϑ_d(0) = π/2
  double heading_rate_rad_per_s = 0.4;       ///< ϑ̇_d
};
PathSample path_at(const PathParams& p, double t_s);

/// Tracking law (C): q̈_c = q̈_d + K_P·ė + K_I·e (world frame), ξ̇_c = R(ϑ)·q̈_c + ϑ̇·S(ϑ)·q̇,
/// τ = virtual_work_torques(model, ξ, ξ̇_c), the controller's model including its b̂_w.
struct Gains {
  double kp_per_s = 20.0;    ///< K_P [1/s]
  double ki_per_s2 = 100.0;  ///< K_I [1/s²]
};
Vector3 tracking_torques(const Geometry& g, const Inertia& model, const Gains& k, const PathSample& ref,
                         const Vector3& q, const Vector3& xi);

}  // namespace cosim::dynamics::mecanum3vw
