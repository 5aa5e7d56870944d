// The fmu backend: its default pendulum FMU keeps its energy (no damping) as a pendulum must;
// a mapping file scales and offsets an FMU's outputs into scene joints and leaves the rest as
// outputs; fmu.NAME=VALUE parameters reach the FMU or are refused naming the variable; the
// broken FMUs of tests/fmus/broken/ are refused or fail naming the FMU and the problem.
#include "cosim/dynamics/fmu/fmu_backend.hpp"

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/platform/paths.hpp"
#include "cosim/test/allocation_probe.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/test/scratch_dir.hpp"

namespace cosim::dynamics::fmu {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Backend> make(std::vector<std::string> cli) {
  return make_fmu_backend(Params::resolve("fmu", fmu_param_specs(), nullptr, cli), 0.0);
}

std::string test_fmu(const std::string& name) {
  return platform::utf8(platform::executable_path().parent_path() / "fmus" / name);  // tests/fmus, built beside
}

std::string error_of(std::vector<std::string> cli) {
  try {
    (void)make(std::move(cli));
  } catch (const ParamError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FmuBackend, TheDefaultPendulumKeepsItsEnergy) {
  const auto backend = make({});
  ASSERT_EQ(backend->joint_names(), std::vector<std::string>{"Pendulum/swing"});
  EXPECT_EQ(backend->output_names(), std::vector<std::string>{"swing_rate_rad_per_s"});
  EXPECT_EQ(backend->model_name(), "Pendulum");
  EXPECT_EQ(backend->joint_values()[0], 0.6) << "released at the FMU's start angle";
  // E = ½ I ω² + m g l (1 − cos θ), with the FMU's own I and m g l (its start values).
  const double inertia = 1.0 * 0.25 + 0.1 * 0.25 / 3, mgl = (1.0 * 0.5 + 0.1 * 0.25) * 9.81;
  const auto energy = [&] {
    const double theta = backend->joint_values()[0], omega = backend->outputs()[0];
    return 0.5 * inertia * omega * omega + mgl * (1 - std::cos(theta));
  };
  const double e0 = energy();
  double worst = 0, lowest = 0;
  for (int i = 1; i <= 500; ++i) {
    backend->advance_to(i * 0.02);
    worst = std::max(worst, std::abs(energy() - e0));
    lowest = std::min(lowest, backend->joint_values()[0]);
  }
  // RK4 at 1e-4 s on a pendulum of ω ≈ 4.5 rad/s: the energy drifts by ~(ω·dt)^4 relative per
  // period, far below 1e-9 of e0 (0.9 J) over 10 s; the swing reaches the other side.
  EXPECT_LT(worst, 1e-9 * e0);
  EXPECT_LT(lowest, -0.59);
  EXPECT_EQ(fmu_natural_duration_s(Params::resolve("fmu", fmu_param_specs(), nullptr, {})), 10.0);
}

class FmuBackendMapping : public test::ScratchDirTest {};

TEST_F(FmuBackendMapping, AMappingFileScalesAndOffsetsOutputsIntoJoints) {
  const auto mapping = write("msd.map", "# the mass drives a slider, in mm from 5 cm\nModel/slider = x 1000 50\n");
  const auto backend = make({"fmu=" + test_fmu("msd3.fmu"), "mapping=" + mapping.string(), "fmu.k=400"});
  ASSERT_EQ(backend->joint_names(), std::vector<std::string>{"Model/slider"});
  EXPECT_EQ(backend->output_names(), std::vector<std::string>{"v_m_per_s"}) << "the unmapped output";
  EXPECT_DOUBLE_EQ(backend->joint_values()[0], 1000 * 0.1 + 50);
  backend->advance_to(0.1);
  // The FMU's x at 0.1 s with k = 400 (ω0 = 20 rad/s, light damping): 0.1 cos(2) ≈ −0.0416 m.
  EXPECT_NEAR((backend->joint_values()[0] - 50) / 1000, 0.1 * std::cos(2.0), 2e-3);
  // Scale and offset may be left out: 1 and 0.
  const auto plain = make({"fmu=" + test_fmu("msd3.fmu"), "mapping=" + write("plain.map", "Model/slider = x\n").string()});
  EXPECT_EQ(plain->joint_values()[0], 0.1);
  EXPECT_THAT(error_of({"fmu=" + test_fmu("msd3.fmu"), "mapping=" + write("nan.map", "Model/slider = x 2 far\n").string()}),
              HasSubstr("nan.map:1: offset 'far' is not a finite number"));
  EXPECT_THAT(error_of({"fmu=" + test_fmu("msd3.fmu"), "mapping=" + write("bad.map", "Model/slider = m\n").string()}),
              HasSubstr("bad.map:1: variable 'm' is no Float64 or Float32 output (it is a Float64 parameter)"));
  EXPECT_THAT(error_of({"fmu=" + test_fmu("msd3.fmu"), "mapping=" + write("twice.map", "A/b = x\nA/b = v\n").string()}),
              HasSubstr("twice.map:2: joint 'A/b' mapped twice"));
}

TEST(FmuBackend, AdvanceDoesNotAllocateOnceRunning) {
  // The importer's step (fmi3DoStep and fmi3GetFloat64 on preallocated spans) and the FMU's.
  const auto backend = make({});
  backend->advance_to(0.02);
  const ::cosim::test::AllocationProbe probe;
  for (int k = 2; k <= 100; ++k) backend->advance_to(k * 0.02);
  EXPECT_EQ(probe.count(), 0u);
}

TEST(FmuBackend, TheSceneIsTheOneNamedAfterTheFmusModelWhenThereIsOne) {
  // The visual side's rule without --scene (Hello.model in lower case), so both sides agree.
  const auto scene_of = [](std::vector<std::string> cli) {
    return fmu_model_scene(Params::resolve("fmu", fmu_param_specs(), nullptr, cli));
  };
  EXPECT_EQ(scene_of({}).filename(), "pendulum");  // modelName "Pendulum"
  EXPECT_TRUE(std::filesystem::is_directory(scene_of({})));
  EXPECT_EQ(scene_of({"fmu=" + test_fmu("msd3.fmu")}), std::filesystem::path{});  // "MassSpringDamper": no such scene
}

TEST(FmuBackend, ParametersReachTheFmuOrAreRefusedNamingTheVariable) {
  const auto damped = make({"fmu.damping=2"});
  for (int i = 1; i <= 250; ++i) damped->advance_to(i * 0.02);
  EXPECT_LT(std::abs(damped->joint_values()[0]), 0.05) << "damped out within 5 s";
  EXPECT_EQ(error_of({"fmu.dampin=2"}),
            "parameter 'fmu.dampin' = '2': pendulum.fmu has no variable 'dampin' (its parameters and inputs: inertia, "
            "mgl, damping, start)");
  EXPECT_THAT(error_of({"fmu.damping=-1"}), HasSubstr("parameter 'fmu.damping' = '-1': outside [0, inf]"));
  EXPECT_THAT(error_of({"fmu.damping=lots"}), HasSubstr("not a finite number"));
  EXPECT_THAT(error_of({"fmu.swing_rate=1"}), HasSubstr("'swing_rate' is output, not a parameter or input"));
  EXPECT_THAT(error_of({"fmu=" + test_fmu("msd3.fmu")}),
              HasSubstr("msd3.fmu: no output is named as a scene joint (Model/joint)"));
  EXPECT_THAT(error_of({"fmu=/no/such.fmu"}), HasSubstr("parameter 'fmu' = '/no/such.fmu': no FMU at /no/such.fmu"));
}

// ---- the broken FMUs (tests/fmus/broken/broken.c): a clock whose Pendulum/swing is the time ----

TEST(FmuBackendBroken, AMissingFunctionIsRefusedBeforeInstantiating) {
  // The FMU's fmi3InstantiateCoSimulation refuses with another message if it is reached.
  EXPECT_EQ(error_of({"fmu=" + test_fmu("broken_no_do_step.fmu")}),
            "broken_no_do_step.fmu: its binary exports no fmi3DoStep (the standard requires every one of its functions)");
}

TEST(FmuBackendBroken, AZipEntryThatClimbsOutIsRefusedNamingIt) {
  const std::string fmu = test_fmu("broken_zip_entry.fmu");
  EXPECT_EQ(error_of({"fmu=" + fmu}), fmu + ": ../evil: a '..' component (it could climb out of the folder)");
}

TEST(FmuBackendBroken, AnOutputItsBinaryDoesNotHaveIsNamed) {
  EXPECT_EQ(error_of({"fmu=" + test_fmu("broken_lying.fmu")}),
            "broken_lying.fmu: its binary refuses the output 'ghost' (valueReference 7, modelDescription.xml line 19): "
            "fmi3GetFloat64 returned Error: no Float64 variable of value reference 7");
}

TEST(FmuBackendBroken, DiscardErrorAndFatalAreNumericalFailuresWithTheFmusMessage) {
  for (const std::string status : {"Discard", "Error", "Fatal"}) {
    std::string lower = status;
    lower[0] = static_cast<char>(std::tolower(lower[0]));
    const std::string name = "broken_" + lower + ".fmu";
    const auto backend = make({"fmu=" + test_fmu(name), "fmu.fail_at_s=0.1"});
    ASSERT_EQ(backend->output_names(), std::vector<std::string>{"steps"});
    for (int i = 1; i <= 5; ++i) backend->advance_to(i * 0.02);
    // Up to 0.1 s: ten steps of its default experiment's 0.01 s, the clock at the time.
    EXPECT_EQ(backend->outputs()[0], 10) << status;
    EXPECT_DOUBLE_EQ(backend->joint_values()[0], 0.1) << status;
    try {
      backend->advance_to(0.12);
      ADD_FAILURE() << name << " stepped past fail_at_s";
    } catch (const util::NumericalError& e) {
      // The FMU's message has two lines; the error is one.
      EXPECT_EQ(std::string(e.what()), name + ": fmi3DoStep at t = 0.1 s returned " + status +
                                           ": the clock broke at t = 0.1 s (step 11)");
    }
  }
}

TEST(FmuBackendBroken, AFixedStepFmuGetsExactlyItsStep) {
  // Its step only in fixedInternalStepSize (no default experiment's), 0.01 s; any other step
  // and the FMU returns Error, so a run without error proves every step was 0.01 s.
  const std::string fmu = "fmu=" + test_fmu("broken_fixed_step.fmu");
  const auto backend = make({fmu});
  for (int i = 1; i <= 10; ++i) backend->advance_to(i * 0.02);
  EXPECT_EQ(backend->outputs()[0], 20) << "0.2 s in steps of 0.01 s";
  try {
    backend->advance_to(0.2 + 1.0 / 30);
    ADD_FAILURE() << "advanced by 1/30 s";
  } catch (const ParamError& e) {
    EXPECT_THAT(e.what(), HasSubstr("broken_fixed_step.fmu takes communication steps of exactly 0.01 s "
                                    "(canHandleVariableCommunicationStepSize=false); the run advances by 0.0333333 s"));
  }
  EXPECT_EQ(error_of({fmu, "step_s=0.02"}),
            "parameter 'step_s' = 0.02: broken_fixed_step.fmu takes communication steps of 0.01 s only "
            "(canHandleVariableCommunicationStepSize=false)");
}

TEST(FmuBackendBroken, TheFmusLogReachesTheMessageSinkLineByLine) {
  const auto backend = make({"fmu=" + test_fmu("broken_discard.fmu"), "fmu.fail_at_s=0.02"});
  std::vector<std::string> lines;
  backend->set_message_sink([&](std::string_view line) { lines.emplace_back(line); });
  // Said while it was made (exit initialization mode): kept and given to the sink when set.
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "broken_discard.fmu: OK: logEvents: clock ready, failing from t = 0.02 s");
  backend->advance_to(0.02);
  EXPECT_THROW(backend->advance_to(0.04), util::NumericalError);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "broken_discard.fmu: Discard: logStatusError: the clock broke at t = 0.02 s (step 3)");
}

}  // namespace
}  // namespace cosim::dynamics::fmu
