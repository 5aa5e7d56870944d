#pragma once
/// @file
/// The rose reference's backend parameters, declared once for every backend that follows it.

#include <span>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/reference/rose_reference.hpp"

namespace cosim::dynamics::reference {

/// rose_amplitude_m, rose_petals, rose_rate_rad_per_s, rose_phase_rad (seed 000 eqs. 24-25);
/// defaults are those of RoseParams.
std::span<const ParamSpec> rose_param_specs();

/// The RoseParams of resolved parameters that include rose_param_specs().
RoseParams read_rose_params(const Params& params);

}  // namespace cosim::dynamics::reference
