#include "cosim/dynamics/robotino/robotino_backend.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"
#include "cosim/dynamics/reference/rose_params.hpp"

namespace cosim::dynamics::robotino {
using reference::RoseSample;
using reference::read_rose_params;
using robotino_common::append_per_wheel_names;
using robotino_common::kRobotinoJointAxle1;
using robotino_common::kRobotinoJointPhi;
using robotino_common::kRobotinoJointX;
using robotino_common::kRobotinoJointY;
using robotino_common::kRobotinoRollerPitch_rad;
using robotino_common::kRobotinoRollersPerWheel;
using robotino_common::kRobotinoWheelCount;
using robotino_common::read_robotino_model_params;
using robotino_common::robotino_contact_sector;
using robotino_common::robotino_joint_names;
using robotino_common::robotino_roller_joint;
using robotino_common::robotino_sector_roller;

namespace {

namespace var = robotino::var;
namespace out = robotino_output;

constexpr int kWheels = kRobotinoWheelCount;
constexpr double kPitch = kRobotinoRollerPitch_rad;
// 4-point Gauss-Legendre on [−1, 1] for the quadratures (exact for degree 7 in t).
constexpr std::array<double, 4> kGaussNode{-0.86113631159405257522, -0.33998104358485626480,
                                           0.33998104358485626480, 0.86113631159405257522};
constexpr std::array<double, 4> kGaussWeight{0.34785484513745385737, 0.65214515486254614263,
                                             0.65214515486254614263, 0.34785484513745385737};
// A restart begins with this fraction of the last step: IDA's own estimate (0.5/‖y'‖_WRMS,
// ~3 µs here) assumes an error O(h·y') and wastes a dozen doublings; the error test still
// guards the first step.
constexpr double kRestartStepFraction = 0.1;
// When restarting at switches, the sector edge just crossed is moved back by this much so that
// IDA does not restart on a root; a reversal within 1e-9 rad of a switch stays with the new
// roller.
constexpr double kSwitchHysteresis_rad = 1e-9;
// A saturated drive returns to its command when the command has come back inside the limit by
// this fraction of U_max (u then steps by 24 µV at 24 V): a band wider than the command's
// interpolation error (µV), so a mode entered at a root starts on the right side of its root.
constexpr double kSaturationHysteresis = 1e-6;
constexpr std::size_t kDriveRoot = 3;  // root functions 0..2: rollers, 3..5: drives

std::vector<std::string> robotino_output_names() {
  std::vector<std::string> names{"x_ref_m",        "y_ref_m",        "phi_ref_rad",
                                 "dx_m",           "dy_m",           "dphi_rad",
                                 "vx_m_per_s",     "vy_m_per_s",     "omega_z_rad_per_s",
                                 "vx_ref_m_per_s", "vy_ref_m_per_s", "omega_z_ref_rad_per_s"};
  append_per_wheel_names(names, "omega", "_rad_per_s");
  append_per_wheel_names(names, "omega_ref", "_rad_per_s");
  append_per_wheel_names(names, "i", "_A");
  append_per_wheel_names(names, "u", "_V");
  append_per_wheel_names(names, "tau", "_N_m");
  append_per_wheel_names(names, "tau_motor", "_N_m");
  append_per_wheel_names(names, "f_roll", "_N");
  append_per_wheel_names(names, "f_side", "_N");
  append_per_wheel_names(names, "contact", "");
  append_per_wheel_names(names, "omega_roll", "_rad_per_s");
  append_per_wheel_names(names, "r_roll", "_m");
  append_per_wheel_names(names, "pid_int", "_rad");
  for (const char* name : {"energy_in_J", "energy_resistive_J", "energy_stored_J", "energy_balance_J"}) {
    names.emplace_back(name);
  }
  append_per_wheel_names(names, "saturated", "");
  append_per_wheel_names(names, "u_cmd", "_V");
  return names;
}

}  // namespace

std::unique_ptr<Backend> make_robotino_backend(const Params& params, double t0_s) {
  RobotinoConfig c;
  c.model = read_robotino_model_params(params);
  c.rose = read_rose_params(params);
  c.start_moving = robotino_common::read_switch(params, "start_moving");
  c.solver.rtol = params.get("solver_rtol");
  c.solver.atol = params.get("solver_atol");
  c.solver.max_step_s = params.get("solver_max_step_s");
  c.solver.current_atol_scale_A = params.get("solver_current_atol_scale");
  c.solver.restart_at_switch = robotino_common::read_switch(params, "solver_restart_at_switch");
  return std::make_unique<RobotinoBackend>(c, t0_s);
}

// Adapts the model to IdaSolver's callbacks, with one root function per wheel and one per drive.
// Rollers, stepping through switches: g_i = cos 3θ_i, zero exactly at θ_i = π/6 + m·π/3.
// Restarting at switches: IDA must not restart on a root, so g_i = (θ_i − lo_i)·(hi_i − θ_i) is
// positive inside the current sector widened by kSwitchHysteresis_rad on the side just entered.
// Drives: positive while the mode holds — linear: U_max − |u_cmd|; at +U_max: u_cmd − U_max
// (less the hysteresis), at −U_max the mirror image.
class RobotinoBackend::System final : public dae::DaeSystem {
 public:
  System(const robotino::RobotinoDae& dae, bool windows) : dae_(dae), windows_(windows) {}
  static constexpr int kRootCount = static_cast<int>(kDriveRoot) + kWheels;
  void set_window(std::size_t wheel, std::int64_t sector, int entered_from) {
    lo_[wheel] =
        (static_cast<double>(sector) - 0.5) * kPitch - (entered_from < 0 ? kSwitchHysteresis_rad : 0.0);
    hi_[wheel] =
        (static_cast<double>(sector) + 0.5) * kPitch + (entered_from > 0 ? kSwitchHysteresis_rad : 0.0);
  }
  int residual(double t_s, std::span<const double> y, std::span<const double> yp,
               std::span<double> r) override {
    dae_.residual(t_s, y, yp, r);
    return 0;
  }
  int jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
               dae::DenseMatrixRef jac) override {
    dae_.jacobian(t_s, cj, y, yp, jac);
    return 0;
  }
  int roots(double t_s, std::span<const double> y, std::span<const double> yp, std::span<double> g) override {
    for (std::size_t i = 0; i < 3; ++i) {
      const double theta = y[var::kTheta + i];
      g[i] = windows_ ? (theta - lo_[i]) * (hi_[i] - theta) : std::cos(3.0 * theta);
    }
    const double limit = dae_.params().voltage_limit_V;
    const double back_inside = limit * (1.0 - kSaturationHysteresis);
    for (int i = 0; i < kWheels; ++i) {
      const double command = dae_.drive_command_V(i, t_s, y, yp);
      double& gi = g[kDriveRoot + static_cast<std::size_t>(i)];
      switch (dae_.drive_mode(i)) {
        case robotino::DriveMode::kLinear: gi = limit - std::abs(command); break;
        case robotino::DriveMode::kHigh: gi = command - back_inside; break;
        case robotino::DriveMode::kLow: gi = -back_inside - command; break;
      }
    }
    return 0;
  }

 private:
  const robotino::RobotinoDae& dae_;
  bool windows_;
  std::array<double, 3> lo_{};
  std::array<double, 3> hi_{};
};

RobotinoBackend::RobotinoBackend(const RobotinoConfig& config, double t0_s)
    : Backend("robotino", "Robotino", robotino_joint_names(), robotino_output_names(), t0_s),
      config_(config),
      dae_(config.model, config.rose),
      system_(std::make_unique<System>(dae_, config.solver.restart_at_switch)),
      t_quad_s_(t0_s) {
  const RobotinoSolverSettings& s = config_.solver;
  if (!(s.rtol > 0) || !(s.atol > 0) || !(s.max_step_s > 0) || !(s.current_atol_scale_A > 0)) {
    throw std::invalid_argument("robotino backend: solver tolerances and max step must be positive");
  }
  // Initial state: on the reference, wheels and rollers at 0, currents and PID integrals 0;
  // IDACalcIC makes forces, voltages and all derivatives consistent.
  std::array<double, var::kCount> y0{};
  const std::array<double, var::kCount> yp0{};
  if (config_.start_moving) {
    const RoseSample r0 = dae_.rose().at(t0_s);
    y0[var::kVx] = r0.vx_m_per_s;
    y0[var::kVy] = r0.vy_m_per_s;
    y0[var::kOmegaZ] = r0.omega_rad_per_s;
  }
  std::array<double, var::kCount> atol{};
  std::array<double, var::kCount> id{};
  std::array<double, var::kCount> rtol_scale{};
  for (std::size_t j = 0; j < var::kCount; ++j) {
    atol[j] = dae_.abs_tolerance(j, s.atol, s.current_atol_scale_A);
    id[j] = dae_.differential_id(j);
    rtol_scale[j] = dae_.relative_tolerance_scale(j);
  }
  dae::IdaOptions options;
  options.rtol = s.rtol;
  options.atol = atol;
  options.rtol_scale = rtol_scale;
  options.differential = id;
  options.max_step_s = s.max_step_s;
  // Always the exact Jacobian: IDA's difference quotients perturb y' by c_j·δ, which at the
  // first tiny steps saturates the PID command and gives a useless matrix.
  options.analytic_jacobian = true;
  // A fresh Jacobian + BlockLu factorisation costs ~2 µs, less than the Newton failures (and
  // h/4 retries) that a stale one causes after the kinks at the roller switches.
  options.delta_cj_lsetup = 0.02;
  if (s.block_linear_solver) {
    options.block_outputs = robotino::RobotinoDae::block_outputs();
    options.block_diagonal = robotino::RobotinoDae::block_diagonal();
  }
  options.root_count = System::kRootCount;
  solver_ =
      std::make_unique<dae::IdaSolver>("backend robotino", *system_, var::kCount, t0_s, y0, yp0, options);
  stepper_ = std::make_unique<dae::EventStepper>(*solver_, static_cast<dae::EventHandler&>(*this),
                                                 static_cast<std::size_t>(options.root_count));
  solver_->correct_initial_conditions(t0_s + s.max_step_s);
  std::copy_n(solver_->consistent_y().begin(), var::kCount, y_.begin());
  std::copy_n(solver_->consistent_yp().begin(), var::kCount, yp_.begin());
  // A start at rest asks for far more than U_max: those drives start saturated.
  if (settle_drive_modes(t0_s, y_, yp_)) solver_->reinit_consistent(t0_s, y_, yp_);
  for (std::size_t i = 0; i < 3; ++i) {
    sector_[i] = robotino_contact_sector(y_[var::kTheta + i]);
    system_->set_window(i, sector_[i], 0);
  }
  stored_energy0_J_ = dae_.stored_energy_J(t0_s, y_);
  write_state(t0_s, mutable_joint_values(), mutable_outputs());
}

RobotinoBackend::~RobotinoBackend() = default;

bool RobotinoBackend::settle_drive_modes(double t_s, std::span<const double> y, std::span<const double> yp) {
  // Enter saturation beyond ±U_max, leave it inside the hysteresis band. The command depends on
  // the differential states and the rolling forces only, not on the modes, so one pass settles.
  const double limit = config_.model.voltage_limit_V;
  const double back_inside = limit * (1.0 - kSaturationHysteresis);
  bool changed = false;
  for (int i = 0; i < kWheels; ++i) {
    const double command = dae_.drive_command_V(i, t_s, y, yp);
    const robotino::DriveMode mode = dae_.drive_mode(i);
    robotino::DriveMode want = mode;
    if (mode == robotino::DriveMode::kLinear && std::abs(command) > limit) {
      want = command > 0 ? robotino::DriveMode::kHigh : robotino::DriveMode::kLow;
    } else if ((mode == robotino::DriveMode::kHigh && command < back_inside) ||
               (mode == robotino::DriveMode::kLow && command > -back_inside)) {
      want = robotino::DriveMode::kLinear;
    }
    if (want == mode) continue;
    dae_.set_drive_mode(i, want);
    ++saturation_switch_count_[static_cast<std::size_t>(i)];
    changed = true;
  }
  return changed;
}

void RobotinoBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  stepper_->advance_to(t_s);
  integrate_quadratures_to(t_s);
  stepper_->state_at(t_s, y_, yp_);
  write_state(t_s, q, outputs);
}

void RobotinoBackend::before_step(double t_n_s) { integrate_quadratures_to(t_n_s); }

void RobotinoBackend::integrate_quadratures_to(double t_s) {
  const double a = t_quad_s_;
  if (!(t_s > a)) return;
  const double half = 0.5 * (t_s - a);
  const double mid = 0.5 * (t_s + a);
  std::array<double, robotino::quad::kCount> sum{};
  std::array<double, robotino::quad::kCount> rate{};
  for (std::size_t k = 0; k < kGaussNode.size(); ++k) {
    const double t = mid + half * kGaussNode[k];
    solver_->interpolate(t, y_node_, {});
    dae_.quadrature_rates(t, y_node_, rate);
    for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += kGaussWeight[k] * rate[j];
  }
  for (std::size_t i = 0; i < 3; ++i) {
    const auto roller = static_cast<std::size_t>(robotino_sector_roller(sector_[i]));
    roller_rad_[i][roller] += half * sum[robotino::quad::kRoller + i];
  }
  energy_in_J_ += half * sum[robotino::quad::kPowerIn];
  energy_res_J_ += half * sum[robotino::quad::kPowerRes];
  t_quad_s_ = t_s;
}

dae::EventHandler::AfterRoots RobotinoBackend::on_roots(double t_s, std::span<const int> found) {
  integrate_quadratures_to(t_s);
  solver_->interpolate(t_s, y_node_, yp_);
  bool drive_switched = false;
  for (int i = 0; i < kWheels; ++i) {
    if (found[kDriveRoot + static_cast<std::size_t>(i)] == 0) continue;
    // Linear → the side the command left by; saturated → linear. (The root is returned just
    // past the crossing; settle_drive_modes below agrees with this within its band.)
    const double command = dae_.drive_command_V(i, t_s, y_node_, yp_);
    using robotino::DriveMode;
    const DriveMode to = dae_.drive_mode(i) != DriveMode::kLinear ? DriveMode::kLinear
                         : command > 0                            ? DriveMode::kHigh
                                                                  : DriveMode::kLow;
    dae_.set_drive_mode(i, to);
    ++saturation_switch_count_[static_cast<std::size_t>(i)];
    drive_switched = true;
  }
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    if (found[ui] == 0) continue;
    // θ is at one edge of the old sector: the nearer edge tells the direction.
    const double theta = y_node_[var::kTheta + ui];
    const std::int64_t from = sector_[ui];
    const std::int64_t to = theta > static_cast<double>(from) * kPitch ? from + 1 : from - 1;
    sector_[ui] = to;
    system_->set_window(ui, to, to > from ? -1 : 1);
    ++switch_count_[ui];
    last_switch_[ui] = {t_s, theta, from, to};
  }
  // A drive switch changes the equations: the rest of the step was taken with the old ones.
  if (!drive_switched && !config_.solver.restart_at_switch) return AfterRoots::kStepHolds;
  // dr_roll/dθ changes sign, so the side forces and accelerations jump: restart the BDF
  // history with consistent algebraic variables and derivatives (Newton as IDACalcIC does; it
  // would allocate its work vectors at each of the ~900 restarts).
  const double h_last = solver_->last_step_s();
  solver_->interpolate(t_s, y_node_, yp_);
  // A root can be a graze that does not cross, or one drive's switch can be another's
  // (shared chassis): the modes must agree with the commands before the restart.
  settle_drive_modes(t_s, y_node_, yp_);
  solver_->reinit_consistent(t_s, y_node_, yp_);
  if (h_last > 0.0) solver_->set_initial_step(kRestartStepFraction * h_last);
  return AfterRoots::kRestarted;
}

void RobotinoBackend::write_state(double t_s, std::span<double> q, std::span<double> o) const {
  const std::span<const double> y = y_;
  const std::span<const double> yp = yp_;
  const robotino_common::ReferenceState& ref = dae_.reference(t_s);
  q[kRobotinoJointX] = ref.pose.x_m + y[var::kDx];
  q[kRobotinoJointY] = ref.pose.y_m + y[var::kDy];
  q[kRobotinoJointPhi] = ref.pose.phi_rad + y[var::kDphi];
  o[out::kXRef] = ref.pose.x_m;
  o[out::kYRef] = ref.pose.y_m;
  o[out::kPhiRef] = ref.pose.phi_rad;
  o[out::kDx] = y[var::kDx];
  o[out::kDy] = y[var::kDy];
  o[out::kDphi] = y[var::kDphi];
  o[out::kVx] = y[var::kVx];
  o[out::kVy] = y[var::kVy];
  o[out::kOmegaZ] = y[var::kOmegaZ];
  o[out::kVxRef] = ref.pose.vx_m_per_s;
  o[out::kVyRef] = ref.pose.vy_m_per_s;
  o[out::kOmegaZRef] = ref.pose.omega_rad_per_s;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    q[kRobotinoJointAxle1 + ui] = y[var::kTheta + ui];
    for (int j = 0; j < kRobotinoRollersPerWheel; ++j) {
      q[robotino_roller_joint(i, j)] = roller_rad_[ui][static_cast<std::size_t>(j)];
    }
    const robotino::WheelDerived w = dae_.wheel(i, t_s, y, yp);
    o[out::kOmega1 + ui] = w.omega_rad_per_s;
    o[out::kOmegaRef1 + ui] = w.omega_ref_rad_per_s;
    o[out::kCurrent1 + ui] = y[var::kCurrent + ui];
    // From the model at the interpolated state: the algebraic u's own interpolant can overshoot
    // the limit near a saturation kink.
    o[out::kVoltage1 + ui] = w.voltage_V;
    o[out::kTorque1 + ui] = w.drive_torque_N_m;
    o[out::kMotorTorque1 + ui] = w.motor_torque_N_m;
    o[out::kForceRoll1 + ui] = y[var::kForceRoll + ui];
    o[out::kForceSide1 + ui] = y[var::kForceSide + ui];
    o[out::kContact1 + ui] = robotino_sector_roller(sector_[ui]) + 1;
    o[out::kRollerSpeed1 + ui] = w.roller_speed_rad_per_s;
    o[out::kRollingArm1 + ui] = w.rolling_arm_m;
    o[out::kPidInt1 + ui] = y[var::kPidInt + ui];
    o[out::kSaturated1 + ui] = static_cast<double>(static_cast<int>(dae_.drive_mode(i)));
    o[out::kCommand1 + ui] = w.command_V;
  }
  const double stored = dae_.stored_energy_J(t_s, y);
  o[out::kEnergyIn] = energy_in_J_;
  o[out::kEnergyRes] = energy_res_J_;
  o[out::kEnergyStored] = stored;
  o[out::kEnergyBalance] = energy_in_J_ - energy_res_J_ - (stored - stored_energy0_J_);
}

}  // namespace cosim::dynamics::robotino
