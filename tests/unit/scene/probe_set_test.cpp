// ProbeSet, the frame pipeline every side runs (joints → X_WF → every probe → the reported
// ones), against SceneModel's own world_transforms() and probe_positions() on the arm2 fixture.
#include "cosim/scene/probe_set.hpp"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <vector>

#include "cosim/test/allocation_probe.hpp"
#include "test_paths.hpp"

namespace cosim::scene {
namespace {

class ProbeSetArm2 : public ::testing::Test {
 protected:
  ProbeSetArm2() : model(SceneModel::load(test::fixtures_dir() / "arm2")) {
    q.assign(model.joint_names().size(), 0.0);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.1 * static_cast<double>(i + 1);  // every joint moved
  }
  SceneModel model;
  std::vector<double> q;
};

TEST_F(ProbeSetArm2, ReportsTheChosenProbesInTheirOrderAsTheSceneComputesThem) {
  std::vector<Eigen::Isometry3d> X_WF(model.frames().size());
  std::vector<Eigen::Vector3d> p_WP(model.probes().size());
  model.world_transforms(q, X_WF);
  model.probe_positions(X_WF, p_WP);

  const std::array<int, 3> reported{3, 1, 3};  // out of scene order, one twice
  ProbeSet probes(model, reported);
  const auto frames = probes.set_joints(q);
  ASSERT_EQ(frames.size(), X_WF.size());
  for (std::size_t f = 0; f < X_WF.size(); ++f) EXPECT_TRUE(frames[f].isApprox(X_WF[f], 0.0)) << f;
  const auto located = probes.locate();
  ASSERT_EQ(located.size(), reported.size());
  for (std::size_t i = 0; i < reported.size(); ++i) {
    EXPECT_EQ(located[i], p_WP[static_cast<std::size_t>(reported[i])]) << "reported probe " << i;
  }
  EXPECT_EQ(probes.all_probes().size(), model.probes().size());
}

TEST_F(ProbeSetArm2, PicksFromPositionsMeasuredElsewhere) {
  const std::array<int, 2> reported{2, 0};
  ProbeSet probes(model, reported);
  probes.set_joints(q);
  // As the viewer does: every probe measured on its actors, then the reported ones picked.
  const auto all = probes.all_probes();
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = Eigen::Vector3d(static_cast<double>(i), 0.0, 1.0);
  const auto picked = probes.pick();
  EXPECT_EQ(picked[0], Eigen::Vector3d(2.0, 0.0, 1.0));
  EXPECT_EQ(picked[1], Eigen::Vector3d(0.0, 0.0, 1.0));
}

TEST_F(ProbeSetArm2, AFrameDoesNotAllocate) {
  const std::array<int, 2> reported{1, 2};
  ProbeSet probes(model, reported);
  cosim::test::AllocationProbe allocations;
  for (int frame = 0; frame < 10; ++frame) {
    q[0] = 0.01 * frame;
    probes.set_joints(q);
    probes.locate();
    probes.pick();
  }
  EXPECT_EQ(allocations.count(), 0u);
}

TEST_F(ProbeSetArm2, RefusesAnIndexThatIsNotAProbe) {
  const std::array<int, 1> beyond{static_cast<int>(model.probes().size())};
  EXPECT_THROW(ProbeSet(model, beyond), std::out_of_range);
  const std::array<int, 1> negative{-1};
  EXPECT_THROW(ProbeSet(model, negative), std::out_of_range);
}

}  // namespace
}  // namespace cosim::scene
