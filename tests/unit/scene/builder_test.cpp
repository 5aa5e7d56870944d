// SceneBuilder, the public way to construct a SceneModel: a scene built in code against the
// same scene read from XML (tests/data/scenes/two_link), the joint order it computes, each
// kind of input it rejects, and SceneModel::load's table of readers.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "cosim/util/exit_codes.hpp"
#include "scene_test_support.hpp"

namespace {

using namespace cosim::scene;
using namespace cosim::scene::test;
// An absolute folder on every platform ("/scene" has no drive on Windows); never read.
const fs::path kSceneRoot = fs::current_path().root_path() / "scene";

// deg= as the XML reader turns it into radians (same operations, same rounding).
double deg(double d) { return d * kPi / 180.0; }

// tests/data/scenes/two_link built in code: the same transforms composed in the same order as
// the XML reader composes <translate>/<rotate> lists, so every number is the same double.
SceneModel build_two_link() {
  SceneBuilder b;
  b.set_name("TwoLink");
  b.set_root(fs::canonical(fixtures_dir() / "two_link"));

  Isometry3d X_WB = Isometry3d::Identity();
  X_WB.translate(Vector3d(0.5, -0.2, 0));
  X_WB.rotate(AngleAxisd(deg(30), Vector3d::UnitZ()));
  const int robot = b.add_instance(-1, "TwoLink", X_WB);

  JointSpec shoulder{.name = "shoulder",
                     .drive = DriveType::revolute,
                     .axis_J = Vector3d(0, 1, 1).normalized(),
                     .offset = 0.25,
                     .driven = true};
  shoulder.X_PJ.translate(Vector3d(0, 0, 0.4));
  shoulder.X_PJ.rotate(AngleAxisd(deg(-15), Vector3d::UnitX()));
  shoulder.X_DC.translate(Vector3d(0.1, 0, 0));
  const int upper = b.add_joint(robot, shoulder);
  b.add_probe(upper, "shoulder", {0.05, 0, 0});
  Isometry3d X_FG = Isometry3d::Identity();
  X_FG.translate(Vector3d(0.3, 0, 0));
  b.add_geometry(upper, "upper", Cylinder{0.03, 0.6, 'x', 32}, X_FG);
  b.add_render(upper, {.ref = "upper", .rgb = *css_color("steelblue"), .color_name = "steelblue"});

  // The tool is declared before the elbow: its joint still comes after the robot's own.
  const int tip = b.add_instance(upper, "Tip", Isometry3d::Identity());
  JointSpec finger{.name = "finger", .drive = DriveType::prismatic,
                   .axis_J = Vector3d::UnitY(), .driven = true};
  finger.X_PJ.translate(Vector3d(0, 0.02, 0));
  b.add_probe(b.add_joint(tip, finger), "fingertip", {0, 0, 0.01});

  JointSpec elbow{.name = "elbow", .drive = DriveType::prismatic, .axis_J = Vector3d::UnitX(),
                  .offset = 0.05, .driven = true};
  elbow.X_PJ.translate(Vector3d(0.6, 0, 0));
  const int fore = b.add_joint(upper, elbow);
  b.add_probe(fore, "tip", {0.4, 0.01, 0});

  JointSpec flange{.name = "flange"};  // fixed
  flange.X_DC.rotate(AngleAxisd(deg(90), Vector3d::UnitY()));
  flange.X_DC.translate(Vector3d(0, 0, 0.02));
  b.add_probe(b.add_joint(fore, flange), "flange", {0, 0, 0.03});
  return std::move(b).build();
}

TEST(SceneBuilder, SameModelAsTheXmlReader) {
  const SceneModel built = build_two_link();
  const SceneModel read = SceneModel::load(fixtures_dir() / "two_link");

  EXPECT_EQ(built.name(), read.name());
  EXPECT_EQ(built.root(), read.root());
  ASSERT_EQ(built.frames().size(), read.frames().size());
  for (std::size_t i = 0; i < read.frames().size(); ++i) {
    const Frame &a = built.frames()[i], &b = read.frames()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.parent, b.parent) << a.name;
    EXPECT_EQ(a.drive, b.drive) << a.name;
    EXPECT_EQ(a.joint_index, b.joint_index) << a.name;
  }
  // Joint order computed by the builder: the robot's own joints, then the tool's (declared
  // between them), as scene.hpp documents.
  const std::vector<std::string> joints{"TwoLink/shoulder", "TwoLink/elbow", "TwoLink/Tip/finger"};
  EXPECT_EQ(std::vector<std::string>(read.joint_names().begin(), read.joint_names().end()), joints);
  EXPECT_EQ(std::vector<std::string>(built.joint_names().begin(), built.joint_names().end()), joints);
  ASSERT_EQ(built.probes().size(), read.probes().size());
  for (std::size_t i = 0; i < read.probes().size(); ++i) {
    EXPECT_EQ(built.probes()[i].name, read.probes()[i].name);
  }
  ASSERT_EQ(built.renders().size(), 1u);
  ASSERT_EQ(read.renders().size(), 1u);
  EXPECT_EQ(built.renders()[0].ref, read.renders()[0].ref);
  EXPECT_EQ(built.renders()[0].color_name, read.renders()[0].color_name);
  EXPECT_EQ(built.renders()[0].parts[0].X_FG.matrix(), read.renders()[0].parts[0].X_FG.matrix());

  // Both paths perform the same floating-point operations in the same order, so the results
  // agree to rounding of the last bit at most: 1e-15 is a few ulp at these magnitudes (< 2 m),
  // far below any real difference in a transform, axis or offset.
  constexpr double kSameOps = 1e-15;
  std::vector<Isometry3d> X_built(built.frames().size()), X_read(read.frames().size());
  std::vector<Vector3d> p_built(built.probes().size()), p_read(read.probes().size());
  const std::array<std::array<double, 3>, 4> qs{{
      {0, 0, 0}, {0.3, -0.1, 0.02}, {-2.5, 0.7, -0.01}, {kPi, 1.5, 0.5}}};
  for (const auto& q : qs) {
    built.world_transforms(q, X_built);
    read.world_transforms(q, X_read);
    for (std::size_t i = 0; i < X_read.size(); ++i) {
      EXPECT_LE((X_built[i].matrix() - X_read[i].matrix()).cwiseAbs().maxCoeff(), kSameOps)
          << read.frames()[i].name << " at q = " << q[0] << ", " << q[1] << ", " << q[2];
    }
    built.probe_positions(X_built, p_built);
    read.probe_positions(X_read, p_read);
    for (std::size_t i = 0; i < p_read.size(); ++i) {
      EXPECT_LE((p_built[i] - p_read[i]).cwiseAbs().maxCoeff(), kSameOps) << read.probes()[i].name;
    }
  }
  // And the cross-check is not vacuous: the joints do move the tip.
  built.world_transforms(qs[0], X_built);
  built.probe_positions(X_built, p_built);
  const Vector3d tip_at_zero = p_built[static_cast<std::size_t>(built.find_probe("TwoLink/tip"))];
  built.world_transforms(qs[1], X_built);
  built.probe_positions(X_built, p_built);
  EXPECT_GT((p_built[static_cast<std::size_t>(built.find_probe("TwoLink/tip"))] - tip_at_zero).norm(),
            0.01);
}

// Joints of nested instances come after their enclosing instance's own joints, whatever the
// order of the add_* calls; top-level instances in the order added.
TEST(SceneBuilder, ComputesTheDocumentedJointOrder) {
  SceneBuilder b;
  b.set_name("Order");
  b.set_root(kSceneRoot);
  const JointSpec moving{.drive = DriveType::revolute, .driven = true};
  const auto joint = [&](int parent, std::string name) {
    JointSpec j = moving;
    j.name = std::move(name);
    return b.add_joint(parent, j);
  };
  const int a = b.add_instance(-1, "A", Isometry3d::Identity());
  const int a1 = joint(a, "a1");
  const int inner = b.add_instance(a1, "In", Isometry3d::Identity());
  joint(inner, "i1");
  const int top_b = b.add_instance(-1, "B", Isometry3d::Identity());
  joint(top_b, "b1");
  joint(a1, "a2");  // A's own joint, added after B: still before In's and B's
  JointSpec passive = moving;
  passive.name = "passive";
  passive.driven = false;
  b.add_joint(a, passive);
  const SceneModel m = std::move(b).build();
  EXPECT_EQ(std::vector<std::string>(m.joint_names().begin(), m.joint_names().end()),
            (std::vector<std::string>{"A/a1", "A/a2", "A/In/i1", "B/b1"}));
  EXPECT_EQ(m.find_joint("A/passive"), -1);
  for (std::size_t j = 0; j < m.joint_names().size(); ++j) {
    EXPECT_EQ(m.frames()[static_cast<std::size_t>(m.joint_frames()[j])].joint_index,
              static_cast<int>(j));
  }
}

// A builder with one instance "Arm" (frame 0) and one revolute joint "a" (frame 1) in it.
SceneBuilder arm() {
  SceneBuilder b;
  b.set_name("Arm");
  b.set_root(kSceneRoot);
  b.add_instance(-1, "Arm", Isometry3d::Identity(), SourceLocation{"arm.src", 1});
  b.add_joint(0, {.name = "a", .drive = DriveType::revolute, .driven = true,
                  .where = SourceLocation{"arm.src", 2}});
  return b;
}

// Runs `add`, which must throw; returns the error's what().
template <class F>
std::string rejection(F&& add) {
  try {
    add();
  } catch (const SceneError& e) {
    EXPECT_EQ(e.exit_code(), cosim::util::kExitBadInput) << "a SceneError is a bad input";
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(SceneBuilder, RejectsAChildBeforeItsParent) {
  SceneBuilder b = arm();
  EXPECT_EQ(rejection([&] { b.add_joint(2, {.name = "c", .where = SourceLocation{"arm.src", 9}}); }),
            "arm.src:9: joint 'c': frame index 2 is not a frame added before it (2 so far; add "
            "parents before children)");
  EXPECT_EQ(rejection([&] { b.add_probe(-1, "p", Vector3d::Zero()); }),
            "probe 'p': frame index -1 is not a frame added before it (2 so far; add parents "
            "before children)");
}

TEST(SceneBuilder, RejectsADuplicateJointName) {
  SceneBuilder b = arm();
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "a", .where = SourceLocation{"arm.src", 5}});
            }),
            "arm.src:5: duplicate joint name 'Arm/a' (first at arm.src:2)");
  // A finer place for the name (the XML reader's attribute line) is where the error points.
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "a",
                              .where = {SourceLocation{"arm.src", 5}, SourceLocation{"arm.src", 6}}});
            }),
            "arm.src:6: duplicate joint name 'Arm/a' (first at arm.src:2)");
  EXPECT_EQ(rejection([&] { b.add_joint(1, {.name = "x/y"}); }),
            "bad joint name 'x/y': names are non-empty and contain no '/' (the builder scopes "
            "them)");
}

TEST(SceneBuilder, RejectsAnAxisThatIsNotUnit) {
  SceneBuilder b = arm();
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "z", .drive = DriveType::revolute, .axis_J = Vector3d::Zero()});
            }),
            "joint 'Arm/z': axis (0 0 0) is not a unit vector (norm 0)");
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "u", .drive = DriveType::prismatic,
                              .axis_J = Vector3d(0, 2, 0)});
            }),
            "joint 'Arm/u': axis (0 2 0) is not a unit vector (norm 2)");
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "f", .axis_J = Vector3d::UnitX()});  // fixed
            }),
            "joint 'Arm/f': a fixed joint takes no axis, offset or driven flag");
}

TEST(SceneBuilder, RejectsAnUnresolvedRef) {
  SceneBuilder b = arm();
  b.add_geometry(1, "g", Sphere{0.1, 24}, Isometry3d::Identity());
  const int other = b.add_instance(1, "Other", Isometry3d::Identity());
  EXPECT_EQ(rejection([&] { b.add_render(1, {.ref = "nope"}); }),
            "unresolved ref 'nope' in instance 'Arm' (a render names a geometry or assembly "
            "defined earlier in the same instance)");
  // Refs stay inside their instance: "g" is Arm's, not Other's, and no path reaches it.
  EXPECT_EQ(rejection([&] { b.add_render(other, {.ref = "g"}); }),
            "unresolved ref 'g' in instance 'Arm/Other' (a render names a geometry or assembly "
            "defined earlier in the same instance)");
  const std::array<std::string_view, 2> refs{"g", "Arm/g"};
  EXPECT_EQ(rejection([&] { b.add_assembly(1, "a", refs, Isometry3d::Identity()); }),
            "unresolved ref 'Arm/g' in instance 'Arm' (refs name a geometry or assembly defined "
            "earlier in the same instance)");
}

TEST(SceneBuilder, RejectsNonFiniteNumbers) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  SceneBuilder b = arm();
  EXPECT_EQ(rejection([&] { b.add_probe(1, "p", {kNaN, 0, 0}); }),
            "probe 'Arm/p': position (nan 0 0) is not finite");
  EXPECT_EQ(rejection([&] {
              b.add_joint(1, {.name = "o", .drive = DriveType::revolute, .offset = kInf});
            }),
            "joint 'Arm/o': offset inf is not finite");
  JointSpec moved{.name = "m"};
  moved.X_PJ.translation().x() = kNaN;
  EXPECT_EQ(rejection([&] { b.add_joint(1, moved); }),
            "joint 'Arm/m': X_PJ is not a finite rigid transform (rotation and translation)");
  EXPECT_EQ(rejection([&] { b.add_geometry(1, "c", Cuboid{1, kInf, 1}, Isometry3d::Identity()); }),
            "geometry 'Arm/c': ly = inf must be finite and > 0");
  b.add_geometry(1, "g", Sphere{0.1, 24}, Isometry3d::Identity());
  EXPECT_EQ(rejection([&] { b.add_render(1, {.ref = "g", .opacity = kNaN}); }),
            "render of 'Arm/g': opacity nan must be in [0, 1]");
  // Rejected elements were not added.
  const SceneModel m = std::move(b).build();
  EXPECT_EQ(m.frames().size(), 2u);
  EXPECT_EQ(m.probes().size(), 0u);
  EXPECT_EQ(m.renders().size(), 0u);
}

TEST(SceneBuilder, RejectsAnIncompleteScene) {
  SceneBuilder unnamed;
  unnamed.set_root(kSceneRoot);
  EXPECT_EQ(rejection([&] { (void)std::move(unnamed).build(); }),
            "scene name not set (SceneBuilder::set_name)");
  SceneBuilder rootless;
  rootless.set_name("S");
  EXPECT_EQ(rejection([&] { (void)std::move(rootless).build(); }),
            "scene root folder '' is not an absolute path (SceneBuilder::set_root)");
  SceneBuilder outside = arm();
  const fs::path elsewhere = kSceneRoot.root_path() / "elsewhere" / "m.stl";
  outside.add_geometry(1, "mesh", Part{.file = elsewhere}, Isometry3d::Identity(), SourceLocation{"arm.src", 4});
  EXPECT_EQ(rejection([&] { (void)std::move(outside).build(); }),
            "arm.src:4: geometry 'Arm/mesh': mesh file " + elsewhere.string() + " is outside the scene root " +
                kSceneRoot.string());
}

// One source joint split into several frames (a URDF planar joint) is scoped as a group.
TEST(SceneBuilder, GroupsScopeTheFramesOfOneSourceJoint) {
  SceneBuilder b = arm();
  const int x = b.add_joint(1, {.name = "x", .group = "base", .drive = DriveType::prismatic,
                                .axis_J = Vector3d::UnitX(), .driven = true});
  b.add_joint(x, {.name = "phi", .group = "base", .drive = DriveType::revolute, .driven = true});
  // A group may itself be scoped (a MuJoCo joint "Wheel_1/roller1"), each part a name.
  b.add_joint(1, {.name = "roller1", .group = "Wheel_1/hub", .drive = DriveType::revolute, .driven = true});
  EXPECT_EQ(rejection([&] { b.add_joint(1, {.name = "x", .group = "a//b"}); }),
            "bad joint group name '': names are non-empty and contain no '/' (the builder scopes them)");
  EXPECT_EQ(rejection([&] { b.add_joint(1, {.name = "x", .group = "a/"}); }),
            "bad joint group name '': names are non-empty and contain no '/' (the builder scopes them)");
  const SceneModel m = std::move(b).build();
  EXPECT_EQ(std::vector<std::string>(m.joint_names().begin(), m.joint_names().end()),
            (std::vector<std::string>{"Arm/a", "Arm/base/x", "Arm/base/phi", "Arm/Wheel_1/hub/roller1"}));
}

// Mesh scale per axis (a URDF <mesh scale>), each factor > 0; parts may also lie in folders
// added besides the root (a URDF's package path).
TEST(SceneBuilder, PartsScalePerAxisAndMayLieInMeshFolders) {
  const fs::path packages = kSceneRoot.root_path() / "packages";
  SceneBuilder b = arm();
  b.add_mesh_folder(packages);
  EXPECT_EQ(rejection([&] {
              b.add_geometry(1, "flat", Part{.file = kSceneRoot / "m.stl", .scale = Vector3d(1, 0, 2)},
                             Isometry3d::Identity());
            }),
            "geometry 'Arm/flat': scale (1 0 2) must be finite and > 0 on each axis");
  b.add_geometry(1, "in_root",
                 Part{.file = kSceneRoot / "m.obj", .scale = Vector3d(1, 2, 3), .format = MeshFormat::obj},
                 Isometry3d::Identity());
  b.add_geometry(1, "in_package", Part{.file = packages / "p" / "m.dae", .format = MeshFormat::dae},
                 Isometry3d::Identity());
  const fs::path elsewhere = kSceneRoot.root_path() / "elsewhere" / "m.stl";
  SceneBuilder outside = arm();
  outside.add_mesh_folder(packages);
  outside.add_geometry(1, "mesh", Part{.file = elsewhere}, Isometry3d::Identity());
  EXPECT_EQ(rejection([&] { (void)std::move(outside).build(); }),
            "geometry 'Arm/mesh': mesh file " + elsewhere.string() + " is outside the scene root " +
                kSceneRoot.string() + " and the other mesh folders");
  const SceneModel m = std::move(b).build();
  EXPECT_EQ(m.geometries().size(), 2u);
}

// SceneModel::load chooses its reader by the kind of path; one it has none for is named, with
// the kinds it accepts (URDF only in builds with urdfdom).
constexpr std::string_view kMjcfKind = COSIM_HAVE_MUJOCO ? "MuJoCo model (an .xml file whose root element is <mujoco>); " : "";
constexpr std::string_view kUrdfKind = COSIM_HAVE_URDF ? "URDF (a .urdf file); " : "";
const std::string kAccepted = "; accepted: " + std::string(kMjcfKind) + std::string(kUrdfKind) +
                              "XML scene (a scene folder holding projects/, or a project .xml file)";

TEST(SceneReaders, RefuseAFileOfAnotherKind) {
  const fs::path txt = fixtures_dir() / "not_a_scene.txt";
  ASSERT_TRUE(fs::is_regular_file(txt));
  try {
    SceneModel::load(txt);
    ADD_FAILURE() << "read a .txt file";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().file, fs::canonical(txt));
    EXPECT_EQ(e.where().line, 0);
    EXPECT_EQ(e.message(), "not a kind of scene this program reads" + std::string(kAccepted));
  }
}

TEST(SceneReaders, RefuseAMissingPath) {
  const fs::path missing = fixtures_dir() / "does_not_exist.urdf";
  try {
    SceneModel::load(missing);
    ADD_FAILURE() << "read a missing path";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              missing.string() + ": no such scene folder or file" + std::string(kAccepted));
  }
}

}  // namespace

namespace cosim::scene {
namespace {

TEST(SceneBuilderLimits, MoreThanTheProbeLimitIsAnErrorAtTheProbe) {
  SceneBuilder b;
  b.set_name("Many");
  b.set_root(std::filesystem::temp_directory_path());
  const int root = b.add_instance(-1, "Many", Eigen::Isometry3d::Identity());
  for (std::size_t i = 0; i < kMaxProbes; ++i) b.add_probe(root, "p" + std::to_string(i), {0, 0, 0});
  try {
    b.add_probe(root, "one_more", {0, 0, 0}, ElementLocation(SourceLocation{"many.xml", 1234}));
    FAIL() << "accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), "many.xml:1234: more than 1000 probes in the scene");
  }
}

}  // namespace
}  // namespace cosim::scene
