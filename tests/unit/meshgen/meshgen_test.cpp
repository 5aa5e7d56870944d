// tools/meshgen: every Robotino mesh is closed, outward oriented and of positive volume, lies
// where the scene needs it (clear of the wheels and rollers), and the STL files committed in
// scenes/robotino/meshes are byte for byte what the generator writes now.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/meshgen/check.hpp"
#include "cosim/meshgen/mesh.hpp"
#include "cosim/meshgen/robotino.hpp"
#include "cosim/meshgen/stl.hpp"
#include "cosim/scene/scene.hpp"

namespace {

namespace fs = std::filesystem;
namespace rb = cosim::meshgen::robotino;
using namespace cosim::meshgen;
using Eigen::AngleAxisd;
using Eigen::Isometry3d;
using Eigen::Vector2d;
using Eigen::Vector3d;
constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180;

fs::path scene_dir() { return COSIM_ROBOTINO_SCENE_DIR; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<rb::PartFile>& parts() {
  static const std::vector<rb::PartFile> p = rb::parts();
  return p;
}

const Mesh& mesh_of(const std::string& file) {
  for (const rb::PartFile& p : parts()) {
    if (p.file == file) return p.mesh;
  }
  throw std::runtime_error("no part " + file);
}

std::string problems_of(const MeshReport& r) {
  std::string s;
  for (const std::string& p : r.problems) s += "\n  " + p;
  return s;
}

// A regular tetrahedron-like closed mesh, outward.
Mesh tetrahedron() {
  Mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  return m;
}

// --- building blocks --------------------------------------------------------------------

TEST(MeshgenCheck, AcceptsAClosedOutwardMesh) {
  const MeshReport r = check_mesh(tetrahedron());
  EXPECT_TRUE(r.ok()) << problems_of(r);
  EXPECT_NEAR(r.volume_m3, 1.0 / 6, 1e-15);
  EXPECT_EQ(r.shells, 1u);
}

TEST(MeshgenCheck, FindsHolesFlipsInsideOutShellsAndSeams) {
  auto mentions = [](const MeshReport& r, const std::string& what) {
    return std::any_of(r.problems.begin(), r.problems.end(),
                       [&](const std::string& p) { return p.find(what) != std::string::npos; });
  };
  Mesh hole = tetrahedron();
  hole.triangles.pop_back();
  EXPECT_TRUE(mentions(check_mesh(hole), "no opposite edge"));

  Mesh flipped = tetrahedron();
  std::swap(flipped.triangles[1][1], flipped.triangles[1][2]);
  EXPECT_TRUE(mentions(check_mesh(flipped), "same direction"));

  Mesh inside_out = tetrahedron();
  for (auto& t : inside_out.triangles) std::swap(t[1], t[2]);
  const MeshReport r = check_mesh(inside_out);
  EXPECT_LT(r.volume_m3, 0);
  EXPECT_TRUE(mentions(r, "inside out"));

  Mesh seam = tetrahedron();  // vertex 3 duplicated: closed on paper, cracked in space
  seam.vertices.push_back(seam.vertices[3]);
  seam.triangles[3][2] = 4;
  EXPECT_TRUE(mentions(check_mesh(seam), "coincide"));

  Mesh flat = tetrahedron();
  flat.vertices[3] = {0.5, 0.5, 0};  // every triangle in one plane or degenerate
  EXPECT_TRUE(mentions(check_mesh(flat), "degenerate"));
}

TEST(MeshgenTriangulate, CutsANonConvexPolygonIntoCounterClockwiseTriangles) {
  // An L with a notch: 8 points.
  const Outline l{{0, 0}, {3, 0}, {3, 1}, {2, 1}, {2, 0.5}, {1, 0.5}, {1, 2}, {0, 2}};
  const auto tris = triangulate(l);
  ASSERT_EQ(tris.size(), l.size() - 2);
  double area = 0;
  for (const auto& t : tris) {
    const Vector2d u = l[t[1]] - l[t[0]], v = l[t[2]] - l[t[0]];
    const double a = 0.5 * (u.x() * v.y() - u.y() * v.x());
    EXPECT_GT(a, 0);
    area += a;
  }
  EXPECT_NEAR(area, 1.5 + 1.5 + 0.5, 1e-12);  // bottom bar, left upright, right stub
  Outline cw(l.rbegin(), l.rend());
  EXPECT_THROW(triangulate(cw), std::runtime_error);
}

TEST(MeshgenBuild, ExtrudeAndRevolveGiveClosedSolidsOfTheRightVolume) {
  // Box 2 x 1 x 0.5 as an extrusion with sharp edges.
  const Mesh box = extrude(
      [](double d) {
        return rounded_box(-1 + d, 1 - d, -0.5 + d, 0.5 - d, {0, 0, 0, 0}, {1, 1, 1, 1});
      },
      rounded_slab(0, 0.5, 0, 0, 1));
  MeshReport r = check_mesh(box);
  EXPECT_TRUE(r.ok()) << problems_of(r);
  EXPECT_NEAR(r.volume_m3, 1.0, 1e-12);

  // Cylinder r 1, h 2 from a profile on the axis: volume of the n-gon prism.
  const int n = 24;
  const Mesh cyl = revolve({{0, 0}, {1, 0}, {1, 2}, {0, 2}}, n, false);
  r = check_mesh(cyl);
  EXPECT_TRUE(r.ok()) << problems_of(r);
  EXPECT_NEAR(r.volume_m3, 0.5 * n * std::sin(2 * kPi / n) * 2, 1e-12);

  // Square-section ring (closed profile): outer minus inner prism.
  const Mesh ring = revolve({{1, 0}, {2, 0}, {2, 1}, {1, 1}}, n, true);
  r = check_mesh(ring);
  EXPECT_TRUE(r.ok()) << problems_of(r);
  EXPECT_NEAR(r.volume_m3, 0.5 * n * std::sin(2 * kPi / n) * (4 - 1), 1e-12);

  // Rounded slab with guard rings: still closed, slightly less than the sharp box.
  const Mesh rounded = extrude(
      [](double d) {
        return rounded_box(-1 + d, 1 - d, -0.5 + d, 0.5 - d, {0.2 - d, 0.2 - d, 0.2 - d, 0.2 - d},
                           {4, 4, 4, 4});
      },
      rounded_slab(0, 0.5, 0.05, 0.1, 3, 0, 0.02));
  r = check_mesh(rounded);
  EXPECT_TRUE(r.ok()) << problems_of(r);
  EXPECT_LT(r.volume_m3, 1.0);
  EXPECT_GT(r.volume_m3, 0.9);
}

TEST(MeshgenStl, BinaryAndAsciiReadBackToTheSameMesh) {
  Mesh m = revolve({{0, -0.01}, {0.02, 0}, {0, 0.03}}, 16, false);
  quantize(m, 1e-6);
  for (const bool ascii : {false, true}) {
    SCOPED_TRACE(ascii ? "ascii" : "binary");
    const std::string bytes = ascii ? ascii_stl(m, "cone") : binary_stl(m, "test cone");
    EXPECT_EQ(bytes.substr(0, 5) == "solid", ascii);
    if (!ascii) {
      EXPECT_EQ(bytes.size(), 84 + 50 * m.triangles.size());
    }
    const Mesh back = read_stl(bytes);
    ASSERT_EQ(back.triangles.size(), m.triangles.size());
    ASSERT_EQ(back.vertices.size(), m.vertices.size());
    // Compared as float32, as stored. (Not via double(float(x)): GCC 12's vectorizer at -O2
    // was seen to drop that round trip here.)
    for (std::size_t t = 0; t < m.triangles.size(); ++t) {
      for (int k = 0; k < 3; ++k) {
        const Eigen::Vector3f want = m.vertices[m.triangles[t][k]].cast<float>();
        const Eigen::Vector3f got = back.vertices[back.triangles[t][k]].cast<float>();
        EXPECT_TRUE(got == want) << "triangle " << t << " vertex " << k;
      }
    }
    EXPECT_TRUE(check_mesh(back).ok());
  }
  EXPECT_THROW(binary_stl(m, "solid looks like ASCII"), std::invalid_argument);
  EXPECT_THROW(read_stl("not a mesh"), std::runtime_error);
  std::string truncated = ascii_stl(m, "cone");
  truncated.resize(truncated.size() / 2);
  try {
    read_stl(truncated);
    ADD_FAILURE() << "truncated ASCII STL accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line"), std::string::npos) << e.what();
  }
}

// --- the Robotino parts -----------------------------------------------------------------

TEST(MeshgenParts, EveryMeshIsClosedOutwardPositiveAndSmall) {
  std::size_t total_bytes = 0;
  int ascii = 0;
  const std::vector<rb::PartFile> again = rb::parts();
  ASSERT_EQ(again.size(), parts().size());
  for (std::size_t i = 0; i < parts().size(); ++i) {
    const rb::PartFile& p = parts()[i];
    SCOPED_TRACE(p.file);
    const MeshReport r = check_mesh(p.mesh);
    EXPECT_TRUE(r.ok()) << problems_of(r);
    EXPECT_GT(r.volume_m3, 0);
    EXPECT_GE(r.triangles, 200u);
    EXPECT_LE(r.triangles, 8000u);
    const std::string bytes = rb::file_bytes(p);
    EXPECT_TRUE(bytes == rb::file_bytes(again[i])) << "not deterministic";
    EXPECT_LT(bytes.size(), 400'000u);
    total_bytes += bytes.size();
    ascii += p.ascii ? 1 : 0;
    // What a reader gets back (vertices merged by value) is the same closed mesh.
    const MeshReport back = check_mesh(read_stl(bytes));
    EXPECT_TRUE(back.ok()) << problems_of(back);
    EXPECT_EQ(back.triangles, r.triangles);
    EXPECT_EQ(back.vertices, r.vertices);
    EXPECT_NEAR(back.volume_m3, r.volume_m3, 1e-6 * r.volume_m3);
  }
  EXPECT_LT(total_bytes, 2'000'000u);
  EXPECT_EQ(ascii, 1);  // camera.stl: both STL forms reach the scene's readers
}

TEST(MeshgenParts, BoundingBoxes) {
  struct Box {
    const char* file;
    Vector3d lo, hi;
  };
  const Box boxes[] = {
      {"chassis.stl", {-0.184, -0.184, 0}, {0.184, 0.184, 0.150}},
      // Open at the wheels (60°, 180°, -60°): at 180° the ring stops short of -x; the arcs
      // of 24 facets come within 0.03 mm of ±y.
      {"bumper.stl", {-0.183347, -0.195974, 0.002}, {0.196, 0.195974, 0.036}},
      {"ir_sensor.stl", {-0.003, -0.006, -0.014}, {0.0125, 0.006, 0.014}},
      {"camera.stl", {-0.016, -0.030, 0}, {0.024, 0.030, 0.092}},
      {"camera_lens.stl", {0.016, -0.009, 0.0655}, {0.0215, 0.009, 0.0835}},
      {"wheel_supporter.stl", {-0.038, -0.0375, -0.0375}, {0.022, 0.0375, 0.0375}},
  };
  ASSERT_EQ(std::size(boxes), parts().size());
  for (const Box& b : boxes) {
    SCOPED_TRACE(b.file);
    const Eigen::AlignedBox3d got = check_mesh(mesh_of(b.file)).bounds;
    for (int k = 0; k < 3; ++k) {
      // The supporter's arms stand at ±30°, ±150°, so y stays just inside the radius.
      const double tol = std::string(b.file) == "wheel_supporter.stl" && k == 1 ? 5e-4 : 1e-6;
      EXPECT_NEAR(got.min()[k], b.lo[k], tol) << "axis " << k;
      EXPECT_NEAR(got.max()[k], b.hi[k], tol) << "axis " << k;
      EXPECT_GE(got.min()[k], b.lo[k] - 1e-6) << "axis " << k;
      EXPECT_LE(got.max()[k], b.hi[k] + 1e-6) << "axis " << k;
    }
  }
}

TEST(MeshgenParts, TheBumperLeavesTheWheelsFree) {
  // As on the real robot (seed 000 Figs. 9-10): no part of the bumper in front of a wheel,
  // within 55 mm of its axis (the wheel's 40 mm radius, the recess' 5 mm clearance and 10 mm
  // more), so the wheels are seen from outside.
  const Mesh bumper = mesh_of("bumper.stl");
  for (const double wheel_deg : rb::kWheelAnglesDeg) {
    SCOPED_TRACE(wheel_deg);
    const Vector3d axis(std::cos(wheel_deg * kDeg), std::sin(wheel_deg * kDeg), 0);
    int in_front = 0;
    for (const Vector3d& v : bumper.vertices) {
      const double along = v.dot(axis), across = (v - along * axis).head<2>().norm();
      in_front += along > 0 && across < 0.055 - 1e-6;
    }
    EXPECT_EQ(in_front, 0);
  }
}

// Roller j of the wheel (scenes/robotino/objects/Wheel.xml): Rx(j·60°), then its centre.
Isometry3d roller_pose(int j) {
  Isometry3d X = Isometry3d::Identity();
  X.rotate(AngleAxisd(j * 60 * kDeg, Vector3d::UnitX()));
  X.translate(
      Vector3d(j % 2 == 0 ? rb::kRollerGroupX : -rb::kRollerGroupX, 0, -rb::kRollerAxisRadius));
  return X;
}
// Barrel radius at axial position a: the rollers together trace the wheel circle.
double barrel_radius(double a) {
  return std::sqrt(rb::kRw * rb::kRw - a * a) - rb::kRollerAxisRadius;
}

TEST(MeshgenSupporter, HoldsTheRollersWithoutTouchingThem) {
  const Mesh& s = mesh_of("wheel_supporter.stl");
  // Inside the wheel circle with 2.5 mm to spare: the supporter never touches the floor.
  double radius = 0, clearance = std::numeric_limits<double>::infinity();
  for (const Vector3d& v : s.vertices) {
    radius = std::max(radius, std::hypot(v.y(), v.z()));
    for (int j = 0; j < 6; ++j) {
      const Vector3d p = roller_pose(j).inverse() * v;
      if (std::abs(p.y()) <= rb::kRollerHalfLength) {
        clearance = std::min(clearance, std::hypot(p.x(), p.z()) - barrel_radius(p.y()));
      }
    }
  }
  EXPECT_NEAR(radius, 0.0375, 1e-6);
  EXPECT_GT(clearance, 0.0015) << "a supporter vertex is within 1.5 mm of a roller";

  for (int j = 0; j < 6; ++j) {
    SCOPED_TRACE("roller " + std::to_string(j + 1));
    const Isometry3d X = roller_pose(j);
    // No point of the roller's surface (barrel and end discs) is inside the supporter.
    int inside = 0;
    for (int i = 0; i <= 14; ++i) {
      const double a = -rb::kRollerHalfLength + i * 2 * rb::kRollerHalfLength / 14;
      for (int k = 0; k < 24; ++k) {
        const double t = k * 2 * kPi / 24;
        // The barrel, and at both ends a circle halfway across the end disc.
        const bool end = i == 0 || i == 14;
        for (const double r : {barrel_radius(a), 0.5 * barrel_radius(a)}) {
          if (r != barrel_radius(a) && !end) continue;
          inside += winding_number(s, X * Vector3d(r * std::cos(t), a, r * std::sin(t))) > 0.5;
        }
      }
    }
    EXPECT_EQ(inside, 0);
    // Both axle ends are held: the roller axis just past each end runs into an arm.
    for (const double side : {-1.0, 1.0}) {
      const Vector3d axle_end = X * Vector3d(0, side * (rb::kRollerHalfLength + 0.0025), 0);
      EXPECT_GT(winding_number(s, axle_end), 0.5) << "side " << side;
    }
  }
}

// --- the files and the main scene ---------------------------------------------------------

TEST(MeshgenFiles, CommittedMeshesAreWhatTheGeneratorWrites) {
  const fs::path dir = scene_dir() / "meshes";
  std::set<std::string> generated;
  for (const rb::PartFile& p : parts()) {
    SCOPED_TRACE(p.file);
    generated.insert(p.file);
    const fs::path path = dir / p.file;
    ASSERT_TRUE(fs::exists(path)) << path << " missing: run cosim-meshgen " << dir.string();
    const std::string on_disk = read_file(path);
    const std::string now = rb::file_bytes(p);
    EXPECT_EQ(on_disk.size(), now.size());
    EXPECT_TRUE(on_disk == now) << path
                                << " differs from the generator's output: run cosim-meshgen "
                                << dir.string() << " and commit the result";
    const MeshReport r = check_mesh(read_stl(on_disk));
    EXPECT_TRUE(r.ok()) << problems_of(r);
  }
  // Every mesh in the folder comes from the generator: none hand-made or downloaded.
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".stl" || entry.path().extension() == ".STL") {
      EXPECT_TRUE(generated.count(entry.path().filename().string()) == 1)
          << entry.path() << " is not written by cosim-meshgen";
    }
  }
}

TEST(MeshgenScene, MainSceneDrawsEveryMeshClearOfTheWheels) {
  using cosim::scene::SceneModel;
  const SceneModel model = SceneModel::load(scene_dir());
  const std::vector<double> q(model.joint_names().size(), 0.0);
  std::vector<Isometry3d> X_WF(model.frames().size());
  model.world_transforms(q, X_WF);

  std::set<std::string> used;
  Mesh body;  // every mesh on the chassis, in world coordinates
  int wheel_meshes = 0;
  for (const cosim::scene::Render& r : model.renders()) {
    for (const cosim::scene::PlacedGeometry& pg : r.parts) {
      const auto* part = std::get_if<cosim::scene::Part>(&model.geometries()[pg.geometry].shape);
      if (part == nullptr) continue;
      used.insert(part->file.filename().string());
      Mesh m = read_stl(read_file(part->file));
      for (Vector3d& v : m.vertices) v = v.cwiseProduct(part->scale);
      transform(m, X_WF[r.frame] * pg.X_FG);
      if (model.frames()[r.frame].name.find("/Wheel_") != std::string::npos) {
        ++wheel_meshes;
      } else {
        append(body, m);
      }
    }
  }
  std::set<std::string> generated;
  for (const rb::PartFile& p : parts()) generated.insert(p.file);
  EXPECT_EQ(used, generated);
  EXPECT_EQ(wheel_meshes, 3);

  // Sensors and camera sit where their meshes were designed to (robotino.hpp): the sensors'
  // backs in the base wall, 40° apart, the camera's mast foot on the upper body.
  std::set<long> sensor_angles;
  int cameras = 0;
  for (const cosim::scene::Render& r : model.renders()) {
    for (const cosim::scene::PlacedGeometry& pg : r.parts) {
      const auto* part = std::get_if<cosim::scene::Part>(&model.geometries()[pg.geometry].shape);
      if (part == nullptr) continue;
      const std::string name = part->file.filename().string();
      const Vector3d p = pg.X_FG.translation();
      if (name == "ir_sensor.stl") {
        EXPECT_NEAR(std::hypot(p.x(), p.y()), rb::kSensorRadius, 1e-12);
        EXPECT_NEAR(p.z(), rb::kSensorHeight, 1e-12);
        // Facing outwards: the sensor's x axis is radial.
        EXPECT_NEAR(pg.X_FG.linear().col(0).dot(Vector3d(p.x(), p.y(), 0).normalized()), 1, 1e-12);
        sensor_angles.insert(std::lround(std::atan2(p.y(), p.x()) / kDeg));
      } else if (name == "camera.stl" || name == "camera_lens.stl") {
        EXPECT_LT((p - Vector3d(rb::kCameraX, 0, rb::kCameraZ)).norm(), 1e-12) << name;
        EXPECT_TRUE(pg.X_FG.linear().isIdentity(1e-12)) << name;
        ++cameras;
      }
    }
  }
  EXPECT_EQ(sensor_angles, (std::set<long>{-160, -120, -80, -40, 0, 40, 80, 120, 160}));
  EXPECT_EQ(sensor_angles.size(), static_cast<std::size_t>(rb::kSensorCount));
  EXPECT_EQ(cameras, 2);

  // Off the floor (z = 0), the chassis bottom on the probe's plane (z = 0.02 at q = 0).
  double z_min = std::numeric_limits<double>::infinity();
  for (const Vector3d& v : body.vertices) z_min = std::min(z_min, v.z());
  EXPECT_NEAR(z_min, 0.02, 1e-6);

  // Each wheel's rollers sweep at most |x| <= 24 mm, 16..40 mm from its axle: the body keeps
  // out of that ring, with 0.5 mm to spare, whatever the wheel and roller angles.
  for (int w = 1; w <= 3; ++w) {
    SCOPED_TRACE("wheel " + std::to_string(w));
    const int f = model.find_frame("Robotino/Wheel_" + std::to_string(w));
    ASSERT_GE(f, 0);
    const Isometry3d X_WW = X_WF[f];
    // Where the chassis recesses were cut for it (robot at the origin, bottom 0.02 m up).
    const double beta = rb::kWheelAnglesDeg[w - 1] * kDeg;
    const Vector3d centre(rb::kWheelDistance * std::cos(beta), rb::kWheelDistance * std::sin(beta),
                          0.02 + rb::kWheelHeight);
    EXPECT_LT((X_WW.translation() - centre).norm(), 1e-12);
    const Isometry3d X_WW_inv = X_WW.inverse();
    int vertices_in = 0;
    for (const Vector3d& v : body.vertices) {
      const Vector3d p = X_WW_inv * v;
      vertices_in += std::abs(p.x()) < 0.0245 && std::hypot(p.y(), p.z()) < rb::kRw + 0.0005;
    }
    EXPECT_EQ(vertices_in, 0);
    int samples_in = 0;
    for (const double x : {-0.024, -0.012, 0.0, 0.012, 0.024}) {
      for (const double rho : {0.016, 0.028, rb::kRw}) {
        for (int k = 0; k < 24; ++k) {
          const double t = k * 2 * kPi / 24;
          samples_in +=
              winding_number(body, X_WW * Vector3d(x, rho * std::cos(t), rho * std::sin(t))) > 0.5;
        }
      }
    }
    EXPECT_EQ(samples_in, 0);
  }
}

}  // namespace
