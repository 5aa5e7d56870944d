// Fuzz target: the scene loader. The input is the robot XML of a scene folder written once per
// process into a scratch folder: the two_link test scene (its project instantiates the robot
// "TwoLink", whose file robots/TwoLink.xml is the input), plus what the seed robots refer to —
// the tools of two_link and arm2, the objects of the robotino scene and the test scenes
// (Wheel, Ground, Floor, and Loop, which instantiates itself), the meshes of robotino and arm2,
// and meshes/escape.stl, a symlink out of the scene root. The whole folder is then loaded with
// SceneModel::load, as the programs do with --scene.
//
// An input that starts with the line "URDF" is a URDF robot instead: the rest is written as
// urdf/robot.urdf beside a copy of tests/data/scenes/urdf's meshes/ and packages/ (the meshes
// of every format, package://demo_parts, escape.stl), and that file is loaded with
// packages/ in the package path, as --scene robot.urdf --package-path does. (Both formats
// have a <robot> root and <link> elements, so the first line tells them apart.)
//
// Oracles, besides the sanitizers:
// - the only error is SceneError, whose what() is "<file>:<line>: <message>" (scene/error.hpp);
// - a loaded model holds the invariants scene.hpp states (parents before children, indices in
//   range, names found by find_*), and its kinematics run on zero joint values without throwing.

#include <cosim/scene/scene_model.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <Eigen/Geometry>

#include "support/fuzz_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace scene = cosim::scene;
using cosim::fuzz::check;
using cosim::fuzz::fail;

// The scratch scene, made once per process; `robot` is where each input goes.
struct ScratchScene {
  cosim::fuzz::ScratchDir dir{"scene"};
  fs::path root = dir.path() / "scene";
  fs::path robot = root / "robots" / "TwoLink.xml";
  fs::path urdf_root = dir.path() / "urdf";
  fs::path urdf = urdf_root / "robot.urdf";

  ScratchScene() {
    const fs::path source(COSIM_SOURCE_DIR);
    const fs::path tests = source / "tests" / "data" / "scenes";
    for (const char* sub : {"projects", "robots", "objects", "tools", "meshes"}) fs::create_directories(root / sub);
    const auto copy = [&](const fs::path& from, const char* sub) {
      std::error_code ec;
      fs::copy_file(from, root / sub / from.filename(), fs::copy_options::overwrite_existing, ec);
      if (ec) fail("cannot copy " + from.string() + " into the scratch scene: " + ec.message());
    };
    const auto copy_all = [&](const fs::path& folder, const char* sub, const char* extension) {
      for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
        if (e.is_regular_file() && e.path().extension() == extension) copy(e.path(), sub);
      }
    };
    copy(tests / "two_link" / "projects" / "TwoLink.xml", "projects");
    copy(tests / "two_link" / "tools" / "Tip.xml", "tools");
    copy(tests / "arm2" / "tools" / "Gripper.xml", "tools");
    copy_all(source / "scenes" / "robotino" / "objects", "objects", ".xml");
    copy(tests / "bad_recursion" / "objects" / "Loop.xml", "objects");
    copy(tests / "bad_missing_robot" / "objects" / "Floor.xml", "objects");
    copy_all(source / "scenes" / "robotino" / "meshes", "meshes", ".stl");
    copy(tests / "arm2" / "meshes" / "bracket.stl", "meshes");
    // A mesh link that leaves the scene root, as in tests/data/scenes/bad_mesh_symlink.
    cosim::fuzz::write_file(dir.path() / "outside.stl", {});
    fs::create_symlink("../../outside.stl", root / "meshes" / "escape.stl");
    // The URDF's folder: the meshes and packages its test files refer to, links kept as links.
    std::error_code ec;
    fs::create_directories(urdf_root);
    for (const char* sub : {"meshes", "packages"}) {
      fs::copy(tests / "urdf" / sub, urdf_root / sub, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
      if (ec) fail("cannot copy " + (tests / "urdf" / sub).string() + " into the scratch folder: " + ec.message());
    }
  }
};

ScratchScene& scratch() {
  static ScratchScene s;
  return s;
}

// scene/error.hpp: what() is "<file>:<line>: <message>", "<file>: <message>" for line 0,
// "<message>" without a file.
void check_error(const scene::SceneError& e) {
  const scene::SourceLocation& where = e.where();
  std::string expected;
  if (!where.file.empty()) {
    expected = where.file.string();
    if (where.line > 0) expected += ":" + std::to_string(where.line);
    expected += ": ";
  }
  expected += e.message();
  check(e.what() == expected, std::string("SceneError::what() '") + e.what() + "' is not '" + expected + "'");
  check(where.line >= 0, "SceneError with a negative line");
  check(!e.message().empty(), "SceneError without a message");
}

bool index_in(int i, std::size_t size) { return i >= 0 && static_cast<std::size_t>(i) < size; }

// The invariants scene.hpp promises for every SceneModel.
void check_model(const scene::SceneModel& model) {
  const auto frames = model.frames();
  const auto joints = model.joint_names();
  const auto joint_frames = model.joint_frames();
  check(joint_frames.size() == joints.size(), "joint_frames() and joint_names() differ in size");
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const scene::Frame& f = frames[i];
    check(f.parent >= -1 && f.parent < static_cast<int>(i), "frame " + f.name + ": parent not before it");
    check(model.find_frame(f.name) == static_cast<int>(i), "find_frame(" + f.name + ") is not its index");
    check(f.joint_index == -1 || index_in(f.joint_index, joints.size()), "frame " + f.name + ": joint index out of range");
    check(f.drive == scene::DriveType::fixed || f.drive == scene::DriveType::revolute ||
              f.drive == scene::DriveType::prismatic,
          "frame " + f.name + ": invalid drive type");
  }
  for (std::size_t j = 0; j < joints.size(); ++j) {
    check(index_in(joint_frames[j], frames.size()), "joint " + joints[j] + ": frame out of range");
    check(frames[static_cast<std::size_t>(joint_frames[j])].joint_index == static_cast<int>(j),
          "joint " + joints[j] + ": its frame does not point back to it");
    check(model.find_joint(joints[j]) == static_cast<int>(j), "find_joint(" + joints[j] + ") is not its index");
  }
  const auto probes = model.probes();
  for (std::size_t p = 0; p < probes.size(); ++p) {
    check(index_in(probes[p].frame, frames.size()), "probe " + probes[p].name + ": frame out of range");
    check(model.find_probe(probes[p].name) == static_cast<int>(p), "find_probe(" + probes[p].name + ") is not its index");
  }
  const auto geometries = model.geometries();
  for (const scene::Geometry& g : geometries) {
    check(index_in(g.frame, frames.size()), "geometry " + g.id + ": frame out of range");
    if (const auto* part = std::get_if<scene::Part>(&g.shape)) {
      check(part->file.is_absolute(), "part " + g.id + ": mesh path not absolute");
    }
  }
  const auto check_parts = [&](const std::vector<scene::PlacedGeometry>& parts, const std::string& who) {
    for (const scene::PlacedGeometry& p : parts) {
      check(index_in(p.geometry, geometries.size()), who + ": part's geometry out of range");
    }
  };
  const auto assemblies = model.assemblies();
  for (const scene::Assembly& a : assemblies) {
    check(index_in(a.frame, frames.size()), "assembly " + a.id + ": frame out of range");
    check_parts(a.parts, "assembly " + a.id);
  }
  for (const scene::Render& r : model.renders()) {
    check(index_in(r.frame, frames.size()), "render " + r.ref + ": frame out of range");
    check(index_in(r.ref_index, r.ref_kind == scene::RefKind::geometry ? geometries.size() : assemblies.size()),
          "render " + r.ref + ": ref index out of range");
    check(r.opacity >= 0 && r.opacity <= 1, "render " + r.ref + ": opacity outside [0, 1]");
    check_parts(r.parts, "render " + r.ref);
  }

  // Kinematics at q = 0: documented to throw only on a size mismatch or a non-finite value.
  const std::vector<double> q(joints.size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(frames.size());
  std::vector<Eigen::Vector3d> p_WP(probes.size());
  model.world_transforms(q, X_WF);
  model.probe_positions(X_WF, p_WP);
}

}  // namespace

// The first line of an input that is a URDF robot.
constexpr std::string_view kUrdfMarker = "URDF\n";

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ScratchScene& s = scratch();
  const bool is_urdf = cosim::fuzz::starts_with(std::string_view(reinterpret_cast<const char*>(data), size), kUrdfMarker);
  const std::size_t skip = is_urdf ? kUrdfMarker.size() : 0;
  cosim::fuzz::write_file(is_urdf ? s.urdf : s.robot, std::span(data + skip, size - skip));
  return cosim::fuzz::guarded([&] {
    try {
      if (is_urdf) {
        check_model(scene::SceneModel::load(s.urdf, {.package_path = {s.urdf_root / "packages"}}));
      } else {
        check_model(scene::SceneModel::load(s.root));
      }
    } catch (const scene::SceneError& e) {
      check_error(e);
    }
  });
}
