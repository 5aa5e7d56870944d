#pragma once
/// @file
/// The Robotino geometry's backend parameters, declared once for every Robotino backend.

#include <span>
#include <string_view>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"

namespace cosim::dynamics::robotino_common {

/// wheel_radius_m, wheel_distance_m, roller_max_radius_m; defaults are those of
/// RobotinoGeometry (Robotino 2).
std::span<const ParamSpec> robotino_geometry_param_specs();

/// The RobotinoGeometry of resolved parameters that include robotino_geometry_param_specs().
/// Throws ParamError, naming `backend_name`, if roller_max_radius_m ≤ wheel_radius_m·(1 − cos 30°):
/// the rolling arm would reach zero at a roller switch.
RobotinoGeometry read_robotino_geometry(const Params& params, std::string_view backend_name);

}  // namespace cosim::dynamics::robotino_common
