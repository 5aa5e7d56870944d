#pragma once

#include "options.hpp"

namespace cosim::dynamics {

/// Runs cosim-dynamics as configured: backend, scene, run folder, optional visual peer,
/// frame loop in the requested mode. Everything that goes wrong is caught here, once, and
/// ends as one line on stderr, an entry in dynamics.log and run.json, and the returned exit
/// code (util::ExitCode); what was written before the failure stays written.
int run_dynamics(const DynamicsOptions& options);

}  // namespace cosim::dynamics
