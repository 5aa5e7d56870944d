#include "robotino_controller.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "cosim/dynamics/robotino_common/robotino_drive.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"
#include "cosim/dynamics/reference/rose_params.hpp"
#include "mujoco_joints.hpp"

namespace cosim::dynamics::mujoco {
using reference::RoseParams;
using reference::RoseSample;
using reference::read_rose_params;
using robotino_common::append_per_wheel_names;
using robotino_common::kRobotinoAxleOffset_rad;
using robotino_common::kRobotinoWheelCount;
using robotino_common::read_robotino_model_params;
using robotino_common::robotino_param_specs;
using robotino_common::robotino_side_velocities;
using robotino_common::robotino_wheel_speeds;

namespace {

constexpr const char* kControllerText = "cosim.controller";
constexpr std::string_view kParamPrefix = "cosim.robotino.";
constexpr int kWheels = kRobotinoWheelCount;

// The model's "cosim.robotino.KEY" numerics as "KEY=value" overrides of the robotino keys.
std::vector<std::string> parameter_overrides(const mjModel* m, const std::string& file) {
  std::vector<std::string> overrides;
  for (int n = 0; n < m->nnumeric; ++n) {
    const std::string_view name = m->names + m->name_numericadr[n];
    if (!name.starts_with(kParamPrefix)) continue;
    if (m->numeric_size[n] != 1) {
      throw ParamError(file + ": <custom> numeric '" + std::string(name) + "' must hold one number, not " +
                       std::to_string(m->numeric_size[n]));
    }
    char value[32];
    std::snprintf(value, sizeof value, "%.17g", m->numeric_data[m->numeric_adr[n]]);
    overrides.push_back(std::string(name.substr(kParamPrefix.size())) + "=" + value);
  }
  return overrides;
}

int joint_id(const mjModel* m, const std::string& name, int type, const std::string& file) {
  const int id = mj_name2id(m, mjOBJ_JOINT, name.c_str());
  if (id < 0 || m->jnt_type[id] != type) {
    throw ParamError(file + ": the robotino_rose controller needs a " + (type == mjJNT_SLIDE ? "slide" : "hinge") +
                     " joint '" + name + "'" + (id < 0 ? ", which the model does not have" : " of that type"));
  }
  return id;
}

}  // namespace

std::unique_ptr<RobotinoRoseController> RobotinoRoseController::from_model(const mjModel* m,
                                                                           const std::string& file) {
  const std::string kind = mjcf::model_text(m, kControllerText);
  if (kind.empty()) return nullptr;
  if (kind != "robotino_rose") {
    throw ParamError(file + ": <custom> text '" + std::string(kControllerText) + "' = '" + kind +
                     "': the controllers are: robotino_rose");
  }
  const std::vector<std::string> overrides = parameter_overrides(m, file);
  const auto params = [&] {
    try {
      return Params::resolve("robotino", robotino_param_specs(), nullptr, overrides);
    } catch (const ParamError& e) {
      throw ParamError(file + ": <custom> numeric '" + std::string(kParamPrefix) + "...': " + e.what());
    }
  }();
  std::unique_ptr<RobotinoRoseController> c(new RobotinoRoseController(
      read_robotino_model_params(params), read_rose_params(params), params.get("start_moving") != 0.0));
  const int x = joint_id(m, "x", mjJNT_SLIDE, file);
  const int y = joint_id(m, "y", mjJNT_SLIDE, file);
  const int phi = joint_id(m, "phi", mjJNT_HINGE, file);
  c->x_adr_ = m->jnt_qposadr[x];
  c->y_adr_ = m->jnt_qposadr[y];
  c->phi_adr_ = m->jnt_qposadr[phi];
  c->vx_adr_ = m->jnt_dofadr[x];
  c->vy_adr_ = m->jnt_dofadr[y];
  c->vphi_adr_ = m->jnt_dofadr[phi];
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const std::string wheel = std::to_string(i + 1);
    const int axle = joint_id(m, "axle" + wheel, mjJNT_HINGE, file);
    c->axle_qpos_[ui] = m->jnt_qposadr[axle];
    c->axle_qvel_[ui] = m->jnt_dofadr[axle];
    const int roller = joint_id(m, "Wheel_" + wheel + "/roller1", mjJNT_HINGE, file);
    c->contact_roller_qvel_[ui] = m->jnt_dofadr[roller];
    const std::string drive = "drive" + wheel;
    const int actuator = mj_name2id(m, mjOBJ_ACTUATOR, drive.c_str());
    if (actuator < 0 || m->actuator_trntype[actuator] != mjTRN_JOINT || m->actuator_trnid[2 * actuator] != axle ||
        m->actuator_gaintype[actuator] != mjGAIN_FIXED || m->actuator_biastype[actuator] != mjBIAS_NONE ||
        m->actuator_gear[6 * actuator] != 1.0 || m->actuator_gainprm[mjNGAIN * actuator] != 1.0) {
      throw ParamError(file + ": the robotino_rose controller needs <motor name=\"" + drive + "\" joint=\"axle" +
                       wheel + "\" gear=\"1\"/>: its ctrl is the wheel torque [N m]");
    }
    c->motor_[ui] = actuator;
  }
  return c;
}

std::vector<std::string> RobotinoRoseController::output_names() {
  std::vector<std::string> names{"x_ref_m", "y_ref_m", "phi_ref_rad", "dx_m", "dy_m", "dphi_rad"};
  append_per_wheel_names(names, "omega", "_rad_per_s");
  append_per_wheel_names(names, "omega_ref", "_rad_per_s");
  append_per_wheel_names(names, "i", "_A");
  append_per_wheel_names(names, "u", "_V");
  append_per_wheel_names(names, "slip", "_m_per_s");
  return names;
}

RobotinoRoseController::RobotinoRoseController(const robotino_common::ModelParams& params, const RoseParams& rose,
                                               bool start_moving)
    : p_(params),
      rose_(rose),
      start_moving_(start_moving),
      drive_(robotino_common::drive_constants(params)) {}

RobotinoRoseController::Chassis RobotinoRoseController::chassis(const mjModel* m, const mjData* d) const {
  return {d->qpos[x_adr_] - m->qpos0[x_adr_],   d->qpos[y_adr_] - m->qpos0[y_adr_],
          d->qpos[phi_adr_] - m->qpos0[phi_adr_], d->qvel[vx_adr_],
          d->qvel[vy_adr_],                       d->qvel[vphi_adr_]};
}

RobotinoRoseController::Axle RobotinoRoseController::axle(int i, const robotino_common::ReferenceState& ref,
                                                         const Chassis& c) const {
  // Eq. 22 with the measured heading (ours) or the reference one (the seed's), as robotino's.
  const RoseSample& r = ref.pose;
  const double heading = p_.reference_heading ? r.phi_rad : c.phi_rad;
  const double heading_rate = p_.reference_heading ? r.omega_rad_per_s : c.omega_rad_per_s;
  const double phi_i = heading + kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
  const double cs = std::cos(phi_i);
  const double sn = std::sin(phi_i);
  return {cs, sn, robotino_common::wheel_reference(p_, ref, cs, sn, heading_rate)};
}

void RobotinoRoseController::start(const mjModel* m, mjData* d, double t0_s) {
  const RoseSample r = rose_.at(t0_s);
  d->qpos[x_adr_] = m->qpos0[x_adr_] + r.x_m;
  d->qpos[y_adr_] = m->qpos0[y_adr_] + r.y_m;
  d->qpos[phi_adr_] = m->qpos0[phi_adr_] + r.phi_rad;
  if (start_moving_) {
    d->qvel[vx_adr_] = r.vx_m_per_s;
    d->qvel[vy_adr_] = r.vy_m_per_s;
    d->qvel[vphi_adr_] = r.omega_rad_per_s;
    const Eigen::Vector3d omega =
        robotino_wheel_speeds(p_.geometry, r.phi_rad, {r.vx_m_per_s, r.vy_m_per_s, r.omega_rad_per_s});
    const Eigen::Vector3d side = robotino_side_velocities(r.phi_rad, r.vx_m_per_s, r.vy_m_per_s);
    for (std::size_t i = 0; i < 3; ++i) {
      d->qvel[axle_qvel_[i]] = omega[static_cast<Eigen::Index>(i)];
      // At θ = 0 roller 1 touches the floor with its widest part: v_ix = r_max·ω_roll.
      d->qvel[contact_roller_qvel_[i]] = side[static_cast<Eigen::Index>(i)] / p_.geometry.roller_max_radius_m;
    }
  }
  drives_ = {};
  first_step_ = true;
}

void RobotinoRoseController::control(const mjModel* m, mjData* d, double t_s, double h_s) {
  const robotino_common::ReferenceState ref = robotino_common::rose_reference_state(rose_, t_s);
  const Chassis c = chassis(m, d);
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    Drive& drive = drives_[ui];
    const Axle a = axle(i, ref, c);
    const double omega = d->qvel[axle_qvel_[ui]];  // the encoder's wheel speed
    const double e = (a.reference.omega_rad_per_s - omega) / drive_.k_gear;
    // The derivative as a digital PID takes it: the error's backward difference over one step.
    const double e_dot = first_step_ ? 0.0 : (e - drive.error_rad_per_s) / h_s;
    // robotino's law, feed-forward of the reference accelerations included.
    const double command = robotino_common::drive_command_V(p_, drive_, ref, a.cos_phi, a.sin_phi, a.reference, e, e_dot,
                                                     drive.integral_rad);
    const double u = std::clamp(command, -p_.voltage_limit_V, p_.voltage_limit_V);
    // La·di/dt = u − Ra·i − ke·ω_m with u and ω_m held over the step: exact exponential.
    const double omega_m = omega / drive_.k_gear;
    const double i_steady = (u - p_.back_emf_V_s_per_rad * omega_m) / p_.resistance_ohm;
    double i_mean = i_steady;
    if (p_.inductance_H > 0.0) {
      const double rate = p_.resistance_ohm / p_.inductance_H;
      const double decay = std::exp(-rate * h_s);
      i_mean = i_steady + (drive.current_A - i_steady) * (1.0 - decay) / (rate * h_s);
      drive.current_A = i_steady + (drive.current_A - i_steady) * decay;
    } else {
      drive.current_A = i_steady;
    }
    d->ctrl[motor_[ui]] = p_.torque_constant_N_m_per_A * i_mean / drive_.k_gear;  // τ_i on the wheel
    const bool saturated = u != command;
    const double antiwindup = saturated && p_.ki_V_per_rad > 0.0 && p_.antiwindup_time_s > 0.0
                                  ? (u - command) / (p_.ki_V_per_rad * p_.antiwindup_time_s)
                                  : 0.0;
    drive.integral_rad += h_s * (e + antiwindup);
    drive.error_rad_per_s = e;
    drive.voltage_V = u;
  }
  first_step_ = false;
}

void RobotinoRoseController::write_outputs(const mjModel* m, const mjData* d, double t_s,
                                           std::span<double> out) const {
  const robotino_common::ReferenceState ref = robotino_common::rose_reference_state(rose_, t_s);
  const Chassis c = chassis(m, d);
  out[0] = ref.pose.x_m;
  out[1] = ref.pose.y_m;
  out[2] = ref.pose.phi_rad;
  out[3] = c.x_m - ref.pose.x_m;
  out[4] = c.y_m - ref.pose.y_m;
  out[5] = c.phi_rad - ref.pose.phi_rad;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const double omega = d->qvel[axle_qvel_[ui]];
    const double phi_i = c.phi_rad + kRobotinoAxleOffset_rad[ui];
    out[6 + ui] = omega;
    out[9 + ui] = axle(i, ref, c).reference.omega_rad_per_s;
    out[12 + ui] = drives_[ui].current_A;
    out[15 + ui] = drives_[ui].voltage_V;
    // The no-slip residual (robotino's K1): v_C·y_i + R·Ω + Rw·ω_i, 0 for a wheel that rolls.
    out[18 + ui] = -c.vx_m_per_s * std::sin(phi_i) + c.vy_m_per_s * std::cos(phi_i) +
                   p_.geometry.wheel_distance_m * c.omega_rad_per_s + p_.geometry.wheel_radius_m * omega;
  }
}

}  // namespace cosim::dynamics::mujoco
