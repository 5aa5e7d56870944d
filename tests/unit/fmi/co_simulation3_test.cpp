// An FMI 3.0 co-simulation FMU of our own (tests/fmus/mass_spring_damper: Runge-Kutta inside)
// unpacked, loaded and stepped, against the closed form of the damped oscillator; a refused
// instantiation and a missing binary named.
#include "cosim/fmi/co_simulation3.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/fmi/zip_reader.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CoSimulation3Test : public ::testing::Test {
 protected:
  CoSimulation3Test() : folder_(platform::make_private_temp_dir("cosim-fmu-test.")) {
    ZipArchive fmu(fs::path(COSIM_TEST_FMU_DIR) / "msd3.fmu");
    fmu.extract_all(folder_);
    md_ = parse_model_description(fmu.read(*fmu.find("modelDescription.xml")), "msd3.fmu:modelDescription.xml");
  }
  ~CoSimulation3Test() override {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
  fs::path folder_;
  ModelDescription md_;
};

// x(t) of m x'' + c x' + k x = 0 from x0, v0 = 0, underdamped.
double closed_form(double t, double m, double k, double c, double x0) {
  const double w0 = std::sqrt(k / m), zeta = c / (2 * std::sqrt(k * m)), wd = w0 * std::sqrt(1 - zeta * zeta);
  return std::exp(-zeta * w0 * t) * (x0 * std::cos(wd * t) + zeta * w0 * x0 / wd * std::sin(wd * t));
}

TEST_F(CoSimulation3Test, SteppedItFollowsTheClosedFormOfTheDampedOscillator) {
  std::vector<std::string> said;
  CoSimulation3 fmu(folder_, md_, "msd3.fmu",
                    [&](fmi3::Status, std::string_view, std::string_view message) { said.emplace_back(message); });
  const fmi3::ValueReference k = md_.find("k")->value_reference, x = md_.find("x")->value_reference;
  const double stiffness = 400;  // set, not the start value: ω0 = 20 rad/s
  fmu.enter_initialization_mode(0, 10, std::nullopt);
  fmu.set_float64(std::span(&k, 1), std::span(&stiffness, 1));
  fmu.exit_initialization_mode();
  double worst = 0, value = 0;
  const double h = 0.01;
  for (int i = 0; i < 1000; ++i) {
    fmu.do_step(i * h, h);
    fmu.get_float64(std::span(&x, 1), std::span(&value, 1));
    worst = std::max(worst, std::abs(value - closed_form((i + 1) * h, 1, stiffness, 0.4, 0.1)));
  }
  // Classical RK4 at 1e-4 s with ω0 = 20 rad/s: a local error of about (ω0·dt)^5/120 of the
  // amplitude per step, 1e5 steps: ~3e-12 m; 1e-9 m leaves room for the rounding of 1e5 steps.
  EXPECT_LT(worst, 1e-9);
  EXPECT_TRUE(said.empty());
}

TEST_F(CoSimulation3Test, AnInstanceTheFmuRefusesIsNamedWithItsOwnWords) {
  md_.token = "{another model}";
  try {
    CoSimulation3 fmu(folder_, md_, "msd3.fmu", [](fmi3::Status, std::string_view, std::string_view) {});
    ADD_FAILURE() << "instantiated";
  } catch (const util::BadInputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "msd3.fmu: fmi3InstantiateCoSimulation returned no instance: instantiation token does not match this FMU's");
  }
}

TEST_F(CoSimulation3Test, AnErrorWhileRunningIsANumericalFailureWithTheFmusMessage) {
  CoSimulation3 fmu(folder_, md_, "msd3.fmu", nullptr);
  fmu.enter_initialization_mode(0, std::nullopt, std::nullopt);
  fmu.exit_initialization_mode();
  fmu.do_step(0, 0.1);
  try {
    fmu.do_step(0.5, 0.1);  // not where the FMU is
    ADD_FAILURE() << "stepped from the wrong time";
  } catch (const util::NumericalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "msd3.fmu: fmi3DoStep at t = 0.5 s returned Error: doStep from another time than the FMU's, or a step <= 0");
  }
}

TEST_F(CoSimulation3Test, AMissingBinaryIsNamed) {
  fs::remove(folder_ / fmi3_binary("msd"));
  EXPECT_THROW(
      {
        try {
          CoSimulation3 fmu(folder_, md_, "msd3.fmu", nullptr);
        } catch (const util::BadInputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("msd3.fmu: no binaries/"));
          EXPECT_THAT(e.what(), HasSubstr("(the FMU has no binary for this platform)"));
          throw;
        }
      },
      util::BadInputError);
}

}  // namespace
}  // namespace cosim::fmi
