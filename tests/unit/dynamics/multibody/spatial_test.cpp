// Spatial algebra against its definitions: transforms compose and invert, the force transform is
// the motion transform's dual (power is frame-independent), cross products match their
// matrices, and a spatial inertia gives the body's momentum and kinetic energy.
#include "cosim/multibody/spatial.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>

namespace cosim::multibody {
namespace {

Transform random_transform(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  const Vector3 axis = Vector3(n(rng), n(rng), n(rng)).normalized();
  Transform x = rotation(axis, 3.0 * n(rng));
  x.r = Vector3(n(rng), n(rng), n(rng));
  return x;
}

Vector6 random6(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Vector6 v;
  for (int i = 0; i < 6; ++i) v[i] = n(rng);
  return v;
}

TEST(Spatial, TransformsComposeInvertAndKeepPower) {
  std::mt19937_64 rng(2);
  for (int k = 0; k < 100; ++k) {
    const Transform a = random_transform(rng), b = random_transform(rng);
    const Vector6 m = random6(rng), f = random6(rng);
    EXPECT_LE(((b * a).apply_motion(m) - b.apply_motion(a.apply_motion(m))).norm(), 1e-12);
    EXPECT_LE(((b * a).apply_force(f) - b.apply_force(a.apply_force(f))).norm(), 1e-12);
    EXPECT_LE((a.inverse_motion(a.apply_motion(m)) - m).norm(), 1e-12);
    EXPECT_LE((a.inverse().apply_motion(m) - a.inverse_motion(m)).norm(), 1e-12);
    EXPECT_LE((a.inverse_force(a.apply_force(f)) - f).norm(), 1e-12);
    EXPECT_LE((a.motion_matrix() * m - a.apply_motion(m)).norm(), 1e-12);
    // The force transform is X^{-T}: m·f is the same in both frames.
    EXPECT_NEAR(a.apply_motion(m).dot(a.apply_force(f)), m.dot(f), 1e-12);
    EXPECT_LE((a.motion_matrix().transpose() * f - a.inverse_force(f)).norm(), 1e-12);
    // Points: B's origin is at r in A.
    EXPECT_LE(a.apply_point(a.r).norm(), 1e-15);
  }
}

TEST(Spatial, RotationTurnsTheAxesRightHanded) {
  // B turned by +90° about z: A's x axis is B's −y.
  const Transform x = rotation(Vector3::UnitZ(), EIGEN_PI / 2);
  EXPECT_LE((x.apply_point(Vector3::UnitX()) - Vector3(0, -1, 0)).norm(), 1e-15);
}

TEST(Spatial, CrossProductsAreTheDerivativesOfMovingFrames) {
  std::mt19937_64 rng(3);
  for (int k = 0; k < 50; ++k) {
    const Vector6 v = random6(rng), m = random6(rng), f = random6(rng);
    // v ×ₘ m: [ω × m_ω; v × m_ω + ω × m_v]
    Vector6 expected;
    expected << v.head<3>().cross(m.head<3>()), v.tail<3>().cross(m.head<3>()) + v.head<3>().cross(m.tail<3>());
    EXPECT_LE((motion_cross(v) * m - expected).norm(), 1e-12);
    // Power: (v ×ₘ m)·f + m·(v ×_f f) = 0.
    EXPECT_NEAR((motion_cross(v) * m).dot(f) + m.dot(force_cross(v) * f), 0.0, 1e-12);
  }
}

TEST(Spatial, InertiaGivesMomentumAndEnergyAboutAnyPoint) {
  // A body with its COM off the frame origin, moving with a random twist: the spatial inertia's
  // momentum and ½vᵀIv against m·v_com, the angular momentum about the origin, and ½m|v_com|² +
  // ½ωᵀI_cω.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n;
  for (int k = 0; k < 20; ++k) {
    SpatialInertia body;
    body.mass_kg = 2.0 + std::abs(n(rng));
    body.com_m = Vector3(n(rng), n(rng), n(rng));
    const Eigen::Matrix3d a = Eigen::Matrix3d::Random();
    body.inertia_com_kg_m2 = a * a.transpose() + Eigen::Matrix3d::Identity();
    const Vector6 v = random6(rng);
    const Vector3 w = v.head<3>(), v_com = v.tail<3>() + w.cross(body.com_m);
    const Vector6 h = body.matrix() * v;
    EXPECT_LE((h.tail<3>() - body.mass_kg * v_com).norm(), 1e-12);
    const Vector3 l = body.inertia_com_kg_m2 * w + body.com_m.cross(body.mass_kg * v_com);
    EXPECT_LE((h.head<3>() - l).norm(), 1e-12);
    EXPECT_NEAR(0.5 * v.dot(h), 0.5 * body.mass_kg * v_com.squaredNorm() + 0.5 * w.dot(body.inertia_com_kg_m2 * w), 1e-12);
  }
}

}  // namespace
}  // namespace cosim::multibody
