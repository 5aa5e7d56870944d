// The mujoco backend against independent results: the exact period of a compound pendulum,
// energy conservation of a passive model, free fall and MuJoCo's own quaternions for a free
// body, the analytic lag of a position servo following a reference CSV, and an unstable
// model that MuJoCo would silently reset.
#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/mjcf/mjcf.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/test/allocation_probe.hpp"
#include "mujoco_test_support.hpp"

namespace cosim::dynamics::mujoco {
namespace {

using ::testing::HasSubstr;
namespace out = mujoco_output;
constexpr double kG_m_per_s2 = 9.81;

// A sphere of mass m and radius r on a massless arm of length L (MuJoCo gives a body with one
// geom that geom's inertia: a solid sphere, 2/5·m·r² about its centre).
constexpr double kBobMass_kg = 2.0, kBobRadius_m = 0.04, kArm_m = 0.8, kSwingAmplitude_rad = 0.2;
const char* const kCompoundPendulum = R"(
<mujoco model="Bob">
  <compiler angle="radian"/>
  <option timestep="1e-4" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0"/>
      <geom type="sphere" pos="0 0 -0.8" size="0.04" mass="2" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <keyframe><key qpos="0.2"/></keyframe>
</mujoco>)";

// A number for RecordProperty, with its precision.
std::string sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// Times at which q crosses 0 going down, found by linear interpolation between samples.
std::vector<double> downward_crossings_s(Backend& b, double dt_s, double duration_s) {
  std::vector<double> crossings;
  double t_before = b.time_s(), q_before = b.joint_values()[0];
  for (int k = 1; k * dt_s <= duration_s + 1e-12; ++k) {
    b.advance_to(k * dt_s);
    const double q = b.joint_values()[0];
    if (q_before > 0.0 && q <= 0.0) crossings.push_back(t_before + dt_s * q_before / (q_before - q));
    t_before = b.time_s();
    q_before = q;
  }
  return crossings;
}

TEST_F(MujocoTest, CompoundPendulumSwingsWithItsExactPeriod) {
  // T = 4·√(I/(m·g·L))·K(sin(θ0/2)) for any amplitude θ0, I about the pivot.
  const double inertia_kg_m2 = 0.4 * kBobMass_kg * kBobRadius_m * kBobRadius_m + kBobMass_kg * kArm_m * kArm_m;
  const double expected_s = 4.0 * std::sqrt(inertia_kg_m2 / (kBobMass_kg * kG_m_per_s2 * kArm_m)) *
                            std::comp_ellint_1(std::sin(kSwingAmplitude_rad / 2.0));
  MujocoBackend b(write("bob.xml", kCompoundPendulum), {}, 0.0);
  EXPECT_EQ(b.joint_values()[0], kSwingAmplitude_rad);
  const std::vector<double> crossings = downward_crossings_s(b, 1e-3, 10.0);
  ASSERT_GE(crossings.size(), 5u);
  const double period_s = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  // RK4 at h = 0.1 ms (ω·h ≈ 4e-4) errs by O((ω·h)^4) per period, ~1e-14. A crossing found
  // linearly between 1 ms samples, where q'' = 0, errs by O(ω²·dt³) ≈ 2e-8 s, but by the same
  // at every downward crossing, so it cancels in their differences. 1e-8 of T bounds what is
  // left with a margin, far below any modelling error (a wrong inertia moves T by > 1e-3).
  EXPECT_NEAR(period_s, expected_s, 1e-8 * expected_s);
  RecordProperty("period_s", sci(period_s));
  RecordProperty("relative_period_error", sci(std::abs(period_s - expected_s) / expected_s));
}

TEST_F(MujocoTest, PassiveUndampedPendulumKeepsItsEnergy) {
  // The default model: RK4 at 1 ms, no damping, no contact, 60 s (~40 swings).
  const auto b = make({});
  const double energy0_J = b->outputs()[out::kTotal];
  double swing_J = 0.0, drift_J = 0.0;
  for (int k = 1; k <= 3000; ++k) {
    b->advance_to(k * 0.02);
    const auto o = b->outputs();
    ASSERT_DOUBLE_EQ(o[out::kTotal], o[out::kKinetic] + o[out::kPotential]);
    swing_J = std::max(swing_J, o[out::kKinetic]);
    drift_J = std::max(drift_J, std::abs(o[out::kTotal] - energy0_J));
  }
  // RK4 on a linear oscillator loses (ω·h)^6/72 of its energy per step: 1.1e-16 at
  // ω·h = 4.5e-3, 7e-12 after 60 000 steps. Between steps the outputs are linear between two
  // states, within the same hull. Bound: 1e-9 of the swing energy, a margin of 100 for the
  // nonlinearity at 0.6 rad and rounding; a lost step or a wrong sample would be ~1e-3.
  EXPECT_GT(swing_J, 0.5) << "the pendulum swings";
  EXPECT_LE(drift_J, 1e-9 * swing_J);
  RecordProperty("energy_drift_J", sci(drift_J));
  RecordProperty("swing_energy_J", sci(swing_J));
}

const char* const kDrop = R"(
<mujoco model="Drop">
  <compiler angle="radian"/>
  <option timestep="0.001" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 2">
      <freejoint name="box"/>
      <geom type="box" size="0.1 0.05 0.02" mass="1"/>
    </body>
  </worldbody>
  <keyframe><key qpos="0.3 -0.2 2  0.8 0.2 0.4 0.4" qvel="0 0 0  3 -2 5"/></keyframe>
</mujoco>)";

// Rz(yaw)·Ry(pitch)·Rx(roll), written out: the chain of the scene joints yaw, pitch, roll.
std::array<double, 9> rotation_zyx(double yaw, double pitch, double roll) {
  const double cz = std::cos(yaw), sz = std::sin(yaw), cy = std::cos(pitch), sy = std::sin(pitch);
  const double cx = std::cos(roll), sx = std::sin(roll);
  return {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
          sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
          -sy,     cy * sx,                cy * cx};
}

std::array<double, 9> rotation_of_quat(const double* quat) {
  std::array<double, 9> r{};
  mju_quat2Mat(r.data(), quat);
  return r;
}

TEST_F(MujocoTest, FreeBodyFallsAndItsAnglesReproduceMujocosQuaternion) {
  const auto file = write("drop.xml", kDrop);
  MujocoBackend b(file, {}, 0.0);
  ASSERT_EQ(b.joint_names(), (std::vector<std::string>{"Drop/box/x", "Drop/box/y", "Drop/box/z", "Drop/box/yaw",
                                                       "Drop/box/pitch", "Drop/box/roll"}));
  // MuJoCo itself on the same file, stepped alongside.
  char error[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  mj_resetDataKeyframe(m, d, 0);
  for (int frame = 1; frame <= 10; ++frame) {  // 0.5 s, before it reaches the floor (~0.62 s)
    const double t_s = frame * 0.05;
    b.advance_to(t_s);
    for (int k = 0; k < 50; ++k) mj_step(m, d);
    const auto q = b.joint_values();
    // Free fall: RK4 integrates a constant acceleration exactly, to rounding.
    EXPECT_NEAR(q[0], 0.3, 1e-12);
    EXPECT_NEAR(q[1], -0.2, 1e-12);
    EXPECT_NEAR(q[2], 2.0 - 0.5 * kG_m_per_s2 * t_s * t_s, 1e-9) << t_s;
    EXPECT_EQ(b.outputs()[out::kContacts], 0.0);
    // t_s falls on a step: the backend reports that state, whose quaternion MuJoCo has too.
    EXPECT_EQ(q[2], d->qpos[2]);
    const auto expected = rotation_of_quat(d->qpos + 3);
    const auto actual = rotation_zyx(q[3], q[4], q[5]);
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "R" << i << " at " << t_s;
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  // Then it lands and comes to rest on the floor, touching it.
  b.advance_to(4.0);
  EXPECT_GE(b.outputs()[out::kContacts], 1.0);
  EXPECT_GT(b.joint_values()[2], 0.0);
  EXPECT_LT(b.joint_values()[2], 0.12);
}

TEST(MujocoAngles, YawPitchRollRebuildTheRotationOfAnyQuaternion) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (int i = 0; i < 1000; ++i) {
    std::array<double, 4> quat{normal(rng), normal(rng), normal(rng), normal(rng)};
    if (i == 0) quat = {std::cos(std::numbers::pi / 4), 0.0, std::sin(std::numbers::pi / 4), 0.0};  // pitch π/2
    const auto [yaw, pitch, roll] = cosim::mjcf::yaw_pitch_roll_rad(quat);
    EXPECT_LE(std::abs(pitch), std::numbers::pi / 2);
    const double norm = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    const std::array<double, 4> unit{quat[0] / norm, quat[1] / norm, quat[2] / norm, quat[3] / norm};
    const auto expected = rotation_of_quat(unit.data());
    const auto actual = rotation_zyx(yaw, pitch, roll);
    for (int k = 0; k < 9; ++k) ASSERT_NEAR(actual[k], expected[k], 1e-12) << "quaternion " << i;
  }
}

TEST_F(MujocoTest, TheFrameScheduleDoesNotChangeTheMotion) {
  // Frames of 20 ms and of 7 ms on the drop (contacts from ~0.62 s on): the same states at
  // common times, as MuJoCo steps at its own timestep whatever the caller asks.
  const auto file = write("drop.xml", kDrop);
  MujocoBackend a(file, {}, 0.0), b(file, {}, 0.0);
  int frame_a = 0, frame_b = 0;
  for (int k = 1; k <= 15; ++k) {  // t = 0.14 k s up to 2.1 s
    while (++frame_a * 0.02 < k * 0.14 - 1e-9) a.advance_to(frame_a * 0.02);
    a.advance_to(k * 0.14);
    while (++frame_b * 0.007 < k * 0.14 - 1e-9) b.advance_to(frame_b * 0.007);
    b.advance_to(k * 0.14);
    for (std::size_t i = 0; i < a.joint_values().size(); ++i) {
      EXPECT_NEAR(a.joint_values()[i], b.joint_values()[i], 1e-12) << a.joint_names()[i] << " at " << k * 0.14;
    }
  }
  EXPECT_GE(a.outputs()[out::kContacts], 1.0);
}

// A turntable (vertical axis: gravity does no work) turned by a position servo, kp = 400 N·m/rad,
// with joint damping kv = 4 N·m·s/rad; disc I = m·r²/2 = 0.01 kg·m², so ωn = √(kp/I) = 200 rad/s
// and ζ = kv/(2·√(kp·I)) = 1.
const char* const kTurntable = R"(
<mujoco model="Turntable">
  <compiler angle="radian"/>
  <option timestep="0.001" integrator="RK4"/>
  <worldbody>
    <body name="disc">
      <joint name="turn" type="hinge" axis="0 0 1" damping="4"/>
      <geom type="cylinder" size="0.1 0.01" mass="2" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><position name="servo" joint="turn" kp="400"/></actuator>
</mujoco>)";

TEST_F(MujocoTest, PositionServoFollowsTheReferenceCsv) {
  constexpr double kp = 400.0, kv = 4.0, h_s = 0.001, slope_rad_per_s = 1.0;
  // A ramp to 1 rad over 1 s, then held (the CSV ends at 1 s). The column names the joint.
  MujocoBackend b(write("turntable.xml", kTurntable), write("ramp.csv", "t_s,turn\n0,0\n1,1\n"), 0.0);
  double ramp_error = 0.0, hold_error = 0.0;
  for (int k = 1; k <= 200; ++k) {
    const double t_s = k * 0.01;
    b.advance_to(t_s);
    const double q = b.joint_values()[0];
    if (t_s >= 0.1 && t_s <= 1.0) {
      // After the transient ((1 + ωn·t)·e^(−ωn·t) < 1e-7 at 0.1 s) a type-1 servo lags a ramp by
      // kv·v/kp, plus v·h/2 for ctrl held over each step; the hold's ripple (v·h/2) is filtered
      // by (ωn·h/2π)² to ~5e-7 rad. Tolerance 1e-6 rad; a missed step of ctrl would be 1e-3.
      const double expected = t_s * slope_rad_per_s - slope_rad_per_s * (kv / kp + h_s / 2);
      ramp_error = std::max(ramp_error, std::abs(q - expected));
    }
    if (t_s >= 1.2) hold_error = std::max(hold_error, std::abs(q - 1.0));  // held after the end
  }
  EXPECT_LE(ramp_error, 1e-6);
  EXPECT_LE(hold_error, 1e-12);  // the transient has decayed by e^(−40)
  RecordProperty("ramp_error_rad", sci(ramp_error));
  RecordProperty("hold_error_rad", sci(hold_error));

  // The same by the actuator's name; no reference: ctrl stays 0 and the servo holds 0.
  MujocoBackend by_name(write("turntable.xml", kTurntable), write("servo.csv", "t_s,servo\n0,0\n1,1\n"), 0.0);
  by_name.advance_to(2.0);
  EXPECT_NEAR(by_name.joint_values()[0], 1.0, 1e-9);
  MujocoBackend passive(write("turntable.xml", kTurntable), {}, 0.0);
  passive.advance_to(2.0);
  EXPECT_EQ(passive.joint_values()[0], 0.0);
}

TEST_F(MujocoTest, AdvancingDoesNotAllocate) {
  MujocoBackend b(write("turntable.xml", kTurntable), write("ramp.csv", "t_s,turn\n0,0\n1,1\n"), 0.0);
  b.advance_to(0.02);
  const test::AllocationProbe probe;
  for (int k = 2; k <= 200; ++k) b.advance_to(k * 0.02);
  b.advance_to(4.0 + 1e-9);  // within a step
  b.advance_to(4.5);         // many steps at once
  EXPECT_EQ(probe.count(), 0u);
}

// A stiff spring under semi-implicit Euler at ω·h = 10 (stable only below 2): |q| grows ~100×
// per step until qacc passes MuJoCo's 1e10 limit, and MuJoCo resets the state.
const char* const kUnstable = R"(
<mujoco model="Spring">
  <option timestep="0.1" integrator="Euler" gravity="0 0 0"/>
  <worldbody>
    <body name="mass">
      <joint name="slide" type="slide" axis="1 0 0" stiffness="1e4"/>
      <geom type="sphere" size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <keyframe><key qpos="0.01"/></keyframe>
</mujoco>)";

TEST_F(MujocoTest, MujocosSilentResetIsReportedAsANumericalFailure) {
  const auto file = write("spring.xml", kUnstable);
  MujocoBackend b(file, {}, 0.0);  // first: it silences MuJoCo's warning printer (and MUJOCO_LOG.TXT)
  // MuJoCo alone: after 2 s the state is back at rest, finite, as if nothing had happened;
  // only the warning counter tells.
  char error[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  mj_resetDataKeyframe(m, d, 0);
  int reset_step = 0;  // the step (1, 2, ...) after which the warning is counted
  for (int k = 1; k <= 20; ++k) {
    mj_step(m, d);
    if (reset_step == 0 && d->warning[mjWARN_BADQACC].number > 0) reset_step = k;
  }
  ASSERT_GT(reset_step, 1) << "the first steps are fine";
  EXPECT_EQ(d->qpos[0], 0.0) << "reset to qpos0";
  EXPECT_LT(d->time, 2.0) << "its clock restarted";
  mj_deleteData(d);
  mj_deleteModel(m);

  // The backend stops at that step, saying so.
  char step[64];
  std::snprintf(step, sizeof step, "in the step from t = %.9g s to %.9g s", (reset_step - 1) * 0.1, reset_step * 0.1);
  b.advance_to(0.1);  // the first steps are fine
  try {
    for (int k = 2; k <= 20; ++k) b.advance_to(k * 0.1);
    FAIL() << "no exception";
  } catch (const BackendError& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("mjWARN_BADQACC"));
    EXPECT_THAT(message, HasSubstr("reset the state"));
    EXPECT_THAT(message, HasSubstr(file.string()));
    EXPECT_THAT(message, HasSubstr(step));
    EXPECT_EQ(e.exit_code(), util::kExitNumerical);
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
  }
}

TEST_F(MujocoTest, MujocoErrorsBecomeBackendErrors) {
  MujocoBackend b(write("bob.xml", kCompoundPendulum), {}, 0.0);  // installs the handlers
  EXPECT_THROW(mju_error("stack overflow (a test)"), BackendError);
}

}  // namespace
}  // namespace cosim::dynamics::mujoco
