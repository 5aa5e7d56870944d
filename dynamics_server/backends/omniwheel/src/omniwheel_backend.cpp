#include "cosim/dynamics/omniwheel/omniwheel_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "cosim/dynamics/format_number.hpp"

namespace cosim::dynamics::omniwheel {
namespace {

namespace out = omniwheel_output;

// The sector edge just crossed is moved back by this band, so that IDA never restarts on a root
// (without it IDA misses later crossings); a reversal within the band stays with the new roller.
// The band must be tiny: a return through it is pushed on by the roller just left, and gains
// sqrt(2·|φ̈|·band) of spin. At the former 1e-9 rad that was 6e-4 rad/s against 177 rad/s² (the
// ψ = 30° run near 5.1 s), more than the slowest crossing integrated (kEdgeReturn_s·|φ̈|/2 =
// 9e-5 rad/s): the slide onto both tips became a rocking that the tolerances decided (MODEL.md
// §4). At least 4 ulp of the edge, or the edge rounds back onto itself (|φ| > 1100 rad).
constexpr double kSwitchHysteresis_rad = 1e-12;
double switch_band_rad(double edge_rad) {
  return std::max(kSwitchHysteresis_rad, 4.0 * std::numeric_limits<double>::epsilon() * std::abs(edge_rad));
}
// At a switch with the spin this slow (it would be back within this time), the wheel is taken
// to stand on both roller tips (Filippov sliding) instead of chattering between the rollers.
constexpr double kEdgeReturn_s = 1e-6;
// So is an excursion past the edge shallower than this many bands, whatever its time: the band
// would add more than 1/kEdgeDepthBands to its energy, so no crossing is integrated whose return
// the band decides.
constexpr double kEdgeDepthBands = 100.0;
// A restart begins with this fraction of the last step (IDA's own first-step estimate is far
// too small here and wastes a dozen doublings; the error test still guards the step).
constexpr double kRestartStepFraction = 0.1;

std::vector<std::string> omniwheel_joint_names(int rollers) {
  std::vector<std::string> names{"OmniWheel/x", "OmniWheel/y", "OmniWheel/yaw", "OmniWheel/spin"};
  for (int j = 1; j <= rollers; ++j) names.push_back("OmniWheel/roller" + std::to_string(j));
  names.push_back("OmniWheel/contact");  // not a coordinate: μ_ax, where the contact point is
  return names;
}

std::vector<std::string> omniwheel_output_names() {
  return {"roller1_z_m",        "roller1_vz_m_per_s",     "roller1_az_m_per_s2",      "contact_roller",
          "q_contact_rad",      "mu_axial_m",             "px_m",                     "py_m",
          "slip_m_per_s",       "ft_x_N",                 "ft_y_N",                   "normal_N",
          "normal_check_N",     "servo_torque_N_m",       "moment_residual_z_N_m",    "moment_residual_axle_N_m",
          "tracker_iterations", "energy_in_J",            "energy_resistive_J",       "energy_stored_J",
          "energy_balance_J",   "roller_switches",        "on_edge"};
}

}  // namespace

std::span<const ParamSpec> omniwheel_param_specs() {
  static const std::vector<ParamSpec> specs{
      {"omni_wheel_radius_m", 0.05, 0.005, 1.0, "m", "wheel radius R (envelope of the rollers)",
       "assumption (seed 004 gives no numbers; spec C.1)"},
      {"rollers", 4.0, 3.0, 12.0, "1", "number of rollers n (the default scene has 4)", "seed 004 Fig. 4"},
      {"roller_inclination_rad", std::numbers::pi / 6, -1.39, 1.39, "rad",
       "inclination psi of the roller axes about the radial line (0: ordinary omni wheel, pi/4: Mecanum)",
       "assumption: 30 deg (seed 004: 'wide range'; spec C.1)"},
      {"hub_mass_kg", 0.30, 1e-3, 100.0, "kg", "hub mass m_w", "assumption (spec C.1)"},
      {"roller_mass_kg", 0.02, 1e-4, 10.0, "kg", "mass of one roller m_r", "assumption (spec C.1)"},
      {"friction_mu", 0.3, 0.0, 5.0, "1", "Coulomb friction coefficient of the regularised law (spec 0.1 F1)",
       "assumption (spec C.1)"},
      {"friction_v_eps_m_per_s", 1e-3, 1e-6, 1.0, "m/s", "regularisation speed v_eps of the friction law",
       "assumption (spec C.1)"},
      {"contact_tracking", 0.0, 0.0, 1.0, "1",
       "explicit: closed form (seed 004 §5.2); implicit: nearest point by Newton on the roller (seed 004 §3)",
       "seed 004 §5", {"explicit", "implicit"}},
      {"x0_m", 0.0, -100.0, 100.0, "m", "initial X of the wheel centre", "assumption (spec C.1)"},
      {"y0_m", 0.0, -100.0, 100.0, "m", "initial Y", "assumption (spec C.1)"},
      {"yaw0_rad", 0.0, -10.0, 10.0, "rad", "initial heading chi", "assumption (spec C.1)"},
      {"spin0_rad", 0.0, -10.0, 10.0, "rad", "initial spin phi (0: roller 1 at the bottom)", "assumption (spec C.1)"},
      {"vx0_m_per_s", 1.0, -100.0, 100.0, "m/s", "initial dX/dt", "assumption: free motion, rotating and sliding (spec C.1)"},
      {"vy0_m_per_s", 0.3, -100.0, 100.0, "m/s", "initial dY/dt", "assumption (spec C.1)"},
      {"yaw_rate0_rad_per_s", 0.5, -100.0, 100.0, "rad/s", "initial d(chi)/dt", "assumption (spec C.1)"},
      {"spin_rate0_rad_per_s", 0.0, -1000.0, 1000.0, "rad/s", "initial d(phi)/dt", "assumption (spec C.1)"},
      {"external_force_x_N", 0.0, -1000.0, 1000.0, "N", "constant force on the wheel centre along world X",
       "chosen: 0 (the paper's run: gravity only; spec C.6)"},
      {"external_force_y_N", 0.0, -1000.0, 1000.0, "N", "constant force along world Y", "chosen: 0"},
      {"external_yaw_torque_N_m", 0.0, -100.0, 100.0, "N m", "constant torque about the vertical", "chosen: 0"},
      {"solver_rtol", 1e-8, 1e-13, 1e-2, "1", "IDA relative tolerance", "spec C.3"},
      {"solver_atol_position", 1e-10, 1e-15, 1e-2, "1", "absolute tolerance of positions and angles [m, rad]",
       "spec C.3"},
      {"solver_atol_speed", 1e-8, 1e-15, 1e-2, "1", "absolute tolerance of speeds and energies [m/s, rad/s, J]",
       "spec C.3"},
      {"solver_max_step_s", 1e-3, 1e-7, 1.0, "s", "largest IDA step", "spec C.3"},
  };
  return specs;
}

std::unique_ptr<Backend> make_omniwheel_backend(const Params& params, double t0_s) {
  OmniWheelConfig c;
  omniwheel::ModelParams& m = c.model;
  m.geometry.radius_m = params.get("omni_wheel_radius_m");
  const double rollers = params.get("rollers");
  if (rollers != std::floor(rollers)) {
    throw ParamError("backend omniwheel: rollers = " + format_number(rollers) + " must be a whole number");
  }
  m.geometry.rollers = static_cast<int>(rollers);
  m.geometry.psi_rad = params.get("roller_inclination_rad");
  m.hub_mass_kg = params.get("hub_mass_kg");
  m.roller_mass_kg = params.get("roller_mass_kg");
  m.friction_mu = params.get("friction_mu");
  m.friction_v_eps_m_per_s = params.get("friction_v_eps_m_per_s");
  m.tracking = params.get_choice("contact_tracking") == 0 ? omniwheel::Tracking::kExplicit
                                                          : omniwheel::Tracking::kImplicit;
  m.external_force_N = {params.get("external_force_x_N"), params.get("external_force_y_N"), 0.0};
  m.external_yaw_torque_N_m = params.get("external_yaw_torque_N_m");
  c.q0 = {params.get("x0_m"), params.get("y0_m"), params.get("yaw0_rad"), params.get("spin0_rad")};
  c.u0 = {params.get("vx0_m_per_s"), params.get("vy0_m_per_s"), params.get("yaw_rate0_rad_per_s"),
          params.get("spin_rate0_rad_per_s")};
  c.rtol = params.get("solver_rtol");
  c.atol_position = params.get("solver_atol_position");
  c.atol_speed = params.get("solver_atol_speed");
  c.max_step_s = params.get("solver_max_step_s");
  return std::make_unique<OmniWheelBackend>(c, t0_s);
}

// The ODE q̇ = u, u̇ = M⁻¹f, Ė_diss = −F_t·v_P, Ẇ_ext as F = y' − f(t, y) = 0, with the roller in
// contact as event state: its sector m (φ ∈ [(m − ½)·2π/n, (m + ½)·2π/n], roller (−m) mod n,
// contact angle q_c = φ − m·2π/n). Root functions: g0 positive inside the sector's window (g1
// unused); on an edge (both tips down, spin held: OmniWheelModel::evaluate_edge) g0 = w and
// g1 = 1 − w, the two rollers' shares.
class OmniWheelBackend::System final : public dae::DaeSystem {
 public:
  explicit System(const omniwheel::OmniWheelModel& model)
      : model_(model), dof_(static_cast<std::size_t>(model.dof())), pitch_(2.0 * std::numbers::pi / model.params().geometry.rollers) {}

  std::size_t dof() const { return dof_; }
  std::size_t size() const { return 2 * dof_ + 2; }
  std::int64_t sector() const { return sector_; }
  int roller_of(std::int64_t sector) const {
    const auto n = static_cast<std::int64_t>(model_.params().geometry.rollers);
    return static_cast<int>(((-sector) % n + n) % n);
  }
  int contact_roller() const { return roller_of(sector_); }
  double contact_angle(double phi) const { return phi - static_cast<double>(sector_) * pitch_; }
  omniwheel::ContactRoller contact_in(std::int64_t sector, double phi) const {
    return {roller_of(sector), phi - static_cast<double>(sector) * pitch_};
  }
  bool on_edge() const { return on_edge_; }
  std::int64_t edge_other_sector() const { return other_sector_; }
  /// Both tips down between the current sector and `other` (adjacent), the spin held.
  void set_edge(std::int64_t other) {
    on_edge_ = true;
    other_sector_ = other;
  }
  void clear_edge() { on_edge_ = false; }
  double pitch() const { return pitch_; }
  void set_sector(std::int64_t sector, int entered_from) {
    on_edge_ = false;
    sector_ = sector;
    lo_ = (static_cast<double>(sector) - 0.5) * pitch_;
    hi_ = (static_cast<double>(sector) + 0.5) * pitch_;
    if (entered_from < 0) lo_ -= switch_band_rad(lo_);
    if (entered_from > 0) hi_ += switch_band_rad(hi_);
  }

  void rates(std::span<const double> y, std::span<double> f, omniwheel::Evaluation& e) const {
    const std::span<const double> q = y.first(dof_);
    const std::span<const double> u = y.subspan(dof_, dof_);
    if (on_edge_) {
      model_.evaluate_edge(q, u, contact_in(sector_, q[3]), contact_in(other_sector_, q[3]), e);
    } else {
      model_.evaluate(q, u, contact_roller(), contact_angle(q[3]), e);
    }
    for (std::size_t j = 0; j < dof_; ++j) {
      f[j] = u[j];
      f[dof_ + j] = e.u_dot[static_cast<Eigen::Index>(j)];
    }
    f[2 * dof_] = e.dissipation_W;
    f[2 * dof_ + 1] = e.external_power_W;
  }

  int residual(double, std::span<const double> y, std::span<const double> yp, std::span<double> r) override {
    rates(y, r, scratch_);
    for (std::size_t j = 0; j < size(); ++j) r[j] = yp[j] - r[j];
    return 0;
  }
  // IDA forms its Newton matrix by difference quotients (IdaOptions::analytic_jacobian = false).
  int jacobian(double, double, std::span<const double>, std::span<const double>, dae::DenseMatrixRef) override {
    return -1;
  }
  int roots(double, std::span<const double> y, std::span<const double>, std::span<double> g) override {
    if (on_edge_) {
      model_.evaluate_edge(y.first(dof_), y.subspan(dof_, dof_), contact_in(sector_, y[3]),
                           contact_in(other_sector_, y[3]), scratch_);
      g[0] = scratch_.edge_weight;
      g[1] = 1.0 - scratch_.edge_weight;
      return 0;
    }
    const double phi = y[3];
    g[0] = (phi - lo_) * (hi_ - phi);
    g[1] = 1.0;
    return 0;
  }

 private:
  const omniwheel::OmniWheelModel& model_;
  std::size_t dof_;
  double pitch_;
  std::int64_t sector_ = 0;
  double lo_ = 0.0, hi_ = 0.0;
  bool on_edge_ = false;
  std::int64_t other_sector_ = 0;
  omniwheel::Evaluation scratch_;
};

OmniWheelBackend::OmniWheelBackend(const OmniWheelConfig& config, double t0_s)
    : Backend("omniwheel", "OmniWheel", omniwheel_joint_names(config.model.geometry.rollers),
              omniwheel_output_names(), t0_s),
      config_(config),
      model_(config.model),
      system_(std::make_unique<System>(model_)) {
  if (!(config_.rtol > 0) || !(config_.atol_position > 0) || !(config_.atol_speed > 0) || !(config_.max_step_s > 0)) {
    throw std::invalid_argument("omniwheel backend: solver tolerances and max step must be positive");
  }
  const std::size_t dof = system_->dof();
  const std::size_t n = system_->size();
  y_.assign(n, 0.0);
  yp_.assign(n, 0.0);
  y_node_.assign(n, 0.0);
  for (std::size_t j = 0; j < 4; ++j) {
    y_[j] = config_.q0[j];
    y_[dof + j] = config_.u0[j];
  }
  const double phi = y_[3];
  system_->set_sector(std::llround(phi / system_->pitch()), 0);
  system_->rates(y_, yp_, eval_);
  std::vector<double> atol(n, config_.atol_speed);
  std::fill_n(atol.begin(), dof, config_.atol_position);
  const std::vector<double> differential(n, 1.0);
  dae::IdaOptions options;
  options.rtol = config_.rtol;
  options.atol = atol;
  options.differential = differential;
  options.max_step_s = config_.max_step_s;
  options.analytic_jacobian = false;
  options.root_count = 2;
  solver_ = std::make_unique<dae::IdaSolver>("backend omniwheel", *system_, n, t0_s, y_, yp_, options);
  stepper_ = std::make_unique<dae::EventStepper>(*solver_, static_cast<dae::EventHandler&>(*this),
                                                 static_cast<std::size_t>(options.root_count));
  stored0_J_ = eval_.kinetic_energy_J + model_.params().total_mass_kg() * model_.params().gravity_m_per_s2 *
                                            model_.params().geometry.radius_m;
  y_node_ = y_;
  write_state(t0_s, mutable_joint_values(), mutable_outputs());
}

OmniWheelBackend::~OmniWheelBackend() = default;

void OmniWheelBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  // A switch restarts IDA at its root, so a root found beyond t_s waits (the step up to t_s is
  // valid: it is before the switch).
  stepper_->advance_to(t_s);
  stepper_->state_at(t_s, y_, yp_);
  write_state(t_s, q, outputs);
}

dae::EventHandler::AfterRoots OmniWheelBackend::on_roots(double t_s, std::span<const int> found) {
  solver_->interpolate(t_s, y_node_, {});
  const std::size_t dof = system_->dof();
  const std::size_t spin = 3, spin_rate = dof + 3;
  if (system_->on_edge()) {
    // A share reached 0 or 1: the wheel rolls off the edge with the roller that keeps the load.
    const std::int64_t a = system_->sector();
    const std::int64_t b = system_->edge_other_sector();
    const std::int64_t to = found[0] != 0 ? b : a;  // w = 0: b alone; 1 − w = 0: a alone
    const std::int64_t from = to == a ? b : a;
    system_->set_sector(to, to > from ? -1 : 1);
  } else {
    // φ is at one edge of the sector: the nearer edge tells the direction.
    const double phi = y_node_[spin];
    const std::int64_t from = system_->sector();
    const std::int64_t to = phi > static_cast<double>(from) * system_->pitch() ? from + 1 : from - 1;
    const double direction = to > from ? 1.0 : -1.0;
    // Sliding (Filippov): each side's field pushes the spin back to the edge, and the spin is too
    // slow to leave it (it would come back within kEdgeReturn_s): the wheel stands on both tips.
    system_->rates(y_node_, yp_, eval_);
    const double accel_from = eval_.u_dot[3];
    system_->set_sector(to, to > from ? -1 : 1);
    system_->rates(y_node_, yp_, eval_);
    const double accel_to = eval_.u_dot[3];
    const double speed = y_node_[spin_rate];
    const double edge = (static_cast<double>(from) + 0.5 * direction) * system_->pitch();
    const bool returns_soon = 2.0 * std::abs(speed) < kEdgeReturn_s * std::abs(accel_to);
    const bool within_bands = speed * speed < 2.0 * kEdgeDepthBands * switch_band_rad(edge) * std::abs(accel_to);
    if (accel_from * direction > 0.0 && accel_to * direction < 0.0 && (returns_soon || within_bands)) {
      system_->set_sector(from, to > from ? 1 : -1);
      system_->set_edge(to);
      y_node_[spin] = edge;
      y_node_[spin_rate] = 0.0;  // the Filippov solution slides on φ = edge
      ++edge_count_;
    }
  }
  ++switch_count_;
  // For ψ ≠ 0 the contact point and the friction jump: restart with the new field's rates.
  const double h_last = solver_->last_step_s();
  system_->rates(y_node_, yp_, eval_);
  solver_->reinit(t_s, y_node_, yp_);
  if (h_last > 0.0) solver_->set_initial_step(kRestartStepFraction * h_last);
  return AfterRoots::kRestarted;
}

omniwheel::ContactRoller OmniWheelBackend::contact() const {
  return system_->contact_in(system_->sector(), y_[3]);
}

std::optional<omniwheel::ContactRoller> OmniWheelBackend::edge_contact() const {
  if (!system_->on_edge()) return std::nullopt;
  return system_->contact_in(system_->edge_other_sector(), y_[3]);
}

void OmniWheelBackend::write_state(double t_s, std::span<double> q, std::span<double> o) {
  (void)t_s;
  const std::size_t dof = system_->dof();
  system_->rates(y_, yp_, eval_);
  for (std::size_t j = 0; j < dof; ++j) q[j] = y_[j];
  q[dof] = eval_.contact.axial_offset_m;
  const omniwheel::ModelParams& p = model_.params();
  o[out::kRoller1Z] = eval_.roller1_z_m;
  o[out::kRoller1Vz] = eval_.roller1_vz_m_per_s;
  o[out::kRoller1Az] = eval_.roller1_az_m_per_s2;
  const bool other = system_->on_edge() && eval_.edge_weight < 0.5;
  o[out::kContactRoller] =
      static_cast<double>((other ? system_->roller_of(system_->edge_other_sector()) : system_->contact_roller()) + 1);
  o[out::kContactAngle] = system_->contact_angle(y_[3]);
  o[out::kAxialOffset] = eval_.contact.axial_offset_m;
  o[out::kPx] = eval_.contact.point.x();
  o[out::kPy] = eval_.contact.point.y();
  o[out::kSlip] = eval_.slip_m_per_s.norm();
  o[out::kFrictionX] = eval_.friction_N.x();
  o[out::kFrictionY] = eval_.friction_N.y();
  o[out::kNormal] = eval_.normal_N;
  o[out::kNormalCheck] = eval_.normal_check_N;
  o[out::kServoTorque] = eval_.servo_torque_N_m;
  o[out::kResidualZ] = eval_.moment_residual_z_N_m;
  o[out::kResidualAxle] = eval_.moment_residual_axle_N_m;
  o[out::kTrackerIterations] = eval_.contact.iterations;
  const double stored = eval_.kinetic_energy_J + p.total_mass_kg() * p.gravity_m_per_s2 * p.geometry.radius_m;
  o[out::kEnergyIn] = y_[2 * dof + 1];
  o[out::kEnergyRes] = y_[2 * dof];
  o[out::kEnergyStored] = stored;
  o[out::kEnergyBalance] = y_[2 * dof + 1] - y_[2 * dof] - (stored - stored0_J_);
  o[out::kRollerSwitches] = static_cast<double>(switch_count_);
  o[out::kOnEdge] = system_->on_edge() ? 1.0 : 0.0;
}

}  // namespace cosim::dynamics::omniwheel
