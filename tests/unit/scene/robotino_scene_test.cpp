// The Robotino scene (scenes/robotino): joint conventions shared with the dynamics backends,
// checked against hand-computed positions (seed 000 §2.4; R = 0.132 m, Rw = 0.040 m).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "cosim/scene/scene.hpp"
#include "test_paths.hpp"

namespace {

using namespace cosim::scene;
using Eigen::Isometry3d;
using Eigen::Vector3d;
constexpr double kRounding = 1e-12;  // exact up to rounding (m, and unit-vector components)
constexpr double kR = 0.132;     // wheel distance from the chassis centre [m]
constexpr double kRw = 0.040;    // wheel radius [m]
constexpr double kRmax = 0.012;  // roller radius at its middle [m]
constexpr double kDeg = std::numbers::pi / 180;

const std::vector<std::string>& expected_joints() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n{"Robotino/x",     "Robotino/y",     "Robotino/phi",
                               "Robotino/axle1", "Robotino/axle2", "Robotino/axle3"};
    for (int w = 1; w <= 3; ++w) {
      for (int r = 1; r <= 6; ++r) {
        n.push_back("Robotino/Wheel_" + std::to_string(w) + "/roller" + std::to_string(r));
      }
    }
    return n;
  }();
  return names;
}

class RobotinoScene : public ::testing::Test {
 protected:
  RobotinoScene()
      : model(SceneModel::load(cosim::scene::test::scenes_dir() / "robotino")),
        q(model.joint_names().size(), 0.0),
        X_WF(model.frames().size()),
        p_WP(model.probes().size()) {}

  void set(std::string_view joint, double value) {
    const int j = model.find_joint(joint);
    ASSERT_GE(j, 0) << joint;
    q[static_cast<std::size_t>(j)] = value;
  }
  void solve() {
    model.world_transforms(q, X_WF);
    model.probe_positions(X_WF, p_WP);
  }
  const Isometry3d& frame(const std::string& name) const {
    const int i = model.find_frame(name);
    EXPECT_GE(i, 0) << name;
    return X_WF.at(static_cast<std::size_t>(i));
  }
  std::string roller(int wheel, int j) const {  // j = 0..5
    return "Robotino/Wheel_" + std::to_string(wheel) + "/roller" + std::to_string(j + 1);
  }

  SceneModel model;
  std::vector<double> q;
  std::vector<Isometry3d> X_WF;
  std::vector<Vector3d> p_WP;
};

TEST_F(RobotinoScene, LoadsWithTheAgreedJointsAndProbe) {
  EXPECT_EQ(model.name(), "Robotino");
  const std::vector<std::string> joints(model.joint_names().begin(), model.joint_names().end());
  EXPECT_EQ(joints, expected_joints());
  ASSERT_EQ(joints.size(), 24u);
  EXPECT_GE(model.find_probe("Robotino/chassis_bottom"), 0);
  // Ground + Robotino roots, 6 robot joints, 3 wheel roots, 18 rollers.
  EXPECT_EQ(model.frames().size(), 29u);
  for (const std::string& name : expected_joints()) {
    const Frame& f = model.frames()[model.find_frame(name)];
    EXPECT_NE(f.drive, DriveType::fixed) << name;
  }
  EXPECT_EQ(model.frames()[model.find_frame("Robotino/x")].drive, DriveType::prismatic);
  EXPECT_EQ(model.frames()[model.find_frame("Robotino/phi")].drive, DriveType::revolute);
}

TEST_F(RobotinoScene, ProbeFollowsXYPhi) {
  set("Robotino/x", 1);
  set("Robotino/y", 2);
  set("Robotino/phi", 90 * kDeg);
  set("Robotino/axle2", 1.3);  // wheels and rollers do not move the chassis
  set("Robotino/Wheel_3/roller4", -0.7);
  solve();
  const Vector3d p = p_WP[model.find_probe("Robotino/chassis_bottom")];
  EXPECT_LT((p - Vector3d(1, 2, 0.02)).norm(), kRounding) << p.transpose();
  // The heading: robot x axis along world y after phi = 90°.
  EXPECT_LT((frame("Robotino/phi").linear().col(0) - Vector3d::UnitY()).norm(), kRounding);
}

TEST_F(RobotinoScene, WheelCentresAtPhiZero) {
  solve();
  const double beta[3] = {60, 180, -60};  // [deg]
  for (int i = 0; i < 3; ++i) {
    const Vector3d expected(kR * std::cos(beta[i] * kDeg), kR * std::sin(beta[i] * kDeg), 0.04);
    const std::string axle = "Robotino/axle" + std::to_string(i + 1);
    const std::string wheel = "Robotino/Wheel_" + std::to_string(i + 1);
    EXPECT_LT((frame(axle).translation() - expected).norm(), kRounding) << axle;
    EXPECT_LT((frame(wheel).translation() - expected).norm(), kRounding) << wheel;
    // Axle x_i points radially outwards, horizontally.
    const Vector3d x_axis(std::cos(beta[i] * kDeg), std::sin(beta[i] * kDeg), 0);
    EXPECT_LT((frame(axle).linear().col(0) - x_axis).norm(), kRounding) << axle;
  }
  // Spelled out for wheel 1: (0.132 cos 60°, 0.132 sin 60°, 0.04) = (0.066, 0.114315..., 0.04).
  EXPECT_NEAR(frame("Robotino/axle1").translation().x(), 0.066, kRounding);
  EXPECT_NEAR(frame("Robotino/axle1").translation().y(), 0.132 * std::sqrt(3.0) / 2, kRounding);
}

TEST_F(RobotinoScene, WheelCentresMoveWithTheChassis) {
  set("Robotino/x", -0.4);
  set("Robotino/y", 0.25);
  set("Robotino/phi", 30 * kDeg);
  solve();
  const double beta[3] = {60, 180, -60};
  for (int i = 0; i < 3; ++i) {
    const double a = (30 + beta[i]) * kDeg;
    const Vector3d expected(-0.4 + kR * std::cos(a), 0.25 + kR * std::sin(a), kRw);
    EXPECT_LT((frame("Robotino/Wheel_" + std::to_string(i + 1)).translation() - expected).norm(),
              kRounding);
  }
}

// Roller j (alpha_j = j * 60°) touches the floor when the axle angle is -alpha_j: its axis is
// then at Rw - r_max = 0.012 m, horizontal and perpendicular to the axle, and its barrel's
// lowest point (r_max below the axis) at z = 0. The other rollers are clear of the floor.
TEST_F(RobotinoScene, RollerTouchesTheFloorAtMinusAlpha) {
  set("Robotino/x", 0.3);
  set("Robotino/y", -1.1);
  set("Robotino/phi", 0.8);
  for (int wheel = 1; wheel <= 3; ++wheel) {
    for (int j = 0; j < 6; ++j) {
      const std::string axle = "Robotino/axle" + std::to_string(wheel);
      set(axle, -j * 60 * kDeg);
      set(roller(wheel, j), 0.37 * j);  // a roller's own spin does not move its axis
      solve();
      const Isometry3d& X = frame(roller(wheel, j));
      EXPECT_NEAR(X.translation().z(), kRw - 0.028, kRounding) << roller(wheel, j);
      EXPECT_NEAR(X.translation().z() - kRmax, 0.0, kRounding) << roller(wheel, j);
      const Vector3d y_roller = X.linear().col(1);
      const Vector3d x_axle = frame(axle).linear().col(0);
      EXPECT_NEAR(y_roller.dot(x_axle), 0.0, kRounding) << roller(wheel, j);
      EXPECT_NEAR(y_roller.z(), 0.0, kRounding) << roller(wheel, j);
      for (int k = 0; k < 6; ++k) {
        if (k == j) continue;
        EXPECT_GT(frame(roller(wheel, k)).translation().z() - kRmax, 0.013) << roller(wheel, k);
      }
      set(axle, 0);
    }
  }
}

// Every roller's barrel: the profile's maximum is r_max, and the outer surface of all rollers
// lies on the wheel's circle of radius Rw about the axle; neighbouring rollers overlap (> 30°).
TEST_F(RobotinoScene, RollerBarrelsTraceTheWheelCircle) {
  set("Robotino/axle1", 0.4);
  set("Robotino/phi", -1.0);
  solve();
  for (int wheel = 1; wheel <= 3; ++wheel) {
    const Isometry3d X_WW = frame("Robotino/Wheel_" + std::to_string(wheel));
    for (int j = 0; j < 6; ++j) {
      const int f = model.find_frame(roller(wheel, j));
      const Isometry3d X_WR = X_WF[f];
      // Roller axis centre in the wheel frame: Rx(alpha_j) (+-0.012, 0, -0.028), front group
      // (even j) at +x.
      const double alpha = j * 60 * kDeg;
      const Vector3d o = X_WW.inverse() * X_WR.translation();
      EXPECT_NEAR(o.x(), j % 2 == 0 ? 0.012 : -0.012, kRounding) << roller(wheel, j);
      EXPECT_NEAR(o.y(), 0.028 * std::sin(alpha), kRounding) << roller(wheel, j);
      EXPECT_NEAR(o.z(), -0.028 * std::cos(alpha), kRounding) << roller(wheel, j);
      int barrels = 0;
      for (const Render& r : model.renders()) {
        if (r.frame != f) continue;
        for (const PlacedGeometry& pg : r.parts) {
          const auto& rev = std::get<Revolution>(model.geometries()[pg.geometry].shape);
          EXPECT_EQ(rev.axis, 'y');
          EXPECT_GE(rev.profile_m.size(), 9u);
          double r_max = 0, half_angle = 0;
          for (const Eigen::Vector2d& ra : rev.profile_m) {
            r_max = std::max(r_max, ra.x());
            if (ra.x() == 0) continue;  // end caps on the roller axis
            // Outermost point (away from the wheel centre = roller -z at zero spin).
            const Vector3d p_R = pg.X_FG * Vector3d(0, ra.y(), -ra.x());
            const Vector3d p_W = X_WR * p_R;
            const Vector3d p_wheel = X_WW.inverse() * p_W;
            EXPECT_NEAR(std::hypot(p_wheel.y(), p_wheel.z()), kRw, 1e-8) << roller(wheel, j);
            half_angle = std::max(half_angle, std::atan2(std::abs(ra.y()), kRw - kRmax + ra.x()));
          }
          EXPECT_NEAR(r_max, kRmax, kRounding);
          EXPECT_GT(half_angle, 30 * kDeg);
          ++barrels;
        }
      }
      EXPECT_EQ(barrels, 1) << roller(wheel, j);
    }
  }
}

TEST_F(RobotinoScene, FloorTopIsAtZeroAndEverythingIsDrawn) {
  const int floor = [&] {
    for (std::size_t i = 0; i < model.geometries().size(); ++i) {
      if (model.geometries()[i].id == "Ground/floor") return static_cast<int>(i);
    }
    return -1;
  }();
  ASSERT_GE(floor, 0);
  const Geometry& g = model.geometries()[floor];
  EXPECT_NEAR(g.X_FG.translation().z() + std::get<Cuboid>(g.shape).lz / 2, 0.0, kRounding);
  EXPECT_EQ(model.frames()[g.frame].name, "Ground");

  // No geometry is left out of every render.
  std::set<int> drawn;
  for (const Render& r : model.renders()) {
    for (const PlacedGeometry& pg : r.parts) drawn.insert(pg.geometry);
  }
  EXPECT_EQ(drawn.size(), model.geometries().size());
}

}  // namespace
