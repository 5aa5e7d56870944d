// The render window around a SceneView, offscreen under the test's X server.
#include <gtest/gtest.h>

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
  vtkRenderWindowInteractor* interactor = viewer.make_interactor([&] { ++screenshots; });

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

}  // namespace
}  // namespace cosim::test
