// What each registry entry claims about its backend, checked for every entry: its default
// scene drives exactly its joints (found the way cosim-dynamics finds it), and its
// capabilities hold.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/scene/joint_match.hpp"
#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "registered_names.hpp"

namespace cosim::dynamics::registry {
namespace {

std::unique_ptr<Backend> make(const BackendEntry& entry) {
  return entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, {}), 0.0);
}

class BackendEntryClaims : public ::testing::TestWithParam<std::string> {
 protected:
  const BackendEntry& entry() const { return find_backend(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendEntryClaims, ::testing::ValuesIn(registered_names()),
                         [](const auto& info) { return info.param; });

TEST_P(BackendEntryClaims, DefaultSceneDrivesExactlyTheBackendsJoints) {
  ASSERT_FALSE(entry().default_scene.empty()) << "every backend names the scene its joints match";
  // The lookup cosim-dynamics does without --scene: <bin>/../share/cosim/scenes in the build tree.
  const auto folder = scene::find_default_scene(entry().default_scene);
  const auto model = scene::SceneModel::load(folder);
  const auto backend = make(entry());
  // Of the same kinds where the backend says them (as cosim-dynamics checks: ProbeKinematics).
  std::vector<std::optional<scene::DriveType>> drives;
  for (const JointKind kind : backend->joint_kinds()) {
    drives.push_back(kind == JointKind::revolute    ? std::optional(scene::DriveType::revolute)
                     : kind == JointKind::prismatic ? std::optional(scene::DriveType::prismatic)
                                                    : std::nullopt);
  }
  const scene::JointMatch match = scene::match_joints(backend->joint_names(), model, drives);
  EXPECT_TRUE(match.ok()) << folder << ": "
                          << match.describe("driven by the scene but not by the backend", "the backend");
  EXPECT_EQ(scene::scene_name_of_model(backend->model_name()), entry().default_scene)
      << "the visual side finds the scene from Hello.model the same way";
}

TEST_P(BackendEntryClaims, EnergyOutputsIffClaimedAndTheBalanceCloses) {
  const auto backend = make(entry());
  const auto& names = backend->output_names();
  const char* energy[] = {"energy_in_J", "energy_resistive_J", "energy_stored_J", "energy_balance_J"};
  std::vector<std::size_t> index;
  for (const char* name : energy) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) index.push_back(static_cast<std::size_t>(it - names.begin()));
  }
  if (!entry().capabilities.energy_balance) {
    EXPECT_TRUE(index.empty()) << "energy outputs without the energy_balance capability";
    return;
  }
  ASSERT_EQ(index.size(), 4u) << "energy_balance claims all four energy outputs";
  const double stored0 = backend->outputs()[index[2]];
  double resistive_before = 0;
  for (int k = 1; k <= 250; ++k) {  // 5 s
    backend->advance_to(k * 0.02);
    const auto out = backend->outputs();
    // Identity: the balance is what it says it is (to rounding of sums of ~1 J).
    ASSERT_NEAR(out[index[3]], out[index[0]] - out[index[1]] - (out[index[2]] - stored0), 1e-12);
    // Dissipation never decreases.
    ASSERT_GE(out[index[1]], resistive_before);
    resistive_before = out[index[1]];
  }
  // It closes: the residual is the integrator's error, far below the energy that flowed
  // (robotino: 0.004 J of ~5 J after 5 s at its default tolerance, so 1 % leaves a margin of 10).
  const auto out = backend->outputs();
  const double throughput_J = std::abs(out[index[0]]) + out[index[1]] + std::abs(out[index[2]] - stored0);
  EXPECT_GT(out[index[1]], 0.0) << "energy did flow";
  EXPECT_LE(std::abs(out[index[3]]), 0.01 * throughput_J);
  RecordProperty("balance_J", std::to_string(out[index[3]]));
  RecordProperty("throughput_J", std::to_string(throughput_J));
}

}  // namespace
}  // namespace cosim::dynamics::registry
