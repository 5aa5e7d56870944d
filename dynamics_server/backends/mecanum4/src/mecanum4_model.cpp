#include "cosim/dynamics/mecanum4_model.hpp"

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
      tau(static_cast<std::size_t>(model.speed_count())) {}

std::vector<double> Mecanum4Model::initial_state() const {
  std::vector<double> y(static_cast<std::size_t>(state_size()), 0.0);
  y[2] = p_.geometry.wheel_radius_m - p_.static_penetration_m();  // z of B's origin (hub height)
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
  const double gain = reduced ? p_.reduced_gain_scale : 1.0;
  const double limit = p_.drive_torque_limit_N_m * (reduced ? std::numbers::sqrt2 : 1.0);

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
    const double error = omega_ref[i] - omega;
    const double command = gain * (p_.drive_kp_N_m_s * error + p_.drive_ki_N_m * integral[ui]);
    const double torque = std::clamp(command, -limit, limit);
    // Conditional integration: the integral stops while the command is beyond the limit and the
    // error would push it further.
    const bool wound = (command > limit && error > 0.0) || (command < -limit && error < 0.0);
    y_dot[nq + nu + ui] = wound ? 0.0 : error;
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
    const auto ub = static_cast<std::size_t>(body);
    const Vector3 centre = ws.world_to_body[ub].r;
    const double depth = radius - centre.z();
    if (depth <= 0.0) return;
    const Vector3 point = centre - radius * kUp;
    const Vector3 v_point = multibody::point_velocity(ws, body, point);
    const double depth_rate = -v_point.z();
    const double normal = std::max(0.0, p_.contact_stiffness_N_per_m * depth +
                                            p_.contact_damping_N_s_per_m * depth_rate *
                                                std::min(1.0, depth / p_.contact_damping_depth_m));
    const Vector3 slip(v_point.x(), v_point.y(), 0.0);
    const double eps = p_.friction_v_eps_m_per_s;
    const Vector3 friction = -p_.friction_mu * normal * slip / std::sqrt(slip.squaredNorm() + eps * eps);
    scratch.f_ext[ub] += multibody::point_force(point, normal * kUp + friction);
    const auto uw = static_cast<std::size_t>(wheel);
    out.normal_N[uw] += normal;
    out.slip_m_per_s[uw] = std::max(out.slip_m_per_s[uw], slip.norm());
    ++out.contacts[uw];
    out.friction_loss_W -= friction.dot(slip);
    out.contact_loss_W += (normal - p_.contact_stiffness_N_per_m * depth) * depth_rate;
    spring_energy += 0.5 * p_.contact_stiffness_N_per_m * depth * depth;
  };
  for (int i = 0; i < kWheels; ++i) {
    if (reduced) {
      contact(i, wheel_body(i), g.wheel_radius_m);
    } else {
      for (int j = 0; j < p_.rollers; ++j) contact(i, roller_body(i, j), p_.roller_radius_m);
    }
  }

  // Energies of the state (before forward_dynamics reuses the workspace).
  out.kinetic_J = multibody::kinetic_energy(tree_, ws);
  double gravity_energy = 0.0;
  for (int b = 0; b < tree_.body_count(); ++b) {
    const multibody::Body& body = tree_.body(b);
    if (body.inertia.mass_kg == 0.0) continue;
    const Vector3 com = ws.world_to_body[static_cast<std::size_t>(b)].inverse().apply_point(body.inertia.com_m);
    gravity_energy += body.inertia.mass_kg * p_.gravity_m_per_s2 * com.z();
  }
  out.potential_J = gravity_energy + spring_energy;

  multibody::forward_dynamics(tree_, q, u, scratch.tau, Vector3(0.0, 0.0, -p_.gravity_m_per_s2), scratch.f_ext, ws);

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

}  // namespace cosim::dynamics::mecanum4
