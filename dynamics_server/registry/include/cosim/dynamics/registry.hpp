#pragma once
/// @file
/// The closed table of backends, sorted by name.

#include <memory>
#include <span>
#include <string_view>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics {

/// One registered backend.
struct BackendEntry {
  std::string_view name;                       ///< --backend value, e.g. "kinematic"
  std::string_view summary;                    ///< one line for --help / --list-backends
  std::span<const ParamSpec> (*param_specs)();  ///< declared parameters, in documentation order
  /// Builds the backend at t0_s [s] from resolved parameters (may throw ParamError for a
  /// combination of values that is invalid although each is in range).
  std::unique_ptr<Backend> (*make)(const Params& params, double t0_s);
};

/// All backends, sorted by name (a unit test asserts it).
std::span<const BackendEntry> backend_registry();

/// The entry named `name`. Throws std::invalid_argument
/// "unknown backend 'x'; valid backends: a, b" otherwise. Never falls back to another one.
const BackendEntry& find_backend(std::string_view name);

}  // namespace cosim::dynamics
