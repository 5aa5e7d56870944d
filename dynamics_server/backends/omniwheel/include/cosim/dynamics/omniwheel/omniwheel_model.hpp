#pragma once
/// @file
/// The omni-wheel test bench of seed 004 (spec seeds_002_004 §C.2.2, equations in
/// dynamics_server/backends/omniwheel/MODEL.md): one wheel with n inclined rollers, kept
/// vertical by the servo-constraint, on the floor with regularised Coulomb friction. Minimal
/// coordinates q = (X, Y, χ, φ, β_1..n), u = q̇; Kane's equations M(q)·u̇ = f(q, u). Pure math,
/// no solver; no allocation (sizes bounded by kMaxRollers).

#include <Eigen/Core>
#include <span>

#include "cosim/dynamics/omniwheel/roller_contact.hpp"

namespace cosim::dynamics::omniwheel {


inline constexpr int kMaxRollers = 12;
inline constexpr int kMaxDof = 4 + kMaxRollers;
using VectorN = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxDof, 1>;
using MatrixN = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxDof, kMaxDof>;

enum class Tracking { kExplicit = 0, kImplicit = 1 };

/// A roller in contact (0-based) and its contact angle q_c = φ − (its sector)·2π/n.
struct ContactRoller {
  int roller = 0;
  double contact_angle_rad = 0.0;
};

/// Physical parameters (SI); defaults are the spec's assumptions (the paper gives none).
struct ModelParams {
  WheelGeometry geometry;
  double hub_mass_kg = 0.30;
  double roller_mass_kg = 0.02;
  double friction_mu = 0.3;             ///< μ_c of the regularised Coulomb law (F1)
  double friction_v_eps_m_per_s = 1e-3; ///< v_ε
  double gravity_m_per_s2 = 9.81;
  Vector3 external_force_N = Vector3::Zero();  ///< constant horizontal force at O (world)
  double external_yaw_torque_N_m = 0.0;        ///< constant torque about e_z
  Tracking tracking = Tracking::kExplicit;

  double total_mass_kg() const;
  double hub_transverse_inertia() const;    ///< A_w = m_w·R₁²/4 [kg·m²]
  double hub_axle_inertia() const;          ///< C_w = m_w·R₁²/2
  double roller_axis_inertia() const;       ///< C_r = 0.3·m_r·r0²
  double roller_transverse_inertia() const; ///< A_r = m_r·((L/2)² + r0²)/5
};

/// Everything one evaluation gives: the accelerations and the quantities derived from them.
struct Evaluation {
  VectorN u_dot;
  ContactPoint contact;
  Vector3 slip_m_per_s = Vector3::Zero();   ///< v_P, velocity of the contact material point
  Vector3 friction_N = Vector3::Zero();     ///< F_t on roller k at P
  double normal_N = 0.0;                    ///< N = M·g (the centre of mass stays at height R)
  double normal_check_N = 0.0;              ///< Σ m_b·(a_b,z + g) from the accelerations
  double servo_torque_N_m = 0.0;            ///< λ about e_f
  double moment_residual_z_N_m = 0.0;       ///< the same balance about e_z (≈ 0: an equation of motion)
  double moment_residual_axle_N_m = 0.0;    ///< … about a
  double kinetic_energy_J = 0.0;
  double dissipation_W = 0.0;               ///< −F_t·v_P ≥ 0
  double external_power_W = 0.0;            ///< power of the external force and torque
  double edge_weight = 1.0;                 ///< share of the first roller (edge mode), else 1
  double roller1_z_m = 0.0, roller1_vz_m_per_s = 0.0, roller1_az_m_per_s2 = 0.0;
};

/// The bench. Immutable after construction.
class OmniWheelModel {
 public:
  /// Throws std::invalid_argument for n outside 3..kMaxRollers, non-positive sizes or masses,
  /// |ψ| ≥ 80°.
  explicit OmniWheelModel(const ModelParams& params);
  const ModelParams& params() const { return p_; }
  int dof() const { return 4 + p_.geometry.rollers; }

  /// Accelerations at (q, u) with roller `contact_roller` (0-based) in contact at contact angle
  /// q_c = φ − (its sector)·2π/n, using the configured tracking.
  void evaluate(std::span<const double> q, std::span<const double> u, int contact_roller, double q_c,
                Evaluation& out) const;
  /// At a roller switch with the spin stopped there, both rollers' tips touch the floor and each
  /// side's dynamics push the spin back to the edge (Filippov sliding): the field is
  /// w·(field with `a`) + (1 − w)·(field with `b`) with w chosen so that φ̈ = 0; w is
  /// Evaluation::edge_weight and leaves [0, 1] when the wheel rolls off the edge to one side.
  void evaluate_edge(std::span<const double> q, std::span<const double> u, ContactRoller a, ContactRoller b,
                     Evaluation& out) const;
  /// Mass matrix M(q) (depends on χ and φ only).
  void mass_matrix(std::span<const double> q, MatrixN& m) const;

 private:
  void evaluate_contacts(std::span<const double> q, std::span<const double> u, ContactRoller first,
                         const ContactRoller* second, Evaluation& out) const;
  ModelParams p_;
};

}  // namespace cosim::dynamics::omniwheel
