#pragma once
/// @file
/// The `robotino` backend: the dynamic model of seed 000 §3-4 (RobotinoDae) solved with
/// SUNDIALS IDA in one-step mode. Roller switches are located as roots (optionally followed by
/// an IDAReInit restart with consistent re-initialisation); roller angles and energies are
/// Gauss-Legendre quadratures on IDA's dense output (the DAE kit, cosim::dae). Equations,
/// parameters, sources: MODEL.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "cosim/dae/event_stepper.hpp"
#include "cosim/dae/ida_solver.hpp"
#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/robotino/robotino_model.hpp"

namespace cosim::dynamics::robotino {
using reference::RoseParams;


// robotino_param_specs() and read_robotino_model_params(): robotino_drive.hpp (robotino_common).

/// Registry factory. Throws ParamError naming the key for a combination that is invalid
/// although each value is in range (e.g. a roller thinner than its sag, start_moving not 0/1).
std::unique_ptr<Backend> make_robotino_backend(const Params& params, double t0_s);

/// Column indices into RobotinoBackend::outputs(); per-wheel quantities take 3 columns
/// (wheel 1, 2, 3). Names and units in output_names().
namespace robotino_output {
inline constexpr std::size_t kXRef = 0;            ///< x_ref_m
inline constexpr std::size_t kYRef = 1;            ///< y_ref_m
inline constexpr std::size_t kPhiRef = 2;          ///< phi_ref_rad
inline constexpr std::size_t kDx = 3;              ///< dx_m = x − x_ref
inline constexpr std::size_t kDy = 4;              ///< dy_m = y − y_ref
inline constexpr std::size_t kDphi = 5;            ///< dphi_rad = φ − φ_ref
inline constexpr std::size_t kVx = 6;              ///< vx_m_per_s
inline constexpr std::size_t kVy = 7;              ///< vy_m_per_s
inline constexpr std::size_t kOmegaZ = 8;          ///< omega_z_rad_per_s = dφ/dt
inline constexpr std::size_t kVxRef = 9;           ///< vx_ref_m_per_s
inline constexpr std::size_t kVyRef = 10;          ///< vy_ref_m_per_s
inline constexpr std::size_t kOmegaZRef = 11;      ///< omega_z_ref_rad_per_s
inline constexpr std::size_t kOmega1 = 12;         ///< omega{i}_rad_per_s, wheel speed
inline constexpr std::size_t kOmegaRef1 = 15;      ///< omega_ref{i}_rad_per_s, eq. 22
inline constexpr std::size_t kCurrent1 = 18;       ///< i{i}_A, armature current
inline constexpr std::size_t kVoltage1 = 21;       ///< u{i}_V, applied voltage
inline constexpr std::size_t kTorque1 = 24;        ///< tau{i}_N_m, reducer torque on the wheel
inline constexpr std::size_t kMotorTorque1 = 27;   ///< tau_motor{i}_N_m = kt·i
inline constexpr std::size_t kForceRoll1 = 30;     ///< f_roll{i}_N, ground force along y_i
inline constexpr std::size_t kForceSide1 = 33;     ///< f_side{i}_N, ground force along x_i
inline constexpr std::size_t kContact1 = 36;       ///< contact{i}, roller in contact 1..6
inline constexpr std::size_t kRollerSpeed1 = 39;   ///< omega_roll{i}_rad_per_s
inline constexpr std::size_t kRollingArm1 = 42;    ///< r_roll{i}_m
inline constexpr std::size_t kPidInt1 = 45;        ///< pid_int{i}_rad, ∫ motor speed error
inline constexpr std::size_t kEnergyIn = 48;       ///< energy_in_J = ∫ Σ u·i dt
inline constexpr std::size_t kEnergyRes = 49;      ///< energy_resistive_J = ∫ Σ Ra·i² dt
inline constexpr std::size_t kEnergyStored = 50;   ///< energy_stored_J, kinetic + magnetic
inline constexpr std::size_t kEnergyBalance = 51;  ///< energy_balance_J = in − losses − Δstored
inline constexpr std::size_t kSaturated1 = 52;     ///< saturated{i}: +1 / −1 at ±U_max, 0 linear
inline constexpr std::size_t kCommand1 = 55;       ///< u_cmd{i}_V, PID + feed-forward before the limit
inline constexpr std::size_t kCount = 58;
}  // namespace robotino_output

/// Solver settings of the robotino backend.
struct RobotinoSolverSettings {
  double rtol = 1e-6;               ///< relative tolerance [1]
  double atol = 1e-6;               ///< base absolute tolerance, scaled per variable type
  double max_step_s = 0.02;         ///< largest IDA step [s]
  bool restart_at_switch = false;   ///< IDAReInit (consistent y_a, y') at every roller switch
                                    ///< (always at a saturation switch: the equations change)
  bool block_linear_solver = true;  ///< false: SUNDIALS' dense LU (for comparison)
  double current_atol_scale_A = 10.0;  ///< currents' absolute tolerance = this × atol [A]
};

/// Everything the backend is built from.
struct RobotinoConfig {
  robotino_common::ModelParams model;
  RoseParams rose;
  bool start_moving = true;  ///< start with the reference velocity (else at rest)
  RobotinoSolverSettings solver;
};

/// One roller switch of one wheel.
struct RollerSwitch {
  double t_s = 0.0;              ///< time of the switch [s]
  double theta_rad = 0.0;        ///< wheel angle at the switch [rad]
  std::int64_t from_sector = 0;  ///< contact sector before
  std::int64_t to_sector = 0;    ///< contact sector after
};

/// The Robotino dynamics backend. Joint layout: robotino_joint_names(). At t0_s the chassis is
/// on the reference (moving with it if start_moving), wheel and roller angles are 0.
class RobotinoBackend final : public Backend, private dae::EventHandler {
 public:
  /// Throws std::invalid_argument for an invalid configuration, dae::SolverError (a
  /// cosim::util::NumericalError) if the initial conditions cannot be made consistent; advancing
  /// throws dae::SolverError when IDA gives up.
  RobotinoBackend(const RobotinoConfig& config, double t0_s);
  ~RobotinoBackend() override;

  /// The configuration it was built from.
  const RobotinoConfig& config() const { return config_; }
  /// The DAE (parameters, reference).
  const robotino::RobotinoDae& model() const { return dae_; }
  /// Solver counters since construction.
  dae::IdaStats solver_stats() const { return solver_->stats(); }
  /// Number of saturation switches (entering or leaving ±U_max) of drive 0..2 so far.
  long saturation_switch_count(int wheel) const {
    return saturation_switch_count_[static_cast<std::size_t>(wheel)];
  }
  /// Number of roller switches of wheel 0..2 so far.
  long switch_count(int wheel) const { return switch_count_[static_cast<std::size_t>(wheel)]; }
  /// The latest switch of wheel 0..2 (all zero before the first).
  const RollerSwitch& last_switch(int wheel) const { return last_switch_[static_cast<std::size_t>(wheel)]; }

 private:
  class System;  // dae::DaeSystem adaptor
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  /// Integrates roller angles and energies from t_quad_ to t_s (within IDA's last step).
  void integrate_quadratures_to(double t_s);
  /// The quadratures follow each IDA step on its dense output.
  void before_step(double t_n_s) override;
  /// Switches the contact roller of the wheels, and the mode of the drives, whose root was
  /// found at t_s (quadratures first, up to t_s); restarts IDA if a drive switched or if
  /// configured to.
  AfterRoots on_roots(double t_s, std::span<const int> found) override;
  /// Makes each drive's mode agree with its command at (t_s, y, y'); true if one changed (then the
  /// caller makes the state consistent again).
  bool settle_drive_modes(double t_s, std::span<const double> y, std::span<const double> yp);
  /// Joint values and outputs from y_, yp_ at t_s.
  void write_state(double t_s, std::span<double> q, std::span<double> outputs) const;

  RobotinoConfig config_;
  robotino::RobotinoDae dae_;  ///< its drive modes are this backend's discrete state
  std::unique_ptr<System> system_;
  std::unique_ptr<dae::IdaSolver> solver_;
  std::unique_ptr<dae::EventStepper> stepper_;
  std::array<double, robotino::var::kCount> y_{};  ///< solution at the current output time
  std::array<double, robotino::var::kCount> yp_{};
  std::array<double, robotino::var::kCount> y_node_{};  ///< scratch for quadrature nodes
  double t_quad_s_;                                     ///< quadratures are integrated up to here
  std::array<std::array<double, 6>, 3> roller_rad_{};   ///< roller joint angles [rad]
  std::array<std::int64_t, 3> sector_{};                ///< contact sector per wheel (events)
  double energy_in_J_ = 0.0;
  double energy_res_J_ = 0.0;
  double stored_energy0_J_ = 0.0;
  std::array<long, 3> switch_count_{};
  std::array<long, 3> saturation_switch_count_{};
  std::array<RollerSwitch, 3> last_switch_{};
};

}  // namespace cosim::dynamics::robotino
