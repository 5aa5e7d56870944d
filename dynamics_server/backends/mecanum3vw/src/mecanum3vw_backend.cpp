#include "cosim/dynamics/mecanum3vw/mecanum3vw_backend.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cosim/dynamics/format_number.hpp"

namespace cosim::dynamics::mecanum3vw {

namespace {

namespace out = mecanum3vw_output;
using mecanum3vw::Matrix3;
using mecanum3vw::Vector3;

constexpr int kWheels = 3;
constexpr int kRollersPerWheel = 12;
constexpr std::size_t kRollers = kRollersPerWheel;
constexpr double kRollerPitch_rad = std::numbers::pi / 6.0;  // 12 rollers, 30° apart

std::vector<std::string> mecanum3_joint_names() {
  std::vector<std::string> names{"Mecanum3/x", "Mecanum3/y", "Mecanum3/phi"};
  for (int i = 1; i <= kWheels; ++i) names.push_back("Mecanum3/wheel" + std::to_string(i));
  for (int i = 1; i <= kWheels; ++i) {
    for (int j = 1; j <= kRollersPerWheel; ++j) {
      names.push_back("Mecanum3/Wheel_" + std::to_string(i) + "/roller" + std::to_string(j));
    }
  }
  return names;
}

std::vector<std::string> mecanum3_output_names() {
  std::vector<std::string> names{"x_ref_m",   "y_ref_m",   "phi_ref_rad", "ex_m",       "ey_m",
                                 "ephi_rad", "ex_body_m", "ey_body_m",     "vx_m_per_s", "vy_m_per_s",
                                 "omega_z_rad_per_s"};
  const std::pair<const char*, const char*> per_wheel[] = {
      {"omega", "_rad_per_s"}, {"tau", "_N_m"}, {"contact", ""}, {"omega_roll", "_rad_per_s"}};
  for (const auto& [prefix, suffix] : per_wheel) {
    for (int i = 1; i <= kWheels; ++i) names.push_back(prefix + std::to_string(i) + suffix);
  }
  for (const char* name : {"power_W", "energy_in_J", "energy_resistive_J", "energy_stored_J", "energy_balance_J"}) {
    names.emplace_back(name);
  }
  return names;
}

// Contact sector of a wheel at angle θ: roller j (0..11, at ζ_j = j·30° about the axle) touches
// the floor while |wrap(θ + ζ_j)| < 15°, i.e. j = −round(θ/30°) mod 12.
std::int64_t contact_sector(double theta_rad) {
  return static_cast<std::int64_t>(std::llround(theta_rad / kRollerPitch_rad));
}
int sector_roller(std::int64_t sector) {
  const auto j = static_cast<int>((-sector) % kRollersPerWheel);
  return j < 0 ? j + kRollersPerWheel : j;
}

}  // namespace

std::span<const ParamSpec> mecanum3vw_param_specs() {
  static const std::vector<ParamSpec> specs{
      {"mecanum_wheel_radius_m", 0.05, 0.005, 1.0, "m", "Mecanum wheel radius r", "assumption (100 mm wheel; seed 003 gives none)"},
      {"front_axle_m", 0.10, 0.0, 10.0, "m", "distance a of the front axle ahead of the CG", "assumption (spec B.1)"},
      {"half_track_m", 0.15, 0.0, 10.0, "m", "half track b of the front wheels", "assumption (spec B.1)"},
      {"rear_wheel_m", 0.20, 0.0, 10.0, "m", "distance h of the rear wheel behind the CG", "assumption (spec B.1)"},
      {"roller_radius_m", 0.010, 0.001, 0.5, "m", "roller radius at its middle (visual roller rates)",
       "assumption (spec B.1)"},
      {"mass_kg", 10.0, 0.1, 1000.0, "kg", "robot mass m, wheels included (controller and plant)",
       "assumption (spec B.1)"},
      {"yaw_inertia_kg_m2", 0.25, 1e-4, 100.0, "kg m^2", "yaw inertia I about the CG", "assumption (spec B.1)"},
      {"wheel_inertia_kg_m2", 6.25e-4, 0.0, 1.0, "kg m^2", "spin inertia I_w of one wheel",
       "assumption: 0.5 kg disk of radius r"},
      {"wheel_viscous_N_m_s", 1e-4, 0.0, 10.0, "N m s/rad",
       "viscous friction b_w of each wheel (bearings, motor), in the plant and the controller's model",
       "assumption: 1e-4 (2.5 % of the circle's torque at 10 rad/s); spec B.1 has 0"},
      {"plant_viscous_scale", 1.0, 0.0, 100.0, "1", "plant b_w / controller's b_w (model mismatch)",
       "chosen: 1, the controller's model is exact"},
      {"plant_mass_scale", 1.0, 0.1, 10.0, "1", "plant mass / controller's mass (model mismatch)",
       "chosen: 1; 1.2 for the mismatch check (spec B.3)"},
      {"plant_inertia_scale", 1.0, 0.1, 10.0, "1", "plant yaw inertia / controller's (model mismatch)",
       "chosen: 1; 1.2 for the mismatch check (spec B.3)"},
      {"kp_per_s", 20.0, 0.0, 1e4, "1/s", "tracking gain K_P on the velocity error",
       "assumption: double pole at -10 1/s (spec B.2.4)"},
      {"ki_per_s2", 100.0, 0.0, 1e8, "1/s^2", "tracking gain K_I on the pose error",
       "assumption: double pole at -10 1/s (spec B.2.4)"},
      {"path", 0.0, 0.0, 1.0, "1", "reference path", "seed 003 §Simulation", {"circle", "eight"}},
      {"path_radius_m", 1.0, 0.01, 100.0, "m", "amplitude of x and y of the path", "seed 003 §Simulation"},
      {"path_rate_rad_per_s", 0.4, 0.001, 10.0, "rad/s",
       "angular rate of the path (circle: x and y; eight: y, x at half of it)", "seed 003 §Simulation"},
      {"heading0_rad", std::numbers::pi / 2, -10.0, 10.0, "rad", "reference heading at t = 0",
       "assumption: pi/2, tangent to the circle at its start (spec B.6)"},
      {"heading_rate_rad_per_s", 0.4, -10.0, 10.0, "rad/s", "reference yaw rate",
       "seed 003 §Simulation (robot angular velocity 0.4 rad/s)"},
      {"initial_offset_x_m", 0.0, -10.0, 10.0, "m", "start this far from the reference along world x",
       "chosen: 0; 0.05 for the error-decay check (spec B.3)"},
      {"solver_rtol", 1e-10, 1e-13, 1e-2, "1", "IDA relative tolerance", "spec B.2.5"},
      {"solver_atol", 1e-12, 1e-15, 1e-2, "1", "IDA absolute tolerance (m, rad, m/s, rad/s, J)", "spec B.2.5"},
      {"solver_max_step_s", 0.02, 1e-6, 1.0, "s", "largest IDA step", "chosen: the output step"},
  };
  return specs;
}

std::unique_ptr<Backend> make_mecanum3vw_backend(const Params& params, double t0_s) {
  Mecanum3Config c;
  c.geometry.wheel_radius_m = params.get("mecanum_wheel_radius_m");
  c.geometry.front_axle_m = params.get("front_axle_m");
  c.geometry.half_track_m = params.get("half_track_m");
  c.geometry.rear_wheel_m = params.get("rear_wheel_m");
  c.geometry.roller_radius_m = params.get("roller_radius_m");
  if (!(c.geometry.front_axle_m + c.geometry.half_track_m + c.geometry.rear_wheel_m > 0.0)) {
    throw ParamError("backend mecanum3vw: front_axle_m + half_track_m + rear_wheel_m must be > 0 (else J is singular)");
  }
  c.model.mass_kg = params.get("mass_kg");
  c.model.yaw_inertia_kg_m2 = params.get("yaw_inertia_kg_m2");
  c.model.wheel_inertia_kg_m2 = params.get("wheel_inertia_kg_m2");
  c.model.wheel_viscous_N_m_s = params.get("wheel_viscous_N_m_s");
  c.plant = c.model;
  c.plant.mass_kg *= params.get("plant_mass_scale");
  c.plant.yaw_inertia_kg_m2 *= params.get("plant_inertia_scale");
  c.plant.wheel_viscous_N_m_s *= params.get("plant_viscous_scale");
  c.gains.kp_per_s = params.get("kp_per_s");
  c.gains.ki_per_s2 = params.get("ki_per_s2");
  c.path.path = params.get_choice("path") == 0 ? mecanum3vw::Path::kCircle : mecanum3vw::Path::kEight;
  c.path.radius_m = params.get("path_radius_m");
  c.path.rate_rad_per_s = params.get("path_rate_rad_per_s");
  c.path.heading0_rad = params.get("heading0_rad");
  c.path.heading_rate_rad_per_s = params.get("heading_rate_rad_per_s");
  c.initial_offset_x_m = params.get("initial_offset_x_m");
  c.rtol = params.get("solver_rtol");
  c.atol = params.get("solver_atol");
  c.max_step_s = params.get("solver_max_step_s");
  return std::make_unique<Mecanum3Backend>(c, t0_s);
}

// The ODE y' = f(t, y) as the DAE y' − f(t, y) = 0, with one root function per wheel at its
// contact-roller changes: cos 6θ_i, zero exactly at θ_i = 15° + m·30°.
class Mecanum3Backend::System final : public dae::DaeSystem {
 public:
  explicit System(const Mecanum3Config& c)
      : c_(c), jacobian_(mecanum3vw::wheel_jacobian(c.geometry)) {}

  /// f(t, y): the controller's torques drive the plant.
  void rates(double t_s, std::span<const double> y, std::span<double> f) const {
    const Vector3 q(y[kPose], y[kPose + 1], y[kPose + 2]);
    const Vector3 xi(y[kXi], y[kXi + 1], y[kXi + 2]);
    const Vector3 tau = torques(t_s, y);
    const Vector3 xi_dot = mecanum3vw::body_acceleration(c_.geometry, c_.plant, xi, tau);
    const Vector3 q_dot = mecanum3vw::world_to_body(q.z()).transpose() * xi;
    const Vector3 omega = jacobian_ * xi;
    for (int k = 0; k < 3; ++k) {
      const auto uk = static_cast<std::size_t>(k);
      f[kPose + uk] = q_dot[k];
      f[kXi + uk] = xi_dot[k];
      f[kWheel + uk] = omega[k];
      f[kRollerSum + uk] = roller_rate(k, xi);
    }
    f[kWorkIn] = tau.dot(omega);
    f[kWorkLoss] = c_.plant.wheel_viscous_N_m_s * omega.squaredNorm();
  }
  Vector3 torques(double t_s, std::span<const double> y) const {
    return mecanum3vw::tracking_torques(c_.geometry, c_.model, c_.gains, mecanum3vw::path_at(c_.path, t_s),
                                      Vector3(y[kPose], y[kPose + 1], y[kPose + 2]),
                                      Vector3(y[kXi], y[kXi + 1], y[kXi + 2]));
  }
  // The contact roller spins so that the hub's velocity across the wheel, v_H·y_B, is taken by
  // the roller alone: β̇ = −(v_H·y_B)/(r0·cos γ'), cos γ' = 1/√2 (spec B.5).
  double roller_rate(int wheel, const Vector3& xi) const {
    const mecanum3vw::WheelPlace w = mecanum3vw::wheel_place(c_.geometry, wheel);
    return -(xi.y() + xi.z() * w.x_m) * std::numbers::sqrt2 / c_.geometry.roller_radius_m;
  }
  const Matrix3& wheel_jacobian() const { return jacobian_; }

  int residual(double t_s, std::span<const double> y, std::span<const double> yp, std::span<double> r) override {
    rates(t_s, y, r);
    for (std::size_t j = 0; j < kStateCount; ++j) r[j] = yp[j] - r[j];
    return 0;
  }
  // IDA forms its Newton matrix by difference quotients (IdaOptions::analytic_jacobian = false).
  int jacobian(double, double, std::span<const double>, std::span<const double>, dae::DenseMatrixRef) override {
    return -1;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    for (std::size_t i = 0; i < 3; ++i) g[i] = std::cos(6.0 * y[kWheel + i]);
    return 0;
  }

 private:
  const Mecanum3Config& c_;
  Matrix3 jacobian_;
};

Mecanum3Backend::Mecanum3Backend(const Mecanum3Config& config, double t0_s)
    : Backend("mecanum3vw", "Mecanum3", mecanum3_joint_names(), mecanum3_output_names(), t0_s),
      config_(config),
      system_(std::make_unique<System>(config_)) {
  if (!(config_.rtol > 0) || !(config_.atol > 0) || !(config_.max_step_s > 0)) {
    throw std::invalid_argument("mecanum3vw backend: solver tolerances and max step must be positive");
  }
  // On the reference (plus the offset), moving with it: ξ = R(ϑ)·q̇_d.
  const mecanum3vw::PathSample ref = mecanum3vw::path_at(config_.path, t0_s);
  const Vector3 xi = mecanum3vw::world_to_body(ref.q.z()) * ref.q_dot;
  y_[kPose] = ref.q.x() + config_.initial_offset_x_m;
  y_[kPose + 1] = ref.q.y();
  y_[kPose + 2] = ref.q.z();
  for (std::size_t k = 0; k < 3; ++k) y_[kXi + k] = xi[static_cast<Eigen::Index>(k)];
  system_->rates(t0_s, y_, yp_);
  const std::array<double, kStateCount> atol = [&] {
    std::array<double, kStateCount> a{};
    a.fill(config_.atol);
    return a;
  }();
  std::array<double, kStateCount> differential{};
  differential.fill(1.0);
  dae::IdaOptions options;
  options.rtol = config_.rtol;
  options.atol = atol;
  options.differential = differential;
  options.max_step_s = config_.max_step_s;
  options.analytic_jacobian = false;
  options.root_count = kWheels;
  solver_ = std::make_unique<dae::IdaSolver>("backend mecanum3vw", *system_, kStateCount, t0_s, y_, yp_, options);
  stepper_ = std::make_unique<dae::EventStepper>(*solver_, static_cast<dae::EventHandler&>(*this),
                                                 static_cast<std::size_t>(options.root_count));
  for (std::size_t i = 0; i < 3; ++i) sector_[i] = contact_sector(y_[kWheel + i]);
  stored0_J_ = mecanum3vw::kinetic_energy_J(config_.geometry, config_.plant, xi);
  write_state(t0_s, mutable_joint_values(), mutable_outputs());
}

Mecanum3Backend::~Mecanum3Backend() = default;

void Mecanum3Backend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  stepper_->advance_to(t_s);
  stepper_->state_at(t_s, y_, yp_);
  write_state(t_s, q, outputs);
}

dae::EventHandler::AfterRoots Mecanum3Backend::on_roots(double t_s, std::span<const int> found) {
  solver_->interpolate(t_s, y_node_, {});
  for (std::size_t i = 0; i < 3; ++i) {
    if (found[i] == 0) continue;
    // θ is at an edge of the old sector: the nearer edge tells the direction. The roller that
    // leaves keeps the angle it turned while in contact.
    const double theta = y_node_[kWheel + i];
    const std::int64_t from = sector_[i];
    const auto roller = static_cast<std::size_t>(sector_roller(from));
    roller_rad_[i][roller] += y_node_[kRollerSum + i] - roller_sum_at_switch_[i];
    roller_sum_at_switch_[i] = y_node_[kRollerSum + i];
    sector_[i] = theta > static_cast<double>(from) * kRollerPitch_rad ? from + 1 : from - 1;
    ++switch_count_[i];
  }
  return AfterRoots::kStepHolds;
}

void Mecanum3Backend::write_state(double t_s, std::span<double> q, std::span<double> o) const {
  const mecanum3vw::PathSample ref = mecanum3vw::path_at(config_.path, t_s);
  const Vector3 pose(y_[kPose], y_[kPose + 1], y_[kPose + 2]);
  const Vector3 xi(y_[kXi], y_[kXi + 1], y_[kXi + 2]);
  const Vector3 e = ref.q - pose;
  const Vector3 e_body = mecanum3vw::world_to_body(pose.z()) * e;
  const Vector3 tau = system_->torques(t_s, y_);
  const Vector3 omega = system_->wheel_jacobian() * xi;
  for (std::size_t k = 0; k < 3; ++k) q[k] = pose[static_cast<Eigen::Index>(k)];
  o[out::kXRef] = ref.q.x();
  o[out::kYRef] = ref.q.y();
  o[out::kPhiRef] = ref.q.z();
  o[out::kEx] = e.x();
  o[out::kEy] = e.y();
  o[out::kEPhi] = e.z();
  o[out::kExBody] = e_body.x();
  o[out::kEyBody] = e_body.y();
  o[out::kVx] = xi.x();
  o[out::kVy] = xi.y();
  o[out::kOmegaZ] = xi.z();
  double power = 0.0;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto ei = static_cast<Eigen::Index>(i);
    q[3 + ui] = y_[kWheel + ui];
    const auto contact = static_cast<std::size_t>(sector_roller(sector_[ui]));
    for (std::size_t j = 0; j < kRollers; ++j) {
      const double turning = j == contact ? y_[kRollerSum + ui] - roller_sum_at_switch_[ui] : 0.0;
      q[6 + ui * kRollers + j] = roller_rad_[ui][j] + turning;
    }
    o[out::kOmega1 + ui] = omega[ei];
    o[out::kTau1 + ui] = tau[ei];
    o[out::kContact1 + ui] = static_cast<double>(contact + 1);
    o[out::kRollerSpeed1 + ui] = system_->roller_rate(i, xi);
    power += tau[ei] * omega[ei];
  }
  const double stored = mecanum3vw::kinetic_energy_J(config_.geometry, config_.plant, xi);
  o[out::kPower] = power;
  o[out::kEnergyIn] = y_[kWorkIn];
  o[out::kEnergyRes] = y_[kWorkLoss];
  o[out::kEnergyStored] = stored;
  o[out::kEnergyBalance] = y_[kWorkIn] - y_[kWorkLoss] - (stored - stored0_J_);
}

}  // namespace cosim::dynamics::mecanum3vw
