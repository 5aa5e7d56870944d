// The fmu backend: its default pendulum FMU keeps its energy (no damping) as a pendulum must;
// a mapping file scales and offsets an FMU's outputs into scene joints and leaves the rest as
// outputs; fmu.NAME=VALUE parameters reach the FMU or are refused naming the variable.
#include "cosim/dynamics/fmu/fmu_backend.hpp"

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/platform/paths.hpp"
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

}  // namespace
}  // namespace cosim::dynamics::fmu
