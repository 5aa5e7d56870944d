#pragma once
/// @file
/// A kinematic tree of rigid bodies and the recursive algorithms on it (Featherstone, Rigid Body
/// Dynamics Algorithms, 2008): forward kinematics, inverse dynamics (RNEA), the joint-space mass
/// matrix (CRBA) and forward dynamics (ABA). Written for the seed backends whose mechanisms are
/// trees of revolute and prismatic joints (chassis, suspension, wheels, rollers):
///
///     Tree tree;
///     const int chassis = tree.add_body({.parent = -1, .joint = prismatic(x), ...});
///     ...
///     Workspace ws(tree);
///     forward_dynamics(tree, q, u, tau, gravity, f_ext, ws);  // ws.u_dot
///
/// Bodies are numbered in the order they are added, parents before children. External forces are
/// spatial forces in world coordinates (moment about the world origin; force).

#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "cosim/multibody/spatial.hpp"

namespace cosim::multibody {

using VectorX = Eigen::VectorXd;
using MatrixX = Eigen::MatrixXd;

enum class JointType {
  kRevolute,   ///< one angle about `axis` [rad]
  kPrismatic,  ///< one displacement along `axis` [m]
  /// Three angular speeds about the joint frame's axes and no position: the body turns freely
  /// about the joint origin, and since its orientation is not a coordinate the body must be
  /// rotation-invariant there (a homogeneous sphere centred on the joint) and a leaf. A Mecanum
  /// wheel's circumscribed sphere (seed 002's reduced model) is one.
  kSphericalSpeeds,
};

struct Joint {
  JointType type = JointType::kRevolute;
  Vector3 axis = Vector3::UnitZ();  ///< unit, joint frame (revolute, prismatic)

  int position_count() const { return type == JointType::kSphericalSpeeds ? 0 : 1; }
  int speed_count() const { return type == JointType::kSphericalSpeeds ? 3 : 1; }
};

Joint revolute(const Vector3& axis);
Joint prismatic(const Vector3& axis);
Joint spherical_speeds();

struct Body {
  std::string name;
  int parent = -1;              ///< index of the parent body, −1: the world
  Transform parent_to_joint;    ///< joint frame in the parent body's frame (before the joint moves)
  Joint joint;
  SpatialInertia inertia;       ///< in the body frame (= the joint frame moved by the joint)
};

class Tree {
 public:
  /// Adds a body and returns its index. Throws std::invalid_argument for a parent that is not an
  /// earlier body, a non-unit axis, negative mass, a child of a spherical-speeds body, or a
  /// spherical-speeds body that is not a centred isotropic inertia.
  int add_body(Body body);

  int body_count() const { return static_cast<int>(bodies_.size()); }
  const Body& body(int i) const { return bodies_[static_cast<std::size_t>(i)]; }
  int position_count() const { return positions_; }  ///< size of q
  int speed_count() const { return speeds_; }         ///< size of u (and of τ)
  int position_index(int i) const { return position_index_[static_cast<std::size_t>(i)]; }
  int speed_index(int i) const { return speed_index_[static_cast<std::size_t>(i)]; }

 private:
  std::vector<Body> bodies_;
  std::vector<int> position_index_, speed_index_;
  std::vector<bool> has_children_;
  int positions_ = 0, speeds_ = 0;
};

/// Per-body results and scratch of the algorithms, sized for one tree (no allocation per call).
struct Workspace {
  explicit Workspace(const Tree& tree);

  std::vector<Transform> parent_to_body;  ///< X_up: body i's frame from its parent's (joint moved)
  std::vector<Transform> world_to_body;   ///< body i's frame from the world's
  std::vector<Vector6> velocity;          ///< v_i, body coordinates
  std::vector<Vector6> acceleration;      ///< a_i, body coordinates (bias or full, per algorithm)
  std::vector<Vector6> force;             ///< f_i / p_i, body coordinates
  std::vector<Matrix6> inertia;           ///< I_i; the articulated or composite inertia in ABA/CRBA
  std::vector<Eigen::Matrix<double, 6, 3>> u_matrix;  ///< ABA: U_i = I_i^A S_i (first speed_count columns)
  std::vector<Eigen::Matrix3d> d_inverse;             ///< ABA: (S_iᵀ U_i)⁻¹
  std::vector<Eigen::Vector3d> u_scalar;              ///< ABA: τ_i − S_iᵀ p_i
  VectorX u_dot;                          ///< forward_dynamics' result
  VectorX tau;                            ///< inverse_dynamics' result
  MatrixX mass;                           ///< mass_matrix's result
};

/// Poses and velocities of every body (world_to_body, parent_to_body, velocity).
void forward_kinematics(const Tree& tree, std::span<const double> q, std::span<const double> u, Workspace& ws);

/// Joint forces τ that give accelerations u̇ under gravity `gravity_m_per_s2` (world vector) and
/// the external forces `f_ext_world` (one per body, or empty): ws.tau (RNEA).
void inverse_dynamics(const Tree& tree, std::span<const double> q, std::span<const double> u,
                      std::span<const double> u_dot, const Vector3& gravity_m_per_s2,
                      std::span<const Vector6> f_ext_world, Workspace& ws);

/// The joint-space mass matrix M(q): ws.mass (CRBA). Updates the poses, not the velocities.
void mass_matrix(const Tree& tree, std::span<const double> q, Workspace& ws);

/// Accelerations u̇ under the joint forces τ, gravity and external forces: ws.u_dot (ABA).
void forward_dynamics(const Tree& tree, std::span<const double> q, std::span<const double> u,
                      std::span<const double> tau, const Vector3& gravity_m_per_s2,
                      std::span<const Vector6> f_ext_world, Workspace& ws);

/// forward_dynamics for a workspace that already holds forward_kinematics(q, u) (a caller that
/// needed the poses and velocities first, e.g. for contact forces, does not compute them twice).
void forward_dynamics_after_kinematics(const Tree& tree, std::span<const double> u, std::span<const double> tau,
                                       const Vector3& gravity_m_per_s2, std::span<const Vector6> f_ext_world,
                                       Workspace& ws);

/// Kinetic energy Σ ½ vᵢᵀ Iᵢ vᵢ from the body velocities of the last forward_kinematics.
double kinetic_energy(const Tree& tree, const Workspace& ws);

/// The spatial force in world coordinates of a force F [N] acting at the world point P [m].
Vector6 point_force(const Vector3& point_m, const Vector3& force_N);

/// ∂v_P/∂u: the world velocity of body i's material point at the world point P per unit joint
/// speed (3 × speed_count; zero for joints that are not i's ancestors), from the last poses.
void point_jacobian(const Tree& tree, const Workspace& ws, int body, const Vector3& point_m,
                    Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian);

/// World velocity of the material point of body i at world point P, from the last
/// forward_kinematics.
Vector3 point_velocity(const Workspace& ws, int body, const Vector3& point_m);

}  // namespace cosim::multibody
