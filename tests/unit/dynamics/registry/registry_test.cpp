#include "cosim/dynamics/registry/registry.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/dynamics/mecanum3vw/mecanum3vw_model.hpp"
#include "cosim/dynamics/trajectory/trajectory_backend.hpp"
#include "cosim/test/scratch_dir.hpp"

namespace cosim::dynamics::registry {
namespace {

using ::testing::HasSubstr;

TEST(Registry, SortedByNameWithoutDuplicates) {
  const auto registry = backend_registry();
  ASSERT_FALSE(registry.empty());
  for (std::size_t i = 1; i < registry.size(); ++i) {
    EXPECT_LT(registry[i - 1].name, registry[i].name) << "keep the registry sorted by name";
  }
}

TEST(Registry, FindBackendReturnsTheNamedEntry) {
  for (const BackendEntry& entry : backend_registry()) {
    EXPECT_EQ(&find_backend(entry.name), &entry);
  }
  EXPECT_EQ(find_backend("kinematic").name, "kinematic");
}

TEST(Registry, UnknownNameListsValidBackends) {
  std::string valid;
  for (const BackendEntry& entry : backend_registry()) {
    valid += (valid.empty() ? "" : ", ") + std::string(entry.name);
  }
  try {
    (void)find_backend("robotin");
    FAIL() << "no exception";
  } catch (const util::BadInputError& e) {
    EXPECT_EQ(std::string(e.what()), "--backend: unknown backend 'robotin'; valid backends: " + valid);
    EXPECT_EQ(e.exit_code(), util::kExitBadInput);
  }
  EXPECT_THROW((void)find_backend(""), util::BadInputError);
  EXPECT_THROW((void)find_backend("Kinematic"), util::BadInputError);  // names are exact
}

TEST(Registry, EveryEntryIsDocumented) {
  for (const BackendEntry& entry : backend_registry()) {
    SCOPED_TRACE(std::string(entry.name));
    EXPECT_FALSE(entry.summary.empty());
    EXPECT_EQ(entry.summary.find('\n'), std::string_view::npos) << "summary is one line";
    ASSERT_NE(entry.param_specs, nullptr);
    ASSERT_NE(entry.make, nullptr);
    for (const ParamSpec& spec : entry.param_specs()) {
      SCOPED_TRACE(spec.key);
      EXPECT_FALSE(spec.unit.empty());
      EXPECT_FALSE(spec.doc.empty());
      EXPECT_FALSE(spec.source.empty());
      EXPECT_LE(spec.min_value, spec.default_value);
      EXPECT_LE(spec.default_value, spec.max_value);
    }
  }
}

TEST(Registry, MakeWithDefaultsGivesBackendOfThatName) {
  for (const BackendEntry& entry : backend_registry()) {
    const Params params = Params::resolve(entry.name, entry.param_specs(), nullptr, {});
    const auto backend = entry.make(params, 0.0);
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(backend->name(), entry.name);
  }
}

TEST(Registry, KinematicRejectsRollerThinnerThanItsSag) {
  // Rw(1 − cos 30°) = 0.04 · 0.134 = 5.36 mm: a 5 mm roller would reach r_roll = 0.
  const BackendEntry& entry = find_backend("kinematic");
  const std::vector<std::string> cli{"roller_max_radius_m=0.005"};
  const Params params = Params::resolve(entry.name, entry.param_specs(), nullptr, cli);
  try {
    (void)entry.make(params, 0.0);
    FAIL() << "no exception";
  } catch (const ParamError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("roller_max_radius_m = 0.005 m must exceed"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("wheel_radius_m"));
  }
}

// Natural durations: what cosim-dynamics runs without --duration (BackendEntry::natural_duration_s).

double natural_duration_s(std::string_view backend, const std::vector<std::string>& cli = {}) {
  const BackendEntry& entry = find_backend(backend);
  return entry.natural_duration_s(Params::resolve(entry.name, entry.param_specs(), nullptr, cli));
}

TEST(Registry, EveryBackendHasAFinitePositiveNaturalDurationForItsDefaults) {
  for (const BackendEntry& entry : backend_registry()) {
    SCOPED_TRACE(std::string(entry.name));
    ASSERT_NE(entry.natural_duration_s, nullptr);
    const double duration_s = natural_duration_s(entry.name);
    EXPECT_TRUE(std::isfinite(duration_s));
    EXPECT_GT(duration_s, 0.0);
  }
}

TEST(Registry, NaturalDurationsAreTheRunsOfTheSeeds) {
  EXPECT_EQ(natural_duration_s("robotino"), 50.0);  // seed 000's rose (robotino MODEL.md §7)
  EXPECT_EQ(natural_duration_s("kinematic"), 50.0);  // the same rose
  EXPECT_EQ(natural_duration_s("mecanum4"), 10.0);  // seed 002's manoeuvre
  EXPECT_EQ(natural_duration_s("omniwheel"), 10.0);  // seed 004 §5.3
  // mecanum3vw: one lap of the circle, one figure-eight; the reference is back at its start.
  for (const char* path : {"circle", "eight"}) {
    SCOPED_TRACE(path);
    const double duration_s = natural_duration_s("mecanum3vw", {std::string("path=") + path});
    mecanum3vw::PathParams p;
    p.path = std::string(path) == "circle" ? mecanum3vw::Path::kCircle : mecanum3vw::Path::kEight;
    const mecanum3vw::PathSample start = mecanum3vw::path_at(p, 0.0), end = mecanum3vw::path_at(p, duration_s);
    EXPECT_NEAR(end.q.x(), start.q.x(), 1e-12);
    EXPECT_NEAR(end.q.y(), start.q.y(), 1e-12);
    EXPECT_NEAR(mecanum3vw::path_at(p, 0.5 * duration_s).q.x(), -start.q.x(), 1e-12) << "not a shorter period";
  }
  EXPECT_NEAR(natural_duration_s("mecanum3vw"), 15.708, 5e-4);  // spec B.3
  EXPECT_NEAR(natural_duration_s("mecanum3vw", {"path=eight", "path_rate_rad_per_s=0.2"}), 62.832, 5e-4);
}

class NaturalDurationOfACsv : public cosim::test::ScratchDirTest {};

TEST_F(NaturalDurationOfACsv, TrajectoryLastsUntilItsLastRow) {
  const std::string csv = write("arm.csv", "t_s,Arm/shoulder\n0,0\n1.5,1\n3.25,0\n").string();
  EXPECT_EQ(natural_duration_s("trajectory", {"trajectory=" + csv}), 3.25);
  EXPECT_EQ(natural_duration_s("trajectory", {"trajectory=" + csv, "loop=1"}), 3.25) << "one period";
  const std::string late = write("late.csv", "t_s,Arm/shoulder\n1,0\n4,1\n").string();
  EXPECT_EQ(natural_duration_s("trajectory", {"trajectory=" + late}), 4.0) << "held until 1 s, then played";
  const std::string before = write("before.csv", "t_s,Arm/shoulder\n-2,0\n-0.5,1\n").string();
  EXPECT_EQ(natural_duration_s("trajectory", {"trajectory=" + before}), 1.5) << "wholly before 0: its span";
  // The default: the shipped circle, as long as its own last row.
  const BackendEntry& entry = find_backend("trajectory");
  const auto backend = entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, {}), 0.0);
  const auto& played = dynamic_cast<const trajectory::TrajectoryBackend&>(*backend).trajectory();
  EXPECT_EQ(natural_duration_s("trajectory"), played.times_s().back());
  EXPECT_EQ(natural_duration_s("trajectory"), 20.0);  // scenes/robotino/trajectories/circle.csv
  EXPECT_THROW((void)natural_duration_s("trajectory", {"trajectory=" + (dir_ / "none.csv").string()}), ParamError);
}

#ifdef COSIM_HAVE_MUJOCO
TEST_F(NaturalDurationOfACsv, MujocoLastsItsReferenceOrTenSeconds) {
  EXPECT_EQ(natural_duration_s("mujoco"), 10.0) << "no reference: the stated default";
  const std::string csv = write("ref.csv", "t_s,motor\n0,0\n2.5,1\n6,0\n").string();
  EXPECT_EQ(natural_duration_s("mujoco", {"trajectory=" + csv}), 6.0);
  EXPECT_THROW((void)natural_duration_s("mujoco", {"trajectory=" + write("bad.csv", "t_s,motor\n1,x\n").string()}),
               ParamError);
}
#endif

}  // namespace
}  // namespace cosim::dynamics::registry
