#include "cosim/dynamics/robotino_backend.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace cosim::dynamics {
namespace {

namespace var = robotino::var;
namespace out = robotino_output;

constexpr int kWheels = kRobotinoWheelCount;
constexpr double kPitch = kRobotinoRollerPitch_rad;
// The window edge a wheel just crossed is moved back by this much, so IDA never restarts on a
// root; a reversal within 1e-9 rad of a switch is therefore attributed to the new roller.
constexpr double kSwitchHysteresis_rad = 1e-9;

std::string number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::vector<std::string> robotino_output_names() {
  std::vector<std::string> names{"x_ref_m",        "y_ref_m",        "phi_ref_rad",
                                 "dx_m",           "dy_m",           "dphi_rad",
                                 "vx_m_per_s",     "vy_m_per_s",     "omega_z_rad_per_s",
                                 "vx_ref_m_per_s", "vy_ref_m_per_s", "omega_z_ref_rad_per_s"};
  const auto per_wheel = [&](const char* prefix, const char* suffix) {
    for (int i = 1; i <= kWheels; ++i) names.push_back(prefix + std::to_string(i) + suffix);
  };
  per_wheel("omega", "_rad_per_s");
  per_wheel("omega_ref", "_rad_per_s");
  per_wheel("i", "_A");
  per_wheel("u", "_V");
  per_wheel("tau", "_N_m");
  per_wheel("tau_motor", "_N_m");
  per_wheel("f_roll", "_N");
  per_wheel("f_side", "_N");
  per_wheel("contact", "");
  per_wheel("omega_roll", "_rad_per_s");
  per_wheel("r_roll", "_m");
  per_wheel("pid_int", "_rad");
  for (const char* name : {"energy_in_J", "energy_resistive_J", "energy_stored_J", "energy_balance_J"}) {
    names.emplace_back(name);
  }
  return names;
}

}  // namespace

std::span<const ParamSpec> robotino_param_specs() {
  constexpr double kPi = std::numbers::pi;
  static const std::vector<ParamSpec> specs{
      {"wheel_radius_m", 0.040, 0.005, 1.0, "m", "omni wheel radius Rw",
       "openrobotino api2 OmniDriveModel.h (Robotino 2)"},
      {"wheel_distance_m", 0.132, 0.01, 10.0, "m", "distance R from the chassis centre C to each wheel centre",
       "openrobotino api2 OmniDriveModel.h (Robotino 2)"},
      {"roller_max_radius_m", 0.012, 0.0005, 0.5, "m",
       "roller radius r_max at its widest point; r_roll = r_max - Rw(1 - cos theta_b)",
       "assumption (seed 000 §3.2 gives no value)"},
      {"mass_kg", 11.0, 0.1, 1000.0, "kg", "mass m of the whole robot, wheels included",
       "assumption (Robotino 2 is about 11 kg)"},
      {"yaw_inertia_kg_m2", 0.188, 1e-4, 100.0, "kg m^2", "yaw inertia I_z of the whole robot about C",
       "assumption: uniform disk of radius 0.185 m, m r^2 / 2"},
      {"wheel_inertia_kg_m2", 2.0e-4, 0.0, 1.0, "kg m^2", "inertia I_w of one wheel with its rollers about the axle",
       "assumption: 0.25 kg disk of radius Rw"},
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
      {"motor_inductance_H", 8.9e-3, 0.0, 10.0, "H", "armature inductance La (0 makes the currents algebraic)",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_torque_constant_N_m_per_A", 0.0514, 1e-4, 10.0, "N m/A", "torque constant kt",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_back_emf_V_s_per_rad", 0.0514, 1e-4, 10.0, "V s/rad", "back-EMF constant ke (= kt in SI)",
       "Dunkermotoren GR 42x25 (secondary sources), DESIGN.md"},
      {"motor_voltage_limit_V", 24.0, 0.1, 1000.0, "V", "supply voltage: |u| is clamped to it",
       "Robotino 2 24 V supply, DESIGN.md"},
      {"pid_kp_V_s_per_rad", 7.4, 0.0, 1e4, "V s/rad", "PID proportional gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_ki_V_per_rad", 1500.0, 0.0, 1e7, "V/rad", "PID integral gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_kd_V_s2_per_rad", 7.8e-3, 0.0, 10.0, "V s^2/rad", "PID derivative gain on the motor speed error",
       "chosen: closed-loop poles near -600 rad/s (MODEL.md)"},
      {"pid_ff_back_emf", 1.0, 0.0, 1.0, "1", "feed-forward gain of ke * omega_m,ref in the motor voltage",
       "chosen (MODEL.md)"},
      {"rose_amplitude_m", 2.0, 0.01, 100.0, "m", "rose amplitude a", "seed 000 eq. 24"},
      {"rose_petals", 3.0, 0.25, 20.0, "1", "rose petal parameter k (3 petals for k = 3)", "seed 000 eq. 24"},
      {"rose_rate_rad_per_s", 0.1, 0.001, 10.0, "rad/s", "rate a of the rose angle phi = a t + phase",
       "seed 000 eq. 25"},
      {"rose_phase_rad", 5.0 * kPi / 6.0, -2.0 * kPi, 2.0 * kPi, "rad",
       "rose angle at t = 0 (5 pi/6 starts at the origin)", "seed 000 eq. 25"},
      {"start_moving", 1.0, 0.0, 1.0, "1",
       "1: start with the reference velocity; 0: start at rest (the drives then saturate)",
       "chosen (MODEL.md)"},
      {"solver_rtol", 1e-6, 1e-12, 1e-2, "1", "IDA relative tolerance", "seed 000 §4 (errors 1e-6)"},
      {"solver_atol", 1e-6, 1e-14, 1e-2, "1",
       "IDA base absolute tolerance, scaled per variable type (MODEL.md)", "seed 000 §4 (errors 1e-6)"},
      {"solver_max_step_s", 0.02, 1e-6, 1.0, "s", "largest IDA step", "seed 000 §4 (max step 0.02 s)"},
  };
  return specs;
}

std::unique_ptr<Backend> make_robotino_backend(const Params& params, double t0_s) {
  RobotinoConfig c;
  robotino::ModelParams& m = c.model;
  m.geometry.wheel_radius_m = params.get("wheel_radius_m");
  m.geometry.wheel_distance_m = params.get("wheel_distance_m");
  m.geometry.roller_max_radius_m = params.get("roller_max_radius_m");
  if (!(robotino_min_rolling_arm_m(m.geometry) > 0.0)) {
    const double needed = m.geometry.wheel_radius_m * (1.0 - std::cos(kPitch / 2));
    throw ParamError("backend robotino: roller_max_radius_m = " + number(m.geometry.roller_max_radius_m) +
                     " m must exceed wheel_radius_m * (1 - cos 30 deg) = " + number(needed) +
                     " m, or the rolling arm reaches zero at a roller switch");
  }
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
  c.rose.amplitude_m = params.get("rose_amplitude_m");
  c.rose.petals_k = params.get("rose_petals");
  c.rose.rate_rad_per_s = params.get("rose_rate_rad_per_s");
  c.rose.phase_rad = params.get("rose_phase_rad");
  const double start = params.get("start_moving");
  if (start != 0.0 && start != 1.0) {
    throw ParamError("backend robotino: start_moving = " + number(start) + " must be 0 or 1");
  }
  c.start_moving = start == 1.0;
  c.solver.rtol = params.get("solver_rtol");
  c.solver.atol = params.get("solver_atol");
  c.solver.max_step_s = params.get("solver_max_step_s");
  return std::make_unique<RobotinoBackend>(c, t0_s);
}

// Adapts the model to IdaSolver's callbacks.
class RobotinoBackend::System final : public DaeSystem {
 public:
  explicit System(const robotino::RobotinoDae& dae) : dae_(dae) {}
  int residual(double t_s, std::span<const double> y, std::span<const double> yp,
               std::span<double> r) override {
    dae_.residual(t_s, y, yp, r);
    return 0;
  }
  int jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
               DenseMatrixRef jac) override {
    dae_.jacobian(t_s, cj, y, yp, jac);
    return 0;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    dae_.roots(y, g);
    return 0;
  }

 private:
  const robotino::RobotinoDae& dae_;
};

RobotinoBackend::RobotinoBackend(const RobotinoConfig& config, double t0_s)
    : Backend("robotino", "Robotino", robotino_joint_names(), robotino_output_names(), t0_s),
      config_(config),
      dae_(config.model, config.rose),
      system_(std::make_unique<System>(dae_)) {
  const RobotinoSolverSettings& s = config_.solver;
  if (!(s.rtol > 0) || !(s.atol > 0) || !(s.max_step_s > 0)) {
    throw std::invalid_argument("robotino backend: solver tolerances and max step must be positive");
  }
  // Initial state: on the reference, wheels and rollers at 0, currents and PID integrals 0.
  std::array<double, var::kCount> y0{};
  std::array<double, var::kCount> yp0{};
  const RoseSample r0 = dae_.rose().at(t0_s);
  y0[var::kX] = r0.x_m;
  y0[var::kY] = r0.y_m;
  y0[var::kPhi] = r0.phi_rad;
  if (config_.start_moving) {
    y0[var::kVx] = r0.vx_m_per_s;
    y0[var::kVy] = r0.vy_m_per_s;
    y0[var::kOmegaZ] = r0.omega_rad_per_s;
  }
  std::array<double, var::kCount> atol{};
  std::array<double, var::kCount> id{};
  for (std::size_t j = 0; j < var::kCount; ++j) {
    atol[j] = dae_.abs_tolerance(j, s.atol);
    id[j] = dae_.differential_id(j);
  }
  static constexpr std::array<int, robotino::RobotinoDae::kRootCount> kFalling{-1, -1, -1, -1, -1, -1};
  IdaOptions options;
  options.rtol = s.rtol;
  options.atol = atol;
  options.differential = id;
  options.max_step_s = s.max_step_s;
  options.analytic_jacobian = s.analytic_jacobian;
  options.root_count = robotino::RobotinoDae::kRootCount;
  options.root_direction = kFalling;
  solver_ = std::make_unique<IdaSolver>("backend robotino", *system_, var::kCount, t0_s, y0, yp0, options);
  solver_->correct_initial_conditions(t0_s + s.max_step_s);
  stored_energy0_J_ = dae_.stored_energy_J(solver_->y());
  write_state(t0_s, mutable_joint_values(), mutable_outputs());
}

RobotinoBackend::~RobotinoBackend() = default;

void RobotinoBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  while (solver_->solve(t_s) == IdaSolver::Stop::kRoot) apply_switches();
  write_state(t_s, q, outputs);
}

void RobotinoBackend::apply_switches() {
  const double t_s = solver_->time_s();
  std::span<double> y = solver_->y();
  const std::span<const int> found = solver_->roots_found();
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const bool down = found[2 * ui] != 0;
    const bool up = found[2 * ui + 1] != 0;
    if (!down && !up) continue;
    const std::int64_t from = dae_.sector(i);
    const std::int64_t to = from + (up ? 1 : -1);
    // The roller leaving contact keeps its angle; the new one starts from its own.
    roller_base_rad_[ui][static_cast<std::size_t>(robotino_sector_roller(from))] += y[var::kRoller + ui];
    y[var::kRoller + ui] = 0.0;
    double lo = (static_cast<double>(to) - 0.5) * kPitch;
    double hi = (static_cast<double>(to) + 0.5) * kPitch;
    (up ? lo : hi) += up ? -kSwitchHysteresis_rad : kSwitchHysteresis_rad;
    dae_.set_sector(i, to, lo, hi);
    ++switch_count_[ui];
    last_switch_[ui] = {t_s, y[var::kTheta + ui], from, to};
  }
  // The side force jumps (dr_roll/dθ changes sign): restart BDF with consistent y', y_a.
  solver_->reinit(t_s, y, solver_->yp());
  solver_->correct_initial_conditions(t_s + config_.solver.max_step_s);
}

void RobotinoBackend::write_state(double t_s, std::span<double> q, std::span<double> o) const {
  const std::span<const double> y = solver_->y();
  const std::span<const double> yp = solver_->yp();
  q[kRobotinoJointX] = y[var::kX];
  q[kRobotinoJointY] = y[var::kY];
  q[kRobotinoJointPhi] = y[var::kPhi];
  const robotino::ReferenceState& ref = dae_.reference(t_s);
  o[out::kXRef] = ref.pose.x_m;
  o[out::kYRef] = ref.pose.y_m;
  o[out::kPhiRef] = ref.pose.phi_rad;
  o[out::kDx] = y[var::kX] - ref.pose.x_m;
  o[out::kDy] = y[var::kY] - ref.pose.y_m;
  o[out::kDphi] = y[var::kPhi] - ref.pose.phi_rad;
  o[out::kVx] = y[var::kVx];
  o[out::kVy] = y[var::kVy];
  o[out::kOmegaZ] = y[var::kOmegaZ];
  o[out::kVxRef] = ref.pose.vx_m_per_s;
  o[out::kVyRef] = ref.pose.vy_m_per_s;
  o[out::kOmegaZRef] = ref.pose.omega_rad_per_s;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    q[kRobotinoJointAxle1 + ui] = y[var::kTheta + ui];
    const int contact = robotino_sector_roller(dae_.sector(i));
    for (int j = 0; j < kRobotinoRollersPerWheel; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      q[robotino_roller_joint(i, j)] = roller_base_rad_[ui][uj] + (j == contact ? y[var::kRoller + ui] : 0.0);
    }
    const robotino::WheelDerived w = dae_.wheel(i, t_s, y, yp);
    o[out::kOmega1 + ui] = w.omega_rad_per_s;
    o[out::kOmegaRef1 + ui] = w.omega_ref_rad_per_s;
    o[out::kCurrent1 + ui] = y[var::kCurrent + ui];
    o[out::kVoltage1 + ui] = y[var::kVoltage + ui];
    o[out::kTorque1 + ui] = w.drive_torque_N_m;
    o[out::kMotorTorque1 + ui] = w.motor_torque_N_m;
    o[out::kForceRoll1 + ui] = y[var::kForceRoll + ui];
    o[out::kForceSide1 + ui] = y[var::kForceSide + ui];
    o[out::kContact1 + ui] = contact + 1;
    o[out::kRollerSpeed1 + ui] = w.roller_speed_rad_per_s;
    o[out::kRollingArm1 + ui] = w.rolling_arm_m;
    o[out::kPidInt1 + ui] = y[var::kPidInt + ui];
  }
  const double stored = dae_.stored_energy_J(y);
  o[out::kEnergyIn] = y[var::kEnergyIn];
  o[out::kEnergyRes] = y[var::kEnergyRes];
  o[out::kEnergyStored] = stored;
  o[out::kEnergyBalance] = y[var::kEnergyIn] - y[var::kEnergyRes] - (stored - stored_energy0_J_);
}

}  // namespace cosim::dynamics
