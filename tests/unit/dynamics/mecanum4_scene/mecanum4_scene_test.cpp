// tools/mecanum4_scene against the mecanum4 backend: the committed scenes/mecanum4 is what
// cosim-mecanum4-scene writes with default parameters, a difference is named by file and line,
// and with other parameters the scene follows them: its rollers sit where the backend's
// multibody tree puts them, its barrels trace the wheel circle of the backend's radius, its
// hubs are at the backend's wheel positions, and it drives exactly the backend's joints.
#include "cosim/mecanum4_scene/mecanum4_scene.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/scene/joint_match.hpp"
#include "cosim/scene/scene.hpp"
#include "param_error.hpp"

namespace cosim::mecanum4_scene {
namespace {

namespace fs = std::filesystem;
namespace m4 = dynamics::mecanum4;
using ::testing::HasSubstr;

dynamics::Params mecanum4_params(const std::vector<std::string>& overrides = {}) {
  return dynamics::Params::resolve("mecanum4", m4::mecanum4_param_specs(), nullptr, overrides);
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Scene files written into a private temporary folder, removed with it.
class WrittenScene {
 public:
  explicit WrittenScene(const std::vector<SceneFile>& files) : dir_(platform::make_private_temp_dir("cosim-m4scene-")) {
    for (const SceneFile& file : files) write(dir_ / file.path, file.text);
  }
  ~WrittenScene() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  WrittenScene(const WrittenScene&) = delete;
  WrittenScene& operator=(const WrittenScene&) = delete;
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// The scene's frames at q = 0: B is the world frame, every carrier, wheel and roller at its place.
std::vector<Eigen::Isometry3d> frames_at_zero(const scene::SceneModel& model) {
  const std::vector<double> q(model.joint_names().size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(model.frames().size());
  model.world_transforms(q, X_WF);
  return X_WF;
}

const scene::Geometry& geometry(const scene::SceneModel& model, const std::string& id) {
  const auto all = model.geometries();
  const auto it = std::find_if(all.begin(), all.end(), [&](const scene::Geometry& g) { return g.id == id; });
  if (it == all.end()) throw std::runtime_error("no geometry " + id);
  return *it;
}

Eigen::Vector3d probe_at_zero(const scene::SceneModel& model, const std::string& name) {
  const std::vector<Eigen::Isometry3d> X_WF = frames_at_zero(model);
  std::vector<Eigen::Vector3d> p_WP(model.probes().size());
  model.probe_positions(X_WF, p_WP);
  const int k = model.find_probe(name);
  if (k < 0) throw std::runtime_error("no probe " + name);
  return p_WP[static_cast<std::size_t>(k)];
}

std::size_t line_number_of(const std::string& text, const std::string& what) {
  const std::size_t at = text.find(what);
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
}

TEST(Mecanum4Scene, TheCommittedSceneIsTheGeneratorsOutput) {
  const fs::path committed = fs::path(COSIM_SCENES_DIR) / "mecanum4";
  const std::vector<SceneFile> files = mecanum4_scene(mecanum4_params());
  ASSERT_EQ(files.size(), 6u);  // project, robot, floor, sphere, the two wheels
  const std::string difference = first_difference(files, committed);
  EXPECT_TRUE(difference.empty()) << difference << "\nscenes/mecanum4 differs from the generator's output; "
                                  << "regenerate it with cosim-mecanum4-scene --out scenes/mecanum4";
}

TEST(Mecanum4Scene, ADifferenceIsNamedByFileAndFirstDifferingLine) {
  const std::vector<SceneFile> files = mecanum4_scene(mecanum4_params());
  WrittenScene written(files);
  EXPECT_EQ(first_difference(files, written.dir()), "");
  const auto robot =
      std::find_if(files.begin(), files.end(), [](const SceneFile& f) { return f.path == "robots/Mecanum4.xml"; });
  ASSERT_NE(robot, files.end());
  // One joint renamed in the folder: that file, that line, both texts.
  std::string edited = robot->text;
  const std::size_t line = line_number_of(edited, "<joint name=\"susp3\">");
  edited.replace(edited.find("\"susp3\""), 7, "\"susp9\"");
  write(written.dir() / "robots/Mecanum4.xml", edited);
  const std::string difference = first_difference(files, written.dir());
  EXPECT_THAT(difference, HasSubstr("robots/Mecanum4.xml line " + std::to_string(line) + ":"));
  EXPECT_THAT(difference, HasSubstr("<joint name=\"susp9\">"));
  EXPECT_THAT(difference, HasSubstr("generated: " + std::string(14, ' ') + "<joint name=\"susp3\">"));
  // Its last line's end of line lost; a file missing.
  write(written.dir() / "robots/Mecanum4.xml", robot->text.substr(0, robot->text.size() - 1));
  EXPECT_THAT(first_difference(files, written.dir()), HasSubstr("robots/Mecanum4.xml: differs at its end"));
  fs::remove(written.dir() / "objects/Ground.xml");
  EXPECT_THAT(first_difference(files, written.dir()), HasSubstr("objects/Ground.xml: missing"));
}

TEST(Mecanum4Scene, AnotherWheelRadiusMovesTheRollersAndGrowsTheSphere) {
  // R = 0.1 m instead of 0.076 m, r_s = 0.0125 m as by default: the rollers' centres 0.0875 m
  // from the hub instead of 0.0635 m, the reduced sphere of radius 0.1 m, the floor probe 0.1 m
  // below B, the chassis box (centred on the COM, 0.12 m above the floor) 0.02 m above B.
  struct Expected {
    std::string override_text;
    double roller_centre_m, sphere_m, chassis_centre_m;
  };
  for (const Expected& e : {Expected{"mecanum_wheel_radius_m=0.076", 0.0635, 0.076, 0.044},
                            Expected{"mecanum_wheel_radius_m=0.1", 0.0875, 0.1, 0.02}}) {
    SCOPED_TRACE(e.override_text);
    WrittenScene written(mecanum4_scene(mecanum4_params({e.override_text})));
    const scene::SceneModel model = scene::SceneModel::load(written.dir());
    const std::vector<Eigen::Isometry3d> X_WF = frames_at_zero(model);
    for (int i = 1; i <= m4::kWheels; ++i) {
      const std::string wheel = "Mecanum4/Wheel_" + std::to_string(i);
      const Eigen::Vector3d hub = X_WF[static_cast<std::size_t>(model.find_frame(wheel))].translation();
      for (int j = 1; j <= 16; ++j) {
        const int roller = model.find_frame(wheel + "/roller" + std::to_string(j));
        ASSERT_GE(roller, 0);
        EXPECT_NEAR((X_WF[static_cast<std::size_t>(roller)].translation() - hub).norm(), e.roller_centre_m, 1e-12);
      }
    }
    EXPECT_EQ(std::get<scene::Sphere>(geometry(model, "Mecanum4/Sphere_1/ball").shape).radius, e.sphere_m);
    EXPECT_NEAR(probe_at_zero(model, "Mecanum4/center").z(), -e.sphere_m, 1e-12);
    EXPECT_NEAR(geometry(model, "Mecanum4/chassis").X_FG.translation().z(), e.chassis_centre_m, 1e-12);
  }
}

TEST(Mecanum4Scene, WithOtherParametersTheSceneIsTheBackendsModel) {
  const dynamics::Params params = mecanum4_params({"wheel_model=rollers", "mecanum_wheel_radius_m=0.1",
                                                   "roller_radius_m=0.015", "half_track_m=0.35", "half_base_m=0.25"});
  WrittenScene written(mecanum4_scene(params));
  const scene::SceneModel model = scene::SceneModel::load(written.dir());
  const std::unique_ptr<dynamics::Backend> backend = m4::make_mecanum4_backend(params, 0.0);
  const auto& mecanum4 = dynamic_cast<const m4::Mecanum4Backend&>(*backend);
  const m4::Mecanum4Model& plant = mecanum4.model();
  const multibody::Tree& tree = plant.tree();
  const m4::Geometry& g = plant.params().geometry;

  // The scene drives exactly the backend's joints.
  const scene::JointMatch match = scene::match_joints(backend->joint_names(), model);
  EXPECT_TRUE(match.ok()) << match.describe("driven by the scene but not by the backend", "the backend");

  const std::vector<Eigen::Isometry3d> X_WF = frames_at_zero(model);
  for (int i = 0; i < m4::kWheels; ++i) {
    const std::string wheel = "Mecanum4/Wheel_" + std::to_string(i + 1);
    // The hub at the backend's carrier, (±l_x, ±l_y, 0) in B.
    const Eigen::Vector3d carrier_m = tree.body(plant.carrier_body(i)).parent_to_joint.r;
    EXPECT_LT((probe_at_zero(model, wheel + "/hub") - carrier_m).norm(), 1e-12) << wheel;
    EXPECT_NEAR(std::abs(carrier_m.x()), 0.35, 1e-15);
    EXPECT_NEAR(std::abs(carrier_m.y()), 0.25, 1e-15);
    // Each roller's centre and spin axis where the backend's tree puts roller i_j (its hub, on
    // the carrier, turns about x: at q = 0 it is the carrier's frame).
    for (int j = 0; j < plant.params().rollers; ++j) {
      const multibody::Transform& place = tree.body(plant.roller_body(i, j)).parent_to_joint;
      const int frame = model.find_frame(wheel + "/roller" + std::to_string(j + 1));
      ASSERT_GE(frame, 0);
      const Eigen::Isometry3d& X_WR = X_WF[static_cast<std::size_t>(frame)];
      EXPECT_LT((X_WR.translation() - (carrier_m + place.r)).norm(), 1e-10) << wheel << " roller " << j + 1;
      EXPECT_LT((X_WR.linear().col(0) - place.E.transpose() * Eigen::Vector3d::UnitX()).norm(), 1e-12)
          << wheel << " roller " << j + 1;
    }
    // The barrel's points lie on the wheel circle of radius R seen along the axle, its middle is
    // the contact sphere (r_s), and the rollers together cover the circle: each more than 2π/n.
    const double sin_gamma = std::abs(std::sin(g.roller_angle_rad(i)));
    const auto& profile = std::get<scene::Revolution>(geometry(model, wheel + "/barrel1").shape).profile_m;
    double widest_m = 0.0, reach_m = 0.0;
    for (const Eigen::Vector2d& point : profile) {
      reach_m = std::max(reach_m, std::abs(point.y()) * sin_gamma);
      if (point.x() == 0.0) continue;  // the end points on the axis
      widest_m = std::max(widest_m, point.x());
      const double from_axle_m = std::hypot(point.x() + g.wheel_radius_m - plant.params().roller_radius_m,
                                            point.y() * sin_gamma);
      EXPECT_NEAR(from_axle_m, g.wheel_radius_m, 1e-6) << "profile printed to the micrometre";
    }
    EXPECT_NEAR(widest_m, plant.params().roller_radius_m, 1e-6);
    EXPECT_GT(reach_m, g.wheel_radius_m * std::sin(std::numbers::pi / plant.params().rollers));
  }
}

TEST(Mecanum4Scene, ParametersTheBackendRefusesAreRefused) {
  EXPECT_THAT(test::param_error([] { (void)mecanum4_scene(mecanum4_params({"roller_radius_m=0.05"})); }),
              HasSubstr("roller_radius_m = 0.05 must be below half the wheel radius"));
}

}  // namespace
}  // namespace cosim::mecanum4_scene
