// Co-simulation FMUs of our own (tests/fmus/) unpacked, loaded and stepped through one
// interface: FMI 3.0's mass-spring-damper (Runge-Kutta inside) against the closed form of the
// damped oscillator, FMI 2.0's bouncing ball (impacts found exactly inside a step) against the
// geometric series of its impact times; refusals, errors while running and missing binaries
// and functions named.
#include "cosim/fmi/instance.hpp"

#include <cmath>
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

// An FMU of bin/fmus/ unpacked into a private folder, with its model description.
class Unpacked {
 public:
  explicit Unpacked(const std::string& fmu) : folder(platform::make_private_temp_dir("cosim-fmu-test.")) {
    ZipArchive zip(fs::path(COSIM_TEST_FMU_DIR) / fmu);
    zip.extract_all(folder);
    md = parse_model_description(zip.read(*zip.find("modelDescription.xml")), fmu + ":modelDescription.xml");
  }
  ~Unpacked() {
    std::error_code ec;
    fs::remove_all(folder, ec);
  }
  fs::path folder;
  ModelDescription md;
};

std::uint32_t vr(const ModelDescription& md, const std::string& name) { return md.find(name)->value_reference; }

// x(t) of m x'' + c x' + k x = 0 from x0 and v0 = 0, underdamped.
double damped(double t, double m, double k, double c, double x0) {
  const double w0 = std::sqrt(k / m), zeta = c / (2 * std::sqrt(k * m)), wd = w0 * std::sqrt(1 - zeta * zeta);
  return std::exp(-zeta * w0 * t) * (x0 * std::cos(wd * t) + zeta * w0 * x0 / wd * std::sin(wd * t));
}

TEST(FmuInstance, Fmi3MassSpringDamperFollowsTheClosedForm) {
  Unpacked fmu("msd3.fmu");
  std::vector<std::string> said;
  const auto instance = instantiate(fmu.folder, fmu.md, "msd3.fmu",
                                    [&](std::string_view, std::string_view, std::string_view m) { said.emplace_back(m); });
  const std::uint32_t k = vr(fmu.md, "k"), x = vr(fmu.md, "x");
  const double stiffness = 400;  // set, not the start value: ω0 = 20 rad/s
  instance->enter_initialization_mode(0, 10, std::nullopt);
  instance->set_float64(std::span(&k, 1), std::span(&stiffness, 1));
  instance->exit_initialization_mode();
  double worst = 0, value = 0;
  const double h = 0.01;
  for (int i = 0; i < 1000; ++i) {
    instance->do_step(i * h, h);
    instance->get_float64(std::span(&x, 1), std::span(&value, 1));
    worst = std::max(worst, std::abs(value - damped((i + 1) * h, 1, stiffness, 0.4, 0.1)));
  }
  // Classical RK4 at 1e-4 s with ω0 = 20 rad/s: a local error of about (ω0·dt)^5/120 of the
  // 0.1 m amplitude per step, 1e5 steps: ~3e-12 m; 1e-9 m leaves room for 1e5 steps' rounding.
  EXPECT_LT(worst, 1e-9);
  EXPECT_TRUE(said.empty());
}

// h(t) of a ball dropped from h0 at rest: the k-th flight (k >= 1) leaves the ground at
// t_k = t_1 + Σ_{j<k} 2·u·e^j/g with speed u·e^k, u = √(2 g h0), t_1 = √(2 h0/g).
double ball_height(double t, double g, double e, double h0) {
  const double u = std::sqrt(2 * g * h0), t1 = std::sqrt(2 * h0 / g);
  if (t <= t1) return h0 - 0.5 * g * t * t;
  double start = t1, speed = u * e;
  while (t > start + 2 * speed / g) {
    start += 2 * speed / g;
    speed *= e;
    if (speed < 1e-9) return 0;
  }
  return speed * (t - start) - 0.5 * g * (t - start) * (t - start);
}

TEST(FmuInstance, Fmi2BouncingBallFindsEveryImpactInsideItsSteps) {
  Unpacked fmu("bouncing_ball2.fmu");
  ASSERT_EQ(fmu.md.version, FmiVersion::v2);
  const auto instance = instantiate(fmu.folder, fmu.md, "bouncing_ball2.fmu", nullptr);
  const std::uint32_t e = vr(fmu.md, "e"), h = vr(fmu.md, "h"), bounces = vr(fmu.md, "bounces");
  const double restitution = 0.8;
  instance->enter_initialization_mode(0, 3, std::nullopt);
  instance->set_float64(std::span(&e, 1), std::span(&restitution, 1));
  instance->exit_initialization_mode();
  double worst = 0, value = 0;
  const double step = 0.01;  // impacts fall inside steps, never on one
  for (int i = 0; i < 300; ++i) {
    instance->do_step(i * step, step);
    instance->get_float64(std::span(&h, 1), std::span(&value, 1));
    worst = std::max(worst, std::abs(value - ball_height((i + 1) * step, 9.81, restitution, 1)));
  }
  // Both are exact formulas, the FMU's stepped through 300 communication points and 8 impacts:
  // what differs is rounding, ~1e-15 m per operation.
  EXPECT_LT(worst, 1e-12);
  // The impacts by 3 s, counted on the series: t_1 = √(2/g), then flights of 2·u·e^k/g.
  int impacts = 0;
  for (double t = std::sqrt(2 / 9.81), flight = 2 * std::sqrt(2 * 9.81) * restitution / 9.81; t <= 3;
       t += flight, flight *= restitution) {
    ++impacts;
  }
  instance->get_float64(std::span(&bounces, 1), std::span(&value, 1));
  EXPECT_EQ(value, impacts);
  EXPECT_EQ(impacts, 6);
}

TEST(FmuInstance, AnInstanceTheFmuRefusesIsNamedWithItsOwnWords) {
  Unpacked fmu3("msd3.fmu"), fmu2("bouncing_ball2.fmu");
  fmu3.md.token = "{another model}";
  fmu2.md.token = "{another model}";
  const auto error_of = [](const Unpacked& u, const std::string& name) {
    try {
      (void)instantiate(u.folder, u.md, name, [](std::string_view, std::string_view, std::string_view) {});
    } catch (const util::BadInputError& e) {
      return std::string(e.what());
    }
    return std::string("(instantiated)");
  };
  EXPECT_EQ(error_of(fmu3, "msd3.fmu"),
            "msd3.fmu: fmi3InstantiateCoSimulation returned no instance: instantiation token does not match this FMU's");
  EXPECT_EQ(error_of(fmu2, "ball.fmu"),
            "ball.fmu: fmi2Instantiate returned no instance: not this FMU's guid, or not co-simulation");
}

TEST(FmuInstance, AnErrorWhileRunningIsANumericalFailureWithTheFmusMessage) {
  Unpacked fmu("msd3.fmu");
  const auto instance = instantiate(fmu.folder, fmu.md, "msd3.fmu", nullptr);
  instance->enter_initialization_mode(0, std::nullopt, std::nullopt);
  instance->exit_initialization_mode();
  instance->do_step(0, 0.1);
  try {
    instance->do_step(0.5, 0.1);  // not where the FMU is
    ADD_FAILURE() << "stepped from the wrong time";
  } catch (const util::NumericalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "msd3.fmu: fmi3DoStep at t = 0.5 s returned Error: doStep from another time than the FMU's, or a step <= 0");
  }
}

TEST(FmuInstance, AMissingBinaryIsNamed) {
  Unpacked fmu("bouncing_ball2.fmu");
  fs::remove(fmu.folder / binary_path(FmiVersion::v2, "bouncing_ball"));
  try {
    (void)instantiate(fmu.folder, fmu.md, "ball.fmu", nullptr);
    ADD_FAILURE() << "instantiated";
  } catch (const util::BadInputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("ball.fmu: no binaries/"));
    EXPECT_THAT(e.what(), HasSubstr("bouncing_ball"));
    EXPECT_THAT(e.what(), HasSubstr("(the FMU has no binary for this platform)"));
  }
}

}  // namespace
}  // namespace cosim::fmi
