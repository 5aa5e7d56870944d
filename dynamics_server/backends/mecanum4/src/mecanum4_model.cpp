#include "cosim/dynamics/mecanum4/mecanum4_model.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace cosim::dynamics::mecanum4 {
namespace {

using multibody::Body;
using multibody::SpatialInertia;
using multibody::Transform;
using multibody::Vector6;

const Vector3 kUp = Vector3::UnitZ();

SpatialInertia point_mass(double mass_kg) {
  SpatialInertia i;
  i.mass_kg = mass_kg;
  return i;
}

SpatialInertia sphere(double mass_kg, double inertia_kg_m2) {
  SpatialInertia i;
  i.mass_kg = mass_kg;
  i.inertia_com_kg_m2 = inertia_kg_m2 * Eigen::Matrix3d::Identity();
  return i;
}

// Chassis joints in the order of the state: x, y, z (world), yaw, pitch (about x_B), roll (y_B).
constexpr int kChassisJoints = 6;

// One sphere on the floor (spec 0.2, C1) with the derivatives the Newton matrix needs.
struct SphereContact {
  bool active = false;
  Vector3 point, slip;           // contact point; horizontal slip of the sphere's material point there
  double depth = 0, depth_rate = 0, normal = 0;
  Vector3 friction;
  double dnormal_ddepth = 0, dnormal_drate = 0;  // ∂N/∂δ, ∂N/∂δ̇
};

SphereContact sphere_contact(const ModelParams& p, const multibody::Workspace& ws, int body, double radius) {
  SphereContact c;
  const Vector3 centre = ws.world_to_body[static_cast<std::size_t>(body)].r;
  c.depth = radius - centre.z();
  if (c.depth <= 0.0) return c;
  c.point = centre - radius * kUp;
  const Vector3 v = multibody::point_velocity(ws, body, c.point);
  c.depth_rate = -v.z();
  const double fade = std::min(1.0, c.depth / p.contact_damping_depth_m);
  const double raw = p.contact_stiffness_N_per_m * c.depth + p.contact_damping_N_s_per_m * c.depth_rate * fade;
  c.normal = std::max(0.0, raw);
  if (raw > 0.0) {
    c.dnormal_ddepth = p.contact_stiffness_N_per_m +
                       (fade < 1.0 ? p.contact_damping_N_s_per_m * c.depth_rate / p.contact_damping_depth_m : 0.0);
    c.dnormal_drate = p.contact_damping_N_s_per_m * fade;
  }
  c.slip = Vector3(v.x(), v.y(), 0.0);
  const double eps = p.friction_v_eps_m_per_s;
  c.friction = -p.friction_mu * c.normal * c.slip / std::sqrt(c.slip.squaredNorm() + eps * eps);
  c.active = true;
  return c;
}

// The PI drive of one wheel.
struct Drive {
  double error = 0, torque = 0;
  bool saturated = false;  // the command beyond the limit: the torque does not follow it
  bool wound = false;      // saturated and the error pushing further: the integral frozen
};

Drive drive(const ModelParams& p, double omega, double omega_ref, double integral) {
  const bool reduced = p.wheel_model == WheelModel::kReduced;
  const double gain = reduced ? p.reduced_gain_scale : 1.0;
  const double limit = p.drive_torque_limit_N_m * (reduced ? std::numbers::sqrt2 : 1.0);
  Drive d;
  d.error = omega_ref - omega;
  const double command = gain * (p.drive_kp_N_m_s * d.error + p.drive_ki_N_m * integral);
  d.torque = std::clamp(command, -limit, limit);
  d.saturated = std::abs(command) > limit;
  // Conditional integration: the integral stops while the command is beyond the limit and the
  // error would push it further.
  d.wound = (command > limit && d.error > 0.0) || (command < -limit && d.error < 0.0);
  return d;
}

}  // namespace

double ModelParams::total_mass_kg() const {
  const double wheel = wheel_model == WheelModel::kRollers ? hub_mass_kg + rollers * roller_mass_kg : sphere_mass_kg;
  return chassis_mass_kg + kWheels * (carrier_mass_kg + wheel);
}

double ModelParams::suspension_preload_N() const { return chassis_mass_kg * gravity_m_per_s2 / kWheels; }

double ModelParams::static_penetration_m() const {
  return total_mass_kg() * gravity_m_per_s2 / kWheels / contact_stiffness_N_per_m;
}

Mecanum4Model::Mecanum4Model(const ModelParams& params) : p_(params) {
  const Geometry& g = p_.geometry;
  if (!(g.wheel_radius_m > 0) || !(g.half_track_m > 0) || !(g.half_base_m > 0) || !(p_.roller_radius_m > 0) ||
      !(p_.roller_radius_m < g.wheel_radius_m) || p_.rollers < 3 || !(p_.chassis_mass_kg > 0) ||
      !(p_.carrier_mass_kg > 0) || !(p_.hub_mass_kg > 0) || !(p_.roller_mass_kg > 0) || !(p_.sphere_mass_kg > 0) ||
      !(p_.sphere_inertia_kg_m2 > 0) || !(p_.contact_stiffness_N_per_m > 0) || !(p_.contact_damping_depth_m > 0) ||
      !(p_.suspension_stiffness_N_per_m > 0) || !(p_.friction_v_eps_m_per_s > 0) || !(p_.friction_mu >= 0)) {
    throw std::invalid_argument("mecanum4 model: positive sizes, masses, inertias, stiffnesses and v_eps; mu >= 0");
  }
  using multibody::prismatic;
  using multibody::revolute;
  // The chassis on six joints; only the last body has mass. B's origin is at hub height.
  int parent = -1;
  const Vector3 axes[kChassisJoints] = {Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ(),
                                        Vector3::UnitZ(), Vector3::UnitX(), Vector3::UnitY()};
  const char* names[kChassisJoints] = {"x", "y", "z", "yaw", "pitch", "roll"};
  for (int j = 0; j < kChassisJoints; ++j) {
    Body b;
    b.name = names[j];
    b.parent = parent;
    b.joint = j < 3 ? prismatic(axes[j]) : revolute(axes[j]);
    if (j == kChassisJoints - 1) {
      b.inertia.mass_kg = p_.chassis_mass_kg;
      b.inertia.com_m = Vector3(0.0, 0.0, p_.chassis_com_height_m - g.wheel_radius_m);
      b.inertia.inertia_com_kg_m2 = p_.chassis_inertia_kg_m2.asDiagonal();
    }
    parent = tree_.add_body(b);
  }
  chassis_ = parent;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Eigen::Vector2d at = g.wheel_position(i);
    carrier_[ui] = tree_.add_body({"carrier" + std::to_string(i + 1), chassis_,
                                   multibody::translation(Vector3(at.x(), at.y(), 0.0)), prismatic(Vector3::UnitZ()),
                                   point_mass(p_.carrier_mass_kg)});
    if (p_.wheel_model == WheelModel::kReduced) {
      wheel_[ui] = tree_.add_body({"sphere" + std::to_string(i + 1), carrier_[ui], {}, multibody::spherical_speeds(),
                                   sphere(p_.sphere_mass_kg, p_.sphere_inertia_kg_m2)});
      continue;
    }
    SpatialInertia hub;
    hub.mass_kg = p_.hub_mass_kg;
    hub.inertia_com_kg_m2 =
        Vector3(p_.hub_axle_inertia_kg_m2, p_.hub_transverse_inertia_kg_m2, p_.hub_transverse_inertia_kg_m2).asDiagonal();
    wheel_[ui] = tree_.add_body({"hub" + std::to_string(i + 1), carrier_[ui], {}, revolute(Vector3::UnitX()), hub});
    // Roller j: turned by ζ_j = 2πj/n about x_B, its centre R − r_s below the hub there, its
    // axis x turned by γ_i about the radial line: e_ij = R_x(ζ_j)·(cos γ_i, sin γ_i, 0).
    const double gamma = g.roller_angle_rad(i);
    for (int j = 0; j < p_.rollers; ++j) {
      const double zeta = 2.0 * std::numbers::pi * j / p_.rollers;
      const Transform place = multibody::rotation(Vector3::UnitZ(), gamma) *
                              multibody::translation(Vector3(0.0, 0.0, -(g.wheel_radius_m - p_.roller_radius_m))) *
                              multibody::rotation(Vector3::UnitX(), zeta);
      tree_.add_body({"roller" + std::to_string(i + 1) + "_" + std::to_string(j + 1), wheel_[ui], place,
                      revolute(Vector3::UnitX()), sphere(p_.roller_mass_kg, 0.4 * p_.roller_mass_kg *
                                                                                  p_.roller_radius_m * p_.roller_radius_m)});
    }
  }
}

Scratch::Scratch(const Mecanum4Model& model)
    : ws(model.tree()),
      f_ext(static_cast<std::size_t>(model.tree().body_count())),
      tau(static_cast<std::size_t>(model.speed_count())),
      k_u(model.speed_count(), model.speed_count()),
      k_p(model.speed_count(), model.speed_count()),
      k_e(model.speed_count(), kWheels),
      point_jacobian(3, model.speed_count()),
      solved(model.speed_count(), 2 * model.speed_count() + kWheels),
      mass_factor(model.speed_count()) {}

std::vector<double> Mecanum4Model::initial_state() const {
  std::vector<double> y(static_cast<std::size_t>(state_size()), 0.0);
  // z of B's origin (hub height), in equilibrium or dropped from above it.
  y[2] = p_.geometry.wheel_radius_m - p_.static_penetration_m() + p_.start_height_m;
  return y;
}

void Mecanum4Model::evaluate(double t_s, std::span<const double> y, std::span<double> y_dot, Scratch& scratch,
                             Evaluation& out) const {
  const Geometry& g = p_.geometry;
  const auto nq = static_cast<std::size_t>(position_count()), nu = static_cast<std::size_t>(speed_count());
  const std::span<const double> q = y.first(nq), u = y.subspan(nq, nu);
  const std::span<const double> integral = y.subspan(nq + nu, kWheels);
  multibody::Workspace& ws = scratch.ws;
  multibody::forward_kinematics(tree_, q, u, ws);

  // Reference and the wheel-speed references from the inverse kinematics (eq. 11 / eq. 17).
  out.reference = reference_at(p_.manoeuvre, t_s);
  const double heading = p_.reference_heading ? out.reference.pose.z() : q[3];
  const Vector3 body_velocity_ref = world_to_body(heading) * out.reference.velocity;
  const bool reduced = p_.wheel_model == WheelModel::kReduced;
  const Vector4 omega_ref = (reduced ? omni_jacobian(g) : inverse_jacobian(g)) * body_velocity_ref;

  std::fill(scratch.tau.begin(), scratch.tau.end(), 0.0);
  std::fill(scratch.f_ext.begin(), scratch.f_ext.end(), Vector6::Zero());
  out.drive_power_W = out.friction_loss_W = out.damper_loss_W = out.contact_loss_W = 0.0;
  double spring_energy = 0.0;
  Vector4 mecanum_speeds;
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    // Suspension: preload, spring, damper, bump stop beyond the travel; on the carrier's joint.
    const auto s_at = static_cast<std::size_t>(tree_.speed_index(carrier_[ui]));
    const double s = q[static_cast<std::size_t>(tree_.position_index(carrier_[ui]))], s_dot = u[s_at];
    const double over = std::max(0.0, std::abs(s) - p_.suspension_travel_m);
    const double bump = p_.bump_stiffness_N_per_m * over * (s < 0.0 ? -1.0 : 1.0);
    scratch.tau[s_at] = -p_.suspension_preload_N() - p_.suspension_stiffness_N_per_m * s -
                        p_.suspension_damping_N_s_per_m * s_dot - bump;
    spring_energy += p_.suspension_preload_N() * s + 0.5 * p_.suspension_stiffness_N_per_m * s * s +
                     0.5 * p_.bump_stiffness_N_per_m * over * over;
    out.damper_loss_W += p_.suspension_damping_N_s_per_m * s_dot * s_dot;
    out.suspension_m[ui] = s;

    // Drive: PI on the wheel speed relative to the carrier (what an encoder measures).
    const auto w_at = static_cast<std::size_t>(tree_.speed_index(wheel_[ui]));
    Vector3 w_sphere = Vector3::Zero();
    double omega = u[w_at];
    if (reduced) {
      w_sphere = Vector3(u[w_at], u[w_at + 1], u[w_at + 2]);
      omega = w_sphere.dot(g.omni_axle(i));
    }
    const Drive d = drive(p_, omega, omega_ref[i], integral[ui]);
    const double torque = d.torque;
    y_dot[nq + nu + ui] = d.wound ? 0.0 : d.error;
    if (reduced) {
      const Vector3 t = torque * g.omni_axle(i) - p_.spin_kp_N_m_s * w_sphere.z() * kUp;
      for (std::size_t k = 0; k < 3; ++k) scratch.tau[w_at + k] = t[static_cast<Eigen::Index>(k)];
      out.drive_power_W += t.dot(w_sphere);
    } else {
      scratch.tau[w_at] = torque;
      out.drive_power_W += torque * omega;
    }
    out.omega_rad_per_s[ui] = omega;
    out.omega_ref_rad_per_s[ui] = omega_ref[i];
    out.torque_N_m[ui] = torque;
    mecanum_speeds[i] = reduced ? std::numbers::sqrt2 * omega : omega;
    out.normal_N[ui] = 0.0;
    out.slip_m_per_s[ui] = 0.0;
    out.contacts[ui] = 0;
  }

  // Contacts (spec 0.2, C1): every roller sphere (rollers) or the wheel sphere (reduced).
  const auto contact = [&](int wheel, int body, double radius) {
    const SphereContact c = sphere_contact(p_, ws, body, radius);
    if (!c.active) return;
    scratch.f_ext[static_cast<std::size_t>(body)] += multibody::point_force(c.point, c.normal * kUp + c.friction);
    const auto uw = static_cast<std::size_t>(wheel);
    out.normal_N[uw] += c.normal;
    out.slip_m_per_s[uw] = std::max(out.slip_m_per_s[uw], c.slip.norm());
    ++out.contacts[uw];
    out.friction_loss_W -= c.friction.dot(c.slip);
    out.contact_loss_W += (c.normal - p_.contact_stiffness_N_per_m * c.depth) * c.depth_rate;
    spring_energy += 0.5 * p_.contact_stiffness_N_per_m * c.depth * c.depth;
  };
  for (int i = 0; i < kWheels; ++i) {
    if (reduced) {
      contact(i, wheel_body(i), g.wheel_radius_m);
    } else {
      for (int j = 0; j < p_.rollers; ++j) contact(i, roller_body(i, j), p_.roller_radius_m);
    }
  }

  // Energies of the state (before forward_dynamics reuses the workspace), when asked for.
  if (scratch.want_energies) {
  out.kinetic_J = multibody::kinetic_energy(tree_, ws);
  double gravity_energy = 0.0;
  for (int b = 0; b < tree_.body_count(); ++b) {
    const multibody::Body& body = tree_.body(b);
    if (body.inertia.mass_kg == 0.0) continue;
    const Vector3 com = ws.world_to_body[static_cast<std::size_t>(b)].inverse().apply_point(body.inertia.com_m);
    gravity_energy += body.inertia.mass_kg * p_.gravity_m_per_s2 * com.z();
  }
  out.potential_J = gravity_energy + spring_energy;
  }

  // The poses and velocities of the forward_kinematics above are still in ws.
  multibody::forward_dynamics_after_kinematics(tree_, u, scratch.tau, Vector3(0.0, 0.0, -p_.gravity_m_per_s2),
                                               scratch.f_ext, ws);

  for (int b = 0; b < tree_.body_count(); ++b) {  // q̇ = u for every joint with a position
    if (tree_.body(b).joint.position_count() == 1) {
      y_dot[static_cast<std::size_t>(tree_.position_index(b))] = u[static_cast<std::size_t>(tree_.speed_index(b))];
    }
  }
  for (std::size_t k = 0; k < nu; ++k) y_dot[nq + k] = ws.u_dot[static_cast<Eigen::Index>(k)];
  const std::size_t e = nq + nu + kWheels;
  y_dot[e] = out.drive_power_W;
  y_dot[e + 1] = out.friction_loss_W;
  y_dot[e + 2] = out.damper_loss_W;
  y_dot[e + 3] = out.contact_loss_W;

  out.world_velocity = Vector3(u[0], u[1], u[3]);
  out.c_omega_rad_per_s = consistency_row().dot(mecanum_speeds);
  out.vertical_acceleration_m_per_s2 = ws.u_dot[2];
}

void Mecanum4Model::newton_matrix(double t_s, double cj, std::span<const double> y, Scratch& scratch,
                                  dae::DenseMatrixRef jac) const {
  const Geometry& g = p_.geometry;
  const int nq = position_count(), nu = speed_count();
  const std::span<const double> q = y.first(static_cast<std::size_t>(nq));
  const std::span<const double> u = y.subspan(static_cast<std::size_t>(nq), static_cast<std::size_t>(nu));
  multibody::Workspace& ws = scratch.ws;
  multibody::mass_matrix(tree_, q, ws);
  scratch.mass_factor.compute(ws.mass);
  multibody::forward_kinematics(tree_, q, u, ws);
  scratch.k_u.setZero();
  scratch.k_p.setZero();
  scratch.k_e.setZero();

  const ReferenceSample reference = reference_at(p_.manoeuvre, t_s);
  const double heading = p_.reference_heading ? reference.pose.z() : q[3];
  const bool reduced = p_.wheel_model == WheelModel::kReduced;
  const Vector4 omega_ref = (reduced ? omni_jacobian(g) : inverse_jacobian(g)) * (world_to_body(heading) * reference.velocity);
  const double gain = reduced ? p_.reduced_gain_scale : 1.0;
  const auto integral = y.subspan(static_cast<std::size_t>(nq + nu), kWheels);
  std::array<bool, kWheels> wound{};
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const int s = tree_.speed_index(carrier_[ui]);
    const double travel = std::abs(q[static_cast<std::size_t>(tree_.position_index(carrier_[ui]))]);
    scratch.k_u(s, s) -= p_.suspension_damping_N_s_per_m;
    scratch.k_p(s, s) -= p_.suspension_stiffness_N_per_m + (travel > p_.suspension_travel_m ? p_.bump_stiffness_N_per_m : 0.0);
    const int w = tree_.speed_index(wheel_[ui]);
    if (reduced) {
      const Vector3 axle = g.omni_axle(i);
      const Vector3 sphere_w(u[static_cast<std::size_t>(w)], u[static_cast<std::size_t>(w + 1)], u[static_cast<std::size_t>(w + 2)]);
      const Drive d = drive(p_, sphere_w.dot(axle), omega_ref[i], integral[ui]);
      wound[ui] = d.wound;
      Eigen::Matrix3d dtau = -p_.spin_kp_N_m_s * kUp * kUp.transpose();
      if (!d.saturated) {
        dtau -= gain * p_.drive_kp_N_m_s * axle * axle.transpose();
        scratch.k_e.block(w, i, 3, 1) = gain * p_.drive_ki_N_m * axle;
      }
      scratch.k_u.block(w, w, 3, 3) += dtau;
    } else {
      const Drive d = drive(p_, u[static_cast<std::size_t>(w)], omega_ref[i], integral[ui]);
      wound[ui] = d.wound;
      if (!d.saturated) {
        scratch.k_u(w, w) -= gain * p_.drive_kp_N_m_s;
        scratch.k_e(w, i) = gain * p_.drive_ki_N_m;
      }
    }
  }
  // Contacts: F = N(δ, δ̇)·e_z + F_t(v_slip, N) at the contact point, δ = ρ − z, δ̇ = −v_z.
  const auto contact = [&](int body, double radius) {
    const SphereContact c = sphere_contact(p_, ws, body, radius);
    if (!c.active) return;
    multibody::point_jacobian(tree_, ws, body, c.point, scratch.point_jacobian);
    const double eps = p_.friction_v_eps_m_per_s;
    const double speed = std::sqrt(c.slip.squaredNorm() + eps * eps);
    Eigen::Matrix3d horizontal = Eigen::Matrix3d::Identity();
    horizontal(2, 2) = 0.0;
    // ∂F/∂v: friction against the slip, and the normal damping with the friction it carries.
    const Vector3 per_normal = kUp + (c.normal > 0.0 ? Vector3(c.friction / c.normal) : Vector3::Zero());
    Eigen::Matrix3d dv = -p_.friction_mu * c.normal / speed * (horizontal - c.slip * c.slip.transpose() / (speed * speed));
    dv -= per_normal * c.dnormal_drate * kUp.transpose();
    // ∂F/∂p: the normal spring (and its fading damping) with the friction it carries.
    const Eigen::Matrix3d dp = -per_normal * c.dnormal_ddepth * kUp.transpose();
    const auto& j = scratch.point_jacobian;
    scratch.k_u.noalias() += j.transpose() * dv * j;
    scratch.k_p.noalias() += j.transpose() * dp * j;
  };
  for (int i = 0; i < kWheels; ++i) {
    if (reduced) {
      contact(wheel_body(i), g.wheel_radius_m);
    } else {
      for (int r = 0; r < p_.rollers; ++r) contact(roller_body(i, r), p_.roller_radius_m);
    }
  }
  // A = M⁻¹·[K_u K_p K_e].
  scratch.solved.leftCols(nu) = scratch.k_u;
  scratch.solved.middleCols(nu, nu) = scratch.k_p;
  scratch.solved.rightCols(kWheels) = scratch.k_e;
  scratch.mass_factor.solveInPlace(scratch.solved);

  const int n = state_size();
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < n; ++r) jac(static_cast<std::size_t>(r), static_cast<std::size_t>(c)) = 0.0;
    jac(static_cast<std::size_t>(c), static_cast<std::size_t>(c)) = cj;
  }
  const auto at = [&](int r, int c) -> double& { return jac(static_cast<std::size_t>(r), static_cast<std::size_t>(c)); };
  for (int b = 0; b < tree_.body_count(); ++b) {
    if (tree_.body(b).joint.position_count() == 0) continue;
    const int pos = tree_.position_index(b), spd = tree_.speed_index(b);
    at(pos, nq + spd) = -1.0;  // q̇ = u
    for (int r = 0; r < nu; ++r) at(nq + r, pos) = -scratch.solved(r, nu + spd);
  }
  for (int r = 0; r < nu; ++r) {
    for (int c = 0; c < nu; ++c) at(nq + r, nq + c) -= scratch.solved(r, c);
    for (int i = 0; i < kWheels; ++i) at(nq + r, nq + nu + i) = -scratch.solved(r, 2 * nu + i);
  }
  // Ė_i = ω_ref − ω_i(u) (zero while wound: then no coupling).
  for (int i = 0; i < kWheels; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    if (wound[ui]) continue;
    const int w = tree_.speed_index(wheel_[ui]);
    if (reduced) {
      const Vector3 axle = g.omni_axle(i);
      for (int k = 0; k < 3; ++k) at(nq + nu + i, nq + w + k) = axle[k];
    } else {
      at(nq + nu + i, nq + w) = 1.0;
    }
  }
}

}  // namespace cosim::dynamics::mecanum4
