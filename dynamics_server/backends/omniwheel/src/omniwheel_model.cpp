#include "cosim/dynamics/omniwheel/omniwheel_model.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace cosim::dynamics::omniwheel {

namespace {

using Matrix3 = Eigen::Matrix3d;
using Partials = Eigen::Matrix<double, 3, Eigen::Dynamic, 0, 3, kMaxDof>;  // ∂v/∂u or ∂ω/∂u

// Inertia tensor in the world of an axisymmetric body with axis n: A·1 + (C − A)·n·nᵀ.
Matrix3 axisymmetric(double transverse, double axial, const Vector3& n) {
  return transverse * Matrix3::Identity() + (axial - transverse) * n * n.transpose();
}

// The moving bodies with their partial velocities (Kane), velocity-product ("bias")
// accelerations, inertia, and position relative to O.
struct Body {
  double mass;
  Matrix3 inertia;
  Vector3 offset;  // centre of mass − O
  Partials v, w;   // v_b = V·u, ω_b = W·u
  Vector3 bias_linear, bias_angular;  // a_b, α_b at u̇ = 0
  Vector3 omega;
};

}  // namespace

double ModelParams::total_mass_kg() const { return hub_mass_kg + geometry.rollers * roller_mass_kg; }
double ModelParams::hub_transverse_inertia() const {
  const double r1 = geometry.roller_offset_m();
  return hub_mass_kg * r1 * r1 / 4.0;
}
double ModelParams::hub_axle_inertia() const {
  const double r1 = geometry.roller_offset_m();
  return hub_mass_kg * r1 * r1 / 2.0;
}
double ModelParams::roller_axis_inertia() const {
  const double r0 = geometry.radius_m - geometry.roller_offset_m();
  return 0.3 * roller_mass_kg * r0 * r0;
}
double ModelParams::roller_transverse_inertia() const {
  const double r0 = geometry.radius_m - geometry.roller_offset_m();
  const double half = 0.5 * geometry.roller_length_m();
  return roller_mass_kg * (half * half + r0 * r0) / 5.0;
}

OmniWheelModel::OmniWheelModel(const ModelParams& params) : p_(params) {
  const WheelGeometry& g = p_.geometry;
  if (g.rollers < 3 || g.rollers > kMaxRollers || !(g.radius_m > 0) || !(p_.hub_mass_kg > 0) ||
      !(p_.roller_mass_kg > 0) || !(std::abs(g.psi_rad) < 80.0 * std::numbers::pi / 180.0) || !(p_.friction_mu >= 0) ||
      !(p_.friction_v_eps_m_per_s > 0) || !(p_.gravity_m_per_s2 > 0)) {
    throw std::invalid_argument(
        "omniwheel model: 3..12 rollers, |psi| < 80 deg, positive radius, masses, gravity and v_eps, mu >= 0");
  }
}

namespace {

// Bodies (hub, then rollers 0..n−1) at (q, u).
struct Assembly {
  Vector3 heading, axle, center, omega_hub, bias_hub;
  int n, dof;
  std::array<Body, 1 + kMaxRollers> bodies;
  std::array<Vector3, kMaxRollers> roller_axis, roller_center;
};

void assemble(const ModelParams& p, std::span<const double> q, std::span<const double> u, Assembly& s) {
  const WheelGeometry& g = p.geometry;
  s.n = g.rollers;
  s.dof = 4 + s.n;
  const double chi = q[2];
  const double phi = q[3];
  s.heading = Vector3(std::cos(chi), std::sin(chi), 0.0);
  s.axle = Vector3(-std::sin(chi), std::cos(chi), 0.0);
  s.center = Vector3(q[0], q[1], g.radius_m);
  const double chi_dot = u[2];
  const double phi_dot = u[3];
  s.omega_hub = chi_dot * kUp + phi_dot * s.axle;
  // dω_w/dt at u̇ = 0: φ̇·da/dt, da/dt = χ̇·e_z × a.
  s.bias_hub = phi_dot * chi_dot * kUp.cross(s.axle);

  Body& hub = s.bodies[0];
  hub.mass = p.hub_mass_kg;
  hub.inertia = axisymmetric(p.hub_transverse_inertia(), p.hub_axle_inertia(), s.axle);
  hub.offset.setZero();
  hub.v.setZero(3, s.dof);
  hub.w.setZero(3, s.dof);
  hub.v.col(0) = Vector3::UnitX();
  hub.v.col(1) = Vector3::UnitY();
  hub.w.col(2) = kUp;
  hub.w.col(3) = s.axle;
  hub.bias_linear.setZero();
  hub.bias_angular = s.bias_hub;
  hub.omega = s.omega_hub;

  const double r1 = g.roller_offset_m();
  const double cpsi = std::cos(g.psi_rad);
  const double spsi = std::sin(g.psi_rad);
  for (int j = 0; j < s.n; ++j) {
    const auto uj = static_cast<std::size_t>(j);
    const double zeta = phi + 2.0 * std::numbers::pi * j / s.n;
    const Vector3 rho = std::cos(zeta) * kUp + std::sin(zeta) * s.heading;
    const Vector3 axis = cpsi * (std::cos(zeta) * s.heading - std::sin(zeta) * kUp) + spsi * s.axle;
    const Vector3 d = -r1 * rho;  // roller centre − O, fixed in the hub
    s.roller_axis[uj] = axis;
    s.roller_center[uj] = s.center + d;
    const double beta_dot = u[static_cast<std::size_t>(4 + j)];
    Body& b = s.bodies[uj + 1];
    b.mass = p.roller_mass_kg;
    b.inertia = axisymmetric(p.roller_transverse_inertia(), p.roller_axis_inertia(), axis);
    b.offset = d;
    b.v.setZero(3, s.dof);
    b.w.setZero(3, s.dof);
    b.v.col(0) = Vector3::UnitX();
    b.v.col(1) = Vector3::UnitY();
    b.v.col(2) = kUp.cross(d);
    b.v.col(3) = s.axle.cross(d);
    b.w.col(2) = kUp;
    b.w.col(3) = s.axle;
    b.w.col(4 + j) = axis;
    // d and the axis turn with the hub: d/dt = ω_w × (·).
    b.bias_linear = s.bias_hub.cross(d) + s.omega_hub.cross(s.omega_hub.cross(d));
    b.bias_angular = s.bias_hub + beta_dot * s.omega_hub.cross(axis);
    b.omega = s.omega_hub + beta_dot * axis;
  }
}

}  // namespace

void OmniWheelModel::mass_matrix(std::span<const double> q, MatrixN& m) const {
  Assembly s;
  const std::array<double, kMaxDof> no_speed{};
  assemble(p_, q, std::span<const double>(no_speed.data(), static_cast<std::size_t>(dof())), s);
  m.setZero(s.dof, s.dof);
  for (int b = 0; b <= s.n; ++b) {
    const Body& body = s.bodies[static_cast<std::size_t>(b)];
    m.noalias() += body.mass * body.v.transpose() * body.v + body.w.transpose() * body.inertia * body.w;
  }
}

void OmniWheelModel::evaluate(std::span<const double> q, std::span<const double> u, int contact_roller, double q_c,
                              Evaluation& out) const {
  evaluate_contacts(q, u, {contact_roller, q_c}, nullptr, out);
}

void OmniWheelModel::evaluate_edge(std::span<const double> q, std::span<const double> u, ContactRoller a,
                                   ContactRoller b, Evaluation& out) const {
  evaluate_contacts(q, u, a, &b, out);
}

void OmniWheelModel::evaluate_contacts(std::span<const double> q, std::span<const double> u, ContactRoller first,
                                       const ContactRoller* second, Evaluation& out) const {
  const WheelGeometry& g = p_.geometry;
  Assembly s;
  assemble(p_, q, u, s);
  const Eigen::Map<const VectorN> speed(u.data(), s.dof);
  const Vector3 gravity(0.0, 0.0, -p_.gravity_m_per_s2);

  MatrixN mass = MatrixN::Zero(s.dof, s.dof);
  VectorN force = VectorN::Zero(s.dof);
  for (int b = 0; b <= s.n; ++b) {
    const Body& body = s.bodies[static_cast<std::size_t>(b)];
    mass.noalias() += body.mass * body.v.transpose() * body.v + body.w.transpose() * body.inertia * body.w;
    force.noalias() += body.v.transpose() * (body.mass * (gravity - body.bias_linear)) -
                       body.w.transpose() * (body.inertia * body.bias_angular + body.omega.cross(body.inertia * body.omega));
  }
  // External wrench at O: a horizontal force and a torque about e_z.
  force[0] += p_.external_force_N.x();
  force[1] += p_.external_force_N.y();
  force[2] += p_.external_yaw_torque_N_m;
  out.normal_N = p_.total_mass_kg() * p_.gravity_m_per_s2;

  // A contact: P on roller k, its material velocity, friction (F1) and generalised force;
  // N does no work (v_P·e_z ≡ 0).
  const WheelPose pose{s.center, s.heading, s.axle};
  struct Contact {
    ContactPoint point;
    Vector3 slip, friction;
    VectorN generalised;
  };
  const auto contact = [&](ContactRoller c) {
    Contact r;
    r.point = p_.tracking == Tracking::kExplicit ? explicit_contact(g, pose, c.contact_angle_rad)
                                                 : implicit_contact(g, pose, c.contact_angle_rad);
    const auto k = static_cast<std::size_t>(c.roller);
    const Vector3 lever = r.point.point - s.center;
    Partials vp = Partials::Zero(3, s.dof);
    vp.col(0) = Vector3::UnitX();
    vp.col(1) = Vector3::UnitY();
    vp.col(2) = kUp.cross(lever);
    vp.col(3) = s.axle.cross(lever);
    vp.col(static_cast<Eigen::Index>(4 + k)) = s.roller_axis[k].cross(r.point.point - s.roller_center[k]);
    r.slip = vp * speed;
    const double eps = p_.friction_v_eps_m_per_s;
    r.friction = -p_.friction_mu * out.normal_N * r.slip / std::sqrt(r.slip.squaredNorm() + eps * eps);
    r.generalised = vp.transpose() * r.friction;
    return r;
  };
  const Contact ca = contact(first);
  out.contact = ca.point;
  const Eigen::LDLT<MatrixN> factor(mass);  // M is symmetric positive definite
  double weight = 1.0;
  Vector3 moment_contact;  // moment of the floor's forces about O
  if (second == nullptr) {
    out.u_dot = factor.solve(force + ca.generalised);
    out.slip_m_per_s = ca.slip;
    out.friction_N = ca.friction;
    out.dissipation_W = -ca.friction.dot(ca.slip);
    moment_contact = (ca.point.point - s.center).cross(out.normal_N * kUp + ca.friction);
  } else {
    // Both tips on the floor with the spin held (Filippov): the field is w·(field on a) +
    // (1 − w)·(field on b) with w such that φ̈ = 0.
    const Contact cb = contact(*second);
    const VectorN x0 = factor.solve(force + cb.generalised);
    const VectorN x1 = factor.solve(ca.generalised - cb.generalised);
    weight = std::abs(x1[3]) > 0.0 ? -x0[3] / x1[3] : 0.5;
    out.u_dot = x0 + weight * x1;
    out.u_dot[3] = 0.0;  // exactly: the spin stays on the edge
    out.slip_m_per_s = weight * ca.slip + (1.0 - weight) * cb.slip;
    out.friction_N = weight * ca.friction + (1.0 - weight) * cb.friction;
    out.dissipation_W = -(weight * ca.friction.dot(ca.slip) + (1.0 - weight) * cb.friction.dot(cb.slip));
    moment_contact = weight * (ca.point.point - s.center).cross(out.normal_N * kUp + ca.friction) +
                     (1.0 - weight) * (cb.point.point - s.center).cross(out.normal_N * kUp + cb.friction);
  }
  out.edge_weight = weight;

  // Reactions from the accelerations: the servo torque λ about e_f, and the same moment balance
  // about e_z and a, which the equations of motion make vanish (a check of the assembly; in the
  // edge mode the one about a holds the spin and is not a check).
  Vector3 moment = Vector3::Zero();
  double vertical = 0.0;
  for (int b = 0; b <= s.n; ++b) {
    const Body& body = s.bodies[static_cast<std::size_t>(b)];
    const Vector3 a = body.v * out.u_dot + body.bias_linear;
    const Vector3 alpha = body.w * out.u_dot + body.bias_angular;
    moment += body.offset.cross(body.mass * (a - gravity)) + body.inertia * alpha +
              body.omega.cross(body.inertia * body.omega);
    vertical += body.mass * (a.z() + p_.gravity_m_per_s2);
  }
  moment -= moment_contact + p_.external_yaw_torque_N_m * kUp;
  out.servo_torque_N_m = moment.dot(s.heading);
  out.moment_residual_z_N_m = moment.z();
  out.moment_residual_axle_N_m = moment.dot(s.axle);
  out.normal_check_N = vertical;
  out.kinetic_energy_J = 0.5 * speed.dot(mass * speed);
  out.external_power_W = p_.external_force_N.x() * u[0] + p_.external_force_N.y() * u[1] +
                         p_.external_yaw_torque_N_m * u[2];
  // Roller 1's centre (the paper's Figs. 8-10: its vertical coordinate).
  const Body& first_roller = s.bodies[1];
  out.roller1_z_m = s.roller_center[0].z();
  out.roller1_vz_m_per_s = (first_roller.v * speed).z();
  out.roller1_az_m_per_s2 = (first_roller.v * out.u_dot + first_roller.bias_linear).z();
}

}  // namespace cosim::dynamics::omniwheel
