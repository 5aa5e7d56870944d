// Cross-check of two backends built through the registry (STYLE 10): the robotino DAE with its
// roller and motor dynamics removed by parameters follows the kinematic backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cosim/dynamics/registry/registry.hpp"

namespace cosim::dynamics::registry {

namespace {

std::unique_ptr<Backend> make_named(const std::string& name, const std::vector<std::string>& overrides = {}) {
  const BackendEntry& entry = find_backend(name);
  return entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, overrides), 0.0);
}

TEST(RobotinoBackend, AgreesWithKinematicBackendWithoutRollerAndMotorDynamics) {
  // No roller inertia (side rolling is pure kinematics), no armature inductance and no rotor:
  // the drives then impose the reference wheel speeds up to the PID error, and the chassis,
  // wheels and rollers must follow the kinematic backend.
  auto dyn =
      make_named("robotino", {"roller_inertia_kg_m2=0", "motor_inductance_H=0", "rotor_inertia_kg_m2=0"});
  auto kin = make_named("kinematic");
  ASSERT_EQ(dyn->joint_names(), kin->joint_names());
  double pose = 0, wheel = 0, roller = 0;
  for (int k = 1; k <= 1000; ++k) {  // 20 s at 50 fps
    const double t = k / 50.0;
    dyn->advance_to(t);
    kin->advance_to(t);
    for (std::size_t j = 0; j < 24; ++j) {
      const double d = std::abs(dyn->joint_values()[j] - kin->joint_values()[j]);
      (j < 3 ? pose : j < 6 ? wheel : roller) = std::max(j < 3 ? pose : j < 6 ? wheel : roller, d);
    }
  }
  // Measured: 1.8e-7 m/rad, 1.2e-5 rad, 6.6e-5 rad.
  EXPECT_LE(pose, 5e-7);
  EXPECT_LE(wheel, 1e-4);
  EXPECT_LE(roller, 1e-3);
  RecordProperty("pose", std::to_string(pose));
  RecordProperty("wheel", std::to_string(wheel));
  RecordProperty("roller", std::to_string(roller));
}

}  // namespace
}  // namespace cosim::dynamics::registry
