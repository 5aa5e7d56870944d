// The scene -> VTK builder (cosim::visual_vtk) without a window: every scene builds, the
// actors sit where the scene model says, and the probes computed from VTK's matrices equal
// the scene model's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <vtkActor.h>
#include <vtkMatrix4x4.h>
#include <vtkProperty.h>

#include "cosim/scene/scene_builder.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/pose.hpp"
#include "cosim/visual/vtk/scene_view.hpp"
#include "cosim/test/process.hpp"
#include "render_paths.hpp"

namespace cosim::test {
namespace {

using visual::SceneView;

/// Every scene folder of scenes/ (a folder with projects/), plus the test scene that uses
/// every geometry kind; with urdfdom the URDF robot with every joint type, and with assimp
/// the example arm (COLLADA meshes).
std::vector<std::filesystem::path> all_scenes() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(kScenesDir)) {
    if (std::filesystem::is_directory(entry.path() / "projects")) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  out.push_back(kTestScenesDir / "arm2");
  if (COSIM_HAVE_URDF) out.push_back(kTestScenesDir / "urdf" / "joints.urdf");
  if (COSIM_HAVE_URDF && COSIM_HAVE_ASSIMP) out.push_back(std::filesystem::path(COSIM_EXAMPLES_DIR) / "urdf_arm" / "arm.urdf");
  return out;
}

/// Joint values with prismatic joints within +-2 m and revolute ones within +-2 pi.
std::vector<double> random_q(const scene::SceneModel& scene, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> q(scene.joint_names().size());
  for (std::size_t i = 0; i < q.size(); ++i) {
    const auto& frame = scene.frames()[static_cast<std::size_t>(scene.joint_frames()[i])];
    q[i] = unit(rng) * (frame.drive == scene::DriveType::prismatic ? 2.0 : 2.0 * std::numbers::pi);
  }
  return q;
}

TEST(SceneView, EverySceneBuilds) {
  const auto scenes = all_scenes();
  ASSERT_GE(scenes.size(), 2u) << "no scene found in " << kScenesDir;
  for (const auto& folder : scenes) {
    SCOPED_TRACE(folder.string());
    const auto scene = scene::SceneModel::load(folder);
    SceneView view(scene);
    EXPECT_EQ(view.actors().size(), scene.renders().size());
    EXPECT_GT(view.actors().size(), 0u);
    EXPECT_GT(view.triangle_count(), 0u);
    for (const auto& actor : view.actors()) {
      ASSERT_NE(actor->GetUserTransform(), nullptr);
      EXPECT_NE(actor->GetMapper(), nullptr);
    }
  }
}

TEST(SceneView, RobotinoIsBuiltFromClosedSolids) {
  // Back-face culling (half the pixels to shade) relies on every Robotino part being closed.
  const auto scene = scene::SceneModel::load(kScenesDir / "robotino");
  SceneView view(scene);
  EXPECT_EQ(view.closed_renders(), view.actors().size());
  for (const auto& actor : view.actors()) EXPECT_TRUE(actor->GetProperty()->GetBackfaceCulling());
}

TEST(SceneView, ProbesFromActorsEqualSceneModelProbes) {
  std::mt19937_64 rng(20261122);
  for (const auto& folder : all_scenes()) {
    SCOPED_TRACE(folder.string());
    const auto scene = scene::SceneModel::load(folder);
    SceneView view(scene);
    std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
    std::vector<Eigen::Vector3d> p_model(scene.probes().size()), p_vtk(scene.probes().size());
    ASSERT_FALSE(p_model.empty());
    double worst_m = 0;
    for (int trial = 0; trial < 500; ++trial) {
      const auto q = random_q(scene, rng);
      scene.world_transforms(q, X_WF);
      scene.probe_positions(X_WF, p_model);
      view.update(X_WF);
      view.probe_positions(p_vtk);
      for (std::size_t i = 0; i < p_model.size(); ++i) worst_m = std::max(worst_m, (p_vtk[i] - p_model[i]).norm());
    }
    EXPECT_LE(worst_m, 1e-12);
  }
}

TEST(SceneView, EachActorMovesWithItsRenderFrame) {
  // The actor's own matrix (what VTK renders with) is X_WF of the render's frame: a joint
  // that does not move its actors, or moves them the wrong way, fails here.
  std::mt19937_64 rng(7);
  const auto scene = scene::SceneModel::load(kScenesDir / "robotino");
  SceneView view(scene);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  for (int trial = 0; trial < 50; ++trial) {
    scene.world_transforms(random_q(scene, rng), X_WF);
    view.update(X_WF);
    for (std::size_t r = 0; r < scene.renders().size(); ++r) {
      vtkMatrix4x4* M = view.actors()[r]->GetMatrix();
      const Eigen::Matrix4d& expected = X_WF[static_cast<std::size_t>(scene.renders()[r].frame)].matrix();
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) ASSERT_NEAR(M->GetElement(i, j), expected(i, j), 1e-15) << scene.renders()[r].ref;
      }
    }
  }
}

// A scene whose mesh holds 20 000 triangles, on a revolute joint, with a probe off the axis.
scene::SceneModel fine_sphere_scene() {
  constexpr int kRings = 100, kSectors = 100;  // 2 * 100 * 100 = 20 000 triangles
  auto data = std::make_shared<scene::TriangleMesh::Data>();
  const auto at = [&](int ring, int sector) { return ring * kSectors + sector % kSectors; };
  for (int ring = 0; ring <= kRings; ++ring) {
    for (int sector = 0; sector < kSectors; ++sector) {
      const double polar = std::numbers::pi * ring / kRings, azimuth = 2 * std::numbers::pi * sector / kSectors;
      data->vertices_m.emplace_back(0.1 * std::sin(polar) * std::cos(azimuth), 0.1 * std::sin(polar) * std::sin(azimuth),
                                    0.1 * std::cos(polar));
    }
  }
  for (int ring = 0; ring < kRings; ++ring) {
    for (int sector = 0; sector < kSectors; ++sector) {
      data->triangles.push_back({at(ring, sector), at(ring + 1, sector), at(ring + 1, sector + 1)});
      data->triangles.push_back({at(ring, sector), at(ring + 1, sector + 1), at(ring, sector + 1)});
    }
  }
  scene::SceneBuilder b;
  b.set_name("Fine");
  b.set_root(std::filesystem::temp_directory_path());
  const int robot = b.add_instance(-1, "Fine", Eigen::Isometry3d::Identity());
  const int joint = b.add_joint(robot, {.name = "turn", .drive = scene::DriveType::revolute,
                                        .axis_J = Eigen::Vector3d::UnitZ(), .driven = true});
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
  X_FG.translation() = Eigen::Vector3d(0.3, 0, 0);
  b.add_geometry(joint, "ball", scene::TriangleMesh{data}, X_FG);
  b.add_render(joint, {.ref = "ball", .rgb = {0.5, 0.5, 0.5}});
  b.add_probe(joint, "tip", {0.4, 0.05, 0});
  return std::move(b).build();
}

TEST(SceneView, MeshesBeyondTheTriangleBudgetAreDecimatedAndTheProbesStay) {
  const auto scene = fine_sphere_scene();
  SceneView full(scene), within(scene, 20000), budget(scene, 5000);
  EXPECT_EQ(full.mesh_triangles_read(), 20000u);
  EXPECT_EQ(full.meshes_decimated(), 0u);
  EXPECT_EQ(within.meshes_decimated(), 0u) << "a budget the scene meets changes nothing";
  EXPECT_EQ(within.triangle_count(), full.triangle_count());
  EXPECT_EQ(budget.meshes_decimated(), 1u);
  // vtkQuadricDecimation meets its target reduction to within a few triangles.
  EXPECT_LE(budget.triangle_count(), 5000u + 50u);
  EXPECT_GE(budget.triangle_count(), 5000u - 500u);
  std::mt19937_64 rng(11);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_full(1), p_budget(1);
  for (int trial = 0; trial < 10; ++trial) {
    scene.world_transforms(random_q(scene, rng), X_WF);
    full.update(X_WF);
    budget.update(X_WF);
    full.probe_positions(p_full);
    budget.probe_positions(p_budget);
    EXPECT_EQ(p_full[0], p_budget[0]) << "probes follow the frames, not the triangles";
  }
}

TEST(SceneView, ColoursComeFromTheScene) {
  const auto scene = scene::SceneModel::load(kTestScenesDir / "arm2");
  SceneView view(scene);
  for (std::size_t r = 0; r < scene.renders().size(); ++r) {
    const auto& render = scene.renders()[r];
    double rgb[3];
    view.actors()[r]->GetProperty()->GetColor(rgb);
    EXPECT_NEAR(rgb[0], render.rgb.r, 0.5 / 255) << render.ref;
    EXPECT_NEAR(rgb[1], render.rgb.g, 0.5 / 255) << render.ref;
    EXPECT_NEAR(rgb[2], render.rgb.b, 0.5 / 255) << render.ref;
    EXPECT_DOUBLE_EQ(view.actors()[r]->GetProperty()->GetOpacity(), render.opacity) << render.ref;
  }
}

TEST(SceneView, CssNamesResolveToTheirCssValues) {
  // vtkNamedColors knows most CSS names; where its value differs, the CSS value wins.
  for (const auto name : scene::css_color_names()) {
    scene::Render render;
    render.color_name = std::string(name);
    render.rgb = *scene::css_color(name);
    double rgb[3];
    visual::render_color(render, rgb);
    EXPECT_NEAR(rgb[0], render.rgb.r, 0.5 / 255) << name;
    EXPECT_NEAR(rgb[1], render.rgb.g, 0.5 / 255) << name;
    EXPECT_NEAR(rgb[2], render.rgb.b, 0.5 / 255) << name;
  }
}

// A scene with a binary and an ASCII STL, each used twice.
class MeshScene : public ::testing::Test {
 protected:
  MeshScene() : tmp_(::testing::UnitTest::GetInstance()->current_test_info()->name()) {
    std::filesystem::create_directories(tmp_.path() / "projects");
    std::filesystem::create_directories(tmp_.path() / "robots");
    std::filesystem::create_directories(tmp_.path() / "meshes");
    write(tmp_.path() / "projects/P.xml", "<project name=\"P\">\n  <robot name=\"R\"/>\n</project>\n");
    write(tmp_.path() / "robots/R.xml",
          "<robot name=\"R\">\n"
          "  <part id=\"b1\" file=\"meshes/tet_binary.stl\"/>\n"
          "  <part id=\"b2\" file=\"meshes/tet_binary.stl\" scale=\"2\"><translate x=\"1\"/></part>\n"
          "  <render ref=\"b1\" color=\"red\"/>\n"
          "  <render ref=\"b2\" color=\"green\"/>\n"
          "  <joint name=\"j\">\n"
          "    <link><drive type=\"revolute\" axis=\"z\"/></link>\n"
          "    <part id=\"a1\" file=\"meshes/tet_ascii.stl\"/>\n"
          "    <part id=\"a2\" file=\"meshes/tet_ascii.stl\"><translate y=\"1\"/></part>\n"
          "    <assembly id=\"both\" refs=\"a1 a2\"/>\n"
          "    <render ref=\"both\" color=\"0 0 1\"/>\n"
          "    <probe name=\"tip\" x=\"1\" y=\"2\" z=\"3\"/>\n"
          "  </joint>\n"
          "</robot>\n");
    write_tetrahedron_binary(tmp_.path() / "meshes/tet_binary.stl");
    write_tetrahedron_ascii(tmp_.path() / "meshes/tet_ascii.stl");
  }
  static void write(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }

  // A unit tetrahedron, outward facing.
  static constexpr float kV[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  static constexpr int kF[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  static void write_tetrahedron_binary(const std::filesystem::path& file) {
    std::ofstream out(file, std::ios::binary);
    const std::string header(80, ' ');
    out.write(header.data(), 80);
    const std::uint32_t n = 4;
    out.write(reinterpret_cast<const char*>(&n), 4);
    for (const auto& f : kF) {
      const float normal[3] = {0, 0, 0};
      out.write(reinterpret_cast<const char*>(normal), sizeof normal);
      for (const int v : f) out.write(reinterpret_cast<const char*>(kV[v]), 3 * sizeof(float));
      const std::uint16_t attributes = 0;
      out.write(reinterpret_cast<const char*>(&attributes), 2);
    }
  }
  static void write_tetrahedron_ascii(const std::filesystem::path& file) {
    std::ofstream out(file);
    out << "solid tet\n";
    for (const auto& f : kF) {
      out << "  facet normal 0 0 0\n    outer loop\n";
      for (const int v : f) out << "      vertex " << kV[v][0] << " " << kV[v][1] << " " << kV[v][2] << "\n";
      out << "    endloop\n  endfacet\n";
    }
    out << "endsolid tet\n";
  }
  TempDir tmp_;
};

TEST_F(MeshScene, BinaryAndAsciiStlAreEachReadOnce) {
  const auto scene = scene::SceneModel::load(tmp_.path());
  SceneView view(scene);
  EXPECT_EQ(view.meshes_loaded(), 2u);
  ASSERT_EQ(view.actors().size(), 3u);
  EXPECT_EQ(view.triangle_count(), 4u * 4u);  // 2 binary uses + 2 ASCII uses of 4 triangles
  EXPECT_EQ(view.closed_renders(), 3u);
  // The scaled, translated copy: x from 1 to 3.
  double bounds[6];
  view.actors()[1]->GetBounds(bounds);
  EXPECT_NEAR(bounds[0], 1.0, 1e-6);
  EXPECT_NEAR(bounds[1], 3.0, 1e-6);
}

TEST_F(MeshScene, UnreadableMeshIsAnErrorWithFileAndLine) {
  write(tmp_.path() / "meshes/tet_ascii.stl", "solid broken\n  facet normal nonsense\nendsolid\n");
  const auto scene = scene::SceneModel::load(tmp_.path());
  try {
    SceneView view(scene);
    FAIL() << "no error for an unreadable mesh";
  } catch (const scene::SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("R.xml:8:"), std::string::npos) << what;
    EXPECT_NE(what.find("tet_ascii.stl"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST_F(MeshScene, ABinaryStlAnnouncingMoreTrianglesThanItHoldsIsRefusedBeforeItIsRead) {
  // The header's count at bytes 80..83 raised to 2^31-1: the reader would reserve memory for
  // that many (tens of GB) before reading; the 284-byte file holds 4.
  {
    std::fstream file(tmp_.path() / "meshes/tet_binary.stl", std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(80);
    const std::uint32_t huge = 0x7fffffff;
    file.write(reinterpret_cast<const char*>(&huge), 4);
  }
  const auto scene = scene::SceneModel::load(tmp_.path());
  try {
    SceneView view(scene);
    FAIL() << "a binary STL announcing 2^31-1 triangles was accepted";
  } catch (const scene::SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("R.xml:2:"), std::string::npos) << what;
    EXPECT_NE(what.find("tet_binary.stl"), std::string::npos) << what;
    EXPECT_NE(what.find("announces 2147483647 triangles, its 284 bytes hold 4"), std::string::npos) << what;
  }
}

TEST_F(MeshScene, ABinaryStlShorterThanItsHeaderIsRefused) {
  write(tmp_.path() / "meshes/tet_binary.stl", std::string("\0\xff\x01", 3));
  const auto scene = scene::SceneModel::load(tmp_.path());
  try {
    SceneView view(scene);
    FAIL() << "a 3-byte binary STL was accepted";
  } catch (const scene::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("shorter than its 84-byte header"), std::string::npos) << e.what();
  }
}

TEST(Pose, JointListAndPoseFile) {
  const auto scene = scene::SceneModel::load(kScenesDir / "robotino");
  std::vector<double> q(scene.joint_names().size(), 0.0);
  visual::apply_joint_list(scene, "Robotino/x=0.3, Robotino/phi=90deg", q);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(scene.find_joint("Robotino/x"))], 0.3);
  EXPECT_NEAR(q[static_cast<std::size_t>(scene.find_joint("Robotino/phi"))], std::numbers::pi / 2, 1e-15);
  EXPECT_THROW(visual::apply_joint_list(scene, "x=1", q), util::BadInputError);
  EXPECT_THROW(visual::apply_joint_list(scene, "Robotino/x=abc", q), util::BadInputError);
  EXPECT_THROW(visual::apply_joint_list(scene, "Robotino/x", q), util::BadInputError);
  // The units --help names: m for a prismatic joint, rad or deg for a revolute one, no other.
  visual::apply_joint_list(scene, "Robotino/x=0.25m, Robotino/phi=0.5rad", q);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(scene.find_joint("Robotino/x"))], 0.25);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(scene.find_joint("Robotino/phi"))], 0.5);
  for (const char* wrong : {"Robotino/x=3deg", "Robotino/x=3rad", "Robotino/phi=1m", "Robotino/phi=1mm"}) {
    EXPECT_THROW(visual::apply_joint_list(scene, wrong, q), util::BadInputError) << wrong;
  }

  TempDir tmp("pose");
  const auto file = tmp.path() / "pose.txt";
  std::ofstream(file) << "# a pose\nRobotino/y = -0.2\n\nRobotino/axle1 = 1.5  # rad\nRobotino/nope = 1\n";
  try {
    visual::apply_pose_file(scene, file, q);
    FAIL() << "no error for an unknown joint";
  } catch (const util::BadInputError& e) {
    EXPECT_NE(std::string(e.what()).find("pose.txt:5:"), std::string::npos) << e.what();
  }
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(scene.find_joint("Robotino/y"))], -0.2);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(scene.find_joint("Robotino/axle1"))], 1.5);
}

}  // namespace
}  // namespace cosim::test
