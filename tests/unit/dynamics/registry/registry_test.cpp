#include "cosim/dynamics/registry/registry.hpp"

#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cosim::dynamics::registry
