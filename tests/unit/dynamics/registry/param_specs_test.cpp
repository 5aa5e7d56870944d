// The parameter tables of the registered backends as composed from shared pieces
// (robotino_geometry_param_specs(), rose_param_specs()): the key lists are what they were before
// the pieces were shared, and a shared key is declared identically in every backend using it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cosim/dynamics/kinematic/kinematic_backend.hpp"
#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"
#include "cosim/dynamics/reference/rose_params.hpp"

namespace cosim::dynamics::registry {
using kinematic::kinematic_param_specs;
using reference::rose_param_specs;
using robotino_common::robotino_geometry_param_specs;
using robotino_common::robotino_param_specs;

namespace {

std::vector<std::string> keys_of(std::span<const ParamSpec> specs) {
  std::vector<std::string> keys;
  for (const ParamSpec& spec : specs) keys.push_back(spec.key);
  return keys;
}

const ParamSpec* find_spec(std::span<const ParamSpec> specs, const std::string& key) {
  for (const ParamSpec& spec : specs) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

void expect_same_spec(const ParamSpec& actual, const ParamSpec& shared, const std::string& backend) {
  const std::string where = backend + " " + shared.key;
  EXPECT_EQ(actual.default_value, shared.default_value) << where;
  EXPECT_EQ(actual.min_value, shared.min_value) << where;
  EXPECT_EQ(actual.max_value, shared.max_value) << where;
  EXPECT_EQ(actual.unit, shared.unit) << where;
  EXPECT_EQ(actual.doc, shared.doc) << where;
  EXPECT_EQ(actual.source, shared.source) << where;
}

// The tables as `cosim-dynamics --list-backends` printed them before the shared pieces.
const std::vector<std::string> kKinematicKeys{
    "wheel_radius_m",   "wheel_distance_m", "roller_max_radius_m", "rose_amplitude_m",
    "rose_petals",      "rose_rate_rad_per_s", "rose_phase_rad"};
const std::vector<std::string> kRobotinoKeys{
    "wheel_radius_m",        "wheel_distance_m",
    "roller_max_radius_m",   "mass_kg",
    "yaw_inertia_kg_m2",     "wheel_inertia_kg_m2",
    "roller_inertia_kg_m2",  "rotor_inertia_kg_m2",
    "gear_ratio",            "motor_resistance_ohm",
    "motor_inductance_H",    "motor_torque_constant_N_m_per_A",
    "motor_back_emf_V_s_per_rad", "motor_voltage_limit_V",
    "pid_kp_V_s_per_rad",    "pid_ki_V_per_rad",
    "pid_kd_V_s2_per_rad",   "pid_ff_back_emf",
    "pid_ff_inertia",        "pid_reference_heading",
    "pid_antiwindup_time_s", "rose_amplitude_m",
    "rose_petals",           "rose_rate_rad_per_s",
    "rose_phase_rad",        "start_moving",
    "solver_rtol",           "solver_atol",
    "solver_max_step_s",     "solver_current_atol_scale",
    "solver_restart_at_switch"};

TEST(ParamSpecs, KeyListsPerBackendAreUnchanged) {
  EXPECT_EQ(keys_of(kinematic_param_specs()), kKinematicKeys);
  EXPECT_EQ(keys_of(robotino_param_specs()), kRobotinoKeys);
  // And the registry hands out the same tables.
  EXPECT_EQ(keys_of(find_backend("kinematic").param_specs()), kKinematicKeys);
  EXPECT_EQ(keys_of(find_backend("robotino").param_specs()), kRobotinoKeys);
}

TEST(ParamSpecs, SharedKeysAreDeclaredIdenticallyInEveryBackendUsingThem) {
  std::vector<const ParamSpec*> shared;
  for (const ParamSpec& spec : robotino_geometry_param_specs()) shared.push_back(&spec);
  for (const ParamSpec& spec : rose_param_specs()) shared.push_back(&spec);
  ASSERT_EQ(shared.size(), 7u);
  for (const BackendEntry& entry : backend_registry()) {
    for (const ParamSpec* piece : shared) {
      const ParamSpec* own = find_spec(entry.param_specs(), piece->key);
      if (own == nullptr) continue;  // a backend may not use a piece
      expect_same_spec(*own, *piece, std::string(entry.name));
    }
  }
  // Both Robotino backends use every shared key.
  for (const ParamSpec* piece : shared) {
    EXPECT_NE(find_spec(kinematic_param_specs(), piece->key), nullptr) << piece->key;
    EXPECT_NE(find_spec(robotino_param_specs(), piece->key), nullptr) << piece->key;
  }
}

TEST(ParamSpecs, EveryRegisteredTableResolvesWithoutDuplicates) {
  // resolve() throws std::logic_error for a key declared twice (e.g. a piece composed twice).
  for (const BackendEntry& entry : backend_registry()) {
    EXPECT_NO_THROW((void)Params::resolve(entry.name, entry.param_specs(), nullptr, {})) << entry.name;
  }
}

TEST(ParamSpecs, KinematicUnknownKeyListsItsParameters) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("cosim_param_specs_test_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << "foo = 1\n";
  std::string msg;
  try {
    Params::resolve("kinematic", kinematic_param_specs(), &path, {});
  } catch (const ParamError& e) {
    msg = e.what();
  }
  std::filesystem::remove(path);
  EXPECT_EQ(msg, path.string() +
                     ":1: unknown parameter 'foo' for backend kinematic; known: wheel_radius_m, "
                     "wheel_distance_m, roller_max_radius_m, rose_amplitude_m, rose_petals, "
                     "rose_rate_rad_per_s, rose_phase_rad");
}

}  // namespace
}  // namespace cosim::dynamics::registry
