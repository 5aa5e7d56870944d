#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "cosim/dynamics/format_number.hpp"

namespace cosim::dynamics::mecanum4 {
namespace {

namespace out = mecanum4_output;
using mecanum4::kWheels;

std::vector<std::string> mecanum4_joint_names(int rollers) {
  std::vector<std::string> names{"Mecanum4/x", "Mecanum4/y", "Mecanum4/z", "Mecanum4/phi", "Mecanum4/pitch",
                                 "Mecanum4/roll"};
  for (int i = 1; i <= kWheels; ++i) names.push_back("Mecanum4/susp" + std::to_string(i));
  for (int i = 1; i <= kWheels; ++i) names.push_back("Mecanum4/wheel" + std::to_string(i));
  for (int i = 1; i <= kWheels; ++i) {
    for (int j = 1; j <= rollers; ++j) {
      names.push_back("Mecanum4/Wheel_" + std::to_string(i) + "/roller" + std::to_string(j));
    }
  }
  for (int i = 1; i <= kWheels; ++i) {
    for (const char* axis : {"rz", "ry", "rx"}) names.push_back("Mecanum4/Sphere_" + std::to_string(i) + "/" + axis);
  }
  return names;
}

std::vector<std::string> mecanum4_output_names() {
  std::vector<std::string> names{"x_ref_m",     "y_ref_m",        "phi_ref_rad",     "vx_ref_m_per_s", "vy_ref_m_per_s",
                                 "omega_ref_rad_per_s", "vx_m_per_s", "vy_m_per_s", "omega_rad_per_s"};
  for (int i = 1; i <= kWheels; ++i) {
    const std::string n = std::to_string(i);
    for (const std::string& name : {"omega" + n + "_rad_per_s", "omega_ref" + n + "_rad_per_s", "tau" + n + "_N_m",
                                    "normal" + n + "_N", "slip" + n + "_m_per_s", "contacts" + n, "susp" + n + "_m"}) {
      names.push_back(name);
    }
  }
  for (const char* name : {"c_omega_rad_per_s", "az_m_per_s2", "energy_in_J", "energy_resistive_J", "energy_stored_J",
                           "energy_balance_J", "dissipated_friction_J", "dissipated_dampers_J", "dissipated_contact_J"}) {
    names.emplace_back(name);
  }
  return names;
}

double wrap(double angle_rad) { return std::remainder(angle_rad, 2.0 * std::numbers::pi); }

}  // namespace

std::span<const ParamSpec> mecanum4_param_specs() {
  static const std::vector<ParamSpec> specs{
      {"wheel_model", 1.0, 0.0, 1.0, "1",
       "rollers: 16 contact spheres per wheel on free rollers (seed 002's full model); reduced: one sphere of the "
       "wheel's radius on a ball joint, the omni-wheel equivalent of eq. 17",
       "seed 002 §IV-V", {"rollers", "reduced"}},
      {"half_track_m", 0.294, 0.05, 2.0, "m", "l_x: half the distance between the front wheels", "seed 002 Table II"},
      {"half_base_m", 0.200, 0.05, 2.0, "m", "l_y: half the distance between front and rear wheels", "seed 002 Table II"},
      {"mecanum_wheel_radius_m", 0.076, 0.01, 1.0, "m", "R, wheel radius", "seed 002 Table II"},
      {"roller_radius_m", 0.0125, 0.001, 0.1, "m", "r_s, radius of the rollers' contact spheres",
       "assumption (spec A.1: typical of a 152 mm, 16-roller wheel)"},
      {"chassis_mass_kg", 8.9, 0.1, 1000.0, "kg", "chassis mass (total 14.5 kg with carriers and wheels)",
       "assumption (spec A.1; seed 002 Table II: 14.5 kg in all)"},
      {"carrier_mass_kg", 0.8, 0.01, 100.0, "kg", "per wheel: motor, gearbox, parallelogram share", "assumption (spec A.1)"},
      {"friction_mu", 0.8, 0.0, 5.0, "1", "Coulomb friction coefficient (spec 0.1 F1); >= 0.72 for the manoeuvre",
       "assumption (spec A.1, A.4 R8)"},
      {"friction_v_eps_m_per_s", 1e-3, 1e-6, 1.0, "m/s", "regularisation speed of the friction law", "assumption (spec A.1)"},
      {"contact_stiffness_N_per_m", 1e5, 1e2, 1e9, "N/m", "sphere-plane contact stiffness", "assumption (spec A.1)"},
      {"contact_damping_N_s_per_m", 300.0, 0.0, 1e6, "N s/m", "sphere-plane contact damping", "assumption (spec A.1)"},
      {"suspension_stiffness_N_per_m", 5000.0, 10.0, 1e7, "N/m", "per wheel", "assumption (spec A.1)"},
      {"suspension_damping_N_s_per_m", 100.0, 0.0, 1e5, "N s/m", "per wheel", "assumption (spec A.1)"},
      {"drive_kp_N_m_s", 1.5, 0.0, 1000.0, "N m s/rad", "wheel-speed PI, proportional (rollers model)",
       "assumption (spec A.1)"},
      {"drive_ki_N_m", 30.0, 0.0, 1e5, "N m/rad", "wheel-speed PI, integral (rollers model)", "assumption (spec A.1)"},
      {"reduced_gain_scale", 2.0, 0.1, 10.0, "1", "the reduced model's PI gains are these times the rollers model's",
       "spec A.6 Q5 (same closed-loop bandwidth)"},
      {"sphere_inertia_kg_m2", 1.386e-3, 1e-6, 1.0, "kg m^2", "reduced model: the sphere's inertia",
       "assumption: (2/5) m R^2 (spec A.6 Q4)"},
      {"drive_torque_limit_N_m", 5.0, 0.01, 1000.0, "N m", "drive torque limit (x sqrt 2 in the reduced model)",
       "assumption (spec A.1)"},
      {"ik_heading", 0.0, 0.0, 1.0, "1", "heading in the inverse kinematics", "seed 002 §VI: open loop (spec A.6 Q7)",
       {"reference", "measured"}},
      {"start_height_m", 0.0, 0.0, 0.05, "m", "the chassis starts this much above its static equilibrium (a drop)",
       "chosen: 0 (spec A.2.5: static equilibrium; A.4 R7: a 5 mm drop settles within 0.2 s)"},
      {"solver_rtol", 1e-6, 1e-12, 1e-2, "1", "IDA relative tolerance", "spec A.2.5"},
      {"solver_max_step_s", 0.0, 0.0, 1.0, "s", "largest IDA step; 0: 1e-3 s (rollers), 5e-3 s (reduced)", "spec A.2.5"},
  };
  return specs;
}

std::unique_ptr<Backend> make_mecanum4_backend(const Params& params, double t0_s) {
  Mecanum4Config c;
  mecanum4::ModelParams& m = c.model;
  m.wheel_model = params.get_choice("wheel_model") == 0 ? mecanum4::WheelModel::kRollers : mecanum4::WheelModel::kReduced;
  m.geometry.half_track_m = params.get("half_track_m");
  m.geometry.half_base_m = params.get("half_base_m");
  m.geometry.wheel_radius_m = params.get("mecanum_wheel_radius_m");
  m.roller_radius_m = params.get("roller_radius_m");
  if (!(m.roller_radius_m < 0.5 * m.geometry.wheel_radius_m)) {
    throw ParamError("backend mecanum4: roller_radius_m = " + format_number(m.roller_radius_m) +
                     " must be below half the wheel radius");
  }
  m.chassis_mass_kg = params.get("chassis_mass_kg");
  m.carrier_mass_kg = params.get("carrier_mass_kg");
  m.friction_mu = params.get("friction_mu");
  m.friction_v_eps_m_per_s = params.get("friction_v_eps_m_per_s");
  m.contact_stiffness_N_per_m = params.get("contact_stiffness_N_per_m");
  m.contact_damping_N_s_per_m = params.get("contact_damping_N_s_per_m");
  m.suspension_stiffness_N_per_m = params.get("suspension_stiffness_N_per_m");
  m.suspension_damping_N_s_per_m = params.get("suspension_damping_N_s_per_m");
  m.drive_kp_N_m_s = params.get("drive_kp_N_m_s");
  m.drive_ki_N_m = params.get("drive_ki_N_m");
  m.reduced_gain_scale = params.get("reduced_gain_scale");
  m.sphere_inertia_kg_m2 = params.get("sphere_inertia_kg_m2");
  m.drive_torque_limit_N_m = params.get("drive_torque_limit_N_m");
  m.reference_heading = params.get_choice("ik_heading") == 0;
  m.start_height_m = params.get("start_height_m");
  c.rtol = params.get("solver_rtol");
  c.max_step_s = params.get("solver_max_step_s");
  return std::make_unique<Mecanum4Backend>(c, t0_s);
}

// y' − f(t, y) = 0 on IDA, with the model's approximate Newton matrix.
class Mecanum4Backend::System final : public dae::DaeSystem {
 public:
  explicit System(const mecanum4::Mecanum4Model& model) : model_(model), scratch_(model) {}
  int residual(double t_s, std::span<const double> y, std::span<const double> yp, std::span<double> r) override {
    scratch_.want_energies = false;
    model_.evaluate(t_s, y, r, scratch_, eval_);
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = yp[k] - r[k];
    return 0;
  }
  int jacobian(double t_s, double cj, std::span<const double> y, std::span<const double>,
               dae::DenseMatrixRef jac) override {
    model_.newton_matrix(t_s, cj, y, scratch_, jac);
    return 0;
  }
  int roots(double, std::span<const double>, std::span<const double>, std::span<double>) override { return 0; }
  void rates(double t_s, std::span<const double> y, std::span<double> y_dot, mecanum4::Evaluation& e) {
    scratch_.want_energies = true;
    model_.evaluate(t_s, y, y_dot, scratch_, e);
  }

 private:
  const mecanum4::Mecanum4Model& model_;
  mecanum4::Scratch scratch_;
  mecanum4::Evaluation eval_;
};

Mecanum4Backend::Mecanum4Backend(const Mecanum4Config& config, double t0_s)
    : Backend("mecanum4", "Mecanum4", mecanum4_joint_names(config.model.rollers), mecanum4_output_names(), t0_s),
      config_(config),
      model_(config.model),
      system_(std::make_unique<System>(model_)),
      last_output_t_s_(t0_s) {
  const auto n = static_cast<std::size_t>(model_.state_size());
  y_ = model_.initial_state();
  yp_.assign(n, 0.0);
  system_->rates(t0_s, y_, yp_, eval_);
  std::vector<double> atol(n, config_.atol_other);
  const auto nq = static_cast<std::size_t>(model_.position_count()), nu = static_cast<std::size_t>(model_.speed_count());
  std::fill_n(atol.begin(), nq, config_.atol_position);
  std::fill_n(atol.begin() + static_cast<std::ptrdiff_t>(nq), nu, config_.atol_speed);
  const std::vector<double> differential(n, 1.0);
  dae::IdaOptions options;
  options.rtol = config_.rtol;
  options.atol = atol;
  options.differential = differential;
  const bool rollers = config_.model.wheel_model == mecanum4::WheelModel::kRollers;
  options.max_step_s = config_.max_step_s > 0.0 ? config_.max_step_s : (rollers ? 1e-3 : 5e-3);
  options.analytic_jacobian = true;  // Mecanum4Model::newton_matrix
  options.max_steps = 1000000;
  solver_ = std::make_unique<dae::IdaSolver>("backend mecanum4", *system_, n, t0_s, y_, yp_, options);
  stored0_J_ = eval_.kinetic_J + eval_.potential_J;
  roller_angle_rad_.assign(static_cast<std::size_t>(kWheels * config_.model.rollers), 0.0);
  roller_rate_.assign(roller_angle_rad_.size(), 0.0);
  for (auto& a : sphere_attitude_) a = Eigen::Quaterniond::Identity();
  for (auto& w : sphere_rate_) w.setZero();
  advance_display(0.0);  // rates at t0
  write_state(mutable_joint_values(), mutable_outputs());
}

Mecanum4Backend::~Mecanum4Backend() = default;

void Mecanum4Backend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  while (solver_->current_time_s() < t_s) solver_->step(t_s);
  solver_->interpolate(t_s, y_, yp_);
  system_->rates(t_s, y_, yp_, eval_);
  advance_display(t_s - last_output_t_s_);
  last_output_t_s_ = t_s;
  write_state(q, outputs);
}

void Mecanum4Backend::advance_display(double dt_s) {
  if (config_.model.wheel_model == mecanum4::WheelModel::kRollers) return;  // all are states
  // Trapezoid rule: half the old rate now, half the new one after it is computed.
  const mecanum4::Geometry& g = config_.model.geometry;
  const int n = config_.model.rollers;
  const auto nq = static_cast<std::size_t>(model_.position_count());
  const auto& tree = model_.tree();
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto at = nq + static_cast<std::size_t>(tree.speed_index(model_.wheel_body(i)));
    const Eigen::Vector3d w(y_[at], y_[at + 1], y_[at + 2]);
    // The Mecanum-equivalent wheel angle θ_i = ∫√2·ω_a dt (spec A.5).
    const double wheel_rate = std::numbers::sqrt2 * w.dot(g.omni_axle(i));
    wheel_angle_rad_[ui] += 0.5 * dt_s * (wheel_rate_[ui] + wheel_rate);
    wheel_rate_[ui] = wheel_rate;
    // Attitude of the sphere relative to its carrier: w is in carrier axes, so the increment
    // multiplies from the left (Ṙ = [w]×·R).
    const Eigen::Vector3d mean = 0.5 * (sphere_rate_[ui] + w);
    const double angle = mean.norm() * dt_s;
    if (angle > 0.0) {
      sphere_attitude_[ui] = Eigen::Quaterniond(Eigen::AngleAxisd(angle, mean.normalized())) * sphere_attitude_[ui];
      sphere_attitude_[ui].normalize();
    }
    sphere_rate_[ui] = w;
    // The roller in contact turns at β̇ = (v_H·x_B)/(r_s·sin γ_i) (spec A.5); the others stand.
    // v_H·x_B: the hub's velocity along the axle, the chassis' lateral velocity plus yaw.
    const double yaw = y_[3], yaw_rate = y_[nq + 3];
    const Eigen::Vector2d p = g.wheel_position(i);
    const double lateral = std::cos(yaw) * y_[nq] + std::sin(yaw) * y_[nq + 1] - yaw_rate * p.y();
    const double rate = lateral / (config_.model.roller_radius_m * std::sin(g.roller_angle_rad(i)));
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(i * n + j);
      const bool in_contact = std::abs(wrap(wheel_angle_rad_[ui] + 2.0 * std::numbers::pi * j / n)) < std::numbers::pi / n;
      const double new_rate = in_contact ? rate : 0.0;
      roller_angle_rad_[k] += 0.5 * dt_s * (roller_rate_[k] + new_rate);
      roller_rate_[k] = new_rate;
    }
  }
}

void Mecanum4Backend::write_state(std::span<double> q, std::span<double> o) {
  const auto& tree = model_.tree();
  const int n = config_.model.rollers;
  const bool rollers = config_.model.wheel_model == mecanum4::WheelModel::kRollers;
  for (std::size_t k = 0; k < 6; ++k) q[k] = y_[k];
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    q[6 + ui] = y_[static_cast<std::size_t>(tree.position_index(model_.carrier_body(i)))];
    q[10 + ui] = rollers ? y_[static_cast<std::size_t>(tree.position_index(model_.wheel_body(i)))] : wheel_angle_rad_[ui];
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(i * n + j);
      q[14 + k] = rollers ? y_[static_cast<std::size_t>(tree.position_index(model_.roller_body(i, j)))]
                          : roller_angle_rad_[k];
    }
    // Z-Y-X Euler angles of the sphere relative to its carrier (zero in the rollers model).
    const auto base = static_cast<std::size_t>(14 + kWheels * n) + 3 * ui;
    const Eigen::Vector3d zyx = rollers ? Eigen::Vector3d::Zero() : sphere_attitude_[ui].toRotationMatrix().eulerAngles(2, 1, 0);
    for (std::size_t a = 0; a < 3; ++a) q[base + a] = zyx[static_cast<Eigen::Index>(a)];
  }

  const mecanum4::Evaluation& e = eval_;
  o[out::kXRef] = e.reference.pose.x();
  o[out::kYRef] = e.reference.pose.y();
  o[out::kPhiRef] = e.reference.pose.z();
  o[out::kVxRef] = e.reference.velocity.x();
  o[out::kVyRef] = e.reference.velocity.y();
  o[out::kOmegaRef] = e.reference.velocity.z();
  o[out::kVx] = e.world_velocity.x();
  o[out::kVy] = e.world_velocity.y();
  o[out::kOmega] = e.world_velocity.z();
  for (std::size_t i = 0; i < kWheels; ++i) {
    const std::size_t b = out::kWheelBlock + out::kPerWheel * i;
    o[b] = e.omega_rad_per_s[i];
    o[b + 1] = e.omega_ref_rad_per_s[i];
    o[b + 2] = e.torque_N_m[i];
    o[b + 3] = e.normal_N[i];
    o[b + 4] = e.slip_m_per_s[i];
    o[b + 5] = e.contacts[i];
    o[b + 6] = e.suspension_m[i];
  }
  o[out::kCOmega] = e.c_omega_rad_per_s;
  o[out::kAz] = e.vertical_acceleration_m_per_s2;
  const auto energy = static_cast<std::size_t>(model_.energy_index());
  const double in = y_[energy], friction = y_[energy + 1], dampers = y_[energy + 2], contact = y_[energy + 3];
  const double stored = e.kinetic_J + e.potential_J;
  o[out::kEnergyIn] = in;
  o[out::kEnergyRes] = friction + dampers + contact;
  o[out::kEnergyStored] = stored;
  o[out::kEnergyBalance] = in - (friction + dampers + contact) - (stored - stored0_J_);
  o[out::kFrictionLoss] = friction;
  o[out::kDamperLoss] = dampers;
  o[out::kContactLoss] = contact;
}

}  // namespace cosim::dynamics::mecanum4
