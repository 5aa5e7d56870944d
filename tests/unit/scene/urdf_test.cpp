// The URDF reader (built with urdfdom only): tests/data/scenes/urdf/joints.urdf against the
// same robot built in code with SceneBuilder, each joint type against URDF's own formulas,
// each geometry and mesh format, how mesh paths resolve and where they may lie, the probe side
// file, the scene locator's URDF folders, and one error per kind, each naming file, line and
// the link or joint.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>
#include <string>
#include <vector>

#include <unistd.h>

#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "scene_test_support.hpp"

namespace {

using namespace cosim::scene;
using namespace cosim::scene::test;
// urdfdom turns rpy into a quaternion, the code below composes angle-axis rotations: the same
// pose to a few ulp, far below any real difference.
constexpr double kSamePose = 1e-12;

fs::path urdf_dir() { return fixtures_dir() / "urdf"; }
fs::path packages_dir() { return urdf_dir() / "packages"; }

// URDF's <origin xyz rpy>: T(xyz) Rz(yaw) Ry(pitch) Rx(roll).
Isometry3d origin(const Vector3d& xyz, double roll = 0, double pitch = 0, double yaw = 0) {
  Isometry3d X = Isometry3d::Identity();
  X.translate(xyz);
  X.rotate(AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(pitch, Vector3d::UnitY()) *
           AngleAxisd(roll, Vector3d::UnitX()));
  return X;
}

// A probe at every link's origin, as the reader adds them.
void add_link(SceneBuilder& b, int frame, const std::string& link) { b.add_probe(frame, link, Vector3d::Zero()); }

// joints.urdf written with SceneBuilder: frames, visuals and probes in the order the reader
// adds them (depth first from the root link, siblings in document order).
SceneModel build_joints() {
  SceneBuilder b;
  b.set_name("joints");
  b.set_root(fs::canonical(urdf_dir()));
  const Color gray = *css_color("gray"), red{0.8, 0.1, 0.1}, teal{0, 0.5, 0.5}, yellow{1, 1, 0};
  const int robot = b.add_instance(-1, "joints", Isometry3d::Identity());
  b.add_geometry(robot, "base.visual0", Cuboid{0.4, 0.3, 0.1}, origin({0, 0, 0.05}));
  b.add_render(robot, {.ref = "base.visual0", .rgb = red});
  add_link(b, robot, "base");

  const int fixed = b.add_joint(robot, {.name = "fixed_j", .X_PJ = origin({0.1, 0, 0.2}, 0.1, 0.2, 0.3)});
  add_link(b, fixed, "l_fixed");
  const int rev = b.add_joint(fixed, {.name = "rev_j", .X_PJ = origin({0, 0.3, 0}, 0, 0, kPi / 2),
                                      .drive = DriveType::revolute, .axis_J = Vector3d(0, 1, 1).normalized(),
                                      .driven = true});
  b.add_geometry(rev, "l_rev.visual0", Cylinder{0.02, 0.2, 'z', 32}, origin({0.1, 0, 0}, 0, kPi / 2, 0));
  b.add_render(rev, {.ref = "l_rev.visual0", .rgb = teal});
  add_link(b, rev, "l_rev");
  const int cont = b.add_joint(rev, {.name = "cont_j", .X_PJ = origin({0.2, 0, 0}), .drive = DriveType::revolute,
                                     .axis_J = -Vector3d::UnitZ(), .driven = true});
  b.add_geometry(cont, "l_cont.visual0", Sphere{0.03, 24}, Isometry3d::Identity());
  b.add_render(cont, {.ref = "l_cont.visual0", .rgb = gray, .color_name = "gray"});
  add_link(b, cont, "l_cont");
  const int pris = b.add_joint(cont, {.name = "pris_j", .X_PJ = origin({0, 0, 0.05}, 0.5),
                                      .drive = DriveType::prismatic, .axis_J = Vector3d::UnitX(), .driven = true});
  b.add_geometry(pris, "l_pris.visual0", Cuboid{0.05, 0.05, 0.05}, Isometry3d::Identity());
  b.add_render(pris, {.ref = "l_pris.visual0", .rgb = teal});
  b.add_geometry(pris, "l_pris.visual1", Cylinder{0.01, 0.1, 'z', 32}, origin({0, 0, 0.1}, 0.2, -0.3, 0.4));
  b.add_render(pris, {.ref = "l_pris.visual1", .rgb = yellow, .opacity = 0.5});
  add_link(b, pris, "l_pris");
  // Planar about y: x slides along z, y along x (= y × z), phi turns about y.
  const int px = b.add_joint(pris, {.name = "x", .group = "planar_j", .X_PJ = origin({0, 0, 0.2}, 0.3),
                                    .drive = DriveType::prismatic, .axis_J = Vector3d::UnitZ(), .driven = true});
  const int py = b.add_joint(px, {.name = "y", .group = "planar_j", .drive = DriveType::prismatic,
                                  .axis_J = Vector3d::UnitX(), .driven = true});
  const int planar = b.add_joint(py, {.name = "phi", .group = "planar_j", .drive = DriveType::revolute,
                                      .axis_J = Vector3d::UnitY(), .driven = true});
  add_link(b, planar, "l_planar");
  int floating = b.add_joint(planar, {.name = "x", .group = "float_j", .X_PJ = origin({0, 0, 0.1}, 0, 0.5),
                                      .drive = DriveType::prismatic, .axis_J = Vector3d::UnitX(), .driven = true});
  floating = b.add_joint(floating, {.name = "y", .group = "float_j", .drive = DriveType::prismatic,
                                    .axis_J = Vector3d::UnitY(), .driven = true});
  floating = b.add_joint(floating, {.name = "z", .group = "float_j", .drive = DriveType::prismatic,
                                    .axis_J = Vector3d::UnitZ(), .driven = true});
  floating = b.add_joint(floating, {.name = "yaw", .group = "float_j", .drive = DriveType::revolute,
                                    .axis_J = Vector3d::UnitZ(), .driven = true});
  floating = b.add_joint(floating, {.name = "pitch", .group = "float_j", .drive = DriveType::revolute,
                                    .axis_J = Vector3d::UnitY(), .driven = true});
  floating = b.add_joint(floating, {.name = "roll", .group = "float_j", .drive = DriveType::revolute,
                                    .axis_J = Vector3d::UnitX(), .driven = true});
  add_link(b, floating, "l_float");

  const int side = b.add_joint(robot, {.name = "side_j", .X_PJ = origin({-0.2, 0, 0}), .drive = DriveType::revolute,
                                       .axis_J = Vector3d::UnitZ(), .driven = true});
  add_link(b, side, "l_side");
  const int mimic = b.add_joint(robot, {.name = "mimic_j", .drive = DriveType::revolute, .axis_J = Vector3d::UnitX()});
  add_link(b, mimic, "l_mimic");
  // joints.probes.xml
  b.add_probe(floating, "tool_tip", {0, 0, 0.05});
  b.add_probe(rev, "rev_end", {0.2, 0, 0});
  return std::move(b).build();
}

std::vector<std::string> names(std::span<const std::string> list) { return {list.begin(), list.end()}; }

TEST(UrdfScene, SameModelAsBuiltInCode) {
  const SceneModel built = build_joints();
  const SceneModel read = SceneModel::load(urdf_dir() / "joints.urdf");

  EXPECT_EQ(read.name(), "joints");
  EXPECT_EQ(read.root(), built.root());
  // Depth first from the root link, siblings in document order: side_j (written second) after
  // the chain; mimic_j not driven; planar and floating joints split into their axes.
  const std::vector<std::string> joints{
      "joints/rev_j",       "joints/cont_j",      "joints/pris_j",      "joints/planar_j/x",   "joints/planar_j/y",
      "joints/planar_j/phi", "joints/float_j/x",  "joints/float_j/y",   "joints/float_j/z",    "joints/float_j/yaw",
      "joints/float_j/pitch", "joints/float_j/roll", "joints/side_j"};
  EXPECT_EQ(names(read.joint_names()), joints);
  EXPECT_EQ(names(built.joint_names()), joints);

  ASSERT_EQ(read.frames().size(), built.frames().size());
  for (std::size_t i = 0; i < read.frames().size(); ++i) {
    const Frame &a = built.frames()[i], &b = read.frames()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.parent, b.parent) << a.name;
    EXPECT_EQ(a.drive, b.drive) << a.name;
    EXPECT_EQ(a.joint_index, b.joint_index) << a.name;
    EXPECT_LE((a.axis_J - b.axis_J).norm(), kSamePose) << a.name;
    EXPECT_LE((a.X_PJ.matrix() - b.X_PJ.matrix()).cwiseAbs().maxCoeff(), kSamePose) << a.name;
    EXPECT_EQ(b.where.file, fs::canonical(urdf_dir() / "joints.urdf")) << a.name;
  }
  ASSERT_EQ(read.probes().size(), built.probes().size());
  for (std::size_t i = 0; i < read.probes().size(); ++i) {
    EXPECT_EQ(read.probes()[i].name, built.probes()[i].name);
    EXPECT_EQ(read.probes()[i].frame, built.probes()[i].frame) << read.probes()[i].name;
  }
  ASSERT_EQ(read.renders().size(), built.renders().size());
  for (std::size_t i = 0; i < read.renders().size(); ++i) {
    const Render &a = built.renders()[i], &b = read.renders()[i];
    EXPECT_EQ(a.ref, b.ref);
    EXPECT_EQ(a.frame, b.frame) << a.ref;
    EXPECT_NEAR(a.rgb.r, b.rgb.r, 1e-7) << a.ref;  // urdfdom keeps colours as float, we read the text
    EXPECT_NEAR(a.rgb.g, b.rgb.g, 1e-7) << a.ref;
    EXPECT_NEAR(a.rgb.b, b.rgb.b, 1e-7) << a.ref;
    EXPECT_EQ(a.opacity, b.opacity) << a.ref;
    EXPECT_LE((a.parts[0].X_FG.matrix() - b.parts[0].X_FG.matrix()).cwiseAbs().maxCoeff(), kSamePose) << a.ref;
  }

  std::vector<Isometry3d> X_built(built.frames().size()), X_read(read.frames().size());
  std::vector<Vector3d> p_built(built.probes().size()), p_read(read.probes().size());
  std::vector<double> q(joints.size());
  for (int trial = 0; trial < 4; ++trial) {
    for (std::size_t j = 0; j < q.size(); ++j) q[j] = 0.3 * trial * (static_cast<double>(j) - 5.5);
    built.world_transforms(q, X_built);
    read.world_transforms(q, X_read);
    for (std::size_t i = 0; i < X_read.size(); ++i) {
      EXPECT_LE((X_built[i].matrix() - X_read[i].matrix()).cwiseAbs().maxCoeff(), kSamePose)
          << read.frames()[i].name << " at trial " << trial;
    }
    built.probe_positions(X_built, p_built);
    read.probe_positions(X_read, p_read);
    for (std::size_t i = 0; i < p_read.size(); ++i) {
      EXPECT_LE((p_built[i] - p_read[i]).norm(), kSamePose) << read.probes()[i].name;
    }
  }
}

// Pose of link `child` in link `parent` at joint values q.
Isometry3d relative(const SceneModel& m, std::span<const double> q, const std::string& parent,
                    const std::string& child) {
  std::vector<Isometry3d> X_WF(m.frames().size());
  m.world_transforms(q, X_WF);
  const auto frame_of = [&](const std::string& link) {
    return X_WF[static_cast<std::size_t>(m.probes()[static_cast<std::size_t>(m.find_probe("joints/" + link))].frame)];
  };
  return frame_of(parent).inverse() * frame_of(child);
}

void expect_pose(const Isometry3d& got, const Isometry3d& expected, const std::string& what) {
  EXPECT_LE((got.matrix() - expected.matrix()).cwiseAbs().maxCoeff(), kSamePose) << what << "\n"
                                                                                 << got.matrix() << "\nexpected\n"
                                                                                 << expected.matrix();
}

// Each joint type moves its child link as URDF defines it, written out independently of the
// reader: origin · motion(q).
TEST(UrdfScene, EachJointTypeMovesItsChildAsUrdfDefines) {
  const SceneModel m = SceneModel::load(urdf_dir() / "joints.urdf");
  std::vector<double> q(m.joint_names().size(), 0.0);
  const auto set = [&](const std::string& joint, double v) {
    q[static_cast<std::size_t>(m.find_joint("joints/" + joint))] = v;
  };
  set("rev_j", 0.7);
  set("cont_j", -1.2);
  set("pris_j", 0.25);
  set("planar_j/x", 0.1);
  set("planar_j/y", -0.2);
  set("planar_j/phi", 0.4);
  const double x = 0.3, y = -0.1, z = 0.2, yaw = 0.5, pitch = -0.4, roll = 1.1;
  set("float_j/x", x);
  set("float_j/y", y);
  set("float_j/z", z);
  set("float_j/yaw", yaw);
  set("float_j/pitch", pitch);
  set("float_j/roll", roll);

  expect_pose(relative(m, q, "base", "l_fixed"), origin({0.1, 0, 0.2}, 0.1, 0.2, 0.3), "fixed");
  Isometry3d turn = Isometry3d::Identity();
  turn.rotate(AngleAxisd(0.7, Vector3d(0, 1, 1).normalized()));  // the axis normalised
  expect_pose(relative(m, q, "l_fixed", "l_rev"), origin({0, 0.3, 0}, 0, 0, kPi / 2) * turn, "revolute");
  Isometry3d spin = Isometry3d::Identity();
  spin.rotate(AngleAxisd(-1.2, -Vector3d::UnitZ()));
  expect_pose(relative(m, q, "l_rev", "l_cont"), origin({0.2, 0, 0}) * spin, "continuous");
  expect_pose(relative(m, q, "l_cont", "l_pris"), origin({0, 0, 0.05}, 0.5) * origin({0.25, 0, 0}), "prismatic");
  // Planar about y: x along z, y along x, then the turn about y.
  Isometry3d planar = origin({-0.2, 0, 0.1});
  planar.rotate(AngleAxisd(0.4, Vector3d::UnitY()));
  expect_pose(relative(m, q, "l_pris", "l_planar"), origin({0, 0, 0.2}, 0.3) * planar, "planar");
  // Floating: the six values are the child's xyz and rpy in the joint frame.
  expect_pose(relative(m, q, "l_planar", "l_float"), origin({0, 0, 0.1}, 0, 0.5) * origin({x, y, z}, roll, pitch, yaw),
              "floating");
  // A mimic joint is not driven: it stays at zero whatever its leader does.
  EXPECT_EQ(m.find_joint("joints/mimic_j"), -1);
  EXPECT_GE(m.find_frame("joints/mimic_j"), 0);
  expect_pose(relative(m, q, "base", "l_mimic"), Isometry3d::Identity(), "mimic");
}

TEST(UrdfScene, VisualsBecomeShapesWithTheirMaterials) {
  const SceneModel m = SceneModel::load(urdf_dir() / "joints.urdf");
  const auto geometry = [&](const std::string& id) -> const Geometry& {
    for (const Geometry& g : m.geometries()) {
      if (g.id == "joints/" + id) return g;
    }
    throw std::runtime_error("no geometry " + id);
  };
  const auto& box = std::get<Cuboid>(geometry("base.visual0").shape);
  EXPECT_EQ(Vector3d(box.lx, box.ly, box.lz), Vector3d(0.4, 0.3, 0.1));
  EXPECT_EQ(geometry("base.visual0").X_FG.translation(), Vector3d(0, 0, 0.05));
  const auto& cylinder = std::get<Cylinder>(geometry("l_rev.visual0").shape);
  EXPECT_EQ(cylinder.radius, 0.02);
  EXPECT_EQ(cylinder.height, 0.2);
  EXPECT_EQ(cylinder.axis, 'z');  // URDF's cylinder axis, turned here by its origin onto x:
  EXPECT_LE((geometry("l_rev.visual0").X_FG.linear() * Vector3d::UnitZ() - Vector3d::UnitX()).norm(), kSamePose);
  EXPECT_EQ(std::get<Sphere>(geometry("l_cont.visual0").shape).radius, 0.03);
  EXPECT_EQ(geometry("l_cont.visual0").where.line, 26);  // its <visual>

  // One render per <visual>, collisions not drawn; colours: inline, named top-level, none.
  ASSERT_EQ(m.renders().size(), 5u);
  const auto render = [&](const std::string& ref) -> const Render& {
    for (const Render& r : m.renders()) {
      if (r.ref == "joints/" + ref) return r;
    }
    throw std::runtime_error("no render " + ref);
  };
  EXPECT_NEAR(render("base.visual0").rgb.r, 0.8, 1e-15);
  EXPECT_EQ(render("l_rev.visual0").rgb.g, 0.5);  // "teal", defined at the top
  EXPECT_EQ(render("l_pris.visual0").rgb.b, 0.5);  // "teal" again, from a second link
  EXPECT_EQ(render("l_cont.visual0").color_name, "gray");
  EXPECT_EQ(render("l_pris.visual1").opacity, 0.5);  // alpha
}

TEST(UrdfScene, ProbesAtEveryLinkOriginAndFromTheSideFile) {
  const SceneModel m = SceneModel::load(urdf_dir() / "joints.urdf");
  std::vector<std::string> probes;
  for (const Probe& p : m.probes()) probes.push_back(p.name);
  EXPECT_EQ(probes, (std::vector<std::string>{"joints/base", "joints/l_fixed", "joints/l_rev", "joints/l_cont",
                                              "joints/l_pris", "joints/l_planar", "joints/l_float", "joints/l_side",
                                              "joints/l_mimic", "joints/tool_tip", "joints/rev_end"}));
  const Probe& tip = m.probes()[static_cast<std::size_t>(m.find_probe("joints/tool_tip"))];
  EXPECT_EQ(tip.p_FP_m, Vector3d(0, 0, 0.05));
  EXPECT_EQ(tip.frame, m.find_frame("joints/float_j/roll"));  // l_float's frame
  EXPECT_EQ(tip.where.file, fs::canonical(urdf_dir() / "joints.probes.xml"));
  EXPECT_EQ(tip.where.line, 3);
  // Compared by default: the probes the author wrote, not the 9 placed at the links.
  EXPECT_EQ(m.default_probes(), (std::vector<int>{m.find_probe("joints/tool_tip"), m.find_probe("joints/rev_end")}));
}

// Without a side file, a run compares and follows the first link a joint moves, not the fixed
// root link (a dot in the report's path plot, a camera that does not follow).
TEST(UrdfScene, WithoutAuthoredProbesTheFirstMovingLinkIsCompared) {
  const SceneModel m = SceneModel::load(urdf_dir() / "meshes.urdf", {.package_path = {packages_dir()}});
  ASSERT_EQ(m.probes()[0].name, "meshes/base");
  // base and obj_link (fixed to it) do not move; ply_link hangs from the continuous joint.
  EXPECT_EQ(m.default_probes(), std::vector<int>{m.find_probe("meshes/ply_link")});
  EXPECT_FALSE(m.frame_moves(m.probes()[0].frame));
}

// Each format, each way of writing a path: the canonical file and the format the visual side
// reads it with.
TEST(UrdfMeshes, EachFormatAndPathResolves) {
  const SceneModel m = SceneModel::load(urdf_dir() / "meshes.urdf", {.package_path = {packages_dir()}});
  ASSERT_EQ(m.geometries().size(), 5u);
  const auto part = [&](std::size_t i) { return std::get<Part>(m.geometries()[i].shape); };
  const fs::path meshes = fs::canonical(urdf_dir() / "meshes");
  EXPECT_EQ(part(0).file, meshes / "box.stl");
  EXPECT_EQ(part(0).format, MeshFormat::stl);
  EXPECT_EQ(part(0).scale, Vector3d(2, 1, 0.5));  // per axis
  EXPECT_EQ(part(1).file, meshes / "box.obj");
  EXPECT_EQ(part(1).format, MeshFormat::obj);
  EXPECT_EQ(part(1).scale, Vector3d::Ones());
  EXPECT_EQ(part(2).file, meshes / "box.ply");  // "./meshes/../meshes/box.ply"
  EXPECT_EQ(part(2).format, MeshFormat::ply);
  EXPECT_EQ(part(3).file, meshes / "box_zup.dae");
  EXPECT_EQ(part(3).format, MeshFormat::dae);
  EXPECT_EQ(part(4).file, fs::canonical(packages_dir() / "demo_parts/meshes/cube.stl"));  // package://
}

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(UrdfMeshes, PackagesAreFoundThroughTheEnvironmentToo) {
  const ScopedEnv env("COSIM_PACKAGE_PATH", "/no/such/folder::" + packages_dir().string());
  const SceneModel m = SceneModel::load(urdf_dir() / "meshes.urdf");
  EXPECT_EQ(std::get<Part>(m.geometries()[4].shape).file, fs::canonical(packages_dir() / "demo_parts/meshes/cube.stl"));
}

TEST(UrdfMeshes, AGivenPackageFolderMustExist) {
  try {
    SceneModel::load(urdf_dir() / "meshes.urdf", {.package_path = {urdf_dir() / "no_such_folder"}});
    ADD_FAILURE() << "accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), (urdf_dir() / "no_such_folder").string() + ": package path folder does not exist");
  }
}

// A scratch folder holding one URDF (and what the test adds), removed at the end.
struct TempUrdf {
  explicit TempUrdf(const std::string& tag)
      : dir(fs::temp_directory_path() / ("cosim_urdf_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir / "meshes");
    fs::copy_file(urdf_dir() / "meshes/box.stl", dir / "meshes/box.stl");
  }
  ~TempUrdf() { fs::remove_all(dir); }
  fs::path write_text(const std::string& text) const {
    std::ofstream(dir / "r.urdf") << text;
    return dir / "r.urdf";
  }
  fs::path write(const std::string& mesh_uri) const {
    std::ofstream(dir / "r.urdf") << "<robot name=\"r\">\n  <link name=\"l\">\n    <visual><geometry>\n"
                                  << "      <mesh filename=\"" << mesh_uri << "\"/>\n"
                                  << "    </geometry></visual>\n  </link>\n</robot>\n";
    return dir / "r.urdf";
  }
  fs::path dir;
};

TEST(UrdfMeshes, FileUrisAndAbsolutePathsAreConfinedToo) {
  const TempUrdf t("file_uri");
  const fs::path box = fs::canonical(t.dir / "meshes/box.stl");
  EXPECT_EQ(std::get<Part>(SceneModel::load(t.write("file://" + box.string())).geometries()[0].shape).file, box);
  EXPECT_EQ(std::get<Part>(SceneModel::load(t.write(box.string())).geometries()[0].shape).file, box);
  const fs::path outside = fs::canonical(fixtures_dir() / "outside.stl");
  try {
    SceneModel::load(t.write("file://" + outside.string()));
    ADD_FAILURE() << "accepted a mesh outside the URDF's folder";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().line, 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("link 'l': mesh path 'file://" + outside.string() + "' resolves to"),
              std::string::npos)
        << e.what();
  }
  try {
    SceneModel::load(t.write("http://example.com/box.stl"));
    ADD_FAILURE() << "accepted an http:// mesh";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("only package://, file:// and plain paths are read"), std::string::npos)
        << e.what();
  }
}

// Loads `urdf` (under tests/data/scenes/urdf) and checks the error: file (relative to that
// folder), line, and a part of the message naming the link or joint.
void expect_urdf_error(const std::string& urdf, const std::string& file, int line, const std::string& message_part,
                  const LoadOptions& options = {}) {
  expect_scene_error(urdf_dir() / urdf, fs::canonical(urdf_dir() / file), line, message_part, options);
}

TEST(UrdfErrors, MalformedXml) { expect_urdf_error("bad_malformed.urdf", "bad_malformed.urdf", 4, "malformed XML: "); }
TEST(UrdfErrors, MissingParentLink) {
  expect_urdf_error("bad_missing_parent.urdf", "bad_missing_parent.urdf", 5,
               "joint 'elbow': parent link 'upper' is not a link of robot 'bad'");
}
TEST(UrdfErrors, UnknownJointTypeOnItsAttributesLine) {
  expect_urdf_error("bad_joint_type.urdf", "bad_joint_type.urdf", 5, "joint 'elbow': unknown type 'hinge'");
}
TEST(UrdfErrors, ZeroAxis) {
  expect_urdf_error("bad_zero_axis.urdf", "bad_zero_axis.urdf", 7, "joint 'elbow': axis '0 0 0' has zero length");
}
TEST(UrdfErrors, DuplicateLink) {
  expect_urdf_error("bad_duplicate_link.urdf", "bad_duplicate_link.urdf", 4,
               "duplicate link 'upper' (first at " +
                   fs::canonical(urdf_dir() / "bad_duplicate_link.urdf").string() + ":3)");
}
TEST(UrdfErrors, MissingMesh) {
  expect_urdf_error("bad_missing_mesh.urdf", "bad_missing_mesh.urdf", 5,
               "link 'upper': mesh file not found: " + (fs::canonical(urdf_dir()) / "meshes/nope.stl").string());
}
TEST(UrdfErrors, MeshOutsideTheFolderByDotDot) {
  expect_urdf_error("bad_mesh_outside.urdf", "bad_mesh_outside.urdf", 5,
               "link 'upper': mesh path '../outside.stl' resolves to " +
                   fs::canonical(fixtures_dir() / "outside.stl").string() + ", outside the URDF's folder");
}
TEST(UrdfErrors, MeshOutsideTheFolderBySymlink) {
  expect_urdf_error("bad_mesh_symlink.urdf", "bad_mesh_symlink.urdf", 5,
               "link 'upper': mesh path 'meshes/escape.stl' resolves to " +
                   fs::canonical(fixtures_dir() / "outside.stl").string());
}
TEST(UrdfErrors, MeshOutsideTheFolderEvenWithAPackagePath) {
  expect_urdf_error("bad_mesh_outside.urdf", "bad_mesh_outside.urdf", 5, "outside the URDF's folder " +
                   fs::canonical(urdf_dir()).string() + " and the package-path folders",
               {.package_path = {packages_dir()}});
}
TEST(UrdfErrors, PackageNotInThePackagePath) {
  expect_urdf_error("bad_missing_package.urdf", "bad_missing_package.urdf", 5,
               "link 'upper': package 'no_such_package' of mesh 'package://no_such_package/meshes/cube.stl' is in no "
               "package-path folder (searched " + fs::canonical(packages_dir()).string() + ")",
               {.package_path = {packages_dir()}});
}
TEST(UrdfErrors, PackageWithoutAPackagePath) {
  expect_urdf_error("meshes.urdf", "meshes.urdf", 28,
               "link 'pkg_link': package 'demo_parts' of mesh 'package://demo_parts/meshes/cube.stl' is in no "
               "package-path folder (the package path is empty");
}
TEST(UrdfErrors, BadProbeSideFile) {
  expect_urdf_error("bad_probes.urdf", "bad_probes.probes.xml", 3, "probe 'tip': no link 'hand' in robot 'bad'");
}
TEST(UrdfErrors, WhatUrdfdomRefusesIsPlacedAtTheElementItNames) {
  expect_urdf_error("bad_no_limit.urdf", "bad_no_limit.urdf", 4,
               "joint 'elbow': urdfdom: Joint [elbow] is of type REVOLUTE but it does not specify limits");
}
TEST(UrdfErrors, LinkWithTwoParents) {
  expect_urdf_error("bad_two_parents.urdf", "bad_two_parents.urdf", 8,
               "joint 'cb': link 'b' is already the child of joint 'ab'");
}
TEST(UrdfErrors, CycleOfJoints) {
  expect_urdf_error("bad_cycle.urdf", "bad_cycle.urdf", 3, "link 'b': not connected to the root link 'a'");
}

// urdfdom's TinyXML and pugixml read some XML differently; each such input is one error at its
// line instead of a failed lookup of urdfdom's name among pugixml's elements.
void expect_text_error(const std::string& text, int line, const std::string& message_part) {
  const TempUrdf t("text");
  const fs::path urdf = t.write_text(text);
  expect_scene_error(urdf, fs::canonical(urdf), line, message_part);
}
constexpr const char* kWrittenAsIs =
    ": use letters, digits, '_', '-', '.' (not first), written as is (no entity or character references)";

// The fuzzer's input (fuzz/corpus/scene/urdf_bad_entity_name.urdf): TinyXML drops the '&' of
// an unknown entity ("upper"), pugixml keeps it ("u&pper"); this was std::out_of_range.
TEST(UrdfErrors, LinkNameWithAnEntityIsNotAName) {
  expect_text_error("<robot name=\"bad\">\n  <link name=\"u&pper\"/>\n</robot>\n", 2,
                    std::string("bad link name 'u&pper'") + kWrittenAsIs);
}
TEST(UrdfErrors, JointRobotAndReferencedNamesAreWrittenAsIs) {
  const std::string two_links = "<robot name=\"r\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n";
  expect_text_error(two_links +
                        "  <joint name=\"e&lbow\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n"
                        "</robot>\n",
                    4, std::string("bad joint name 'e&lbow'") + kWrittenAsIs);
  // A character reference to a name character: both read 'a' here, but not every such number alike.
  expect_text_error("<robot name=\"r\">\n  <link name=\"&#97;\"/>\n</robot>\n", 2,
                    std::string("bad link name '&#97;'") + kWrittenAsIs);
  expect_text_error("<robot\n  name=\"my robot\">\n  <link name=\"a\"/>\n</robot>\n", 2,
                    std::string("bad robot name 'my robot'") + kWrittenAsIs);
  expect_text_error(two_links + "  <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>\n"
                                "    <child link=\"&#98;\"/></joint>\n</robot>\n",
                    5, "joint 'j': child link '&#98;' is not a link of robot 'r' (link names are written as is, "
                       "without references)");
}
TEST(UrdfErrors, ProcessingInstructionsAndDoctypeAreRefused) {
  // TinyXML ends <?a ...?> at its first '>': urdfdom read link x and joint j, pugixml neither.
  expect_text_error("<robot name=\"r\">\n  <link name=\"y\"/>\n  <?a ><link name=\"x\"/><joint name=\"j\" "
                    "type=\"fixed\"><parent link=\"y\"/><child link=\"x\"/></joint><? ?>\n</robot>\n",
                    3, "processing instruction <?a ...?> is not read in a URDF");
  expect_text_error("<?xml version=\"1.0\"?>\n<!DOCTYPE robot [ <!ENTITY e \">\"> ]>\n"
                    "<robot name=\"r\"><link name=\"a\"/></robot>\n",
                    2, "<!DOCTYPE> is not read in a URDF");
  expect_text_error("<?xml version=\"1.0\" a=\">\"?>\n<robot name=\"r\"><link name=\"a\"/></robot>\n", 1,
                    "'>' inside the XML declaration");
  expect_text_error("<robot name=\"r\">\n  <?xml version=\"1.0\"?>\n  <link name=\"a\"/>\n</robot>\n", 2,
                    "malformed XML: ");
}
// Limits checked on pugixml's reading, before urdfdom's parser (which recurses per element
// level) or the builder see the input.
TEST(UrdfErrors, DeepNestingIsRefusedBeforeUrdfdomReadsIt) {
  // 60 000 levels crashed every program in urdfdom's TinyXML (stack overflow).
  std::string deep = "<robot name=\"r\">\n  <link name=\"a\">\n";
  for (int i = 0; i < 60000; ++i) deep += "<x>";
  for (int i = 0; i < 60000; ++i) deep += "</x>";
  expect_text_error(deep + "\n  </link>\n</robot>\n", 3, "elements nested more than 256 deep");
}
TEST(UrdfErrors, MoreVisualsThanTheSceneMayRenderAreRefusedBeforeUrdfdomReadsThem) {
  // 150 000 were accepted (the XML reader's limit of 100 000 did not count them) and the viewer
  // grew to 6 GB building their actors.
  std::string many = "<robot name=\"r\">\n  <link name=\"a\">\n";
  const std::string visual = "<visual><geometry><box size=\"1 1 1\"/></geometry></visual>\n";
  for (std::size_t i = 0; i <= kMaxPlacedGeometries; ++i) many += visual;
  expect_text_error(many + "  </link>\n</robot>\n", 3 + static_cast<int>(kMaxPlacedGeometries),
                    "more than 100000 <visual> elements in the robot");
}
TEST(UrdfErrors, ACycleAtTheEndOfALongChainIsFoundAtTheFirstLinkOnIt) {
  // Every link walked its whole chain (quadratic: 30 s for 20 000 links); now each link is
  // walked once. l0 <- l1 <- ... <- l4999 <- l0: no root.
  constexpr int kLinks = 5000;
  std::string chain = "<robot name=\"r\">\n";
  for (int i = 0; i < kLinks; ++i) chain += "  <link name=\"l" + std::to_string(i) + "\"/>\n";
  for (int i = 0; i < kLinks; ++i) {
    chain += "  <joint name=\"j" + std::to_string(i) + "\" type=\"fixed\"><parent link=\"l" +
             std::to_string((i + 1) % kLinks) + "\"/><child link=\"l" + std::to_string(i) + "\"/></joint>\n";
  }
  expect_text_error(chain + "</robot>\n", 2, "link 'l0': no link is the root (its joints form a cycle)");
}

// Material names are only matched by pugixml (urdfdom's reading is not used): any text.
TEST(UrdfScene, MaterialNamesAreAnyText) {
  const TempUrdf t("material");
  const SceneModel m = SceneModel::load(t.write_text(
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<robot name=\"r\">\n"
      "  <material name=\"r&amp;d \"><color rgba=\"1 0 0 1\"/></material>\n"
      "  <link name=\"a\"><visual><geometry><box size=\"1 1 1\"/></geometry>\n"
      "    <material name=\"r&amp;d \"/></visual></link>\n"
      "</robot>\n"));
  ASSERT_EQ(m.renders().size(), 1u);
  const Color rgb = m.renders()[0].rgb;
  EXPECT_EQ(Vector3d(rgb.r, rgb.g, rgb.b), Vector3d(1, 0, 0));
}

// Without --scene, the visual side looks for lowercase(Hello.model) under the scenes root; a
// folder there holding no projects/ but <name>.urdf is that URDF scene.
TEST(UrdfLocator, AFolderWithoutProjectsNamesItsUrdf) {
  const fs::path root = fs::temp_directory_path() / ("cosim_urdf_scenes_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "arm");
  fs::copy_file(urdf_dir() / "bad_probes.urdf", root / "arm" / "arm.urdf");
  {
    const ScopedEnv env("COSIM_SCENES_DIR", root.string());
    EXPECT_EQ(find_default_scene("arm"), root / "arm" / "arm.urdf");
    EXPECT_EQ(SceneModel::load(find_default_scene("arm")).name(), "bad");
    fs::create_directories(root / "arm" / "projects");  // an XML scene folder stays one
    EXPECT_EQ(find_default_scene("arm"), root / "arm");
  }
  fs::remove_all(root);
}

}  // namespace
