// The render window around a SceneView, offscreen under the test's X server.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <vtkCamera.h>
#include <vtkCommand.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>

#include "cosim/scene/scene_model.hpp"
#include "cosim/visual/vtk/viewer.hpp"
#include "render_paths.hpp"

namespace cosim::test {
namespace {

class ViewerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_display()) GTEST_FAIL() << "no X display: run the render suite under xvfb-run (scripts/test.sh does)";
  }
};

TEST_F(ViewerTest, RendersReadsBackAndGrowsTheTrail) {
  const auto scene = scene::SceneModel::load(kScenesDir / "robotino");
  visual::SceneView view(scene);
  visual::ViewerOptions options;
  options.width = 320;
  options.height = 180;
  options.camera = visual::CameraMode::follow;
  options.hud = true;
  options.trail_capacity = 10;
  options.tracked_probe = 0;
  visual::Viewer viewer(view, options);
  std::vector<double> q(scene.joint_names().size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  const int x = scene.find_joint("Robotino/x");
  for (int k = 0; k < 12; ++k) {
    q[static_cast<std::size_t>(x)] = 0.05 * k;
    scene.world_transforms(q, X_WF);
    viewer.show(X_WF);
    viewer.set_hud_text("t 0.000 s");
    viewer.render();
  }
  EXPECT_EQ(viewer.trail_points(), 10u);  // capped at its preallocated capacity

  // Follow camera: the focal point moved with the probe (0.55 m along x).
  double focal[3];
  viewer.renderer()->GetActiveCamera()->GetFocalPoint(focal);
  EXPECT_NEAR(focal[0], 0.55, 1e-9);

  const auto rgba = viewer.read_rgba();
  ASSERT_EQ(rgba.size(), 320u * 180u * 4u);
  // Not one flat colour: the robot is in the picture.
  std::size_t differing = 0;
  for (std::size_t i = 4; i < rgba.size(); i += 4) differing += rgba[i] != rgba[0] || rgba[i + 1] != rgba[1];
  EXPECT_GT(differing, 1000u);
}

TEST_F(ViewerTest, KeysResetTheCameraAndTakeScreenshots) {
  const auto scene = scene::SceneModel::load(kScenesDir / "robotino");
  visual::SceneView view(scene);
  visual::ViewerOptions options;
  options.width = 320;
  options.height = 180;
  options.tracked_probe = 0;
  visual::Viewer viewer(view, options);
  std::vector<double> q(scene.joint_names().size(), 0.0);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  scene.world_transforms(q, X_WF);
  viewer.show(X_WF);
  viewer.render();
  int screenshots = 0;
  vtkRenderWindowInteractor* interactor = viewer.make_interactor([&](char key) {
    if (key != 's') return false;
    ++screenshots;
    return true;
  });

  vtkCamera* camera = viewer.renderer()->GetActiveCamera();
  double home[3], moved[3], back[3];
  camera->GetPosition(home);
  camera->Azimuth(60);
  camera->Dolly(2.0);
  camera->GetPosition(moved);
  ASSERT_GT(std::hypot(moved[0] - home[0], moved[1] - home[1]), 0.1);

  interactor->SetKeyEventInformation(0, 0, 'r', 0, "r");
  interactor->InvokeEvent(vtkCommand::CharEvent, nullptr);
  camera->GetPosition(back);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(back[i], home[i], 1e-9);

  interactor->SetKeyEventInformation(0, 0, 's', 0, "s");
  interactor->InvokeEvent(vtkCommand::CharEvent, nullptr);
  EXPECT_EQ(screenshots, 1);
}

/// A scene's zero pose in a viewer as a coupled run shows it (follow camera, 640x360).
struct ZeroPose {
  explicit ZeroPose(const std::string& scene_name, bool inset = false)
      : scene(scene::SceneModel::load(kScenesDir / scene_name)), view(scene) {
    visual::ViewerOptions options;
    options.width = 640;
    options.height = 360;
    options.camera = visual::CameraMode::follow;
    options.tracked_probe = 0;
    options.inset = inset;
    options.trail_capacity = 1000;
    viewer.emplace(view, options);
    q.assign(scene.joint_names().size(), 0.0);
    X_WF.resize(scene.frames().size());
    show();
  }
  void show() {
    scene.world_transforms(q, X_WF);
    viewer->show(X_WF);
    viewer->render();
  }
  std::vector<std::uint8_t> pixels() {
    viewer->render();
    const auto rgba = viewer->read_rgba();
    return {rgba.begin(), rgba.end()};
  }
  scene::SceneModel scene;
  visual::SceneView view;
  std::optional<visual::Viewer> viewer;
  std::vector<double> q;
  std::vector<Eigen::Isometry3d> X_WF;
};

std::size_t pixels_differing(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + 3 < a.size(); i += 4) n += a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2];
  return n;
}

TEST_F(ViewerTest, TheWheelsAreSeenFromTheDefaultCamera) {
  // The pixels a wheel covers are those that change when the wheels are hidden.
  ZeroPose robotino("robotino");
  const auto with_wheels = robotino.pixels();
  int wheel_actors = 0;
  for (std::size_t i = 0; i < robotino.view.actors().size(); ++i) {
    const auto frame = robotino.scene.renders()[i].frame;
    if (robotino.scene.frames()[static_cast<std::size_t>(frame)].name.find("/Wheel_") == std::string::npos) continue;
    robotino.view.actors()[i]->VisibilityOff();
    ++wheel_actors;
  }
  ASSERT_GT(wheel_actors, 3);  // hubs and rollers of three wheels
  const std::size_t wheel_px = pixels_differing(with_wheels, robotino.pixels());
  std::printf("wheel pixels from the default camera at 640x360: %zu\n", wheel_px);
  // Measured 1240 (the wheel at -60 deg, the one facing the camera, through its bumper
  // opening); the closed bumper ring of before left 579, the camera 1.8x as far 424: 900
  // tells them apart with a margin of a quarter either way.
  EXPECT_GT(wheel_px, 900u);
}

TEST_F(ViewerTest, TheRollerOnTheFloorIsHighlighted) {
  ZeroPose robotino("robotino");
  EXPECT_STREQ(robotino.viewer->handle_key('c'), "contact highlight on");
  robotino.show();
  // Of each wheel's six rollers one touches the floor (Wheel.xml: roller j at theta + alpha_j
  // = 0), and nothing else: not the hubs (2.5 mm above), not the body.
  auto highlighted = [&] {
    std::vector<std::string> frames;
    for (const std::size_t i : robotino.viewer->contact_actors()) {
      frames.push_back(robotino.scene.frames()[static_cast<std::size_t>(robotino.scene.renders()[i].frame)].name);
    }
    std::sort(frames.begin(), frames.end());
    return frames;
  };
  const auto at_zero = highlighted();
  ASSERT_EQ(at_zero.size(), 3u);
  for (int w = 0; w < 3; ++w) {
    EXPECT_NE(at_zero[static_cast<std::size_t>(w)].find("Wheel_" + std::to_string(w + 1) + "/roller1"), std::string::npos)
        << at_zero[static_cast<std::size_t>(w)];
  }
  // Wheel 1 turned by -60 deg: roller 2 (alpha 60 deg) comes to the floor; the others stay.
  robotino.q[static_cast<std::size_t>(robotino.scene.find_joint("Robotino/axle1"))] = -60 * std::numbers::pi / 180;
  robotino.show();
  const auto turned = highlighted();
  ASSERT_EQ(turned.size(), 3u);
  EXPECT_NE(turned[0].find("Wheel_1/roller2"), std::string::npos) << turned[0];
  EXPECT_EQ(turned[1], at_zero[1]);
  // Off again: the scene's colours come back.
  robotino.viewer->handle_key('c');
  EXPECT_TRUE(robotino.viewer->contact_actors().empty());
}

TEST_F(ViewerTest, TheGridIsOnTheFloor) {
  ZeroPose robotino("robotino");
  const auto with_grid = robotino.pixels();
  robotino.viewer->set_grid_visible(false);
  const std::size_t grid_px = pixels_differing(with_grid, robotino.pixels());
  std::printf("grid pixels at 640x360: %zu\n", grid_px);
  // Lines 1 px wide every 0.1 m over the floor around the robot: thousands of pixels; a grid
  // that is not drawn (or drawn under the floor) changes none.
  EXPECT_GT(grid_px, 2000u);
  EXPECT_TRUE(robotino.viewer->handle_key('g') != nullptr && robotino.viewer->grid_visible());
}

/// The robot's moving parts projected by the main camera: their share of the window's height
/// and whether all of them are inside it.
struct Projection {
  double height_share = 0, width_share = 0;
  bool inside = false;
};
Projection project_moving_parts(ZeroPose& pose) {
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  vtkRenderer* renderer = pose.viewer->renderer();
  for (std::size_t i = 0; i < pose.view.actors().size(); ++i) {
    if (!pose.view.actor_moves(i)) continue;
    const double* b = pose.view.actors()[i]->GetBounds();
    for (int corner = 0; corner < 8; ++corner) {
      renderer->SetWorldPoint(b[corner & 1], b[2 + ((corner >> 1) & 1)], b[4 + ((corner >> 2) & 1)], 1.0);
      renderer->WorldToDisplay();
      const double* d = renderer->GetDisplayPoint();
      for (int k = 0; k < 2; ++k) {
        lo[k] = std::min(lo[k], d[k]);
        hi[k] = std::max(hi[k], d[k]);
      }
    }
  }
  const double w = pose.viewer->width(), h = pose.viewer->height();
  return {(hi[1] - lo[1]) / h, (hi[0] - lo[0]) / w, lo[0] >= 0 && lo[1] >= 0 && hi[0] <= w && hi[1] <= h};
}

TEST_F(ViewerTest, TheDefaultCameraFramesEachRobotAtAUsefulSize) {
  // From each scene's own bounding box, not Robotino constants: two robots of different size.
  for (const char* name : {"robotino", "mecanum4"}) {
    SCOPED_TRACE(name);
    ZeroPose pose(name);
    const Projection p = project_moving_parts(pose);
    std::printf("%s: moving parts' box spans %.0f%% of the height, %.0f%% of the width\n", name,
                100 * p.height_share, 100 * p.width_share);
    EXPECT_TRUE(p.inside);
    // Big enough to see wheels (the 1.8x distance of before gave the Robotino ~25%), with room
    // around it for the motion: the box (its corners, larger than the robot) within 40-90%.
    EXPECT_GT(p.height_share, 0.40);
    EXPECT_LT(p.height_share, 0.90);
  }
}

TEST_F(ViewerTest, TheInsetShowsTheWholePathAndKeysSwitchTheCamera) {
  ZeroPose pose("robotino", true);
  ASSERT_NE(pose.viewer->inset_renderer(), nullptr);
  const int x = pose.scene.find_joint("Robotino/x"), y = pose.scene.find_joint("Robotino/y");
  // A square of 2 m sides: the path leaves the first framing, which then grows.
  for (int k = 0; k <= 80; ++k) {
    const double s = 8.0 * k / 80;  // metres along the square's sides
    pose.q[static_cast<std::size_t>(x)] = std::clamp(s, 0.0, 2.0) - std::clamp(s - 4, 0.0, 2.0);
    pose.q[static_cast<std::size_t>(y)] = std::clamp(s - 2, 0.0, 2.0) - std::clamp(s - 6, 0.0, 2.0);
    pose.show();
  }
  vtkRenderer* inset = pose.viewer->inset_renderer();
  for (const auto& corner : {std::array{0.0, 0.0}, std::array{2.0, 0.0}, std::array{2.0, 2.0}, std::array{0.0, 2.0}}) {
    inset->SetWorldPoint(corner[0], corner[1], 0, 1);
    inset->WorldToView();
    const double* v = inset->GetViewPoint();  // -1..1 across the inset's viewport
    EXPECT_LT(std::abs(v[0]), 1.0) << corner[0] << ", " << corner[1];
    EXPECT_LT(std::abs(v[1]), 1.0) << corner[0] << ", " << corner[1];
  }
  // Keys: camera modes, the inset, the body's style.
  EXPECT_STREQ(pose.viewer->handle_key('3'), "camera overview");
  EXPECT_EQ(pose.viewer->camera_mode(), visual::CameraMode::overview);
  EXPECT_STREQ(pose.viewer->handle_key('1'), "camera robot");
  EXPECT_STREQ(pose.viewer->handle_key('o'), "inset off");
  EXPECT_EQ(pose.viewer->inset_renderer(), nullptr);
  EXPECT_EQ(pose.viewer->body_style(), visual::BodyStyle::solid);
  pose.viewer->handle_key('t');
  EXPECT_EQ(pose.viewer->body_style(), visual::BodyStyle::transparent);
  EXPECT_EQ(pose.viewer->handle_key('x'), nullptr);  // not the viewer's: VTK's or nobody's
}

}  // namespace
}  // namespace cosim::test
