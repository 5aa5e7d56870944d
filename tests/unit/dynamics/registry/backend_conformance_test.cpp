// One conformance suite for every registered backend (STYLE 11): each backend in
// backend_registry() is built with default parameters and must pass every test here.
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cosim/dynamics/registry/registry.hpp"
#include "registered_names.hpp"

namespace cosim::dynamics::registry {
namespace {

class BackendConformance : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr double kFps = 50.0;
  static constexpr int kFrames = 500;  // 10 s

  std::unique_ptr<Backend> make(double t0_s = 0.0) const {
    const BackendEntry& entry = find_backend(GetParam());
    return entry.make(Params::resolve(entry.name, entry.param_specs(), nullptr, {}), t0_s);
  }

  // Joint values and outputs at every frame, concatenated.
  std::vector<double> trace() const {
    auto b = make();
    std::vector<double> all;
    for (int k = 1; k <= kFrames; ++k) {
      b->advance_to(k / kFps);
      all.insert(all.end(), b->joint_values().begin(), b->joint_values().end());
      all.insert(all.end(), b->outputs().begin(), b->outputs().end());
    }
    return all;
  }
};

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendConformance, ::testing::ValuesIn(registered_names()),
                         [](const auto& info) { return info.param; });

TEST_P(BackendConformance, DeclaresNamesAndSizes) {
  auto b = make();
  EXPECT_EQ(b->name(), GetParam());
  EXPECT_FALSE(b->model_name().empty());
  ASSERT_FALSE(b->joint_names().empty());
  EXPECT_EQ(b->joint_values().size(), b->joint_names().size());
  EXPECT_EQ(b->outputs().size(), b->output_names().size());
  const std::set<std::string> joints(b->joint_names().begin(), b->joint_names().end());
  EXPECT_EQ(joints.size(), b->joint_names().size()) << "joint names are unique";
  for (const auto& joint : b->joint_names()) {
    EXPECT_EQ(joint.rfind(b->model_name() + "/", 0), 0u) << joint << " is scoped by the model";
  }
  for (const auto& output : b->output_names()) {
    EXPECT_EQ(output.find_first_of(" ,\"\n"), std::string::npos) << "'" << output << "' is a CSV column";
    EXPECT_NE(output, "t_s");
  }
}

TEST_P(BackendConformance, JointListStableAndTimeMonotonic) {
  auto b = make();
  const std::vector<std::string> joints = b->joint_names();
  const std::vector<std::string> outputs = b->output_names();
  const double* storage = b->joint_values().data();
  double last = b->time_s();
  for (int k = 1; k <= kFrames; ++k) {
    const double t = k / kFps;
    b->advance_to(t);
    ASSERT_EQ(b->time_s(), t);
    ASSERT_GT(b->time_s(), last);
    last = b->time_s();
    ASSERT_EQ(b->joint_names(), joints);
    ASSERT_EQ(b->output_names(), outputs);
    ASSERT_EQ(b->joint_values().data(), storage) << "state is preallocated, not reallocated";
  }
}

TEST_P(BackendConformance, OutputsAndJointsFiniteFromStartOver10s) {
  auto b = make();
  const auto check = [&] {
    for (std::size_t i = 0; i < b->joint_values().size(); ++i) {
      ASSERT_TRUE(std::isfinite(b->joint_values()[i])) << b->joint_names()[i] << " at " << b->time_s();
    }
    for (std::size_t i = 0; i < b->outputs().size(); ++i) {
      ASSERT_TRUE(std::isfinite(b->outputs()[i])) << b->output_names()[i] << " at " << b->time_s();
    }
  };
  check();  // the constructor sets every initial output
  for (int k = 1; k <= kFrames; ++k) {
    b->advance_to(k / kFps);
    check();
  }
}

TEST_P(BackendConformance, DeterministicRerunIsBitwiseEqual) {
  const std::vector<double> a = trace();
  const std::vector<double> b = trace();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0) << i;
  }
}

TEST_P(BackendConformance, RejectsTimesNotLaterOrNotFinite) {
  auto b = make(1.0);
  EXPECT_EQ(b->time_s(), 1.0);
  EXPECT_THROW(b->advance_to(1.0), std::invalid_argument);
  EXPECT_THROW(b->advance_to(0.5), std::invalid_argument);
  EXPECT_THROW(b->advance_to(std::nan("")), std::invalid_argument);
  EXPECT_THROW(b->advance_to(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_EQ(b->time_s(), 1.0);
  b->advance_to(1.02);  // still usable after rejected calls
  EXPECT_EQ(b->time_s(), 1.02);
}

TEST_P(BackendConformance, TinyAndLargeStepsWork) {
  auto b = make();
  b->advance_to(1e-9);
  b->advance_to(std::nextafter(1e-9, 1.0));
  b->advance_to(3.0);
  for (const double v : b->outputs()) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace cosim::dynamics::registry
