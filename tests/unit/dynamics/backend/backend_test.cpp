// The checked entry point of the Backend base class, with minimal fake backends.
#include "cosim/dynamics/backend.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/util/errors.hpp"

namespace cosim::dynamics {
namespace {

using ::testing::HasSubstr;

// q = (t, 2t); one output = t. Goes non-finite in joint or output after `bad_after_s`.
class FakeBackend final : public Backend {
 public:
  enum class Fault { kNone, kJoint, kOutput };
  explicit FakeBackend(Fault fault = Fault::kNone, double t0_s = 0.0)
      : Backend("fake", "Model", {"Model/a", "Model/b"}, {"a_m"}, t0_s), fault_(fault) {
    mutable_outputs()[0] = t0_s;
  }
  int calls = 0;

 private:
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override {
    ++calls;
    q[0] = t_s;
    q[1] = 2 * t_s;
    outputs[0] = t_s;
    if (t_s > 1.0 && fault_ == Fault::kJoint) q[1] = std::numeric_limits<double>::quiet_NaN();
    if (t_s > 1.0 && fault_ == Fault::kOutput) outputs[0] = std::numeric_limits<double>::infinity();
  }
  Fault fault_;
};

class NoJoints final : public Backend {
 public:
  NoJoints() : Backend("nojoints", "M", {}, {}, 0.0) {}

 private:
  void do_advance_to(double, std::span<double>, std::span<double>) override {}
};

class DuplicateJoints final : public Backend {
 public:
  DuplicateJoints() : Backend("dup", "M", {"M/a", "M/a"}, {}, 0.0) {}

 private:
  void do_advance_to(double, std::span<double>, std::span<double>) override {}
};

// Says its joints' kinds: `kinds` as given (one per joint or not).
class KindsBackend final : public Backend {
 public:
  explicit KindsBackend(std::vector<JointKind> kinds) : Backend("kinds", "M", {"M/a", "M/b"}, {}, 0.0) {
    set_joint_kinds(std::move(kinds));
  }

 private:
  void do_advance_to(double, std::span<double>, std::span<double>) override {}
};

TEST(Backend, JointKindsAreUnknownUnlessTheBackendSaysThem) {
  const FakeBackend fake;
  const std::span<const JointKind> unsaid = fake.joint_kinds();
  EXPECT_EQ(std::vector<JointKind>(unsaid.begin(), unsaid.end()),
            (std::vector<JointKind>{JointKind::unknown, JointKind::unknown}));
  const KindsBackend said({JointKind::prismatic, JointKind::revolute});
  EXPECT_EQ(said.joint_kinds()[0], JointKind::prismatic);
  EXPECT_EQ(said.joint_kinds()[1], JointKind::revolute);
  EXPECT_STREQ(joint_kind_name(JointKind::prismatic), "prismatic");
  EXPECT_STREQ(joint_kind_name(JointKind::revolute), "revolute");
  EXPECT_STREQ(joint_kind_name(JointKind::unknown), "unknown");
  try {
    KindsBackend({JointKind::revolute});
    ADD_FAILURE() << "one kind for two joints";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("backend kinds: 1 joint kinds for 2 joints"));
  }
}

TEST(Backend, AdvanceUpdatesTimeAndState) {
  FakeBackend b;
  EXPECT_EQ(b.time_s(), 0.0);
  b.advance_to(0.5);
  EXPECT_EQ(b.time_s(), 0.5);
  EXPECT_EQ(b.joint_values()[1], 1.0);
  EXPECT_EQ(b.outputs()[0], 0.5);
  EXPECT_EQ(b.calls, 1);
}

TEST(Backend, RejectsTimesNotLaterOrNotFiniteWithBothTimes) {
  FakeBackend b(FakeBackend::Fault::kNone, 2.0);
  for (const double bad : {2.0, 1.0, std::nan(""), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()}) {
    try {
      b.advance_to(bad);
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr("time_s() = 2")) << e.what();
      EXPECT_THAT(std::string(e.what()), HasSubstr("advance_to(t_s = ")) << e.what();
    }
  }
  EXPECT_EQ(b.calls, 0) << "the derived step must not run on bad input";
  EXPECT_EQ(b.time_s(), 2.0);
  b.advance_to(std::nextafter(2.0, 3.0));  // the smallest later time is fine
}

TEST(Backend, NonFiniteJointIsABackendErrorNamingJointAndTime) {
  FakeBackend b(FakeBackend::Fault::kJoint);
  b.advance_to(1.0);
  try {
    b.advance_to(1.25);
    FAIL() << "no exception";
  } catch (const BackendError& e) {
    EXPECT_EQ(std::string(e.what()),
              "backend fake: joint 'Model/b' = nan at t_s = 1.25 (advancing from 1)");
  }
}

TEST(Backend, NonFiniteOutputIsABackendErrorNamingOutput) {
  FakeBackend b(FakeBackend::Fault::kOutput);
  try {
    b.advance_to(3.0);
    FAIL() << "no exception";
  } catch (const BackendError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("output 'a_m' = inf at t_s = 3"));
  }
}

TEST(Backend, BackendErrorIsANumericalFailureForTheProcess) {
  FakeBackend b(FakeBackend::Fault::kJoint);
  try {
    b.advance_to(2.0);
    FAIL() << "no exception";
  } catch (const util::NumericalError& e) {  // what main() sees: exit code 5
    EXPECT_EQ(e.exit_code(), util::kExitNumerical);
    EXPECT_NE(dynamic_cast<const BackendError*>(&e), nullptr);
  }
}

TEST(Backend, ConstructorRejectsBadDeclarations) {
  EXPECT_THROW(NoJoints{}, std::invalid_argument);
  EXPECT_THROW(DuplicateJoints{}, std::invalid_argument);
  EXPECT_THROW(FakeBackend(FakeBackend::Fault::kNone, std::nan("")), std::invalid_argument);
}

TEST(Backend, IndexLookupNamesMissingEntries) {
  FakeBackend b;
  EXPECT_EQ(b.joint_index("Model/b"), 1u);
  EXPECT_EQ(b.output_index("a_m"), 0u);
  try {
    (void)b.joint_index("Model/c");
    FAIL() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("'Model/c'; joints: Model/a, Model/b"));
  }
  EXPECT_THROW((void)b.output_index("b_m"), std::out_of_range);
}

}  // namespace
}  // namespace cosim::dynamics
