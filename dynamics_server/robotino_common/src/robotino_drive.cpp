#include "cosim/dynamics/robotino_common/robotino_drive.hpp"

#include <string>
#include <vector>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"
#include "cosim/dynamics/reference/rose_params.hpp"

namespace cosim::dynamics::robotino_common {
using reference::RoseParams;
using reference::RoseReference;
using reference::RoseSample;
using reference::rose_param_specs;

namespace {

// Parameters of the dynamics (masses, motor, reducer, PID): between the geometry and the rose.
std::span<const ParamSpec> dynamics_param_specs() {
  static const std::vector<ParamSpec> specs{
      {"mass_kg", 11.0, 0.1, 1000.0, "kg", "mass m of the whole robot, wheels included",
       "assumption (Robotino 2 is about 11 kg)"},
      {"yaw_inertia_kg_m2", 0.188, 1e-4, 100.0, "kg m^2", "yaw inertia I_z of the whole robot about C",
       "assumption: uniform disk of radius 0.185 m, m r^2 / 2"},
      {"wheel_inertia_kg_m2", 2.0e-4, 0.0, 1.0, "kg m^2",
       "inertia I_w of one wheel with its rollers about the axle", "assumption: 0.25 kg disk of radius Rw"},
      {"roller_inertia_kg_m2", 7.2e-7, 0.0, 0.01, "kg m^2",
       "inertia I_r of the contact roller about its own axis (0 removes the side-rolling dynamics)",
       "assumption: 10 g cylinder of radius r_max"},
      {"rotor_inertia_kg_m2", 71e-7, 0.0, 0.01, "kg m^2", "motor rotor inertia J_m",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"gear_ratio", 16.0, 1.0, 1000.0, "1",
       "reducer ratio N; the transformer ratio is k_gear = -1/N (seed 000 §3.3 sign convention)",
       "openrobotino api2 OmniDriveModel.h (gear 16), seed 000 eq. 23"},
      {"motor_resistance_ohm", 5.95, 0.01, 1000.0, "ohm", "armature resistance Ra",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_inductance_H", 8.9e-3, 0.0, 10.0, "H",
       "armature inductance La (0 makes the currents algebraic)",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_torque_constant_N_m_per_A", 0.0514, 1e-4, 10.0, "N m/A", "torque constant kt",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_back_emf_V_s_per_rad", 0.0514, 1e-4, 10.0, "V s/rad", "back-EMF constant ke (= kt in SI)",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_voltage_limit_V", 24.0, 0.1, 1000.0, "V", "supply voltage: each drive saturates at +/- this (a root-found event, with anti-windup)",
       "Robotino 2 24 V supply, DESIGN.md"},
      {"pid_kp_V_s_per_rad", 7.4, 0.0, 1e4, "V s/rad", "PID proportional gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_ki_V_per_rad", 1500.0, 0.0, 1e7, "V/rad", "PID integral gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_kd_V_s2_per_rad", 7.8e-3, 0.0, 10.0, "V s^2/rad", "PID derivative gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_ff_back_emf", 1.0, 0.0, 1.0, "1", "feed-forward gain of ke * omega_m,ref in the motor voltage",
       "chosen (MODEL.md)"},
      {"pid_ff_inertia", 1.0, 0.0, 1.0, "1",
       "feed-forward gain of Ra * i_ff, the current for the reference accelerations (rigid-body inverse "
       "dynamics)",
       "chosen (MODEL.md)"},
      {"pid_reference_heading", 0.0, 0.0, 1.0, "1",
       "1: eq. 22 uses the reference heading phi_ref (the seed's Reference feeds the drivers); 0: the "
       "measured heading",
       "chosen: 0 (MODEL.md); seed 000 §3.4 is 1"},
      {"pid_antiwindup_time_s", 2e-3, 0.0, 10.0, "s",
       "anti-windup tracking time T_t while the voltage saturates (back-calculation: dE/dt = e + (u - "
       "u_cmd)/(Ki T_t)); 0: none",
       "chosen: about sqrt(Ti Td) of the default gains (MODEL.md)"},
  };
  return specs;
}

// Parameters of the start and of the solver: after the rose.
std::span<const ParamSpec> start_and_solver_param_specs() {
  static const std::vector<ParamSpec> specs{
      {"start_moving", 1.0, 0.0, 1.0, "1",
       "1: start with the reference velocity; 0: start at rest (the drives then saturate)",
       "chosen (MODEL.md)"},
      {"solver_rtol", 1e-6, 1e-12, 1e-2, "1", "IDA relative tolerance", "seed 000 §4 (errors 1e-6)"},
      {"solver_atol", 1e-6, 1e-14, 1e-2, "1",
       "IDA base absolute tolerance, scaled per variable type (MODEL.md)", "seed 000 §4 (errors 1e-6)"},
      {"solver_max_step_s", 0.02, 1e-6, 1.0, "s", "largest IDA step", "seed 000 §4 (max step 0.02 s)"},
      {"solver_current_atol_scale", 10.0, 1e-3, 1e6, "A",
       "absolute tolerance of the currents = this x solver_atol (1000: currents to ~10 %, ~6x faster)",
       "chosen: currents, voltages and energy within 1 % of converged at 1e-6 (MODEL.md)"},
      {"solver_restart_at_switch", 0.0, 0.0, 1.0, "1",
       "1: IDAReInit with consistent forces at every roller switch; 0: step through it (r_roll is "
       "continuous)",
       "chosen: both agree (MODEL.md)"},
  };
  return specs;
}

}  // namespace

bool read_switch(const Params& params, const std::string& key) {
  const double value = params.get(key);
  if (value != 0.0 && value != 1.0) {
    throw ParamError("backend robotino: " + key + " = " + format_number(value) + " must be 0 or 1");
  }
  return value == 1.0;
}


std::span<const ParamSpec> robotino_param_specs() {
  static const std::vector<ParamSpec> specs = concat_param_specs({robotino_geometry_param_specs(),
                                                                  dynamics_param_specs(), rose_param_specs(),
                                                                  start_and_solver_param_specs()});
  return specs;
}

ModelParams read_robotino_model_params(const Params& params) {
  robotino_common::ModelParams m;
  m.geometry = read_robotino_geometry(params, "robotino");
  m.mass_kg = params.get("mass_kg");
  m.yaw_inertia_kg_m2 = params.get("yaw_inertia_kg_m2");
  m.wheel_inertia_kg_m2 = params.get("wheel_inertia_kg_m2");
  m.roller_inertia_kg_m2 = params.get("roller_inertia_kg_m2");
  m.rotor_inertia_kg_m2 = params.get("rotor_inertia_kg_m2");
  m.gear_ratio = params.get("gear_ratio");
  m.resistance_ohm = params.get("motor_resistance_ohm");
  m.inductance_H = params.get("motor_inductance_H");
  m.torque_constant_N_m_per_A = params.get("motor_torque_constant_N_m_per_A");
  m.back_emf_V_s_per_rad = params.get("motor_back_emf_V_s_per_rad");
  m.voltage_limit_V = params.get("motor_voltage_limit_V");
  m.kp_V_s_per_rad = params.get("pid_kp_V_s_per_rad");
  m.ki_V_per_rad = params.get("pid_ki_V_per_rad");
  m.kd_V_s2_per_rad = params.get("pid_kd_V_s2_per_rad");
  m.ff_back_emf = params.get("pid_ff_back_emf");
  m.ff_inertia = params.get("pid_ff_inertia");
  m.reference_heading = read_switch(params, "pid_reference_heading");
  m.antiwindup_time_s = params.get("pid_antiwindup_time_s");
  return m;
}


ReferenceState rose_reference_state(const RoseReference& rose, double t_s) {
  ReferenceState out;
  out.pose = rose.at(t_s);
  const RoseParams& p = rose.params();
  const double a = p.amplitude_m;
  const double k = p.petals_k;
  const double rate = p.rate_rad_per_s;
  const double varphi = rate * t_s + p.phase_rad;
  const double sx = std::sin(k * varphi);
  const double cx = std::cos(k * varphi);
  const double sv = std::sin(varphi);
  const double cv = std::cos(varphi);
  // (Ẍ, Ÿ) = a·rate²·Rot(ϕ)·(−(1 + k²)·cos kϕ, −2k·sin kϕ).
  const double u = -(1.0 + k * k) * cx;
  const double v = -2.0 * k * sx;
  out.ax_m_per_s2 = a * rate * rate * (u * cv - v * sv);
  out.ay_m_per_s2 = a * rate * rate * (u * sv + v * cv);
  // ω = rate·(2k²s² + (k²+1)c²)/(k²s² + c²)  ⇒  ω̇ = −2·rate²·k³·(k²−1)·s·c/(k²s² + c²)².
  const double den = k * k * sx * sx + cx * cx;
  out.omega_dot_rad_per_s2 = -2.0 * rate * rate * k * k * k * (k * k - 1.0) * sx * cx / (den * den);
  return out;
}

DriveConstants drive_constants(const ModelParams& p) {
  const double k_gear = -1.0 / p.gear_ratio;
  return {k_gear, p.wheel_inertia_kg_m2 + p.rotor_inertia_kg_m2 / (k_gear * k_gear)};
}

WheelReference wheel_reference(const ModelParams& p, const ReferenceState& ref, double cos_phi_i,
                               double sin_phi_i, double heading_rate_rad_per_s) {
  const double rw = p.geometry.wheel_radius_m;
  const double big_r = p.geometry.wheel_distance_m;
  const RoseSample& r = ref.pose;
  WheelReference w;
  w.omega_rad_per_s = (r.vx_m_per_s * sin_phi_i - r.vy_m_per_s * cos_phi_i - big_r * r.omega_rad_per_s) / rw;
  w.side_rad_per_s = (r.vx_m_per_s * cos_phi_i + r.vy_m_per_s * sin_phi_i) / rw;
  w.omega_dot_rad_per_s2 =
      (ref.ax_m_per_s2 * sin_phi_i - ref.ay_m_per_s2 * cos_phi_i - big_r * ref.omega_dot_rad_per_s2) / rw +
      heading_rate_rad_per_s * w.side_rad_per_s;
  return w;
}

double drive_command_V(const ModelParams& p, const DriveConstants& d, const ReferenceState& ref, double cos_phi_i,
                       double sin_phi_i, const WheelReference& w, double e_rad_per_s, double e_dot_rad_per_s2,
                       double integral_rad) {
  double u = p.ff_back_emf * p.back_emf_V_s_per_rad * w.omega_rad_per_s / d.k_gear + p.kp_V_s_per_rad * e_rad_per_s +
             p.ki_V_per_rad * integral_rad + p.kd_V_s2_per_rad * e_dot_rad_per_s2;
  if (p.ff_inertia != 0.0) {
    // Rolling forces giving the reference accelerations, for three wheels 120° apart
    // (Σ y_i·y_iᵀ = 3/2·I, Σ y_i = 0): F_iy = 2/3·m·a_ref·y_i + I_z·Ω̇_ref/(3R); then the
    // current for I_W·ω̇_ref = kt·i/k_gear + Rw·F_iy, applied as its resistive drop.
    const double f = 2.0 / 3.0 * p.mass_kg * (-sin_phi_i * ref.ax_m_per_s2 + cos_phi_i * ref.ay_m_per_s2) +
                     p.yaw_inertia_kg_m2 * ref.omega_dot_rad_per_s2 / (3.0 * p.geometry.wheel_distance_m);
    const double scale = p.ff_inertia * p.resistance_ohm * d.k_gear / p.torque_constant_N_m_per_A;
    u += scale * (d.wheel_inertia_eff_kg_m2 * w.omega_dot_rad_per_s2 - p.geometry.wheel_radius_m * f);
  }
  return u;
}

}  // namespace cosim::dynamics::robotino_common
