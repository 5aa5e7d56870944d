#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"

#include <array>
#include <cmath>
#include <string>

#include "cosim/dynamics/format_number.hpp"

namespace cosim::dynamics::robotino_common {

std::span<const ParamSpec> robotino_geometry_param_specs() {
  const RobotinoGeometry defaults;
  static const std::array<ParamSpec, 3> specs{{
      {"wheel_radius_m", defaults.wheel_radius_m, 0.005, 1.0, "m", "omni wheel radius Rw",
       "openrobotino api2 OmniDriveModel.h (Robotino 2)"},
      {"wheel_distance_m", defaults.wheel_distance_m, 0.01, 10.0, "m",
       "distance R from the chassis centre C to each wheel centre",
       "openrobotino api2 OmniDriveModel.h (Robotino 2)"},
      {"roller_max_radius_m", defaults.roller_max_radius_m, 0.0005, 0.5, "m",
       "roller radius r_max at its widest point; r_roll = r_max - Rw(1 - cos theta_b)",
       "assumption (seed 000 §3.2 gives no value)"},
  }};
  return specs;
}

RobotinoGeometry read_robotino_geometry(const Params& params, std::string_view backend_name) {
  RobotinoGeometry geometry;
  geometry.wheel_radius_m = params.get("wheel_radius_m");
  geometry.wheel_distance_m = params.get("wheel_distance_m");
  geometry.roller_max_radius_m = params.get("roller_max_radius_m");
  if (!(robotino_min_rolling_arm_m(geometry) > 0.0)) {
    const double needed = geometry.wheel_radius_m * (1.0 - std::cos(kRobotinoRollerPitch_rad / 2));
    throw ParamError("backend " + std::string(backend_name) + ": roller_max_radius_m = " +
                     format_number(geometry.roller_max_radius_m) +
                     " m must exceed wheel_radius_m * (1 - cos 30 deg) = " + format_number(needed) +
                     " m, or the rolling arm reaches zero at a roller switch");
  }
  return geometry;
}

}  // namespace cosim::dynamics::robotino_common
