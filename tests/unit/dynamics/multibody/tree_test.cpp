// The recursive algorithms against each other and against independent formulations: ABA equals
// M⁻¹(τ − h) from CRBA and RNEA on random trees, RNEA inverts ABA, ½uᵀMu is the bodies' kinetic
// energy, point velocities are the derivatives of point positions, a free body keeps its energy
// and momentum, a pendulum obeys
// θ̈ = −(g/l)·sin θ, and the omni wheel of seed 004 built as a tree gives the accelerations of
// the omniwheel backend's Kane equations (friction off).
#include "cosim/multibody/tree.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "cosim/dynamics/omniwheel/omniwheel_model.hpp"

namespace cosim::multibody {
namespace {

std::vector<double> as_vector(const VectorX& v) { return {v.data(), v.data() + v.size()}; }

SpatialInertia random_inertia(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  SpatialInertia b;
  b.mass_kg = 0.5 + std::abs(n(rng));
  b.com_m = 0.2 * Vector3(n(rng), n(rng), n(rng));
  Eigen::Matrix3d a;
  for (int i = 0; i < 9; ++i) a(i / 3, i % 3) = 0.1 * n(rng);
  b.inertia_com_kg_m2 = a * a.transpose() + 0.01 * Eigen::Matrix3d::Identity();
  return b;
}

// A random tree of `count` bodies: revolute and prismatic joints about random axes, random
// parents, and spherical-speeds leaves (homogeneous spheres) hung on some of them.
Tree random_tree(std::mt19937_64& rng, int count) {
  std::normal_distribution<double> n;
  Tree tree;
  std::vector<int> can_parent;
  for (int i = 0; i < count; ++i) {
    Body b;
    b.name = "body";
    b.name += std::to_string(i);  // (not "b" + …: GCC 12 warns -Wrestrict on it, wrongly)
    // Mostly a child of an earlier body (trees with branches), sometimes another root.
    b.parent = can_parent.empty() || rng() % 6 == 0 ? -1 : can_parent[rng() % can_parent.size()];
    b.parent_to_joint = rotation(Vector3(n(rng), n(rng), n(rng)).normalized(), n(rng));
    b.parent_to_joint.r = 0.3 * Vector3(n(rng), n(rng), n(rng));
    const Vector3 axis = Vector3(n(rng), n(rng), n(rng)).normalized();
    if (i > 2 && i % 4 == 3) {
      b.joint = spherical_speeds();
      b.inertia.mass_kg = 0.7;
      b.inertia.inertia_com_kg_m2 = 0.02 * Eigen::Matrix3d::Identity();
    } else {
      b.joint = i % 3 == 1 ? prismatic(axis) : revolute(axis);
      b.inertia = random_inertia(rng);
    }
    const int index = tree.add_body(b);
    if (b.joint.type != JointType::kSphericalSpeeds) can_parent.push_back(index);
  }
  return tree;
}

VectorX random_vector(std::mt19937_64& rng, int size) {
  std::normal_distribution<double> n;
  VectorX v(size);
  for (int i = 0; i < size; ++i) v[i] = n(rng);
  return v;
}

std::vector<Vector6> random_forces(std::mt19937_64& rng, int bodies) {
  std::vector<Vector6> f(static_cast<std::size_t>(bodies));
  for (auto& x : f) x = random_vector(rng, 6);
  return f;
}

const Vector3 kGravity(0.0, 0.0, -9.81);

TEST(MultibodyTree, ForwardDynamicsIsTheInverseOfInverseDynamicsAndOfTheMassMatrix) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Tree tree = random_tree(rng, 12);
    Workspace ws(tree);
    const auto q = as_vector(random_vector(rng, tree.position_count()));
    const auto u = as_vector(random_vector(rng, tree.speed_count()));
    const auto tau = as_vector(random_vector(rng, tree.speed_count()));
    const auto f_ext = random_forces(rng, tree.body_count());

    forward_dynamics(tree, q, u, tau, kGravity, f_ext, ws);
    const VectorX u_dot = ws.u_dot;
    // RNEA at ABA's accelerations gives back τ.
    inverse_dynamics(tree, q, u, as_vector(u_dot), kGravity, f_ext, ws);
    EXPECT_LE((ws.tau - Eigen::Map<const VectorX>(tau.data(), tree.speed_count())).norm(), 1e-9 * (1 + u_dot.norm()))
        << trial;
    // M·u̇ + h = τ with M from CRBA and h from RNEA at u̇ = 0.
    const std::vector<double> zero(static_cast<std::size_t>(tree.speed_count()), 0.0);
    inverse_dynamics(tree, q, u, zero, kGravity, f_ext, ws);
    const VectorX h = ws.tau;
    mass_matrix(tree, q, ws);
    EXPECT_LE((ws.mass - ws.mass.transpose()).norm(), 1e-12 * ws.mass.norm());
    EXPECT_GT(ws.mass.ldlt().vectorD().minCoeff(), 0.0) << "M is positive definite";
    const VectorX from_crba = ws.mass.ldlt().solve(Eigen::Map<const VectorX>(tau.data(), tree.speed_count()) - h);
    EXPECT_LE((from_crba - u_dot).norm(), 1e-9 * (1 + u_dot.norm())) << trial;
  }
}

TEST(MultibodyTree, KineticEnergyIsHalfUTransposeMU) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    const Tree tree = random_tree(rng, 10);
    Workspace ws(tree);
    const auto q = as_vector(random_vector(rng, tree.position_count()));
    const VectorX u = random_vector(rng, tree.speed_count());
    mass_matrix(tree, q, ws);
    const double from_m = 0.5 * u.dot(ws.mass * u);
    forward_kinematics(tree, q, as_vector(u), ws);
    EXPECT_NEAR(kinetic_energy(tree, ws), from_m, 1e-12 * (1 + from_m));
  }
}

TEST(MultibodyTree, PointVelocityIsTheDerivativeOfThePointsPosition) {
  // A material point of each body, fixed in the body: its world position at q + h·u minus at
  // q − h·u over 2h (central difference, error ~h²).
  std::mt19937_64 rng(13);
  const Tree tree = random_tree(rng, 10);
  Workspace ws(tree), ws_plus(tree), ws_minus(tree);
  const VectorX q = random_vector(rng, tree.position_count());
  VectorX u = random_vector(rng, tree.speed_count());
  // Spherical-speeds bodies have no position coordinates: keep their speeds at zero so that
  // q + h·u describes the motion.
  for (int i = 0; i < tree.body_count(); ++i) {
    if (tree.body(i).joint.type == JointType::kSphericalSpeeds) u.segment(tree.speed_index(i), 3).setZero();
  }
  VectorX q_dot(tree.position_count());
  for (int i = 0; i < tree.body_count(); ++i) {
    if (tree.body(i).joint.position_count() == 1) q_dot[tree.position_index(i)] = u[tree.speed_index(i)];
  }
  const double h = 1e-6;
  forward_kinematics(tree, as_vector(q), as_vector(u), ws);
  forward_kinematics(tree, as_vector(q + h * q_dot), as_vector(u), ws_plus);
  forward_kinematics(tree, as_vector(q - h * q_dot), as_vector(u), ws_minus);
  const Vector3 in_body(0.1, -0.2, 0.05);
  for (int i = 0; i < tree.body_count(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto world = [&](const Workspace& w) { return w.world_to_body[ui].inverse().apply_point(in_body); };
    const Vector3 fd = (world(ws_plus) - world(ws_minus)) / (2 * h);
    EXPECT_LE((point_velocity(ws, i, world(ws)) - fd).norm(), 1e-7) << i;
  }
}

TEST(MultibodyTree, PointJacobianTimesSpeedsIsThePointsVelocity) {
  std::mt19937_64 rng(15);
  const Tree tree = random_tree(rng, 12);
  Workspace ws(tree);
  const auto q = as_vector(random_vector(rng, tree.position_count()));
  const VectorX u = random_vector(rng, tree.speed_count());
  forward_kinematics(tree, q, as_vector(u), ws);
  Eigen::Matrix<double, 3, Eigen::Dynamic> j(3, tree.speed_count());
  for (int i = 0; i < tree.body_count(); ++i) {
    const Vector3 p = random_vector(rng, 3);
    point_jacobian(tree, ws, i, p, j);
    EXPECT_LE((j * u - point_velocity(ws, i, p)).norm(), 1e-12 * (1 + u.norm())) << i;
  }
}

TEST(MultibodyTree, AFreeBodyKeepsItsEnergyAndMomentum) {
  // A body with its COM off the frame origin on six joints (x, y, z, then z-y-x angles), no
  // gravity, no forces: RK4 at 1 ms over 1 s keeps ½uᵀMu and the spatial momentum about the
  // world origin (Σ of each body's X*·I·v) to the method's error (measured: 3e-16 J of 0.78 J,
  // 2e-15 of 2.5; the bar 1e-10 relative leaves room for other libms).
  Tree tree;
  int parent = -1;
  const Vector3 axes[] = {Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ(),
                          Vector3::UnitZ(), Vector3::UnitY(), Vector3::UnitX()};
  for (int j = 0; j < 6; ++j) {
    Body b;
    b.name = "joint";
    b.parent = parent;
    b.joint = j < 3 ? prismatic(axes[j]) : revolute(axes[j]);
    if (j == 5) {
      b.inertia.mass_kg = 3.0;
      b.inertia.com_m = Vector3(0.1, -0.05, 0.2);
      b.inertia.inertia_com_kg_m2 = Eigen::Vector3d(0.05, 0.08, 0.11).asDiagonal();
    }
    parent = tree.add_body(b);
  }
  Workspace ws(tree);
  const auto momentum = [&](const VectorX& q, const VectorX& u) {
    forward_kinematics(tree, as_vector(q), as_vector(u), ws);
    Vector6 h = Vector6::Zero();
    for (int b = 0; b < tree.body_count(); ++b) {
      const auto ub = static_cast<std::size_t>(b);
      h += ws.world_to_body[ub].inverse_force(tree.body(b).inertia.matrix() * ws.velocity[ub]);
    }
    return std::pair{h, kinetic_energy(tree, ws)};
  };
  const auto accel = [&](const VectorX& q, const VectorX& u) {
    const std::vector<double> tau(6, 0.0);
    forward_dynamics(tree, as_vector(q), as_vector(u), tau, Vector3::Zero(), {}, ws);
    return VectorX(ws.u_dot);
  };
  VectorX q(6), u(6);
  q << 0.1, -0.2, 0.3, 0.2, -0.1, 0.3;
  u << 0.5, 0.2, -0.3, 0.4, 0.3, -0.5;
  const auto [h0, e0] = momentum(q, u);
  const double h = 1e-3;
  for (int step = 0; step < 1000; ++step) {
    const VectorX k1q = u, k1u = accel(q, u);
    const VectorX k2q = u + 0.5 * h * k1u, k2u = accel(q + 0.5 * h * k1q, k2q);
    const VectorX k3q = u + 0.5 * h * k2u, k3u = accel(q + 0.5 * h * k2q, k3q);
    const VectorX k4q = u + h * k3u, k4u = accel(q + h * k3q, k4q);
    q += h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
  }
  const auto [h1, e1] = momentum(q, u);
  EXPECT_NEAR(e1, e0, 1e-10 * e0);
  EXPECT_LE((h1 - h0).norm(), 1e-10 * h0.norm());
  EXPECT_GT((q.tail<3>() - Eigen::Vector3d(0.2, -0.1, 0.3)).norm(), 0.3) << "it did turn";
}

TEST(MultibodyTree, APendulumSwingsAsItsEquationSays) {
  // A point mass m at l below a revolute joint about y: θ̈ = −(g/l)·sin θ (θ turns the mass
  // towards −x... about +y: (0, 0, −l) goes to (−l sin θ, 0, −l cos θ)).
  Tree tree;
  Body bob;
  bob.name = "bob";
  bob.joint = revolute(Vector3::UnitY());
  bob.inertia.mass_kg = 2.0;
  bob.inertia.com_m = Vector3(0, 0, -0.5);
  tree.add_body(bob);
  Workspace ws(tree);
  for (const double theta : {0.0, 0.3, -1.2, 2.5}) {
    const std::vector<double> q{theta}, u{0.7}, tau{0.0};
    forward_dynamics(tree, q, u, tau, kGravity, {}, ws);
    EXPECT_NEAR(ws.u_dot[0], -(9.81 / 0.5) * std::sin(theta), 1e-12) << theta;
  }
}

TEST(MultibodyTree, RejectsWhatItCannotRepresent) {
  Tree tree;
  Body sphere;
  sphere.name = "sphere";
  sphere.joint = spherical_speeds();
  sphere.inertia.mass_kg = 1.0;
  sphere.inertia.inertia_com_kg_m2 = Eigen::Vector3d(1, 1, 2).asDiagonal();
  EXPECT_THROW(tree.add_body(sphere), std::invalid_argument) << "not isotropic";
  sphere.inertia.inertia_com_kg_m2 = Eigen::Matrix3d::Identity();
  const int s = tree.add_body(sphere);
  Body child;
  child.name = "child";
  child.parent = s;
  EXPECT_THROW(tree.add_body(child), std::invalid_argument) << "child of a spherical-speeds body";
  child.parent = 5;
  EXPECT_THROW(tree.add_body(child), std::invalid_argument) << "parent not an earlier body";
  child.parent = -1;
  child.joint = revolute(Vector3(1, 1, 0));
  EXPECT_THROW(tree.add_body(child), std::invalid_argument) << "axis not unit";
}

// Seed 004's bench as a tree: X, Y (prismatic, massless), the yaw χ about z at height R
// (massless), the hub turning by φ about its axle y, and n rollers about their inclined axes.
TEST(MultibodyTree, TheOmniWheelAsATreeMovesAsKanesEquationsSay) {
  using cosim::dynamics::omniwheel::ModelParams;
  using cosim::dynamics::omniwheel::OmniWheelModel;
  ModelParams p;
  p.friction_mu = 0.0;  // no contact force: the free tree's dynamics
  const OmniWheelModel kane(p);
  const auto& g = p.geometry;
  const double r1 = g.roller_offset_m();

  Tree tree;
  const int x = tree.add_body({"x", -1, {}, prismatic(Vector3::UnitX()), {}});
  const int y = tree.add_body({"y", x, {}, prismatic(Vector3::UnitY()), {}});
  const int yaw = tree.add_body({"yaw", y, translation(Vector3(0, 0, g.radius_m)), revolute(Vector3::UnitZ()), {}});
  SpatialInertia hub;
  hub.mass_kg = p.hub_mass_kg;
  hub.inertia_com_kg_m2 = Eigen::Vector3d(p.hub_transverse_inertia(), p.hub_axle_inertia(), p.hub_transverse_inertia()).asDiagonal();
  const int spin = tree.add_body({"spin", yaw, {}, revolute(Vector3::UnitY()), hub});
  SpatialInertia roller;
  roller.mass_kg = p.roller_mass_kg;
  roller.inertia_com_kg_m2 =
      Eigen::Vector3d(p.roller_axis_inertia(), p.roller_transverse_inertia(), p.roller_transverse_inertia()).asDiagonal();
  for (int j = 0; j < g.rollers; ++j) {
    const double zeta = 2.0 * std::numbers::pi * j / g.rollers;
    // Roller frame: turned by ζ about y, its centre R₁ below the hub centre in that frame, then
    // turned by ψ about the radial line z: its x axis is i2 (MODEL.md §1).
    const Transform place = rotation(Vector3::UnitZ(), g.psi_rad) * translation(Vector3(0, 0, -r1)) *
                            rotation(Vector3::UnitY(), zeta);
    tree.add_body({"roller" + std::to_string(j + 1), spin, place, revolute(Vector3::UnitX()), roller});
  }
  ASSERT_EQ(tree.speed_count(), kane.dof());

  std::mt19937_64 rng(14);
  Workspace ws(tree);
  cosim::dynamics::omniwheel::Evaluation e;
  for (int trial = 0; trial < 50; ++trial) {
    const auto q = as_vector(random_vector(rng, tree.position_count()));
    const auto u = as_vector(5.0 * random_vector(rng, tree.speed_count()));
    const std::vector<double> tau(static_cast<std::size_t>(tree.speed_count()), 0.0);
    forward_dynamics(tree, q, u, tau, kGravity, {}, ws);
    kane.evaluate(q, u, 0, 0.0, e);
    EXPECT_LE((ws.u_dot - e.u_dot).cwiseAbs().maxCoeff(), 1e-10 * (1 + e.u_dot.cwiseAbs().maxCoeff())) << trial;
    mass_matrix(tree, q, ws);
    cosim::dynamics::omniwheel::MatrixN m;
    kane.mass_matrix(q, m);
    EXPECT_LE((ws.mass - m).cwiseAbs().maxCoeff(), 1e-15) << trial;
  }
}

}  // namespace
}  // namespace cosim::multibody
