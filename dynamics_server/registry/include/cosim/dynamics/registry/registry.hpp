#pragma once
/// @file
/// The closed table of backends, sorted by name.

#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::registry {

/// What a backend offers beyond joint values, for users (--list-backends) and for the
/// conformance suite, which checks each claim.
struct BackendCapabilities {
  bool dynamics = false;  ///< integrates forces (false: kinematics only, exact by construction)
  /// Outputs energy_in_J, energy_resistive_J, energy_stored_J and energy_balance_J, whose
  /// balance closes (checked by the conformance suite).
  bool energy_balance = false;
};

/// One registered backend.
struct BackendEntry {
  std::string_view name;                       ///< --backend value, e.g. "kinematic"
  std::string_view summary;                    ///< one line for --help / --list-backends
  /// Scene folder (under the scenes root, see cosim/scene/scene_locator.hpp) whose driven
  /// joints are exactly this backend's joints; used when --scene is not given.
  std::string_view default_scene;
  BackendCapabilities capabilities;
  std::span<const ParamSpec> (*param_specs)();  ///< declared parameters, in documentation order
  /// Builds the backend at t0_s [s] from resolved parameters (may throw ParamError for a
  /// combination of values that is invalid although each is in range).
  std::unique_ptr<Backend> (*make)(const Params& params, double t0_s);
  /// The length [s] of the backend's own scenario for these resolved parameters (the seed
  /// paper's run, one lap, a CSV's length): cosim-dynamics runs this long without --duration.
  /// Finite and > 0; may throw ParamError as `make` does (e.g. a CSV it cannot read).
  double (*natural_duration_s)(const Params& params);
  /// The scene that draws the model these resolved parameters choose, when it is not
  /// default_scene: the mujoco backend's model= file is its own scene (an MJCF or URDF the
  /// scene readers take). Null, or an empty path returned: default_scene.
  std::filesystem::path (*scene_for)(const Params& params);
};

/// All backends, sorted by name (a unit test asserts it).
std::span<const BackendEntry> backend_registry();

/// The entry named `name`. Throws util::BadInputError
/// "--backend: unknown backend 'x'; valid backends: a, b" otherwise. Never falls back to another one.
const BackendEntry& find_backend(std::string_view name);

}  // namespace cosim::dynamics::registry
