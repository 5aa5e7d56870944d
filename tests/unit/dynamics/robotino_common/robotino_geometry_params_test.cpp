// The Robotino geometry's shared parameter declarations: defaults are RobotinoGeometry's,
// reading gives the geometry, and a roller thinner than its sag is refused naming the backend.
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cosim::dynamics::robotino_common {
namespace {

using ::testing::HasSubstr;

Params resolve(const std::vector<std::string>& cli) {
  return Params::resolve("test", robotino_geometry_param_specs(), nullptr, cli);
}

TEST(RobotinoGeometryParams, SpecDefaultsAreTheStructDefaults) {
  const RobotinoGeometry read = read_robotino_geometry(resolve({}), "test");
  const RobotinoGeometry defaults;
  EXPECT_EQ(read.wheel_radius_m, defaults.wheel_radius_m);
  EXPECT_EQ(read.wheel_distance_m, defaults.wheel_distance_m);
  EXPECT_EQ(read.roller_max_radius_m, defaults.roller_max_radius_m);
}

TEST(RobotinoGeometryParams, OverridesReachEveryField) {
  const RobotinoGeometry read = read_robotino_geometry(
      resolve({"wheel_radius_m=0.05", "wheel_distance_m=0.2", "roller_max_radius_m=0.02"}), "test");
  EXPECT_EQ(read.wheel_radius_m, 0.05);
  EXPECT_EQ(read.wheel_distance_m, 0.2);
  EXPECT_EQ(read.roller_max_radius_m, 0.02);
}

TEST(RobotinoGeometryParams, RollerThinnerThanItsSagIsAParamErrorNamingTheBackend) {
  // Rw(1 − cos 30°) = 0.04 · 0.134 = 5.36 mm: a 5 mm roller would reach r_roll = 0.
  const Params params = resolve({"roller_max_radius_m=0.005"});
  try {
    (void)read_robotino_geometry(params, "somebackend");
    FAIL() << "no exception";
  } catch (const ParamError& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("backend somebackend: roller_max_radius_m = 0.005 m must exceed "
                          "wheel_radius_m * (1 - cos 30 deg) = 0.005358983848622"));
  }
  // Just above the sag is accepted.
  EXPECT_NO_THROW((void)read_robotino_geometry(resolve({"roller_max_radius_m=0.0054"}), "somebackend"));
}

}  // namespace
}  // namespace cosim::dynamics::robotino_common
