// The Robotino in MuJoCo, driven by the model-defined robotino_rose controller, against the
// robotino backend (the bond-graph DAE with ideal rolling constraints): its path differs from
// the DAE's by no more than what its contacts slip, its drives track eq. 22, and a model that
// asks for the controller without what it drives is refused.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "robotino_mujoco_support.hpp"

namespace cosim::dynamics {
using mujoco::make_mujoco_backend;
using mujoco::mujoco_param_specs;
using robotino::make_robotino_backend;
using robotino_common::kRobotinoJointCount;
using robotino_common::read_robotino_geometry;
using robotino_common::robotino_joint_names;

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::unique_ptr<Backend> make_robotino_mujoco(const std::string& model = kRobotinoMjcf) {
  const std::vector<std::string> cli{"model=" + model};
  return make_mujoco_backend(Params::resolve("mujoco", mujoco_param_specs(), nullptr, cli), 0.0);
}

TEST(RobotinoMujoco, ItsPathDiffersFromTheDaesByNoMoreThanItsContactsSlip) {
  // The DAE rolls without slip and follows the rose to 1e-7 m; MuJoCo's soft contacts creep. A
  // rolling robot's position error is what its wheels slip: the chassis velocity from the wheel
  // speeds through the inverse of eq. 22 has gains below 1 per unit of slip speed for three
  // wheels 120° apart (‖J⁻¹‖·Rw = √(2/3)), so |Δ(x, y)| stays under ∫ Σ_i |slip_i| dt, the
  // slips being the no-slip residuals v_C·y_i + R·Ω + Rw·ω_i MuJoCo's run reports (sampled at
  // 2 ms, 10 MuJoCo steps). The heading, δφ̇ = Σ slip_i/(3R) at equal wheel speeds, is bounded
  // the same way with a factor 2 for what the PID's reaction to the heading adds.
  const auto mujoco = make_robotino_mujoco();
  const auto dae = make_robotino_backend(default_robotino_params(), 0.0);
  const std::size_t dx = mujoco->output_index("dx_m");
  const std::size_t slip1 = mujoco->output_index("slip1_m_per_s");
  const double big_r = read_robotino_geometry(default_robotino_params(), "robotino").wheel_distance_m;
  double slip_budget_m = 0.0, worst_position_m = 0.0, worst_ratio = 0.0, worst_heading_ratio = 0.0;
  constexpr double kDt_s = 2e-3;
  for (int k = 1; k * kDt_s <= 3.0 + 1e-12; ++k) {
    mujoco->advance_to(k * kDt_s);
    dae->advance_to(k * kDt_s);
    const auto o = mujoco->outputs();
    for (std::size_t i = 0; i < 3; ++i) slip_budget_m += kDt_s * std::abs(o[slip1 + i]);
    // Against the DAE's pose (joint values x, y, phi), not only the reference.
    const double ex = mujoco->joint_values()[0] - dae->joint_values()[0];
    const double ey = mujoco->joint_values()[1] - dae->joint_values()[1];
    const double ephi = mujoco->joint_values()[2] - dae->joint_values()[2];
    worst_position_m = std::max(worst_position_m, std::hypot(ex, ey));
    worst_ratio = std::max(worst_ratio, std::hypot(ex, ey) / slip_budget_m);
    worst_heading_ratio = std::max(worst_heading_ratio, std::abs(ephi) / (2.0 * slip_budget_m / (3.0 * big_r)));
    // The reported deviations are the pose less the reference.
    ASSERT_NEAR(o[dx], mujoco->joint_values()[0] - dae->outputs()[dae->output_index("x_ref_m")], 1e-12);
  }
  EXPECT_LE(worst_ratio, 1.0) << "position off by more than the slip allows";
  EXPECT_LE(worst_heading_ratio, 1.0) << "heading off by more than the slip allows";
  // The slip itself is small: a tenth of a percent of the ~3 m driven would be 3e-3 m per wheel.
  EXPECT_LT(slip_budget_m, 0.05);
  RecordProperty("worst_position_m", std::to_string(worst_position_m));
  RecordProperty("worst_position_over_slip", std::to_string(worst_ratio));
  RecordProperty("worst_heading_over_slip", std::to_string(worst_heading_ratio));
  RecordProperty("slip_budget_m", std::to_string(slip_budget_m));
}

TEST(RobotinoMujoco, TheDrivesTrackTheirReferenceWheelSpeeds) {
  // The same PID as robotino's (poles near −600 s⁻¹, feed-forward of the reference's load).
  // After the first 0.2 s (the currents building up from 0 and the chassis settling onto its
  // contacts) the wheel speeds follow eq. 22 to 0.0024 rad/s rms, the contact chatter the loop
  // answers; the bound, 0.02 rad/s (0.15 % of the largest reference speed, 13.7 rad/s), is a
  // regression bound with a factor 8: the path itself is checked against robotino above.
  const auto mujoco = make_robotino_mujoco();
  const std::size_t omega = mujoco->output_index("omega1_rad_per_s");
  const std::size_t omega_ref = mujoco->output_index("omega_ref1_rad_per_s");
  double sum_sq = 0.0;
  int n = 0;
  for (int k = 1; k * 0.01 <= 2.0 + 1e-12; ++k) {
    mujoco->advance_to(k * 0.01);
    if (k * 0.01 < 0.2) continue;
    for (std::size_t i = 0; i < 3; ++i) {
      const double e = mujoco->outputs()[omega + i] - mujoco->outputs()[omega_ref + i];
      sum_sq += e * e;
      ++n;
    }
  }
  const double rms = std::sqrt(sum_sq / n);
  EXPECT_LT(rms, 0.02);
  RecordProperty("wheel_speed_rms_error_rad_per_s", std::to_string(rms));
}

TEST(RobotinoMujoco, AModelAskingForTheControllerWithoutItsDrivesIsRefused) {
  const std::string dir = ::testing::TempDir();
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return path;
  };
  const std::string no_drives = write("no_drives.xml", R"(
<mujoco model="Robotino">
  <custom><text name="cosim.controller" data="robotino_rose"/></custom>
  <worldbody><body name="c">
    <joint name="x" type="slide" axis="1 0 0"/><joint name="y" type="slide" axis="0 1 0"/>
    <joint name="phi" type="hinge" axis="0 0 1"/>
    <geom type="sphere" size="0.1"/>
  </body></worldbody>
</mujoco>)");
  EXPECT_THAT(param_error([&] { make_robotino_mujoco(no_drives); }), HasSubstr("needs a hinge joint 'axle1'"));
  const std::string unknown = write("unknown.xml", R"(
<mujoco model="M">
  <custom><text name="cosim.controller" data="pid"/></custom>
  <worldbody><body><joint name="j"/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>)");
  EXPECT_THAT(param_error([&] { make_robotino_mujoco(unknown); }), HasSubstr("the controllers are: robotino_rose"));
  const std::string bad_param = write("bad_param.xml", R"(
<mujoco model="M">
  <custom><text name="cosim.controller" data="robotino_rose"/>
    <numeric name="cosim.robotino.pid_kp" data="7"/></custom>
  <worldbody><body><joint name="j"/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>)");
  EXPECT_THAT(param_error([&] { make_robotino_mujoco(bad_param); }),
              AllOf(HasSubstr("bad_param.xml"), HasSubstr("pid_kp")));
  const std::string internal = write("internal.xml", R"(
<mujoco model="M">
  <custom><text name="cosim.internal_joints" data="z, w"/></custom>
  <worldbody><body><joint name="z" type="slide"/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>)");
  EXPECT_THAT(param_error([&] { make_robotino_mujoco(internal); }),
              HasSubstr("names joint 'w', which the model does not have"));
}

TEST(RobotinoMujoco, ScopedJointNamesAreSceneJointsAndInternalJointsAreNot) {
  const auto mujoco = make_robotino_mujoco();
  const auto names = mujoco->joint_names();
  EXPECT_EQ(names.size(), kRobotinoJointCount);
  for (const std::string& name : robotino_joint_names()) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

}  // namespace
}  // namespace cosim::dynamics
