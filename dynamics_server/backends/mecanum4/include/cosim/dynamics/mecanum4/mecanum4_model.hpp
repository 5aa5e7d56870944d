#pragma once
/// @file
/// Seed 002's platform as a 3D multibody tree (spec seeds_002_004 §A.2.5): chassis on six joints
/// (x, y, z, yaw, pitch, roll), four suspension carriers, and per wheel either the hub with its
/// 16 rollers as contact spheres ("rollers", the paper's full model F) or one sphere of the wheel
/// radius on a ball joint ("reduced", the paper's model R); sphere-plane penalty contact with
/// regularised Coulomb friction; PI wheel-speed control on the inverse kinematics of the
/// manoeuvre. Pure functions of (t, state); the backend integrates them.

#include <array>
#include <span>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "cosim/dae/dense_matrix_ref.hpp"

#include "cosim/dynamics/mecanum4/mecanum4_kinematics.hpp"
#include "cosim/multibody/tree.hpp"

namespace cosim::dynamics::mecanum4 {

enum class WheelModel { kRollers = 0, kReduced = 1 };

/// Physical parameters (SI). Defaults: seed 002 Table II where it gives them, else the spec's
/// assumptions (A.1).
struct ModelParams {
  Geometry geometry;
  WheelModel wheel_model = WheelModel::kReduced;
  int rollers = 16;                        ///< per wheel (Table II)
  double roller_radius_m = 0.0125;         ///< r_s, radius of the contact spheres
  double chassis_mass_kg = 8.9;
  Vector3 chassis_inertia_kg_m2{0.274, 0.193, 0.452};  ///< about its COM, B axes (a 0.5 × 0.6 × 0.1 m box)
  double chassis_com_height_m = 0.12;      ///< above the floor at nominal ride
  double carrier_mass_kg = 0.8;            ///< motor-gearbox and parallelogram share, per wheel (a point)
  double hub_mass_kg = 0.4;
  double hub_axle_inertia_kg_m2 = 7.2e-4;
  double hub_transverse_inertia_kg_m2 = 4.3e-4;
  double roller_mass_kg = 0.0125;
  double sphere_mass_kg = 0.6;             ///< reduced model: the wheel's mass
  double sphere_inertia_kg_m2 = 1.386e-3;  ///< reduced model: (2/5)·m·R²
  double suspension_stiffness_N_per_m = 5000.0;
  double suspension_damping_N_s_per_m = 100.0;
  double suspension_travel_m = 0.02;       ///< ± before the bump stop
  double bump_stiffness_N_per_m = 1e5;
  double contact_stiffness_N_per_m = 1e5;
  double contact_damping_N_s_per_m = 300.0;
  double contact_damping_depth_m = 1e-4;   ///< δ_t: damping faded in over this depth
  double friction_mu = 0.8;
  double friction_v_eps_m_per_s = 1e-3;
  double gravity_m_per_s2 = 9.81;
  double drive_kp_N_m_s = 1.5;             ///< rollers model; the reduced one scales by reduced_gain_scale
  double drive_ki_N_m = 30.0;
  double reduced_gain_scale = 2.0;         ///< same closed-loop bandwidth for ω' = ω/√2 (spec A.6 Q5)
  double spin_kp_N_m_s = 0.05;             ///< reduced model: P control of the sphere's vertical spin
  double drive_torque_limit_N_m = 5.0;     ///< rollers model; ×√2 in the reduced one
  bool reference_heading = true;           ///< inverse kinematics on θ_ref (else the measured θ)
  double start_height_m = 0.0;             ///< the chassis starts this much above equilibrium (R7)
  Manoeuvre manoeuvre;

  double total_mass_kg() const;
  /// F_pre = m_c·g/4: the suspension's preload carries the chassis at s = 0.
  double suspension_preload_N() const;
  /// δ0 = (m·g/4)/k_c: each wheel's static contact penetration.
  double static_penetration_m() const;
};

/// Everything one evaluation gives besides the state derivative.
struct Evaluation {
  std::array<double, kWheels> omega_rad_per_s{};      ///< measured wheel speed (reduced: ω_a about a'_i)
  std::array<double, kWheels> omega_ref_rad_per_s{};
  std::array<double, kWheels> torque_N_m{};           ///< drive torque (reduced: τ_a about a'_i)
  std::array<double, kWheels> normal_N{};             ///< sum over the wheel's contact spheres
  std::array<double, kWheels> slip_m_per_s{};         ///< largest slip speed over its contacts
  std::array<int, kWheels> contacts{};                ///< spheres of the wheel in contact
  std::array<double, kWheels> suspension_m{};         ///< s_i (up = compression)
  ReferenceSample reference;
  Vector3 world_velocity{0, 0, 0};  ///< (Ẋ, Ẏ, θ̇) of B's origin
  double c_omega_rad_per_s = 0.0;   ///< (ω1 − ω2 − ω3 + ω4)/4 (Mecanum-equivalent speeds)
  double vertical_acceleration_m_per_s2 = 0.0;
  double kinetic_J = 0.0, potential_J = 0.0;  ///< potential: gravity, suspension, contact springs
  double drive_power_W = 0.0, friction_loss_W = 0.0, damper_loss_W = 0.0, contact_loss_W = 0.0;
};

class Mecanum4Model;

/// Per-caller scratch of evaluate() (no allocation per call).
struct Scratch {
  explicit Scratch(const Mecanum4Model& model);
  multibody::Workspace ws;
  std::vector<multibody::Vector6> f_ext;  ///< per body, world coordinates
  std::vector<double> tau;                ///< joint forces
  bool want_energies = true;              ///< evaluate() also computes the stored energies
  // newton_matrix(): force derivatives by speed (k_u), by position (k_p, columns by the
  // position's joint speed index), by PI integral (k_e); a point Jacobian; M's factors.
  Eigen::MatrixXd k_u, k_p, k_e, point_jacobian, solved;
  Eigen::LDLT<Eigen::MatrixXd> mass_factor;
};

/// The platform. Immutable after construction; evaluate() needs its own Scratch per thread.
class Mecanum4Model {
 public:
  /// Throws std::invalid_argument for non-positive masses, stiffnesses or radii.
  explicit Mecanum4Model(const ModelParams& params);

  const ModelParams& params() const { return p_; }
  const multibody::Tree& tree() const { return tree_; }
  int position_count() const { return tree_.position_count(); }
  int speed_count() const { return tree_.speed_count(); }
  /// State size: q, u, 4 PI integrals, then the integrated energies (drives' work, friction,
  /// dampers, contact damping).
  int state_size() const { return position_count() + speed_count() + 8; }
  int integral_index() const { return position_count() + speed_count(); }
  int energy_index() const { return integral_index() + 4; }

  /// Static equilibrium at rest (spec A.2.5): X = Y = θ = 0, z = R − δ0 (+ start_height_m),
  /// s = 0, roller 0 at the bottom, all speeds and integrals 0.
  std::vector<double> initial_state() const;

  /// ẏ at (t, y), and what the outputs need.
  void evaluate(double t_s, std::span<const double> y, std::span<double> y_dot, Scratch& scratch,
                Evaluation& out) const;

  /// The Newton matrix c_j·I − ∂f/∂y of the ODE y' = f(t, y), approximately: M(q)⁻¹ times the
  /// derivatives of the suspension, drive and contact forces (the stiff parts: contact springs
  /// and dampers, friction against the light rollers, the PI), neglecting those of the
  /// gyroscopic terms and of M itself. IDA's Newton converges with it; the step is still
  /// decided by the exact residual.
  void newton_matrix(double t_s, double cj, std::span<const double> y, Scratch& scratch, dae::DenseMatrixRef jac) const;

  /// Body indices: the chassis, carrier i, hub i (rollers model) or sphere i (reduced).
  int chassis_body() const { return chassis_; }
  int carrier_body(int wheel) const { return carrier_[static_cast<std::size_t>(wheel)]; }
  int wheel_body(int wheel) const { return wheel_[static_cast<std::size_t>(wheel)]; }
  /// Rollers model: body of roller j (0-based) of wheel i.
  int roller_body(int wheel, int roller) const { return wheel_body(wheel) + 1 + roller; }

 private:
  ModelParams p_;
  multibody::Tree tree_;
  int chassis_ = 0;
  std::array<int, kWheels> carrier_{}, wheel_{};
};

}  // namespace cosim::dynamics::mecanum4
