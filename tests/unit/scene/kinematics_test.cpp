// The synthetic 2-link arm fixture (tests/data/scenes/arm2): parsing of every element kind and
// world transforms against hand-computed numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "cosim/scene/scene.hpp"
#include "test_paths.hpp"

namespace {

using namespace cosim::scene;
using cosim::scene::test::fixtures_dir;
using Eigen::Isometry3d;
using Eigen::Vector3d;
constexpr double kPi = std::numbers::pi;
constexpr double kTol = 1e-12;

void expect_near(const Vector3d& actual, const Vector3d& expected, const char* what) {
  EXPECT_LT((actual - expected).norm(), kTol)
      << what << ": got " << actual.transpose() << ", expected " << expected.transpose();
}

class SceneArm2 : public ::testing::Test {
 protected:
  SceneArm2() : model(SceneModel::load(fixtures_dir() / "arm2")) {}

  // World transforms and probe positions for joint values q.
  void solve(const std::vector<double>& q) {
    X_WF.resize(model.frames().size());
    p_WP.resize(model.probes().size());
    model.world_transforms(q, X_WF);
    model.probe_positions(X_WF, p_WP);
  }
  const Isometry3d& frame(std::string_view name) const {
    const int i = model.find_frame(name);
    EXPECT_GE(i, 0) << name;
    return X_WF.at(static_cast<std::size_t>(i));
  }
  const Vector3d& probe(std::string_view name) const {
    const int i = model.find_probe(name);
    EXPECT_GE(i, 0) << name;
    return p_WP.at(static_cast<std::size_t>(i));
  }

  SceneModel model;
  std::vector<Isometry3d> X_WF;
  std::vector<Vector3d> p_WP;
};

TEST_F(SceneArm2, NamesAndOrder) {
  EXPECT_EQ(model.name(), "Arm2");
  EXPECT_EQ(model.root(), std::filesystem::canonical(fixtures_dir() / "arm2"));
  // Frames: document order, parents first.
  const std::vector<std::string> frames{"Arm2",         "Arm2/shoulder", "Arm2/elbow",
                                        "Arm2/Gripper", "Arm2/Gripper/finger", "Arm2/slide",
                                        "Arm2/passive", "Arm2/mount"};
  ASSERT_EQ(model.frames().size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(model.frames()[i].name, frames[i]);
    EXPECT_LT(model.frames()[i].parent, static_cast<int>(i));
  }
  // Driven joints: the instance's own joints first, then the tool's (declared before slide).
  const std::vector<std::string> joints{"Arm2/shoulder", "Arm2/elbow", "Arm2/slide",
                                        "Arm2/Gripper/finger"};
  ASSERT_EQ(std::vector<std::string>(model.joint_names().begin(), model.joint_names().end()),
            joints);
  for (std::size_t j = 0; j < joints.size(); ++j) {
    EXPECT_EQ(model.find_joint(joints[j]), static_cast<int>(j));
    const Frame& f = model.frames()[model.joint_frames()[j]];
    EXPECT_EQ(f.name, joints[j]);
    EXPECT_EQ(f.joint_index, static_cast<int>(j));
  }
  EXPECT_EQ(model.find_joint("Arm2/passive"), -1);  // driven="false"
  EXPECT_EQ(model.find_joint("Arm2/mount"), -1);    // fixed
  EXPECT_EQ(model.find_joint("shoulder"), -1);      // names are scoped
  // Probes in document order, the tool's where the tool is declared.
  ASSERT_EQ(model.probes().size(), 4u);
  EXPECT_EQ(model.probes()[0].name, "Arm2/shoulder");
  EXPECT_EQ(model.probes()[1].name, "Arm2/tip");
  EXPECT_EQ(model.probes()[2].name, "Arm2/Gripper/fingertip");
  EXPECT_EQ(model.probes()[3].name, "Arm2/tool");
  EXPECT_EQ(model.find_probe("Arm2/tip"), 1);
  EXPECT_EQ(model.find_probe("Arm2/nope"), -1);
}

TEST_F(SceneArm2, FrameData) {
  const Frame& elbow = model.frames()[model.find_frame("Arm2/elbow")];
  EXPECT_EQ(elbow.drive, DriveType::revolute);
  expect_near(elbow.axis_J, Vector3d::UnitY(), "axis \"0 2 0\" normalised");
  expect_near(elbow.X_PJ.translation(), Vector3d(1, 0, 0), "pre");
  expect_near(elbow.X_DC.translation(), Vector3d(0.25, 0, 0), "post");
  EXPECT_EQ(elbow.where.line, 12);
  EXPECT_EQ(elbow.where.file.filename(), "Arm2.xml");

  const Frame& shoulder = model.frames()[model.find_frame("Arm2/shoulder")];
  EXPECT_DOUBLE_EQ(shoulder.offset, 0.5);
  const Frame& slide = model.frames()[model.find_frame("Arm2/slide")];
  EXPECT_EQ(slide.drive, DriveType::prismatic);
  EXPECT_DOUBLE_EQ(slide.offset, 0.1);
  const Frame& passive = model.frames()[model.find_frame("Arm2/passive")];
  EXPECT_EQ(passive.joint_index, -1);
  EXPECT_NEAR(passive.offset, kPi / 4, 1e-15);
  EXPECT_EQ(model.frames()[model.find_frame("Arm2/mount")].drive, DriveType::fixed);
  // The tool hangs from the elbow; the robot root from the world.
  EXPECT_EQ(model.frames()[model.find_frame("Arm2/Gripper")].parent,
            model.find_frame("Arm2/elbow"));
  EXPECT_EQ(model.frames()[0].parent, -1);
}

// q = (shoulder, elbow, slide, finger). Base: T(1, 0, 0) Rz(90°). The shoulder offset 0.5 rad
// makes its total angle 90°, so: shoulder at (1, 0, 0.5) with R = Rz(180°); elbow origin =
// (1, 0, 0.5) + Rz180 (1, 0, 0) + Rz180 Ry90 (0.25, 0, 0) = (0, 0, 0.25), R_e = Rz180 Ry90 =
// [[0 0 -1] [0 -1 0] [-1 0 0]].
TEST_F(SceneArm2, HandComputedPose) {
  solve({kPi / 2 - 0.5, kPi / 2, 0.3, 0.02});

  expect_near(frame("Arm2").translation(), Vector3d(1, 0, 0), "robot root");
  expect_near(frame("Arm2/shoulder").translation(), Vector3d(1, 0, 0.5), "shoulder");
  expect_near(probe("Arm2/shoulder"), Vector3d(1, 0, 0.5), "shoulder probe");

  Eigen::Matrix3d R_e;
  R_e << 0, 0, -1, 0, -1, 0, -1, 0, 0;
  EXPECT_LT((frame("Arm2/elbow").linear() - R_e).norm(), kTol);
  expect_near(frame("Arm2/elbow").translation(), Vector3d(0, 0, 0.25), "elbow (post honoured)");
  expect_near(probe("Arm2/tip"), Vector3d(0, 0, -0.25), "tip = elbow + R_e (0.5, 0, 0)");

  // Prismatic: 0.3 + offset 0.1 along elbow x = world -z.
  expect_near(frame("Arm2/slide").translation(), Vector3d(0, 0, -0.15), "slide");
  expect_near(probe("Arm2/tool"), Vector3d(0, 0, -0.15), "tool probe");

  // Tool: finger = elbow · T(0.05, 0, 0) · T(0, 0.02, 0); fingertip 0.025 along finger z.
  expect_near(frame("Arm2/Gripper").translation(), Vector3d(0, 0, 0.25), "gripper root");
  expect_near(frame("Arm2/Gripper/finger").translation(), Vector3d(0, -0.02, 0.2), "finger");
  expect_near(probe("Arm2/Gripper/fingertip"), Vector3d(-0.025, -0.02, 0.2), "fingertip");

  // Not driven: its deg="45" offset alone turns it, after pre T(0, 0.1, 0).
  expect_near(frame("Arm2/passive").translation(), Vector3d(0, -0.1, 0.25), "passive");
  const Eigen::Matrix3d R_passive = R_e * Eigen::AngleAxisd(kPi / 4, Vector3d::UnitZ()).matrix();
  EXPECT_LT((frame("Arm2/passive").linear() - R_passive).norm(), kTol);

  // Fixed joint with post T(0, 0, 0.3): elbow + R_e (0, 0, 0.3).
  expect_near(frame("Arm2/mount").translation(), Vector3d(-0.3, 0, 0.25), "mount (post)");
  EXPECT_LT((frame("Arm2/mount").linear() - R_e).norm(), kTol);
}

// All joints zero: only offsets act. Shoulder at 90° + 0.5 rad in the world.
TEST_F(SceneArm2, OffsetsAloneAtZero) {
  solve({0, 0, 0, 0});
  const double a = kPi / 2 + 0.5;
  expect_near(frame("Arm2/elbow").translation(),
              Vector3d(1 + 1.25 * std::cos(a), 1.25 * std::sin(a), 0.5), "elbow");
  // Revolute offset: same pose as shoulder = 0.5 without offset, i.e. q + offset is what counts.
  expect_near(frame("Arm2/elbow").translation(),
              Vector3d(1 - 1.25 * std::sin(0.5), 1.25 * std::cos(0.5), 0.5), "elbow, by hand");
  // Prismatic offset 0.1 along the elbow's x.
  expect_near(frame("Arm2/slide").translation() - frame("Arm2/elbow").translation(),
              frame("Arm2/elbow").linear() * Vector3d(0.1, 0, 0), "slide offset");
}

TEST_F(SceneArm2, Geometry) {
  const auto& g = model.geometries();
  ASSERT_EQ(g.size(), 8u);
  EXPECT_EQ(g[0].id, "Arm2/pedestal");
  const auto& cuboid = std::get<Cuboid>(g[0].shape);
  EXPECT_EQ(cuboid.lx, 0.2);
  EXPECT_EQ(cuboid.lz, 0.5);
  expect_near(g[0].X_FG.translation(), Vector3d(0, 0, 0.25), "pedestal placement");
  EXPECT_EQ(g[0].frame, 0);

  const auto& cyl = std::get<Cylinder>(g[1].shape);
  EXPECT_EQ(cyl.radius, 0.05);
  EXPECT_EQ(cyl.height, 0.5);
  EXPECT_EQ(cyl.axis, 'x');
  EXPECT_EQ(cyl.resolution, 32);  // default
  EXPECT_EQ(std::get<Sphere>(g[2].shape).resolution, 24);
  const auto& cone = std::get<Cone>(g[3].shape);
  EXPECT_EQ(cone.resolution, 12);
  EXPECT_EQ(cone.axis, 'x');

  const auto& part = std::get<Part>(g[4].shape);
  EXPECT_EQ(part.file, std::filesystem::canonical(fixtures_dir() / "arm2/meshes/bracket.stl"));
  EXPECT_TRUE(part.file.is_absolute());
  EXPECT_EQ(part.scale, Vector3d::Constant(0.001));  // XML: one factor for all three axes
  EXPECT_EQ(part.format, MeshFormat::stl);
  EXPECT_LT((g[4].X_FG.linear() * Vector3d::UnitX() - Vector3d(0, 0, -1)).norm(), kTol);

  const auto& rev = std::get<Revolution>(g[7].shape);
  ASSERT_EQ(rev.profile_m.size(), 2u);
  EXPECT_EQ(rev.profile_m[1], Eigen::Vector2d(0.1, 0.1));
  EXPECT_EQ(g[7].id, "Arm2/ring");
  EXPECT_EQ(g[7].frame, model.find_frame("Arm2/mount"));
  // Ids are scoped by instance: the tool's "finger" geometry is not the robot's.
  EXPECT_EQ(g[6].id, "Arm2/Gripper/finger");
}

TEST_F(SceneArm2, AssembliesAndRenders) {
  ASSERT_EQ(model.assemblies().size(), 2u);
  const Assembly& whole = model.assemblies()[1];
  EXPECT_EQ(whole.id, "Arm2/whole");
  EXPECT_EQ(whole.refs, (std::vector<std::string>{"Arm2/forearm", "Arm2/tip_cone"}));
  // Flattened: Rz90 · T(0.1) · T(0.25) for upper, Rz90 · T(0.1) for knob, Rz90 · T(0.55).
  ASSERT_EQ(whole.parts.size(), 3u);
  expect_near(whole.parts[0].X_FG.translation(), Vector3d(0, 0.35, 0), "upper in whole");
  expect_near(whole.parts[1].X_FG.translation(), Vector3d(0, 0.1, 0), "knob in whole");
  expect_near(whole.parts[2].X_FG.translation(), Vector3d(0, 0.55, 0), "cone in whole");
  EXPECT_EQ(model.geometries()[whole.parts[2].geometry].id, "Arm2/tip_cone");

  const auto& r = model.renders();
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].ref, "Arm2/pedestal");
  EXPECT_EQ(r[0].color_name, "steelblue");  // written "SteelBlue"
  EXPECT_DOUBLE_EQ(r[0].rgb.b, 180 / 255.0);
  EXPECT_EQ(r[0].opacity, 1.0);
  EXPECT_EQ(r[0].ref_kind, RefKind::geometry);

  EXPECT_EQ(r[1].ref, "Arm2/whole");
  EXPECT_EQ(r[1].ref_kind, RefKind::assembly);
  EXPECT_EQ(r[1].ref_index, 1);
  EXPECT_FALSE(r[1].color_name.has_value());
  EXPECT_EQ(r[1].rgb.r, 0.1);
  EXPECT_EQ(r[1].rgb.g, 0.2);
  EXPECT_EQ(r[1].rgb.b, 0.3);
  EXPECT_EQ(r[1].opacity, 0.5);
  EXPECT_EQ(r[1].frame, model.find_frame("Arm2/elbow"));
  EXPECT_EQ(r[1].parts.size(), 3u);
  EXPECT_EQ(r[1].where.line, 34);
}

TEST_F(SceneArm2, LoadsFromProjectFileToo) {
  const SceneModel same = SceneModel::load(fixtures_dir() / "arm2/projects/Arm2.xml");
  EXPECT_EQ(same.frames().size(), model.frames().size());
  EXPECT_EQ(same.root(), model.root());
}

TEST_F(SceneArm2, SizesAreChecked) {
  std::vector<Isometry3d> X(model.frames().size());
  std::vector<double> q(3);
  try {
    model.world_transforms(q, X);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected 4 joint values, got 3");
  }
  q.resize(4);
  std::vector<Isometry3d> short_X(model.frames().size() - 1);
  EXPECT_THROW(model.world_transforms(q, short_X), std::invalid_argument);
  q[1] = std::nan("");
  EXPECT_THROW(model.world_transforms(q, X), std::invalid_argument);
  q[1] = 0;
  model.world_transforms(q, X);
  std::vector<Vector3d> p(model.probes().size() + 1);
  EXPECT_THROW(model.probe_positions(X, p), std::invalid_argument);
}

}  // namespace
