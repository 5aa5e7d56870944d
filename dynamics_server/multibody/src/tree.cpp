#include "cosim/multibody/tree.hpp"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>

namespace cosim::multibody {
namespace {

using Subspace = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3>;  // S: motion subspace, joint frame
using SmallMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;

Transform joint_transform(const Joint& joint, std::span<const double> q, int at) {
  switch (joint.type) {
    case JointType::kRevolute:
      return rotation(joint.axis, q[static_cast<std::size_t>(at)]);
    case JointType::kPrismatic:
      return translation(joint.axis * q[static_cast<std::size_t>(at)]);
    case JointType::kSphericalSpeeds:
      break;
  }
  return {};
}

Subspace subspace(const Joint& joint) {
  Subspace s = Subspace::Zero(6, joint.speed_count());
  switch (joint.type) {
    case JointType::kRevolute:
      s.col(0).head<3>() = joint.axis;
      break;
    case JointType::kPrismatic:
      s.col(0).tail<3>() = joint.axis;
      break;
    case JointType::kSphericalSpeeds:
      s.topRows<3>().setIdentity();
      break;
  }
  return s;
}

SmallVector speeds_of(const Tree& tree, int i, std::span<const double> u) {
  const int k = tree.body(i).joint.speed_count();
  return Eigen::Map<const SmallVector>(u.data() + tree.speed_index(i), k);
}

// Poses only (parent_to_body, world_to_body).
void poses(const Tree& tree, std::span<const double> q, Workspace& ws) {
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    ws.parent_to_body[ui] = joint_transform(b.joint, q, tree.position_index(i)) * b.parent_to_joint;
    ws.world_to_body[ui] =
        b.parent < 0 ? ws.parent_to_body[ui] : ws.parent_to_body[ui] * ws.world_to_body[static_cast<std::size_t>(b.parent)];
  }
}

// Poses and velocities.
void kinematics(const Tree& tree, std::span<const double> q, std::span<const double> u, Workspace& ws) {
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    ws.parent_to_body[ui] = joint_transform(b.joint, q, tree.position_index(i)) * b.parent_to_joint;
    const Vector6 joint_velocity = subspace(b.joint) * speeds_of(tree, i, u);
    if (b.parent < 0) {
      ws.world_to_body[ui] = ws.parent_to_body[ui];
      ws.velocity[ui] = joint_velocity;
    } else {
      const auto p = static_cast<std::size_t>(b.parent);
      ws.world_to_body[ui] = ws.parent_to_body[ui] * ws.world_to_body[p];
      ws.velocity[ui] = ws.parent_to_body[ui].apply_motion(ws.velocity[p]) + joint_velocity;
    }
  }
}

Vector6 body_force(const Workspace& ws, std::size_t i, std::span<const Vector6> f_ext_world) {
  if (f_ext_world.empty()) return Vector6::Zero();
  return ws.world_to_body[i].apply_force(f_ext_world[i]);
}

// The world's acceleration that stands for gravity (Featherstone's a₀ = −g).
Vector6 world_acceleration(const Vector3& gravity) {
  Vector6 a;
  a << Vector3::Zero(), -gravity;
  return a;
}

void check_sizes(const Tree& tree, std::span<const double> q, std::span<const double> u,
                 std::span<const Vector6> f_ext_world) {
  if (q.size() != static_cast<std::size_t>(tree.position_count()) ||
      u.size() != static_cast<std::size_t>(tree.speed_count()) ||
      (!f_ext_world.empty() && f_ext_world.size() != static_cast<std::size_t>(tree.body_count()))) {
    throw std::invalid_argument("multibody: q, u or the external forces do not match the tree's sizes");
  }
}

}  // namespace

Joint revolute(const Vector3& axis) { return {JointType::kRevolute, axis}; }
Joint prismatic(const Vector3& axis) { return {JointType::kPrismatic, axis}; }
Joint spherical_speeds() { return {JointType::kSphericalSpeeds, Vector3::Zero()}; }

int Tree::add_body(Body body) {
  const int index = body_count();
  const std::string who = "multibody: body '" + body.name + "'";
  if (body.parent < -1 || body.parent >= index) throw std::invalid_argument(who + ": parent is not an earlier body");
  if (body.parent >= 0 && bodies_[static_cast<std::size_t>(body.parent)].joint.type == JointType::kSphericalSpeeds) {
    throw std::invalid_argument(who + ": a spherical-speeds body cannot have children (its orientation is not a coordinate)");
  }
  if (body.joint.type != JointType::kSphericalSpeeds && std::abs(body.joint.axis.norm() - 1.0) > 1e-12) {
    throw std::invalid_argument(who + ": the joint axis is not a unit vector");
  }
  if (!(body.inertia.mass_kg >= 0.0)) throw std::invalid_argument(who + ": negative mass");
  if (body.joint.type == JointType::kSphericalSpeeds) {
    const Matrix3& i = body.inertia.inertia_com_kg_m2;
    const double scale = std::max(1e-300, i.norm());
    if (body.inertia.com_m.norm() > 1e-12 || (i - i(0, 0) * Matrix3::Identity()).norm() > 1e-12 * scale) {
      throw std::invalid_argument(who + ": a spherical-speeds body must be an isotropic inertia centred on its joint");
    }
  }
  position_index_.push_back(positions_);
  speed_index_.push_back(speeds_);
  positions_ += body.joint.position_count();
  speeds_ += body.joint.speed_count();
  bodies_.push_back(std::move(body));
  return index;
}

Workspace::Workspace(const Tree& tree) {
  const auto n = static_cast<std::size_t>(tree.body_count());
  parent_to_body.resize(n);
  world_to_body.resize(n);
  velocity.resize(n);
  acceleration.resize(n);
  force.resize(n);
  inertia.resize(n);
  u_matrix.resize(n);
  d_inverse.resize(n);
  u_scalar.resize(n);
  u_dot = VectorX::Zero(tree.speed_count());
  tau = VectorX::Zero(tree.speed_count());
  mass = MatrixX::Zero(tree.speed_count(), tree.speed_count());
}

void forward_kinematics(const Tree& tree, std::span<const double> q, std::span<const double> u, Workspace& ws) {
  check_sizes(tree, q, u, {});
  kinematics(tree, q, u, ws);
}

void inverse_dynamics(const Tree& tree, std::span<const double> q, std::span<const double> u,
                      std::span<const double> u_dot, const Vector3& gravity_m_per_s2,
                      std::span<const Vector6> f_ext_world, Workspace& ws) {
  check_sizes(tree, q, u, f_ext_world);
  kinematics(tree, q, u, ws);
  const Vector6 a_world = world_acceleration(gravity_m_per_s2);
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    const Subspace s = subspace(b.joint);
    const Vector6 joint_velocity = s * speeds_of(tree, i, u);
    const Vector6 a_parent = b.parent < 0 ? a_world : ws.acceleration[static_cast<std::size_t>(b.parent)];
    ws.acceleration[ui] = ws.parent_to_body[ui].apply_motion(a_parent) + s * speeds_of(tree, i, u_dot) +
                          motion_cross(ws.velocity[ui]) * joint_velocity;
    const Matrix6 inertia = b.inertia.matrix();
    ws.force[ui] = inertia * ws.acceleration[ui] + force_cross(ws.velocity[ui]) * (inertia * ws.velocity[ui]) -
                   body_force(ws, ui, f_ext_world);
  }
  for (int i = tree.body_count() - 1; i >= 0; --i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    ws.tau.segment(tree.speed_index(i), b.joint.speed_count()) = subspace(b.joint).transpose() * ws.force[ui];
    if (b.parent >= 0) ws.force[static_cast<std::size_t>(b.parent)] += ws.parent_to_body[ui].inverse_force(ws.force[ui]);
  }
}

void mass_matrix(const Tree& tree, std::span<const double> q, Workspace& ws) {
  if (q.size() != static_cast<std::size_t>(tree.position_count())) {
    throw std::invalid_argument("multibody: q does not match the tree's positions");
  }
  poses(tree, q, ws);  // velocities are left as they are
  for (int i = 0; i < tree.body_count(); ++i) ws.inertia[static_cast<std::size_t>(i)] = tree.body(i).inertia.matrix();
  // Composite inertias, leaves first.
  for (int i = tree.body_count() - 1; i >= 0; --i) {
    const Body& b = tree.body(i);
    if (b.parent < 0) continue;
    const Matrix6 x = ws.parent_to_body[static_cast<std::size_t>(i)].motion_matrix();
    ws.inertia[static_cast<std::size_t>(b.parent)] += x.transpose() * ws.inertia[static_cast<std::size_t>(i)] * x;
  }
  ws.mass.setZero();
  for (int i = 0; i < tree.body_count(); ++i) {
    const Body& bi = tree.body(i);
    const Subspace si = subspace(bi.joint);
    const int ki = bi.joint.speed_count(), row = tree.speed_index(i);
    Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3> f = ws.inertia[static_cast<std::size_t>(i)] * si;
    ws.mass.block(row, row, ki, ki) = si.transpose() * f;
    for (int j = i; tree.body(j).parent >= 0;) {
      f = ws.parent_to_body[static_cast<std::size_t>(j)].motion_matrix().transpose() * f;
      j = tree.body(j).parent;
      const Body& bj = tree.body(j);
      const int kj = bj.joint.speed_count(), col = tree.speed_index(j);
      ws.mass.block(row, col, ki, kj) = f.transpose() * subspace(bj.joint);
      ws.mass.block(col, row, kj, ki) = ws.mass.block(row, col, ki, kj).transpose();
    }
  }
}

void forward_dynamics(const Tree& tree, std::span<const double> q, std::span<const double> u,
                      std::span<const double> tau, const Vector3& gravity_m_per_s2,
                      std::span<const Vector6> f_ext_world, Workspace& ws) {
  check_sizes(tree, q, u, f_ext_world);
  kinematics(tree, q, u, ws);
  forward_dynamics_after_kinematics(tree, u, tau, gravity_m_per_s2, f_ext_world, ws);
}

void forward_dynamics_after_kinematics(const Tree& tree, std::span<const double> u, std::span<const double> tau,
                                       const Vector3& gravity_m_per_s2, std::span<const Vector6> f_ext_world,
                                       Workspace& ws) {
  if (tau.size() != static_cast<std::size_t>(tree.speed_count()) ||
      u.size() != static_cast<std::size_t>(tree.speed_count()) ||
      (!f_ext_world.empty() && f_ext_world.size() != static_cast<std::size_t>(tree.body_count()))) {
    throw std::invalid_argument("multibody: u, tau or the external forces do not match the tree's sizes");
  }
  // Pass 1: velocity-product accelerations c_i (in `acceleration`), bias forces p_i, I^A = I.
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    const Vector6 joint_velocity = subspace(b.joint) * speeds_of(tree, i, u);
    ws.acceleration[ui] = motion_cross(ws.velocity[ui]) * joint_velocity;
    ws.inertia[ui] = b.inertia.matrix();
    ws.force[ui] = force_cross(ws.velocity[ui]) * (ws.inertia[ui] * ws.velocity[ui]) - body_force(ws, ui, f_ext_world);
  }
  // Pass 2: articulated-body inertias and bias forces, leaves first.
  for (int i = tree.body_count() - 1; i >= 0; --i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    const Subspace s = subspace(b.joint);
    const int k = b.joint.speed_count();
    const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3> big_u = ws.inertia[ui] * s;
    const SmallMatrix d = s.transpose() * big_u;
    const SmallMatrix d_inv = d.inverse();  // 1×1 or 3×3, positive definite for a body with mass
    const SmallVector small_u =
        Eigen::Map<const SmallVector>(tau.data() + tree.speed_index(i), k) - s.transpose() * ws.force[ui];
    ws.u_matrix[ui].leftCols(k) = big_u;
    ws.d_inverse[ui].topLeftCorner(k, k) = d_inv;
    ws.u_scalar[ui].head(k) = small_u;
    if (b.parent < 0) continue;
    const Matrix6 ia = ws.inertia[ui] - big_u * d_inv * big_u.transpose();
    const Vector6 pa = ws.force[ui] + ia * ws.acceleration[ui] + big_u * (d_inv * small_u);
    const Matrix6 x = ws.parent_to_body[ui].motion_matrix();
    const auto p = static_cast<std::size_t>(b.parent);
    ws.inertia[p] += x.transpose() * ia * x;
    ws.force[p] += ws.parent_to_body[ui].inverse_force(pa);
  }
  // Pass 3: accelerations, root first.
  const Vector6 a_world = world_acceleration(gravity_m_per_s2);
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const Body& b = tree.body(i);
    const int k = b.joint.speed_count();
    const Vector6 a_parent = b.parent < 0 ? a_world : ws.acceleration[static_cast<std::size_t>(b.parent)];
    const Vector6 a_prime = ws.parent_to_body[ui].apply_motion(a_parent) + ws.acceleration[ui];
    const SmallVector accel = ws.d_inverse[ui].topLeftCorner(k, k) *
                              (ws.u_scalar[ui].head(k) - ws.u_matrix[ui].leftCols(k).transpose() * a_prime);
    ws.u_dot.segment(tree.speed_index(i), k) = accel;
    ws.acceleration[ui] = a_prime + subspace(b.joint) * accel;
  }
}

double kinetic_energy(const Tree& tree, const Workspace& ws) {
  double e = 0.0;
  for (int i = 0; i < tree.body_count(); ++i) {
    const Vector6& v = ws.velocity[static_cast<std::size_t>(i)];
    e += 0.5 * v.dot(tree.body(i).inertia.matrix() * v);
  }
  return e;
}

Vector6 point_force(const Vector3& point_m, const Vector3& force_N) {
  Vector6 f;
  f << point_m.cross(force_N), force_N;
  return f;
}

void point_jacobian(const Tree& tree, const Workspace& ws, int body, const Vector3& point_m,
                    Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian) {
  jacobian.setZero();
  for (int j = body; j >= 0; j = tree.body(j).parent) {
    const Body& b = tree.body(j);
    const Subspace s = subspace(b.joint);
    const Transform& x = ws.world_to_body[static_cast<std::size_t>(j)];
    for (int k = 0; k < b.joint.speed_count(); ++k) {
      const Vector6 m = x.inverse_motion(s.col(k));  // the joint's unit motion in world coordinates
      jacobian.col(tree.speed_index(j) + k) = m.tail<3>() + m.head<3>().cross(point_m);
    }
  }
}

Vector3 point_velocity(const Workspace& ws, int body, const Vector3& point_m) {
  const auto b = static_cast<std::size_t>(body);
  const Vector6 v_world = ws.world_to_body[b].inverse_motion(ws.velocity[b]);
  return v_world.tail<3>() + v_world.head<3>().cross(point_m);
}

}  // namespace cosim::multibody
