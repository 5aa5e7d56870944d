#include "cosim/dynamics/robotino/robotino_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cosim::dynamics::robotino {
using reference::RoseParams;
using reference::RoseSample;
using robotino_common::DriveConstants;
using robotino_common::ModelParams;
using robotino_common::ReferenceState;
using robotino_common::RobotinoGeometry;
using robotino_common::RollerContact;
using robotino_common::WheelReference;
using robotino_common::drive_command_V;
using robotino_common::drive_constants;
using robotino_common::kRobotinoWheelCount;
using robotino_common::robotino_min_rolling_arm_m;
using robotino_common::robotino_roller_contact;
using robotino_common::rose_reference_state;
using robotino_common::wheel_reference;

namespace {

// cos δ_i, sin δ_i exactly (sin π = 0, not 1.2e-16), as robotino_geometry.cpp does.
constexpr double kHalfSqrt3 = 0.86602540378443864676;
constexpr std::array<double, 3> kCosDelta{0.5, -1.0, 0.5};
constexpr std::array<double, 3> kSinDelta{kHalfSqrt3, 0.0, -kHalfSqrt3};

// Partial derivatives of a scalar w.r.t. what it may depend on: y (φ via δφ, vx, vy, Ω, θ_i)
// and y' (ax = v̇x, ay = v̇y, wd = Ω̇).
struct Grad {
  double phi = 0, vx = 0, vy = 0, w = 0, theta = 0;
  double ax = 0, ay = 0, wd = 0;
};

Grad operator*(double k, const Grad& g) {
  return {k * g.phi, k * g.vx, k * g.vy, k * g.w, k * g.theta, k * g.ax, k * g.ay, k * g.wd};
}
Grad operator-(const Grad& a, const Grad& b) {
  return {a.phi - b.phi,     a.vx - b.vx, a.vy - b.vy, a.w - b.w,
          a.theta - b.theta, a.ax - b.ax, a.ay - b.ay, a.wd - b.wd};
}
Grad operator+(const Grad& a, const Grad& b) {
  return {a.phi + b.phi,     a.vx + b.vx, a.vy + b.vy, a.w + b.w,
          a.theta + b.theta, a.ax + b.ax, a.ay + b.ay, a.wd + b.wd};
}

// cos φ, sin φ of the measured heading φ = φ_ref(t) + δφ.
struct Heading {
  double c, s;
};

Heading heading(const ReferenceState& ref, std::span<const double> y) {
  const double phi = ref.pose.phi_rad + y[var::kDphi];
  return {std::cos(phi), std::sin(phi)};
}

// cos φ_ref, sin φ_ref: the heading of eq. 22 when the reference feeds the drivers.
Heading reference_heading(const ReferenceState& ref) {
  return {std::cos(ref.pose.phi_rad), std::sin(ref.pose.phi_rad)};
}

// The contact roller's rolling arm at wheel angle θ: r_roll(θ_b) and its θ-derivatives.
struct Arm {
  int roller;
  double r, dr, ddr;
};

Arm rolling_arm(const RobotinoGeometry& g, double theta) {
  const RollerContact contact = robotino_roller_contact(theta);
  const double cb = std::cos(contact.theta_b_rad);
  const double sb = std::sin(contact.theta_b_rad);
  return {contact.roller, g.roller_max_radius_m - g.wheel_radius_m * (1.0 - cb), -g.wheel_radius_m * sb,
          -g.wheel_radius_m * cb};
}

// Kinematics of one wheel from (y, y'): the no-slip constraints solved for the wheel and
// roller speeds, their time derivatives, the reference wheel speed (eq. 22), and gradients.
struct WheelKin {
  double c = 0, s = 0;    // cos φ_i, sin φ_i
  double vs = 0, vr = 0;  // v_C·x_i, v_C·y_i [m/s]
  double omega = 0, omega_dot = 0;
  Arm arm{};
  double roll = 0, roll_dot = 0;  // ω_roll, dω_roll/dt
  double rc = 0, rs = 0;          // cos, sin of the heading eq. 22 uses (measured or reference)
  double ref = 0, ref_dot = 0;    // ω_i,ref and its derivative
  Grad g_omega, g_omega_dot, g_roll, g_roll_dot, g_ref, g_ref_dot;
};

WheelKin wheel_kin(int i, const ModelParams& p, const ReferenceState& ref, Heading h, Heading hr,
                   std::span<const double> y, std::span<const double> yp) {
  const double rw = p.geometry.wheel_radius_m;
  const double big_r = p.geometry.wheel_distance_m;
  const double vx = y[var::kVx];
  const double vy = y[var::kVy];
  const double w = y[var::kOmegaZ];
  const double ax = yp[var::kVx];
  const double ay = yp[var::kVy];
  const double wd = yp[var::kOmegaZ];
  const auto ui = static_cast<std::size_t>(i);

  WheelKin k;
  k.c = h.c * kCosDelta[ui] - h.s * kSinDelta[ui];
  k.s = h.s * kCosDelta[ui] + h.c * kSinDelta[ui];
  const double c = k.c;
  const double s = k.s;
  k.vs = vx * c + vy * s;
  k.vr = -vx * s + vy * c;
  const double as = ax * c + ay * s;
  const double ar = -ax * s + ay * c;

  // Rolling without slip: v_C·y_i + R·Ω + Rw·ω_i = 0 (eqs. 8, 21).
  k.omega = -(k.vr + big_r * w) / rw;
  k.g_omega = {k.vs / rw, s / rw, -c / rw, -big_r / rw, 0, 0, 0, 0};
  // Its time derivative, with dy_i/dt = −Ω·x_i.
  k.omega_dot = -(ar - w * k.vs + big_r * wd) / rw;
  k.g_omega_dot = {(as + w * k.vr) / rw, w * c / rw, w * s / rw, k.vs / rw, 0, s / rw, -c / rw, -big_r / rw};

  // Side rolling of the contact roller: v_C·x_i = r_roll·ω_roll (eqs. 12-13).
  k.arm = rolling_arm(p.geometry, y[var::kTheta + ui]);
  const double r = k.arm.r;
  const double dr = k.arm.dr;
  const double r2 = r * r;
  k.roll = k.vs / r;
  k.g_roll = {k.vr / r, c / r, s / r, 0, -k.vs * dr / r2, 0, 0, 0};
  // dω_roll/dt = (a·x_i + Ω·v·y_i)/r − v_ix·r'·ω_i/r²  (dx_i/dt = Ω·y_i, dθ/dt = ω_i).
  const double num = as + w * k.vr;
  k.roll_dot = num / r - k.vs * dr * k.omega / r2;
  k.g_roll_dot.phi = (ar - w * k.vs) / r - dr * (k.vr * k.omega + k.vs * k.g_omega.phi) / r2;
  k.g_roll_dot.vx = -w * s / r - dr * (c * k.omega + k.vs * k.g_omega.vx) / r2;
  k.g_roll_dot.vy = w * c / r - dr * (s * k.omega + k.vs * k.g_omega.vy) / r2;
  k.g_roll_dot.w = k.vr / r - dr * k.vs * k.g_omega.w / r2;
  k.g_roll_dot.theta = -num * dr / r2 - k.vs * k.omega * (k.arm.ddr / r2 - 2.0 * dr * dr / (r2 * r));
  k.g_roll_dot.ax = c / r;
  k.g_roll_dot.ay = s / r;

  // Reference wheel speed, eq. 22: with the measured heading φ_i (then it depends on δφ and its
  // derivative on Ω), or with the reference heading (the seed's Reference feeds the drivers;
  // then a function of t only).
  const RoseSample& rs = ref.pose;
  const bool measured = !p.reference_heading;
  k.rc = measured ? c : hr.c * kCosDelta[ui] - hr.s * kSinDelta[ui];
  k.rs = measured ? s : hr.s * kCosDelta[ui] + hr.c * kSinDelta[ui];
  const WheelReference wr = wheel_reference(p, ref, k.rc, k.rs, measured ? w : rs.omega_rad_per_s);
  k.ref = wr.omega_rad_per_s;
  k.ref_dot = wr.omega_dot_rad_per_s2;
  const double ref_side = wr.side_rad_per_s;
  if (measured) {
    k.g_ref = {ref_side, 0, 0, 0, 0, 0, 0, 0};
    k.g_ref_dot = {(ref.ax_m_per_s2 * c + ref.ay_m_per_s2 * s) / rw +
                       w * (-rs.vx_m_per_s * s + rs.vy_m_per_s * c) / rw,
                   0,
                   0,
                   ref_side,
                   0,
                   0,
                   0,
                   0};
  }
  return k;
}

// Voltage command of wheel i before the limit (motor side, §3.3: ω_m = ω/k_gear): feed-forward
// of the back-EMF and of the reference inertial load, then PID on the motor speed error.
struct Command {
  double u = 0;
  Grad g;  // ∂u/∂(kinematic variables); ∂u/∂E_i = Ki separately
};

Command pid_command(const ModelParams& p, double k_gear, double wheel_inertia_eff, const ReferenceState& ref,
                    const WheelKin& k, double integral) {
  const double e = (k.ref - k.omega) / k_gear;
  const double e_dot = (k.ref_dot - k.omega_dot) / k_gear;
  Command cmd;
  // The value is the shared drive law (robotino_drive.hpp); its gradient is this model's.
  cmd.u = drive_command_V(p, {k_gear, wheel_inertia_eff}, ref, k.rc, k.rs, {k.ref, k.ref_dot, 0.0}, e, e_dot,
                          integral);
  cmd.g = (p.ff_back_emf * p.back_emf_V_s_per_rad / k_gear) * k.g_ref +
          (p.kp_V_s_per_rad / k_gear) * (k.g_ref - k.g_omega) +
          (p.kd_V_s2_per_rad / k_gear) * (k.g_ref_dot - k.g_omega_dot);
  if (p.ff_inertia != 0.0) {
    // ∂ of the inertial feed-forward: the rolling force's reference direction turns with φ.
    Grad g_f;
    if (!p.reference_heading) g_f.phi = 2.0 / 3.0 * p.mass_kg * (-k.c * ref.ax_m_per_s2 - k.s * ref.ay_m_per_s2);
    const double scale = p.ff_inertia * p.resistance_ohm * k_gear / p.torque_constant_N_m_per_A;
    const double rw = p.geometry.wheel_radius_m;
    cmd.g = cmd.g + scale * (wheel_inertia_eff * k.g_ref_dot - rw * g_f);
  }
  return cmd;
}

}  // namespace

RobotinoDae::RobotinoDae(const ModelParams& params, const RoseParams& rose)
    : p_(params), rose_(rose), cached_t_s_(std::numeric_limits<double>::quiet_NaN()) {
  const bool valid = p_.mass_kg > 0 && p_.yaw_inertia_kg_m2 > 0 && p_.wheel_inertia_kg_m2 >= 0 &&
                     p_.roller_inertia_kg_m2 >= 0 && p_.rotor_inertia_kg_m2 >= 0 && p_.gear_ratio > 0 &&
                     p_.resistance_ohm > 0 && p_.inductance_H >= 0 && p_.torque_constant_N_m_per_A > 0 &&
                     p_.back_emf_V_s_per_rad > 0 && p_.voltage_limit_V > 0 && p_.antiwindup_time_s >= 0 &&
                     p_.geometry.wheel_radius_m > 0 && p_.geometry.wheel_distance_m > 0;
  if (!valid) {
    throw std::invalid_argument(
        "robotino model: mass, yaw inertia, gear ratio, resistance, motor constants, voltage limit and "
        "geometry must be positive; the other inertias, the inductance and the anti-windup time must be >= 0");
  }
  if (!(robotino_min_rolling_arm_m(p_.geometry) > 0.0)) {
    throw std::invalid_argument("robotino model: the rolling arm reaches zero at a roller switch");
  }
  const DriveConstants d = drive_constants(p_);
  k_gear_ = d.k_gear;
  wheel_inertia_eff_ = d.wheel_inertia_eff_kg_m2;
}

std::span<const std::size_t> RobotinoDae::block_outputs() {
  static constexpr std::array<std::size_t, 2> kOutputs{var::kDx, var::kDy};
  return kOutputs;
}

std::span<const std::size_t> RobotinoDae::block_diagonal() {
  using namespace var;
  static constexpr std::array<std::size_t, 9> kDiagonal{kForceRoll, kForceRoll + 1, kForceRoll + 2,
                                                        kForceSide, kForceSide + 1, kForceSide + 2,
                                                        kVoltage,   kVoltage + 1,   kVoltage + 2};
  return kDiagonal;
}

double RobotinoDae::differential_id(std::size_t index) const {
  if (index >= var::kForceRoll) return 0.0;
  if (index >= var::kCurrent && index < var::kCurrent + 3 && p_.inductance_H == 0.0) return 0.0;
  return 1.0;
}

double RobotinoDae::abs_tolerance(std::size_t index, double base_atol, double current_scale_A) const {
  // Each weight is base_atol of the quantity's natural size; see MODEL.md "Solver".
  if (index >= var::kForceRoll) return 10.0 * base_atol;        // N and V; not in the error test
  if (index >= var::kPidInt) return p_.gear_ratio * base_atol;  // motor-side rad = base at the wheel
  if (index >= var::kCurrent) return current_scale_A * base_atol;  // A: the post-switch transients
  if (index >= var::kTheta) return base_atol;                   // rad
  if (index >= var::kVx) return 10.0 * base_atol;               // m/s, rad/s
  return base_atol;                                             // pose deviation m, rad
}

double RobotinoDae::relative_tolerance_scale(std::size_t index) const {
  return index >= var::kTheta && index < var::kTheta + 3 ? 0.0 : 1.0;
}

const ReferenceState& RobotinoDae::reference(double t_s) const {
  if (t_s != cached_t_s_) {
    cached_ref_ = rose_reference_state(rose_, t_s);
    cached_t_s_ = t_s;
  }
  return cached_ref_;
}

void RobotinoDae::residual(double t_s, std::span<const double> y, std::span<const double> yp,
                           std::span<double> r) const {
  using namespace var;
  const ReferenceState& ref = reference(t_s);
  const Heading h = heading(ref, y);
  const Heading hr = reference_heading(ref);
  const double rw = p_.geometry.wheel_radius_m;
  const double big_r = p_.geometry.wheel_distance_m;

  r[kDx] = yp[kDx] - (y[kVx] - ref.pose.vx_m_per_s);
  r[kDy] = yp[kDy] - (y[kVy] - ref.pose.vy_m_per_s);
  r[kDphi] = yp[kDphi] - (y[kOmegaZ] - ref.pose.omega_rad_per_s);
  double fx_world = 0.0;
  double fy_world = 0.0;
  double f_roll_sum = 0.0;
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const WheelKin k = wheel_kin(i, p_, ref, h, hr, y, yp);
    const double f_roll = y[kForceRoll + ui];
    const double f_side = y[kForceSide + ui];
    const double current = y[kCurrent + ui];
    const double u = y[kVoltage + ui];
    // Ground force on the wheel at P_i in the world frame: F_ix·x_i + F_iy·y_i.
    fx_world += f_side * k.c - f_roll * k.s;
    fy_world += f_side * k.s + f_roll * k.c;
    f_roll_sum += f_roll;

    r[kTheta + ui] = yp[kTheta + ui] - k.omega;
    // Armature: La·di/dt = u − Ra·i − ke·ω_m, ω_m = ω/k_gear.
    r[kCurrent + ui] = p_.inductance_H * yp[kCurrent + ui] + p_.resistance_ohm * current +
                       p_.back_emf_V_s_per_rad * k.omega / k_gear_ - u;
    const Command cmd = pid_command(p_, k_gear_, wheel_inertia_eff_, ref, k, y[kPidInt + ui]);
    const DriveMode mode = modes_[ui];
    // PID integral; while the drive saturates, back-calculation holds the command near the
    // limit (anti-windup), so leaving saturation does not overshoot by a wound-up integral.
    r[kPidInt + ui] = yp[kPidInt + ui] - (k.ref - k.omega) / k_gear_ - antiwindup_rate(mode, cmd.u);
    // Wheel spin with the rotor reflected through the reducer (τ_m = k_gear·τ_i):
    // I_W·ω̇ = kt·i/k_gear + Rw·F_iy, I_W = I_w + J_m/k_gear².
    r[kForceRoll + ui] =
        wheel_inertia_eff_ * k.omega_dot - p_.torque_constant_N_m_per_A * current / k_gear_ - rw * f_roll;
    // Contact roller spin about its axis: I_r·ω̇_roll = −r_roll·F_ix.
    r[kForceSide + ui] = p_.roller_inertia_kg_m2 * k.roll_dot + k.arm.r * f_side;
    r[kVoltage + ui] = u - applied_voltage(mode, cmd.u);
  }
  // Chassis with wheels: m·a_C = Σ F_i, I_z·Ω̇ = R·Σ F_iy.
  r[kVx] = p_.mass_kg * yp[kVx] - fx_world;
  r[kVy] = p_.mass_kg * yp[kVy] - fy_world;
  r[kOmegaZ] = p_.yaw_inertia_kg_m2 * yp[kOmegaZ] - big_r * f_roll_sum;
}

void RobotinoDae::jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
                           dae::DenseMatrixRef jac) const {
  using namespace var;
  const ReferenceState& ref = reference(t_s);
  const Heading h = heading(ref, y);
  const Heading hr = reference_heading(ref);
  const double rw = p_.geometry.wheel_radius_m;
  const double big_r = p_.geometry.wheel_distance_m;
  for (std::size_t j = 0; j < kCount; ++j) {
    for (std::size_t i = 0; i < kCount; ++i) jac(i, j) = 0.0;
  }
  // Row `row` += k·g over the kinematic columns (y' parts scaled by c_j).
  const auto add = [&](std::size_t row, double k, const Grad& g, std::size_t theta_col) {
    jac(row, kDphi) += k * g.phi;
    jac(row, kVx) += k * (g.vx + cj * g.ax);
    jac(row, kVy) += k * (g.vy + cj * g.ay);
    jac(row, kOmegaZ) += k * (g.w + cj * g.wd);
    jac(row, theta_col) += k * g.theta;
  };

  jac(kDx, kDx) = cj;
  jac(kDx, kVx) = -1.0;
  jac(kDy, kDy) = cj;
  jac(kDy, kVy) = -1.0;
  jac(kDphi, kDphi) = cj;
  jac(kDphi, kOmegaZ) = -1.0;
  jac(kVx, kVx) = p_.mass_kg * cj;
  jac(kVy, kVy) = p_.mass_kg * cj;
  jac(kOmegaZ, kOmegaZ) = p_.yaw_inertia_kg_m2 * cj;
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const std::size_t th = kTheta + ui;
    const WheelKin k = wheel_kin(i, p_, ref, h, hr, y, yp);
    const double f_roll = y[kForceRoll + ui];
    const double f_side = y[kForceSide + ui];

    jac(kVx, kDphi) += f_side * k.s + f_roll * k.c;
    jac(kVx, kForceSide + ui) = -k.c;
    jac(kVx, kForceRoll + ui) = k.s;
    jac(kVy, kDphi) += -(f_side * k.c - f_roll * k.s);
    jac(kVy, kForceSide + ui) = -k.s;
    jac(kVy, kForceRoll + ui) = -k.c;
    jac(kOmegaZ, kForceRoll + ui) = -big_r;

    jac(th, th) = cj;
    add(th, -1.0, k.g_omega, th);

    jac(kCurrent + ui, kCurrent + ui) = p_.inductance_H * cj + p_.resistance_ohm;
    add(kCurrent + ui, p_.back_emf_V_s_per_rad / k_gear_, k.g_omega, th);
    jac(kCurrent + ui, kVoltage + ui) = -1.0;

    jac(kPidInt + ui, kPidInt + ui) = cj;
    add(kPidInt + ui, -1.0 / k_gear_, k.g_ref - k.g_omega, th);
    const Command cmd = pid_command(p_, k_gear_, wheel_inertia_eff_, ref, k, y[kPidInt + ui]);
    const DriveMode mode = modes_[ui];
    if (mode != DriveMode::kLinear && p_.ki_V_per_rad > 0.0 && p_.antiwindup_time_s > 0.0) {
      // −(±U_max − u_cmd)/(Ki·T_t): u_cmd depends on the kinematics and on E (through Ki).
      const double k_aw = 1.0 / (p_.ki_V_per_rad * p_.antiwindup_time_s);
      add(kPidInt + ui, k_aw, cmd.g, th);
      jac(kPidInt + ui, kPidInt + ui) += p_.ki_V_per_rad * k_aw;
    }

    add(kForceRoll + ui, wheel_inertia_eff_, k.g_omega_dot, th);
    jac(kForceRoll + ui, kCurrent + ui) = -p_.torque_constant_N_m_per_A / k_gear_;
    jac(kForceRoll + ui, kForceRoll + ui) = -rw;

    add(kForceSide + ui, p_.roller_inertia_kg_m2, k.g_roll_dot, th);
    jac(kForceSide + ui, th) += k.arm.dr * f_side;
    jac(kForceSide + ui, kForceSide + ui) = k.arm.r;

    jac(kVoltage + ui, kVoltage + ui) = 1.0;
    if (mode == DriveMode::kLinear) {  // saturated: u does not depend on the state
      add(kVoltage + ui, -1.0, cmd.g, th);
      jac(kVoltage + ui, kPidInt + ui) = -p_.ki_V_per_rad;
    }
  }
}

void RobotinoDae::quadrature_rates(double t_s, std::span<const double> y, std::span<double> q) const {
  using namespace var;
  // Only the heading is needed: skip the reference accelerations (and the cache).
  const double phi = rose_.at(t_s).phi_rad + y[kDphi];
  const Heading h{std::cos(phi), std::sin(phi)};
  q[quad::kPowerIn] = 0.0;
  q[quad::kPowerRes] = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    const double c = h.c * kCosDelta[i] - h.s * kSinDelta[i];
    const double s = h.s * kCosDelta[i] + h.c * kSinDelta[i];
    q[quad::kRoller + i] = (y[kVx] * c + y[kVy] * s) / rolling_arm(p_.geometry, y[kTheta + i]).r;
    q[quad::kPowerIn] += y[kVoltage + i] * y[kCurrent + i];
    q[quad::kPowerRes] += p_.resistance_ohm * y[kCurrent + i] * y[kCurrent + i];
  }
}

WheelDerived RobotinoDae::wheel(int i, double t_s, std::span<const double> y,
                                std::span<const double> yp) const {
  const ReferenceState& ref = reference(t_s);
  const WheelKin k = wheel_kin(i, p_, ref, heading(ref, y), reference_heading(ref), y, yp);
  WheelDerived d{};
  d.omega_rad_per_s = k.omega;
  d.omega_ref_rad_per_s = k.ref;
  d.motor_torque_N_m = p_.torque_constant_N_m_per_A * y[var::kCurrent + static_cast<std::size_t>(i)];
  // Reducer: τ_m = k_gear·τ_i, and the rotor takes J_m·ω̇_m of the electromagnetic torque.
  d.drive_torque_N_m = (d.motor_torque_N_m - p_.rotor_inertia_kg_m2 * k.omega_dot / k_gear_) / k_gear_;
  const Command cmd =
      pid_command(p_, k_gear_, wheel_inertia_eff_, ref, k, y[var::kPidInt + static_cast<std::size_t>(i)]);
  d.command_V = cmd.u;
  d.voltage_V = applied_voltage(modes_[static_cast<std::size_t>(i)], cmd.u);
  d.side_velocity_m_per_s = k.vs;
  d.rolling_arm_m = k.arm.r;
  d.roller_speed_rad_per_s = k.roll;
  d.contact_roller = k.arm.roller;
  return d;
}

double RobotinoDae::drive_command_V(int i, double t_s, std::span<const double> y,
                                    std::span<const double> yp) const {
  const auto ui = static_cast<std::size_t>(i);
  const ReferenceState& ref = reference(t_s);
  WheelKin k = wheel_kin(i, p_, ref, heading(ref, y), reference_heading(ref), y, yp);
  if (wheel_inertia_eff_ > 0.0) {
    // ω̇ from the wheel-spin equation (D3) instead of y': event functions then follow the
    // solution's interpolant, whose error the solver controls, not its derivative (right after
    // a restart, an order-1 step's y' is only the step's average).
    k.omega_dot = (p_.torque_constant_N_m_per_A * y[var::kCurrent + ui] / k_gear_ +
                   p_.geometry.wheel_radius_m * y[var::kForceRoll + ui]) /
                  wheel_inertia_eff_;
  }
  return pid_command(p_, k_gear_, wheel_inertia_eff_, ref, k, y[var::kPidInt + ui]).u;
}

double RobotinoDae::applied_voltage(DriveMode mode, double command_V) const {
  switch (mode) {
    case DriveMode::kHigh: return p_.voltage_limit_V;
    case DriveMode::kLow: return -p_.voltage_limit_V;
    case DriveMode::kLinear: break;
  }
  return command_V;
}

double RobotinoDae::antiwindup_rate(DriveMode mode, double command_V) const {
  if (mode == DriveMode::kLinear || p_.ki_V_per_rad == 0.0 || p_.antiwindup_time_s == 0.0) return 0.0;
  return (applied_voltage(mode, command_V) - command_V) / (p_.ki_V_per_rad * p_.antiwindup_time_s);
}

double RobotinoDae::stored_energy_J(double t_s, std::span<const double> y) const {
  using namespace var;
  const double vx = y[kVx];
  const double vy = y[kVy];
  const double w = y[kOmegaZ];
  double e = 0.5 * p_.mass_kg * (vx * vx + vy * vy) + 0.5 * p_.yaw_inertia_kg_m2 * w * w;
  const std::array<double, kCount> no_rates{};
  const ReferenceState& ref = reference(t_s);
  const Heading h = heading(ref, y);
  for (int i = 0; i < kRobotinoWheelCount; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const WheelKin k = wheel_kin(i, p_, ref, h, reference_heading(ref), y, no_rates);
    e += 0.5 * wheel_inertia_eff_ * k.omega * k.omega;
    e += 0.5 * p_.roller_inertia_kg_m2 * k.roll * k.roll;
    e += 0.5 * p_.inductance_H * y[kCurrent + ui] * y[kCurrent + ui];
  }
  return e;
}

}  // namespace cosim::dynamics::robotino
