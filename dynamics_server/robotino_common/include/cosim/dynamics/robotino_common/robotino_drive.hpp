#pragma once
/// @file
/// The Robotino's drives as every Robotino model runs them (robotino MODEL.md §2, seed 000
/// §3.3-3.4): their parameters and the `robotino` keys they are read from, the rose reference
/// with its accelerations, eq. 22 for the reference wheel speeds, and the voltage command
/// (back-EMF and inertial feed-forward plus PID on the motor speed error). The `robotino`
/// backend's DAE, the `mujoco` backend's discrete-time Robotino controller and
/// cosim-robotino-mjcf use these, so the equations exist once.

#include <span>
#include <string>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"
#include "cosim/dynamics/reference/rose_reference.hpp"

namespace cosim::dynamics::robotino_common {
using reference::RoseReference;
using reference::RoseSample;


/// Declared parameters of `robotino` (also the keys the MuJoCo Robotino controller reads):
/// robotino_geometry_param_specs(), then the masses, motor, reducer and PID, then
/// rose_param_specs(), then start and solver settings.
std::span<const ParamSpec> robotino_param_specs();

struct ModelParams;

/// The plant and controller of resolved robotino_param_specs() (geometry, masses, motor,
/// reducer, PID). Throws ParamError for an invalid combination.
ModelParams read_robotino_model_params(const Params& params);


/// Physical and controller parameters (SI). Defaults and sources: MODEL.md.
struct ModelParams {
  RobotinoGeometry geometry;                  ///< Rw, R, r_max [m]
  double mass_kg = 11.0;                      ///< m, whole robot incl. wheels (assumption)
  double yaw_inertia_kg_m2 = 0.188;           ///< I_z about C, whole robot (assumption)
  double wheel_inertia_kg_m2 = 2.0e-4;        ///< I_w, wheel with rollers about its axle (assumption)
  double roller_inertia_kg_m2 = 7.2e-7;       ///< I_r, one roller about its own axis (assumption)
  double rotor_inertia_kg_m2 = 71e-7;         ///< J_m, motor rotor
  double gear_ratio = 16.0;                   ///< N; the reducer ratio is k_gear = −1/N (§3.3)
  double resistance_ohm = 5.95;               ///< Ra
  double inductance_H = 8.9e-3;               ///< La; 0 makes the currents algebraic
  double torque_constant_N_m_per_A = 0.0514;  ///< kt
  double back_emf_V_s_per_rad = 0.0514;       ///< ke
  double voltage_limit_V = 24.0;              ///< |u| ≤ U_max: the drive saturates
  double kp_V_s_per_rad = 7.4;                ///< PID proportional gain on the motor speed error
  double ki_V_per_rad = 1500.0;               ///< PID integral gain
  double kd_V_s2_per_rad = 7.8e-3;            ///< PID derivative gain
  double ff_back_emf = 1.0;                   ///< feed-forward gain of ke·ω_m,ref [1]
  double ff_inertia = 1.0;                    ///< feed-forward gain of Ra·i_ff (reference inertia) [1]
  /// Eq. 22 with the reference heading φ_ref (the seed's Reference feeds the drivers) instead
  /// of the measured one.
  bool reference_heading = false;
  /// Anti-windup while saturated (back-calculation): Ė = e + (u − u_cmd)/(Ki·T_t) [s]; 0: none
  /// (E keeps the whole wheel-angle lag, which the drive then makes up).
  double antiwindup_time_s = 2e-3;
};

/// A 0/1 parameter as a bool; another value is a ParamError naming the key.
bool read_switch(const Params& params, const std::string& key);

/// Reference of seed 000 §3.4 with the accelerations the PID derivative and the feed-forward need.
struct ReferenceState {
  RoseSample pose;                    ///< X, Y, φ and their rates
  double ax_m_per_s2 = 0.0;           ///< d²X_ref/dt² [m/s²]
  double ay_m_per_s2 = 0.0;           ///< d²Y_ref/dt² [m/s²]
  double omega_dot_rad_per_s2 = 0.0;  ///< dω_ref/dt [rad/s²]
};

/// Analytic rose accelerations (derivatives of eqs. 26 and 28) at t_s [s].
ReferenceState rose_reference_state(const RoseReference& rose, double t_s);

/// Constants of a drive derived from the parameters.
struct DriveConstants {
  double k_gear;                   ///< reducer ratio −1/N [1]: ω_motor = ω_wheel / k_gear
  double wheel_inertia_eff_kg_m2;  ///< I_w + J_m/k_gear², the wheel with its rotor
};
DriveConstants drive_constants(const ModelParams& p);

/// Eq. 22 for one wheel: its reference speed and rate. (cos, sin) of the wheel's axle
/// direction φ_i = φ + δ_i come from the heading the drivers use (measured, or the reference's
/// with ModelParams::reference_heading), whose rate is heading_rate_rad_per_s.
struct WheelReference {
  double omega_rad_per_s;         ///< ω_i,ref
  double omega_dot_rad_per_s2;    ///< dω_i,ref/dt
  double side_rad_per_s;          ///< (v_ref·x_i)/Rw, what the rate of φ_i turns into ω̇_i,ref
};
WheelReference wheel_reference(const ModelParams& p, const ReferenceState& ref, double cos_phi_i,
                               double sin_phi_i, double heading_rate_rad_per_s);

/// The drive's voltage command before the limit [V]: back-EMF feed-forward of ω_i,ref, PID on
/// the motor-side speed error e = (ω_i,ref − ω_i)/k_gear (its rate e_dot, its integral E), and
/// — scaled by ff_inertia — the resistive drop of the current giving the reference
/// accelerations (rolling forces of three wheels 120° apart). (cos, sin) as for
/// wheel_reference().
double drive_command_V(const ModelParams& p, const DriveConstants& d, const ReferenceState& ref, double cos_phi_i,
                       double sin_phi_i, const WheelReference& w, double e_rad_per_s, double e_dot_rad_per_s2,
                       double integral_rad);

}  // namespace cosim::dynamics::robotino_common
