#pragma once
// The name of every registered backend, for suites instantiated once per backend.

#include "cosim/dynamics/registry/registry.hpp"

#include <string>
#include <vector>

namespace cosim::dynamics::registry {

inline std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const BackendEntry& entry : backend_registry()) names.emplace_back(entry.name);
  return names;
}

}  // namespace cosim::dynamics::registry
