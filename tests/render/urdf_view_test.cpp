// URDF scenes on the visual side (built with urdfdom only): each mesh format read into an
// actor where its file puts it (a COLLADA file with nested node transforms and Z_UP), mesh
// errors naming the URDF's line and the mesh, and the example arm (examples/urdf_arm) shown
// by cosim-visual and cosim-recorder, given with --scene, replaying a recording whose Hello
// names the arm's joints.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include <vtkActor.h>
#include <vtkProperty.h>

#include "cosim/protocol/version.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/visual/vtk/scene_view.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/framing.hpp"
#include "render_paths.hpp"

namespace cosim::test {
namespace {

namespace fs = std::filesystem;
using visual::SceneView;

const fs::path kUrdfDir = kTestScenesDir / "urdf";
const fs::path kArm = fs::path(COSIM_EXAMPLES_DIR) / "urdf_arm" / "arm.urdf";

// assimp computes COLLADA node transforms in float.
constexpr double kBoundsTolerance_m = 1e-6;

struct Box {
  Eigen::Vector3d lo, hi;
};

void expect_bounds(vtkActor& actor, const Box& expected, const std::string& what) {
  double b[6];
  actor.GetBounds(b);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(b[2 * i], expected.lo[i], kBoundsTolerance_m) << what << " axis " << i;
    EXPECT_NEAR(b[2 * i + 1], expected.hi[i], kBoundsTolerance_m) << what << " axis " << i;
  }
}

/// SceneView of `scene` with every frame at the world transforms of joint values q.
void show(SceneView& view, const scene::SceneModel& scene, std::span<const double> q) {
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  scene.world_transforms(q, X_WF);
  view.update(X_WF);
}

#if COSIM_HAVE_ASSIMP
// tests/data/scenes/urdf/meshes.urdf: each actor's bounds are its mesh's extent (see the
// comments in the mesh files), scaled and moved by its link's fixed joint.
TEST(UrdfView, EachMeshFormatSitsWhereItsFileSays) {
  const auto scene = scene::SceneModel::load(kUrdfDir / "meshes.urdf", {.package_path = {kUrdfDir / "packages"}});
  SceneView view(scene);
  EXPECT_EQ(view.meshes_loaded(), 5u);
  ASSERT_EQ(view.actors().size(), 5u);
  std::vector<double> q(scene.joint_names().size(), 0.0);
  show(view, scene, q);
  // STL, scale "2 1 0.5" of a 0.1 x 0.2 x 0.3 m box about its centre.
  expect_bounds(*view.actors()[0], {{-0.1, -0.1, -0.075}, {0.1, 0.1, 0.075}}, "stl");
  // OBJ, 0.2 x 0.1 x 0.05 m from the origin, link at (1, 0, 0).
  expect_bounds(*view.actors()[1], {{1, 0, 0}, {1.2, 0.1, 0.05}}, "obj");
  // PLY, 0.2 x 0.2 x 0.4 m on the xy plane, link at (0, 1, 0).
  expect_bounds(*view.actors()[2], {{-0.1, 0.9, 0}, {0.1, 1.1, 0.4}}, "ply");
  // COLLADA: a 0.1 x 0.2 x 0.4 m box turned 90 deg about z and moved 1 m along x by its node,
  // lifted 0.5 m by the parent node, link at (0, 0, 1). Still tall along z: Z_UP kept as it
  // is (assimp's default would have laid it along y).
  expect_bounds(*view.actors()[3], {{0.8, 0, 1.5}, {1.0, 0.1, 1.9}}, "dae");
  // package://demo_parts: a 0.05 m cube from the origin, link at (0, -1, 0).
  expect_bounds(*view.actors()[4], {{0, -1, 0}, {0.05, -0.95, 0.05}}, "package");
  double rgb[3];
  view.actors()[1]->GetProperty()->GetColor(rgb);
  EXPECT_EQ(rgb[2], 1.0);  // the OBJ's material: blue

  // The continuous joint turns the PLY box about its link's x: a quarter turn lays it along -y.
  q[static_cast<std::size_t>(scene.find_joint("meshes/to_ply"))] = std::numbers::pi / 2;
  show(view, scene, q);
  expect_bounds(*view.actors()[2], {{-0.1, 0.6, -0.1}, {0.1, 1.0, 0.1}}, "ply turned");
}
#endif

// A scratch folder with a one-link URDF whose mesh is `mesh_file`, holding `contents`.
class BrokenMesh : public ::testing::Test {
 protected:
  BrokenMesh() : tmp_(::testing::UnitTest::GetInstance()->current_test_info()->name()) {}
  fs::path write(const std::string& mesh_file, const std::string& contents) {
    std::ofstream(tmp_.path() / mesh_file) << contents;
    std::ofstream(tmp_.path() / "r.urdf") << "<robot name=\"r\">\n  <link name=\"l\">\n    <visual>\n"
                                          << "      <geometry><mesh filename=\"" << mesh_file << "\"/></geometry>\n"
                                          << "    </visual>\n  </link>\n</robot>\n";
    return tmp_.path() / "r.urdf";
  }
  /// SceneView's error for the scene: the URDF's <visual> line and the mesh file, one line.
  void expect_error(const fs::path& urdf, const std::string& what_part) {
    const auto scene = scene::SceneModel::load(urdf);
    try {
      SceneView view(scene);
      ADD_FAILURE() << "no error for an unreadable mesh";
    } catch (const scene::SceneError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.where().file, fs::canonical(urdf)) << what;
      EXPECT_EQ(e.where().line, 3) << what;
      EXPECT_NE(what.find(what_part), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  TempDir tmp_;
};

TEST_F(BrokenMesh, ObjWithoutFacesIsAnError) {
  const auto urdf = write("m.obj", "# nothing but a point\nv 0 0 0\n");
  expect_error(urdf, "cannot read OBJ mesh " + fs::canonical(tmp_.path() / "m.obj").string() + ": no triangles");
}
TEST_F(BrokenMesh, UnreadablePlyIsAnError) {
  const auto urdf = write("m.ply", "not a ply file\n");
  expect_error(urdf, "cannot read PLY mesh " + fs::canonical(tmp_.path() / "m.ply").string() + ": ");
}
// The PLY reader sizes its arrays from the header's counts before it reads the body: a
// count the file cannot hold is refused first (it was "out of memory", exit 1). ASCII: each
// vertex of 3 properties takes at least 6 bytes (a digit and a separator each); binary: 12.
TEST_F(BrokenMesh, APlyAnnouncingMoreElementsThanItHoldsIsRefusedBeforeItIsRead) {
  const std::string header_rest =
      " 1.0\nelement vertex 2147483647\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
  auto urdf = write("m.ply", "ply\nformat ascii" + header_rest + "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  expect_error(urdf, "announces 2147483647 vertex elements of at least 6 bytes each, more than the 26 bytes");
  urdf = write("m.ply", "ply\nformat binary_little_endian" + header_rest + std::string(40, '\0'));
  expect_error(urdf, "announces 2147483647 vertex elements of at least 12 bytes each, more than the 40 bytes");
}
TEST_F(BrokenMesh, APlyWhoseCountsFitIsRead) {
  const auto urdf = write("m.ply",
                          "ply\nformat ascii 1.0\ncomment counts that fit\nelement vertex 3\nproperty float x\n"
                          "property float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                          "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  const auto scene = scene::SceneModel::load(urdf);
  SceneView view(scene);
  EXPECT_EQ(view.triangle_count(), 1u);
}
// assimp's COLLADA reader recurses per <node>: 60 000 nested ones overflowed the stack
// (SIGSEGV, every program that drew the scene). The nesting is measured first; a comment, a
// CDATA section and a quoted '>' do not count, an empty element does not nest.
TEST_F(BrokenMesh, ADaeNestedDeeperThanTheLimitIsRefusedBeforeAssimpReadsIt) {
  const auto dae = [](int depth) {
    std::string nodes;
    for (int i = 0; i < depth; ++i) nodes += "<node name=\"a>b\"><!-- <x> --><![CDATA[<y>]]><extra/>";
    for (int i = 0; i < depth; ++i) nodes += "</node>";
    return "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">"
           "<library_visual_scenes><visual_scene id=\"s\">" + nodes +
           "</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#s\"/></scene></COLLADA>\n";
  };
  const auto urdf = write("m.dae", dae(60000));
  expect_error(urdf, "cannot read DAE mesh " + fs::canonical(tmp_.path() / "m.dae").string() +
                         ": elements nested deeper than 256 levels");
  // 250 nodes under the 4 levels around them: within the limit, so assimp reads it (and finds no mesh).
  write("m.dae", dae(250));
  const auto scene = scene::SceneModel::load(urdf);
  try {
    SceneView view(scene);
  } catch (const scene::SceneError& e) {
    EXPECT_EQ(std::string(e.what()).find("nested deeper"), std::string::npos) << e.what();
  }
}
TEST_F(BrokenMesh, UnreadableDaeIsAnError) {
  const auto urdf = write("m.dae", "<COLLADA><broken></COLLADA>\n");
  expect_error(urdf, "cannot read DAE mesh " + fs::canonical(tmp_.path() / "m.dae").string() + ": ");
}

#if COSIM_HAVE_ASSIMP
class UrdfCli : public LoopTest {};

// --package-path: where cosim-visual finds package:// meshes; a folder that is not there is a
// usage error, a package not found a scene error naming the URDF's line and the link.
TEST_F(UrdfCli, PackagePathOption) {
  if (!have_display()) GTEST_FAIL() << "no X display: run the render suite under xvfb-run (scripts/test.sh does)";
  const auto screenshot = [&](std::vector<std::string> extra, const std::string& tag) {
    std::vector<std::string> args{"--scene", (kUrdfDir / "meshes.urdf").string(), "--joints", "", "--screenshot",
                                  (tmp_.path() / (tag + ".png")).string(), "--size", "320x240", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-visual", args, tmp_.path() / tag);
  };
  auto found = screenshot({"--package-path", "/nonexistent:" + (kUrdfDir / "packages").string()}, "found");
  EXPECT_EQ(finish(*found, "cosim-visual"), 2) << found->err();  // /nonexistent is refused
  EXPECT_NE(found->err().find("'/nonexistent' is not a folder"), std::string::npos) << found->err();
  auto good = screenshot({"--package-path", (kUrdfDir / "packages").string()}, "good");
  EXPECT_EQ(finish(*good, "cosim-visual"), 0) << good->err();
  auto missing = screenshot({}, "missing");
  EXPECT_EQ(finish(*missing, "cosim-visual"), 2) << missing->err();
  EXPECT_NE(missing->err().find("meshes.urdf:28: link 'pkg_link': package 'demo_parts'"), std::string::npos)
      << missing->err();
}

/// Writes a frames.cosimlog as cosim-dynamics would record it: a Hello for model "arm" naming
/// the arm's three joints, then `frames` frames of a slow wave.
fs::path record_arm_run(const fs::path& dir, int frames) {
  const fs::path log = dir / "frames.cosimlog";
  wire::CosimLogWriter writer(log, protocol::kProtocolMajor, protocol::kProtocolMinor);
  const auto put = [&](const v1::Envelope& e) {
    std::string framed;
    wire::encode(e, framed);
    writer.append(wire::Direction::to_visual, 0, std::as_bytes(std::span(framed.data(), framed.size())));
  };
  v1::Envelope hello;
  auto& h = *hello.mutable_hello();
  h.mutable_protocol()->set_major(protocol::kProtocolMajor);
  h.mutable_protocol()->set_minor(protocol::kProtocolMinor);
  h.set_model("arm");
  h.set_backend("hand-written");
  h.set_fps(30);
  h.set_mode(v1::MODE_LOCKSTEP);
  h.set_frame_count(static_cast<std::uint32_t>(frames));
  for (const char* joint : {"arm/yaw", "arm/shoulder", "arm/elbow"}) h.add_joint_names(joint);
  put(hello);
  for (int k = 1; k <= frames; ++k) {
    v1::Envelope frame;
    const double t_s = k / 30.0;
    frame.mutable_frame()->set_seq(static_cast<std::uint64_t>(k));
    frame.mutable_frame()->set_sim_time_s(t_s);
    for (const double q : {0.5 * t_s, 0.4 * std::sin(t_s), 0.8 * t_s}) frame.mutable_frame()->add_joint_values(q);
    put(frame);
  }
  writer.flush();
  return log;
}

class UrdfArm : public LoopTest {};

// The example arm, one pose: a screenshot by cosim-visual from the URDF given with --scene.
TEST_F(UrdfArm, CosimVisualShowsAPose) {
  if (!have_display()) GTEST_FAIL() << "no X display: run the render suite under xvfb-run (scripts/test.sh does)";
  const fs::path png = tmp_.path() / "arm.png";
  Process visual(kBinDir / "cosim-visual",
                 {"--scene", kArm.string(), "--joints", "arm/yaw=30deg,arm/shoulder=40deg,arm/elbow=-70deg",
                  "--screenshot", png.string(), "--size", "320x240", "-q"},
                 tmp_.path() / "visual");
  EXPECT_EQ(finish(visual, "cosim-visual", 60), 0) << visual.err();
  EXPECT_GT(fs::file_size(png), 1000u);
}

// A recorded run of the arm played again: with --scene the Hello's model only has to drive
// the scene's joints (arm/yaw, arm/shoulder, arm/elbow: the URDF's joints under its robot name).
TEST_F(UrdfArm, CosimRecorderAndCosimVisualReplayARunOfIt) {
  if (!have_display()) GTEST_FAIL() << "no X display: run the render suite under xvfb-run (scripts/test.sh does)";
  const fs::path log = record_arm_run(tmp_.path(), 20);
  Process recorder(kBinDir / "cosim-recorder",
                   {"--replay", log.string(), "--scene", kArm.string(), "--as-fast-as-possible"},
                   tmp_.path() / "recorder");
  EXPECT_EQ(finish(recorder, "cosim-recorder", 60), 0) << recorder.err();
  EXPECT_NE(recorder.out().find("cosim-recorder: 20 frames"), std::string::npos) << recorder.out();

  Process visual(kBinDir / "cosim-visual",
                 {"--replay", log.string(), "--scene", kArm.string(), "--offscreen", "--as-fast-as-possible", "--size",
                  "320x240", "--out", (tmp_.path() / "visual_run").string(), "-q"},
                 tmp_.path() / "visual");
  EXPECT_EQ(finish(visual, "cosim-visual", 120), 0) << visual.err();
  EXPECT_TRUE(fs::exists(tmp_.path() / "visual_run" / "visual.log"));
}
#endif

}  // namespace
}  // namespace cosim::test
