#pragma once
/// @file
/// The Robotino DAE of seed 000 §3 (see dynamics_server/robotino/MODEL.md): chassis translation
/// and yaw, wheel spin, no-slip rolling, side rolling of the contact roller (with its inertia),
/// DC motors through −1/gear reducers, PID wheel-speed control, rose reference. Pure math, no
/// solver: residual F(t, y, y') = 0, its exact Jacobian ∂F/∂y + c_j·∂F/∂y', root functions.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "cosim/dynamics/dense_matrix_ref.hpp"
#include "cosim/dynamics/robotino_geometry.hpp"
#include "cosim/dynamics/rose_reference.hpp"

namespace cosim::dynamics::robotino {

/// Indices of the DAE variables y (and y'). Units in the comments.
namespace var {
inline constexpr std::size_t kX = 0;        ///< chassis centre X [m]
inline constexpr std::size_t kY = 1;        ///< chassis centre Y [m]
inline constexpr std::size_t kPhi = 2;      ///< heading φ [rad]
inline constexpr std::size_t kVx = 3;       ///< dX/dt [m/s]
inline constexpr std::size_t kVy = 4;       ///< dY/dt [m/s]
inline constexpr std::size_t kOmegaZ = 5;   ///< Ω = dφ/dt [rad/s]
inline constexpr std::size_t kTheta = 6;    ///< wheel angles θ_1..3 [rad]
inline constexpr std::size_t kCurrent = 9;  ///< motor currents i_1..3 [A] (algebraic if La = 0)
inline constexpr std::size_t kPidInt = 12;  ///< PID integrals E_i = ∫(ω_m,ref − ω_m) dt [rad, motor side]
inline constexpr std::size_t kRoller = 15;  ///< contact-roller angle since its last switch ψ_i [rad]
inline constexpr std::size_t kEnergyIn = 18;   ///< ∫ Σ u_i·i_i dt, electrical energy in [J]
inline constexpr std::size_t kEnergyRes = 19;  ///< ∫ Σ Ra·i_i² dt, armature losses [J]
inline constexpr std::size_t kForceRoll = 20;  ///< F_iy, ground force along y_i (rolling) [N], algebraic
inline constexpr std::size_t kForceSide = 23;  ///< F_ix, ground force along x_i (side) [N], algebraic
inline constexpr std::size_t kVoltage = 26;    ///< applied motor voltages u_i [V], algebraic
inline constexpr std::size_t kCount = 29;
}  // namespace var

/// Physical and controller parameters (SI). Defaults: MODEL.md parameter table.
struct ModelParams {
  RobotinoGeometry geometry;                     ///< Rw, R, r_max [m]
  double mass_kg = 11.0;                         ///< m, whole robot incl. wheels [kg] (assumption)
  double yaw_inertia_kg_m2 = 0.188;              ///< I_z about C, whole robot [kg·m²] (assumption)
  double wheel_inertia_kg_m2 = 2.0e-4;           ///< I_w, wheel + rollers about the axle [kg·m²]
  double roller_inertia_kg_m2 = 7.2e-7;          ///< I_r, one roller about its own axis [kg·m²]
  double rotor_inertia_kg_m2 = 71e-7;            ///< J_m, motor rotor [kg·m²]
  double gear_ratio = 16.0;                      ///< N; the reducer ratio is k_gear = −1/N (§3.3)
  double resistance_ohm = 5.95;                  ///< Ra [Ω]
  double inductance_H = 8.9e-3;                  ///< La [H]; 0 makes the currents algebraic
  double torque_constant_N_m_per_A = 0.0514;     ///< kt [N·m/A]
  double back_emf_V_s_per_rad = 0.0514;          ///< ke [V·s/rad]
  double voltage_limit_V = 24.0;                 ///< |u| ≤ U_max: the drive saturates [V]
  double kp_V_s_per_rad = 7.4;                   ///< PID proportional gain, motor speed error [V·s/rad]
  double ki_V_per_rad = 1500.0;                  ///< PID integral gain [V/rad]
  double kd_V_s2_per_rad = 7.8e-3;               ///< PID derivative gain [V·s²/rad]
  double ff_back_emf = 1.0;                      ///< feed-forward u_ff = ff·ke·ω_m,ref [1]
};

/// Reference state of seed 000 §3.4 with the accelerations the PID derivative term needs.
struct ReferenceState {
  RoseSample pose;                 ///< X, Y, φ and their rates
  double ax_m_per_s2 = 0.0;        ///< d²X_ref/dt² [m/s²]
  double ay_m_per_s2 = 0.0;        ///< d²Y_ref/dt² [m/s²]
  double omega_dot_rad_per_s2 = 0.0;  ///< dω_ref/dt [rad/s²]
};

/// Analytic rose accelerations (derivatives of eqs. 26 and 28) at t_s [s].
ReferenceState rose_reference_state(const RoseReference& rose, double t_s);

/// Quantities derived from (t, y, y') for outputs; units in the names.
struct WheelDerived {
  double omega_rad_per_s;          ///< ω_i, wheel speed about x_i
  double omega_ref_rad_per_s;      ///< ω_i,ref, eq. 22 with the measured heading
  double omega_dot_rad_per_s2;     ///< dω_i/dt
  double drive_torque_N_m;         ///< τ_i, reducer output torque on the wheel about x_i
  double motor_torque_N_m;         ///< kt·i_i, electromagnetic torque
  double side_velocity_m_per_s;    ///< v_ix, wheel centre along the axle
  double rolling_arm_m;            ///< r_roll of the contact roller
  double roller_speed_rad_per_s;   ///< ω_roll = v_ix / r_roll
  double theta_b_rad;              ///< θ_b, contact roller tilt
};

/// The DAE. Holds the parameters, the reference and the discrete state (the contact sector of
/// every wheel, which selects θ_b = θ − n·π/3). Not thread-safe (caches the reference).
class RobotinoDae {
 public:
  /// Throws std::invalid_argument for non-physical values (non-positive mass, arm ≤ 0, ...).
  RobotinoDae(const ModelParams& params, const RoseParams& rose);

  const ModelParams& params() const { return p_; }
  const RoseReference& rose() const { return rose_; }

  /// Contact sector n_i of wheel i and the wheel-angle window [lo, hi] [rad] whose edges are
  /// the root functions (a switch happens when θ_i leaves the window).
  void set_sector(int wheel, std::int64_t sector, double lo_rad, double hi_rad);
  std::int64_t sector(int wheel) const { return sector_[static_cast<std::size_t>(wheel)]; }

  /// 1 for differential, 0 for algebraic components (IDASetId).
  double differential_id(std::size_t index) const;
  /// Absolute tolerance of component `index` for a base tolerance [unit of the component].
  double abs_tolerance(std::size_t index, double base_atol) const;

  /// F(t, y, y'); all spans have var::kCount elements.
  void residual(double t_s, std::span<const double> y, std::span<const double> yp,
                std::span<double> r) const;
  /// J = ∂F/∂y + c_j·∂F/∂y' (exact, hand-derived; every element of the n×n block is written).
  void jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
                DenseMatrixRef jac) const;

  /// Number of root functions: two per wheel (lower and upper window edge).
  static constexpr int kRootCount = 6;
  /// g_{2i} = θ_i − lo_i, g_{2i+1} = hi_i − θ_i; both decrease through zero at a switch.
  void roots(std::span<const double> y, std::span<double> g) const;

  /// Derived wheel quantities for outputs.
  WheelDerived wheel(int i, double t_s, std::span<const double> y, std::span<const double> yp) const;
  /// Stored energy: kinetic (chassis, wheels + rotors, contact rollers) + magnetic [J].
  double stored_energy_J(std::span<const double> y) const;
  /// Reference at t_s (cached for the last time asked).
  const ReferenceState& reference(double t_s) const;

 private:
  ModelParams p_;
  RoseReference rose_;
  double k_gear_;             ///< −1/N
  double wheel_inertia_eff_;  ///< I_w + J_m/k_gear² [kg·m²]
  std::array<std::int64_t, 3> sector_{};
  std::array<double, 3> lo_{};
  std::array<double, 3> hi_{};
  mutable double cached_t_s_;
  mutable ReferenceState cached_ref_;
};

}  // namespace cosim::dynamics::robotino
