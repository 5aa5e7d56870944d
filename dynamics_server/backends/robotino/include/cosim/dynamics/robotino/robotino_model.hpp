#pragma once
/// @file
/// The Robotino DAE of seed 000 §3 (equations in dynamics_server/backends/robotino/MODEL.md): chassis
/// translation and yaw, wheel spin, no-slip rolling, side rolling of the contact roller (with
/// its inertia), DC motors through −1/N reducers, PID wheel-speed control (optionally with
/// feed-forward) whose voltage saturates at the supply, rose reference. Pure math, no solver:
/// the residual F(t, y, y') = 0, its exact Jacobian, the drive commands whose crossings of the
/// limit are events, and the quadrature integrands.

#include <array>
#include <cstddef>
#include <span>

#include "cosim/dae/dense_matrix_ref.hpp"
#include "cosim/dynamics/robotino_common/robotino_drive.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"
#include "cosim/dynamics/reference/rose_reference.hpp"

namespace cosim::dynamics::robotino {
using reference::RoseParams;
using reference::RoseReference;
using robotino_common::ModelParams;
using robotino_common::ReferenceState;


/// Indices of the DAE variables y (and y'). Units in the comments.
namespace var {
// The pose is integrated as its deviation from the analytic reference, so that the error test
// weighs what is compared with the reference (rtol·|X| would allow 2e-6 m per step at 2 m).
inline constexpr std::size_t kDx = 0;          ///< X − X_ref(t), chassis centre [m]
inline constexpr std::size_t kDy = 1;          ///< Y − Y_ref(t) [m]
inline constexpr std::size_t kDphi = 2;        ///< φ − φ_ref(t), heading [rad]
inline constexpr std::size_t kVx = 3;          ///< dX/dt [m/s]
inline constexpr std::size_t kVy = 4;          ///< dY/dt [m/s]
inline constexpr std::size_t kOmegaZ = 5;      ///< Ω = dφ/dt [rad/s]
inline constexpr std::size_t kTheta = 6;       ///< wheel angles θ_1..3 [rad]
inline constexpr std::size_t kCurrent = 9;     ///< armature currents i_1..3 [A] (algebraic if La = 0)
inline constexpr std::size_t kPidInt = 12;     ///< E_i = ∫(ω_m,ref − ω_m) dt, motor side [rad]
inline constexpr std::size_t kForceRoll = 15;  ///< F_iy, ground force on wheel i along y_i [N], algebraic
inline constexpr std::size_t kForceSide = 18;  ///< F_ix, ground force on wheel i along x_i [N], algebraic
inline constexpr std::size_t kVoltage = 21;    ///< u_i, applied armature voltage [V], algebraic
inline constexpr std::size_t kCount = 24;
}  // namespace var

/// Indices of the quadratures ∫ q dt evaluated on the solver's dense output (they do not feed
/// back into the DAE, so they stay out of its error test).
namespace quad {
inline constexpr std::size_t kRoller = 0;    ///< ω_roll,1..3 = v_ix / r_roll: contact roller spin [rad/s]
inline constexpr std::size_t kPowerIn = 3;   ///< Σ u_i·i_i, electrical power in [W]
inline constexpr std::size_t kPowerRes = 4;  ///< Σ Ra·i_i², armature losses [W]
inline constexpr std::size_t kCount = 5;
}  // namespace quad

/// State of a drive's voltage: following its command, or held at +U_max / −U_max. A discrete
/// state changed at events (the command crossing the limit), so F stays smooth in each mode.
enum class DriveMode : int { kLinear = 0, kHigh = 1, kLow = -1 };

/// Quantities derived from (t, y, y') for outputs.
struct WheelDerived {
  double omega_rad_per_s;         ///< ω_i, wheel speed about x_i
  double omega_ref_rad_per_s;     ///< ω_i,ref, eq. 22 (measured or reference heading)
  double drive_torque_N_m;        ///< τ_i, reducer output torque on the wheel about x_i
  double motor_torque_N_m;        ///< kt·i_i, electromagnetic torque
  double voltage_V;               ///< u_i: the command, or ±U_max while saturated
  double command_V;               ///< PID + feed-forward before the limit
  double side_velocity_m_per_s;   ///< v_ix, wheel centre along its axle
  double rolling_arm_m;           ///< r_roll of the contact roller
  double roller_speed_rad_per_s;  ///< ω_roll = v_ix / r_roll
  int contact_roller;             ///< 0..5, roller in contact
};

/// The DAE. Immutable after construction except for the drive modes (set at events) and a
/// cache of the reference at the last time asked (not thread-safe). The roller in contact is a
/// function of the wheel angle (robotino_roller_contact), so F is continuous in y; only
/// ∂r_roll/∂θ jumps at a switch.
class RobotinoDae {
 public:
  /// Throws std::invalid_argument for non-physical values (mass ≤ 0, rolling arm ≤ 0, ...).
  RobotinoDae(const ModelParams& params, const RoseParams& rose);

  const ModelParams& params() const { return p_; }
  const RoseReference& rose() const { return rose_; }

  /// 1 for differential, 0 for algebraic components (IDASetId).
  double differential_id(std::size_t index) const;
  /// Absolute tolerance of component `index` for a base tolerance (MODEL.md "Solver"); the
  /// currents' is current_scale_A·base_atol [A].
  double abs_tolerance(std::size_t index, double base_atol, double current_scale_A = 10.0) const;
  /// Factor on the relative tolerance of component `index`: 0 for the wheel angles, which grow
  /// to hundreds of rad (rtol·|θ| would let them drift by 1e-4 rad per step and put output
  /// samples near a switch on the wrong roller), 1 otherwise.
  double relative_tolerance_scale(std::size_t index) const;

  /// Columns of J that are zero off their diagonal (δX, δY: pure quadratures) and variables
  /// with a diagonal block that couple only to the rest (forces, voltages): see dae::BlockLu.
  static std::span<const std::size_t> block_outputs();
  static std::span<const std::size_t> block_diagonal();

  /// r = F(t, y, y'); spans of var::kCount.
  void residual(double t_s, std::span<const double> y, std::span<const double> yp, std::span<double> r) const;
  /// J = ∂F/∂y + c_j·∂F/∂y' (exact, hand-derived; writes every element of the n×n block).
  void jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
                dae::DenseMatrixRef jac) const;

  /// Saturation state of drive 0..2 (all kLinear after construction).
  DriveMode drive_mode(int wheel) const { return modes_[static_cast<std::size_t>(wheel)]; }
  void set_drive_mode(int wheel, DriveMode mode) { modes_[static_cast<std::size_t>(wheel)] = mode; }
  /// Voltage command of drive 0..2 before the limit (PID + feed-forward) at (t, y) [V], with the
  /// wheel acceleration from the wheel-spin equation (y' is used only if I_W = 0).
  double drive_command_V(int wheel, double t_s, std::span<const double> y, std::span<const double> yp) const;

  /// Quadrature integrands q(t, y) (quad:: indices).
  void quadrature_rates(double t_s, std::span<const double> y, std::span<double> q) const;

  /// Derived quantities of wheel 0..2 for outputs.
  WheelDerived wheel(int i, double t_s, std::span<const double> y, std::span<const double> yp) const;
  /// Stored energy: kinetic (chassis, wheels and rotors, contact rollers) + magnetic [J].
  double stored_energy_J(double t_s, std::span<const double> y) const;
  /// Reference at t_s (cached for the last time asked).
  const ReferenceState& reference(double t_s) const;

 private:
  /// u_i in `mode`: the command, or ±U_max.
  double applied_voltage(DriveMode mode, double command_V) const;
  /// Back-calculation term of Ė while saturated, (u − u_cmd)/(Ki·T_t); 0 in the linear mode.
  double antiwindup_rate(DriveMode mode, double command_V) const;

  ModelParams p_;
  RoseReference rose_;
  double k_gear_;             ///< −1/N
  double wheel_inertia_eff_;  ///< I_w + J_m/k_gear² [kg·m²]
  std::array<DriveMode, 3> modes_{};
  mutable double cached_t_s_;
  mutable ReferenceState cached_ref_;
};

}  // namespace cosim::dynamics::robotino
