#include "cosim/dynamics/robotino_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cosim::dynamics::robotino {
namespace {

constexpr int kWheels = kRobotinoWheelCount;

// cos δ_i, sin δ_i exactly (sin π = 0, not 1.2e-16), as robotino_geometry.cpp does.
constexpr double kHalfSqrt3 = 0.86602540378443864676;
constexpr std::array<double, 3> kCosDelta{0.5, -1.0, 0.5};
constexpr std::array<double, 3> kSinDelta{kHalfSqrt3, 0.0, -kHalfSqrt3};

// Partial derivatives of a scalar w.r.t. the variables it may depend on: y (φ, vx, vy, Ω, θ_i)
// and y' (ax = v̇x, ay = v̇y, wd = Ω̇).
struct Grad {
  double phi = 0, vx = 0, vy = 0, w = 0, theta = 0;
  double ax = 0, ay = 0, wd = 0;
};

Grad operator*(double k, const Grad& g) {
  return {k * g.phi, k * g.vx, k * g.vy, k * g.w, k * g.theta, k * g.ax, k * g.ay, k * g.wd};
}
Grad operator-(const Grad& a, const Grad& b) {
  return {a.phi - b.phi, a.vx - b.vx, a.vy - b.vy, a.w - b.w,
          a.theta - b.theta, a.ax - b.ax, a.ay - b.ay, a.wd - b.wd};
}
Grad operator+(const Grad& a, const Grad& b) {
  return {a.phi + b.phi, a.vx + b.vx, a.vy + b.vy, a.w + b.w,
          a.theta + b.theta, a.ax + b.ax, a.ay + b.ay, a.wd + b.wd};
}

// Kinematics of one wheel from (y, y'): the no-slip constraints solved for the wheel and
// roller speeds, their time derivatives, the reference wheel speed (eq. 22), and gradients.
struct WheelKin {
  double c = 0, s = 0;          // cos φ_i, sin φ_i
  double vs = 0, vr = 0;        // v_C·x_i, v_C·y_i [m/s]
  double as = 0, ar = 0;        // a_C·x_i, a_C·y_i [m/s²]
  double omega = 0, omega_dot = 0;
  double thb = 0, r = 0, dr = 0, ddr = 0;  // θ_b, r_roll and its θ-derivatives
  double roll = 0, roll_dot = 0;           // ω_roll, dω_roll/dt
  double ref = 0, ref_dot = 0;             // ω_i,ref and its derivative
  Grad g_omega, g_omega_dot, g_roll, g_roll_dot, g_ref, g_ref_dot;
};

}  // namespace

ReferenceState rose_reference_state(const RoseReference& rose, double t_s) {
  ReferenceState out;
  out.pose = rose.at(t_s);
  const RoseParams& p = rose.params();
  const double a = p.amplitude_m;
  const double k = p.petals_k;
  const double rate = p.rate_rad_per_s;
  const double varphi = rate * t_s + p.phase_rad;
  const double x = k * varphi;
  const double sx = std::sin(x);
  const double cx = std::cos(x);
  const double sv = std::sin(varphi);
  const double cv = std::cos(varphi);
  // (Ẍ, Ÿ) = a·rate²·Rot(ϕ)·(−(1 + k²)·cos kϕ, −2k·sin kϕ)
  const double u = -(1.0 + k * k) * cx;
  const double v = -2.0 * k * sx;
  out.ax_m_per_s2 = a * rate * rate * (u * cv - v * sv);
  out.ay_m_per_s2 = a * rate * rate * (u * sv + v * cv);
  // ω = rate·(2k²s² + (k²+1)c²)/(k²s² + c²)  ⇒  ω̇ = −2·rate²·k³·(k²−1)·s·c/(k²s² + c²)²
  const double den = k * k * sx * sx + cx * cx;
  out.omega_dot_rad_per_s2 = -2.0 * rate * rate * k * k * k * (k * k - 1.0) * sx * cx / (den * den);
  return out;
}

namespace {

WheelKin wheel_kin(int i, const ModelParams& p, std::int64_t sector, const ReferenceState& ref,
                   std::span<const double> y, std::span<const double> yp) {
  const double rw = p.geometry.wheel_radius_m;
  const double big_r = p.geometry.wheel_distance_m;
  const double phi = y[var::kPhi];
  const double vx = y[var::kVx];
  const double vy = y[var::kVy];
  const double w = y[var::kOmegaZ];
  const double ax = yp[var::kVx];
  const double ay = yp[var::kVy];
  const double wd = yp[var::kOmegaZ];
  const auto ui = static_cast<std::size_t>(i);

  WheelKin k;
  const double cp = std::cos(phi);
  const double sp = std::sin(phi);
  k.c = cp * kCosDelta[ui] - sp * kSinDelta[ui];
  k.s = sp * kCosDelta[ui] + cp * kSinDelta[ui];
  const double c = k.c;
  const double s = k.s;
  k.vs = vx * c + vy * s;
  k.vr = -vx * s + vy * c;
  k.as = ax * c + ay * s;
  k.ar = -ax * s + ay * c;

  // Rolling without slip: v_C·y_i + R·Ω + Rw·ω_i = 0 (eqs. 8, 21).
  k.omega = -(k.vr + big_r * w) / rw;
  k.g_omega = {k.vs / rw, s / rw, -c / rw, -big_r / rw, 0, 0, 0, 0};
  // d/dt: dy_i/dt = −Ω·x_i.
  k.omega_dot = -(k.ar - w * k.vs + big_r * wd) / rw;
  k.g_omega_dot = {(k.as + w * k.vr) / rw, w * c / rw, w * s / rw, k.vs / rw, 0,
                   s / rw, -c / rw, -big_r / rw};

  // Side rolling of the contact roller: v_C·x_i = r_roll·ω_roll (eqs. 12-13).
  const double theta = y[var::kTheta + ui];
  k.thb = theta - static_cast<double>(sector) * kRobotinoRollerPitch_rad;
  const double cb = std::cos(k.thb);
  const double sb = std::sin(k.thb);
  k.r = p.geometry.roller_max_radius_m - rw * (1.0 - cb);
  k.dr = -rw * sb;
  k.ddr = -rw * cb;
  const double r = k.r;
  const double r2 = r * r;
  k.roll = k.vs / r;
  k.g_roll = {k.vr / r, c / r, s / r, 0, -k.vs * k.dr / r2, 0, 0, 0};
  // dω_roll/dt = (a·x_i + Ω·v·y_i)/r − v_ix·r'·ω_i/r²  (dx_i/dt = Ω·y_i, dθ/dt = ω_i).
  const double num = k.as + w * k.vr;
  const double b = k.vs * k.dr * k.omega;
  k.roll_dot = num / r - b / r2;
  {
    Grad g;
    g.phi = (k.ar - w * k.vs) / r - k.dr * (k.vr * k.omega + k.vs * k.g_omega.phi) / r2;
    g.vx = (-w * s) / r - k.dr * (c * k.omega + k.vs * k.g_omega.vx) / r2;
    g.vy = (w * c) / r - k.dr * (s * k.omega + k.vs * k.g_omega.vy) / r2;
    g.w = k.vr / r - k.dr * k.vs * k.g_omega.w / r2;
    g.theta = -num * k.dr / r2 - k.vs * k.omega * (k.ddr / r2 - 2.0 * k.dr * k.dr / (r2 * r));
    g.ax = c / r;
    g.ay = s / r;
    k.g_roll_dot = g;
  }

  // Reference wheel speed, eq. 22 with the measured heading φ_i.
  const RoseSample& rs = ref.pose;
  k.ref = (rs.vx_m_per_s * s - rs.vy_m_per_s * c - big_r * rs.omega_rad_per_s) / rw;
  const double ref_side = (rs.vx_m_per_s * c + rs.vy_m_per_s * s) / rw;
  k.g_ref = {ref_side, 0, 0, 0, 0, 0, 0, 0};
  k.ref_dot = (ref.ax_m_per_s2 * s - ref.ay_m_per_s2 * c - big_r * ref.omega_dot_rad_per_s2) / rw +
              w * ref_side;
  k.g_ref_dot = {(ref.ax_m_per_s2 * c + ref.ay_m_per_s2 * s) / rw +
                     w * (-rs.vx_m_per_s * s + rs.vy_m_per_s * c) / rw,
                 0, 0, ref_side, 0, 0, 0, 0};
  return k;
}

// PID command of wheel i (motor side, §3.3: ω_m = ω/k_gear), before the voltage limit.
struct Command {
  double u = 0;
  Grad g;  // w.r.t. the kinematic variables; ∂u/∂E_i = Ki separately
};

Command pid_command(const ModelParams& p, double k_gear, const WheelKin& k, double integral) {
  const double e = (k.ref - k.omega) / k_gear;
  const double e_dot = (k.ref_dot - k.omega_dot) / k_gear;
  Command cmd;
  cmd.u = p.ff_back_emf * p.back_emf_V_s_per_rad * k.ref / k_gear + p.kp_V_s_per_rad * e +
          p.ki_V_per_rad * integral + p.kd_V_s2_per_rad * e_dot;
  cmd.g = (p.ff_back_emf * p.back_emf_V_s_per_rad / k_gear) * k.g_ref +
          (p.kp_V_s_per_rad / k_gear) * (k.g_ref - k.g_omega) +
          (p.kd_V_s2_per_rad / k_gear) * (k.g_ref_dot - k.g_omega_dot);
  return cmd;
}

}  // namespace

RobotinoDae::RobotinoDae(const ModelParams& params, const RoseParams& rose)
    : p_(params), rose_(rose), cached_t_s_(std::numeric_limits<double>::quiet_NaN()) {
  const bool positive = p_.mass_kg > 0 && p_.yaw_inertia_kg_m2 > 0 && p_.wheel_inertia_kg_m2 >= 0 &&
                        p_.roller_inertia_kg_m2 >= 0 && p_.rotor_inertia_kg_m2 >= 0 &&
                        p_.gear_ratio > 0 && p_.resistance_ohm > 0 && p_.inductance_H >= 0 &&
                        p_.torque_constant_N_m_per_A > 0 && p_.back_emf_V_s_per_rad > 0 &&
                        p_.voltage_limit_V > 0 && p_.geometry.wheel_radius_m > 0 &&
                        p_.geometry.wheel_distance_m > 0;
  if (!positive) {
    throw std::invalid_argument(
        "robotino model: masses, resistance, constants, gear ratio and geometry must be positive "
        "(inertias and inductance may be 0)");
  }
  if (!(robotino_min_rolling_arm_m(p_.geometry) > 0.0)) {
    throw std::invalid_argument("robotino model: the rolling arm reaches zero at a roller switch");
  }
  k_gear_ = -1.0 / p_.gear_ratio;
  wheel_inertia_eff_ = p_.wheel_inertia_kg_m2 + p_.rotor_inertia_kg_m2 / (k_gear_ * k_gear_);
  for (int i = 0; i < kWheels; ++i) {
    set_sector(i, 0, -kRobotinoRollerPitch_rad / 2, kRobotinoRollerPitch_rad / 2);
  }
}

void RobotinoDae::set_sector(int wheel, std::int64_t sector, double lo_rad, double hi_rad) {
  const auto i = static_cast<std::size_t>(wheel);
  sector_[i] = sector;
  lo_[i] = lo_rad;
  hi_[i] = hi_rad;
}

double RobotinoDae::differential_id(std::size_t index) const {
  if (index >= var::kForceRoll) return 0.0;
  if (index >= var::kCurrent && index < var::kCurrent + 3 && p_.inductance_H == 0.0) return 0.0;
  return 1.0;
}

double RobotinoDae::abs_tolerance(std::size_t index, double base_atol) const {
  // Scaled per variable type so each weight is ~base_atol of the quantity's natural size.
  if (index >= var::kVoltage) return 10.0 * base_atol;         // V, ~10 V
  if (index >= var::kForceRoll) return 10.0 * base_atol;       // N, ~1-10 N
  if (index >= var::kEnergyIn) return 10.0 * base_atol;        // J
  if (index >= var::kRoller) return 10.0 * base_atol;          // roller rad, visual only
  if (index >= var::kPidInt) return p_.gear_ratio * base_atol;  // motor-side rad
  return base_atol;                                              // m, rad, m/s, rad/s, A
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
  const double rw = p_.geometry.wheel_radius_m;
  const double big_r = p_.geometry.wheel_distance_m;

  r[kX] = yp[kX] - y[kVx];
  r[kY] = yp[kY] - y[kVy];
  r[kPhi] = yp[kPhi] - y[kOmegaZ];
  double fx_world = 0.0;
  double fy_world = 0.0;
  double f_roll_sum = 0.0;
  double power_in = 0.0;
  double power_res = 0.0;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const WheelKin k = wheel_kin(i, p_, sector_[ui], ref, y, yp);
    const double f_roll = y[kForceRoll + ui];
    const double f_side = y[kForceSide + ui];
    const double current = y[kCurrent + ui];
    const double u = y[kVoltage + ui];
    // Ground forces on the wheel at P_i, in the world frame: F_ix·x_i + F_iy·y_i.
    fx_world += f_side * k.c - f_roll * k.s;
    fy_world += f_side * k.s + f_roll * k.c;
    f_roll_sum += f_roll;

    r[kTheta + ui] = yp[kTheta + ui] - k.omega;
    // Armature: La·di/dt = u − Ra·i − ke·ω_m, ω_m = ω/k_gear.
    r[kCurrent + ui] = p_.inductance_H * yp[kCurrent + ui] + p_.resistance_ohm * current +
                       p_.back_emf_V_s_per_rad * k.omega / k_gear_ - u;
    r[kPidInt + ui] = yp[kPidInt + ui] - (k.ref - k.omega) / k_gear_;
    r[kRoller + ui] = yp[kRoller + ui] - k.roll;
    // Wheel spin with the rotor reflected through the reducer: τ_i = kt·i/k_gear − J_m·ω̇/k_gear².
    r[kForceRoll + ui] = wheel_inertia_eff_ * k.omega_dot -
                         p_.torque_constant_N_m_per_A * current / k_gear_ - rw * f_roll;
    // Contact roller spin about its axis: I_r·ω̇_roll = −r_roll·F_ix.
    r[kForceSide + ui] = p_.roller_inertia_kg_m2 * k.roll_dot + k.r * f_side;
    const Command cmd = pid_command(p_, k_gear_, k, y[kPidInt + ui]);
    r[kVoltage + ui] = u - std::clamp(cmd.u, -p_.voltage_limit_V, p_.voltage_limit_V);
    power_in += u * current;
    power_res += p_.resistance_ohm * current * current;
  }
  // Chassis with wheels: m·a_C = Σ F_i, I_z·Ω̇ = R·Σ F_iy.
  r[kVx] = p_.mass_kg * yp[kVx] - fx_world;
  r[kVy] = p_.mass_kg * yp[kVy] - fy_world;
  r[kOmegaZ] = p_.yaw_inertia_kg_m2 * yp[kOmegaZ] - big_r * f_roll_sum;
  r[kEnergyIn] = yp[kEnergyIn] - power_in;
  r[kEnergyRes] = yp[kEnergyRes] - power_res;
}

void RobotinoDae::jacobian(double t_s, double cj, std::span<const double> y,
                           std::span<const double> yp, DenseMatrixRef jac) const {
  using namespace var;
  const ReferenceState& ref = reference(t_s);
  const double rw = p_.geometry.wheel_radius_m;
  const double big_r = p_.geometry.wheel_distance_m;
  for (std::size_t j = 0; j < kCount; ++j) {
    for (std::size_t i = 0; i < kCount; ++i) jac(i, j) = 0.0;
  }
  // Adds row `row` += k·g over the kinematic columns (y' columns scaled by c_j).
  const auto add = [&](std::size_t row, double k, const Grad& g, std::size_t theta_col) {
    jac(row, kPhi) += k * g.phi;
    jac(row, kVx) += k * (g.vx + cj * g.ax);
    jac(row, kVy) += k * (g.vy + cj * g.ay);
    jac(row, kOmegaZ) += k * (g.w + cj * g.wd);
    jac(row, theta_col) += k * g.theta;
  };

  jac(kX, kX) = cj;
  jac(kX, kVx) = -1.0;
  jac(kY, kY) = cj;
  jac(kY, kVy) = -1.0;
  jac(kPhi, kPhi) = cj;
  jac(kPhi, kOmegaZ) = -1.0;
  jac(kVx, kVx) = p_.mass_kg * cj;
  jac(kVy, kVy) = p_.mass_kg * cj;
  jac(kOmegaZ, kOmegaZ) = p_.yaw_inertia_kg_m2 * cj;
  jac(kEnergyIn, kEnergyIn) = cj;
  jac(kEnergyRes, kEnergyRes) = cj;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const std::size_t th = kTheta + ui;
    const WheelKin k = wheel_kin(i, p_, sector_[ui], ref, y, yp);
    const double f_roll = y[kForceRoll + ui];
    const double f_side = y[kForceSide + ui];
    const double current = y[kCurrent + ui];
    const double u = y[kVoltage + ui];

    // Chassis rows: −(F_ix·c − F_iy·s), −(F_ix·s + F_iy·c), −R·F_iy.
    jac(kVx, kPhi) += f_side * k.s + f_roll * k.c;
    jac(kVx, kForceSide + ui) = -k.c;
    jac(kVx, kForceRoll + ui) = k.s;
    jac(kVy, kPhi) += -(f_side * k.c - f_roll * k.s);
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

    jac(kRoller + ui, kRoller + ui) = cj;
    add(kRoller + ui, -1.0, k.g_roll, th);

    jac(kEnergyIn, kVoltage + ui) = -current;
    jac(kEnergyIn, kCurrent + ui) = -u;
    jac(kEnergyRes, kCurrent + ui) = -2.0 * p_.resistance_ohm * current;

    add(kForceRoll + ui, wheel_inertia_eff_, k.g_omega_dot, th);
    jac(kForceRoll + ui, kCurrent + ui) = -p_.torque_constant_N_m_per_A / k_gear_;
    jac(kForceRoll + ui, kForceRoll + ui) = -rw;

    add(kForceSide + ui, p_.roller_inertia_kg_m2, k.g_roll_dot, th);
    jac(kForceSide + ui, th) += k.dr * f_side;
    jac(kForceSide + ui, kForceSide + ui) = k.r;

    jac(kVoltage + ui, kVoltage + ui) = 1.0;
    const Command cmd = pid_command(p_, k_gear_, k, y[kPidInt + ui]);
    if (std::abs(cmd.u) < p_.voltage_limit_V) {  // saturated: no dependence
      add(kVoltage + ui, -1.0, cmd.g, th);
      jac(kVoltage + ui, kPidInt + ui) = -p_.ki_V_per_rad;
    }
  }
}

void RobotinoDae::roots(std::span<const double> y, std::span<double> g) const {
  for (std::size_t i = 0; i < 3; ++i) {
    const double theta = y[var::kTheta + i];
    g[2 * i] = theta - lo_[i];
    g[2 * i + 1] = hi_[i] - theta;
  }
}

WheelDerived RobotinoDae::wheel(int i, double t_s, std::span<const double> y,
                                std::span<const double> yp) const {
  const auto ui = static_cast<std::size_t>(i);
  const WheelKin k = wheel_kin(i, p_, sector_[ui], reference(t_s), y, yp);
  WheelDerived d{};
  d.omega_rad_per_s = k.omega;
  d.omega_ref_rad_per_s = k.ref;
  d.omega_dot_rad_per_s2 = k.omega_dot;
  d.motor_torque_N_m = p_.torque_constant_N_m_per_A * y[var::kCurrent + ui];
  // Reducer: τ_m = k_gear·τ_i, and the rotor takes J_m·ω̇_m of the motor torque.
  d.drive_torque_N_m =
      (d.motor_torque_N_m - p_.rotor_inertia_kg_m2 * k.omega_dot / k_gear_) / k_gear_;
  d.side_velocity_m_per_s = k.vs;
  d.rolling_arm_m = k.r;
  d.roller_speed_rad_per_s = k.roll;
  d.theta_b_rad = k.thb;
  return d;
}

double RobotinoDae::stored_energy_J(std::span<const double> y) const {
  using namespace var;
  const double vx = y[kVx];
  const double vy = y[kVy];
  const double w = y[kOmegaZ];
  double e = 0.5 * p_.mass_kg * (vx * vx + vy * vy) + 0.5 * p_.yaw_inertia_kg_m2 * w * w;
  const double zeros[kCount] = {};
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    // The reference does not enter the speeds; any cached sample will do.
    const WheelKin k = wheel_kin(i, p_, sector_[ui], cached_ref_, y, zeros);
    e += 0.5 * wheel_inertia_eff_ * k.omega * k.omega;
    e += 0.5 * p_.roller_inertia_kg_m2 * k.roll * k.roll;
    e += 0.5 * p_.inductance_H * y[kCurrent + ui] * y[kCurrent + ui];
  }
  return e;
}

}  // namespace cosim::dynamics::robotino
