// Seed 002's kinematics (spec A.4 R1, R2, R3 speeds) and the manoeuvre (A.3): the inverse
// Jacobian equals the paper's eq. (12), its pseudo-inverse eq. (14), the null row annihilates
// it, the reduced model's omni Jacobian is (√2/2)·J (eq. 17), Fig. 9's speeds, and the
// manoeuvre closes at (0, 0, π) at the spec's times.
#include "cosim/dynamics/mecanum4/mecanum4_kinematics.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>

namespace cosim::dynamics::mecanum4 {
namespace {

TEST(Mecanum4Kinematics, TheJacobiansAreThePapersEquations) {
  const Geometry g;
  const double r = g.wheel_radius_m, l = g.half_track_m + g.half_base_m;
  Matrix43 paper;  // eq. (12): J = −(1/R)·[−1 1 −L; 1 1 −L; −1 1 L; 1 1 L]
  paper << -1, 1, -l, 1, 1, -l, -1, 1, l, 1, 1, l;
  paper *= -1.0 / r;
  EXPECT_LE((inverse_jacobian(g) - paper).cwiseAbs().maxCoeff(), 1e-12);
  Matrix34 pinv;  // eq. (14): J⁺ = −(R/4)·[−1 1 −1 1; 1 1 1 1; −1/L −1/L 1/L 1/L]
  pinv << -1, 1, -1, 1, 1, 1, 1, 1, -1 / l, -1 / l, 1 / l, 1 / l;
  pinv *= -r / 4.0;
  EXPECT_LE((forward_jacobian(g) - pinv).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((forward_jacobian(g) * inverse_jacobian(g) - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((consistency_row().transpose() * inverse_jacobian(g)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((omni_jacobian(g) - std::sqrt(0.5) * inverse_jacobian(g)).cwiseAbs().maxCoeff(), 1e-12) << "eq. (17)";
}

TEST(Mecanum4Kinematics, OmniAxesAreTheSpecsTable) {
  const Geometry g;
  const double h = std::sqrt(0.5);
  const Vector3 drive[] = {{h, -h, 0}, {-h, -h, 0}, {h, -h, 0}, {-h, -h, 0}};
  const Vector3 axle[] = {{h, h, 0}, {h, -h, 0}, {h, h, 0}, {h, -h, 0}};
  for (int i = 0; i < kWheels; ++i) {
    EXPECT_LE((g.omni_drive(i) - drive[i]).norm(), 1e-15) << i;
    EXPECT_LE((g.omni_axle(i) - axle[i]).norm(), 1e-15) << i;
  }
}

TEST(Mecanum4Kinematics, FigureNineSpeeds) {
  // Equal wheel speeds ω of the right signs: forward and sideways at ω·R, the diagonal with two
  // wheels at ω at ω·R/√2 (Mecanum column of seed 002 Fig. 9).
  const Geometry g;
  const Matrix34 fk = forward_jacobian(g);
  const double w = 10.0, r = g.wheel_radius_m;
  EXPECT_NEAR((fk * Vector4(-w, -w, -w, -w)).norm(), w * r, 1e-12) << "forward";
  EXPECT_NEAR((fk * Vector4(w, -w, w, -w)).norm(), w * r, 1e-12) << "sideways";
  EXPECT_NEAR((fk * Vector4(0, w, 0, w)).norm(), w * r / std::sqrt(2.0), 1e-12) << "diagonal";
  // Spec A.2.2's table: strafing right at 1 m/s turns the wheels at ±13.158 rad/s.
  const Vector4 strafe = inverse_jacobian(g) * Vector3(1, 0, 0);
  EXPECT_NEAR(strafe[0], 13.158, 1e-3);
  EXPECT_NEAR(strafe[1], -13.158, 1e-3);
}

TEST(Mecanum4Kinematics, TheManoeuvreClosesAtItsTimes) {
  const Manoeuvre m;
  EXPECT_NEAR(m.x_move().end_s(), 1.6, 1e-12);
  EXPECT_NEAR(m.y_move().start_s, 2.0, 1e-12);
  EXPECT_NEAR(m.diagonal().start_s, 3.8, 1e-12);
  EXPECT_NEAR(m.turn().start_s, 5.6, 1e-12);
  EXPECT_NEAR(m.turn().end_s(), 8.9008, 1e-4);
  const ReferenceSample end = reference_at(m, 10.0);
  EXPECT_LE((end.pose - Vector3(0, 0, std::numbers::pi)).norm(), 1e-15);
  EXPECT_EQ(end.velocity.norm(), 0.0);
  // Mid-phase checks: cruising along X, along Y, back along the diagonal, turning.
  EXPECT_EQ(reference_at(m, 0.9).velocity, Vector3(1, 0, 0));
  EXPECT_EQ(reference_at(m, 2.7).velocity, Vector3(0, 1, 0));
  EXPECT_EQ(reference_at(m, 4.5).velocity, Vector3(-1, -1, 0));
  EXPECT_EQ(reference_at(m, 7.0).velocity, Vector3(0, 0, 1));
  EXPECT_LE((reference_at(m, 3.5).pose - Vector3(1, 1, 0)).norm(), 1e-15);
}

}  // namespace
}  // namespace cosim::dynamics::mecanum4
