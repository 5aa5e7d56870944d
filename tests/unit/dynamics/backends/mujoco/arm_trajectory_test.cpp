// The example arm (examples/urdf_arm/mujoco/arm.xml) following its trajectory
// (arm_trajectory.csv) through the mujoco backend, against the servo's own equation: each
// position servo (stiffness kp, joint damping kv) settles where its force kp·(r − q) is what
// the arm needs to move along the reference r, so q ≈ r − τ_ID(r, ṙ, r̈)/kp with τ_ID MuJoCo's
// inverse dynamics at the reference (inertia, Coriolis, gravity, damping). The bound on what
// this first-order prediction leaves out is computed from the run, not chosen.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"

namespace cosim::dynamics::mujoco {
namespace {

const std::filesystem::path kArmDir = std::filesystem::path(COSIM_EXAMPLES_DIR) / "urdf_arm" / "mujoco";
constexpr std::size_t kJoints = 3;  // yaw, shoulder, elbow: MuJoCo's dof order and the CSV's columns

// The trajectory arm_trajectory.csv samples every 10 ms over 6 s (examples/urdf_arm/README.md): each joint
// r(t) = A·(1 − cos(2π·t/T))/2, from rest at 0 out to A and back.
constexpr std::array<double, kJoints> kAmplitude_rad{1.5, 0.9, -1.4};
constexpr std::array<double, kJoints> kPeriod_s{6.0, 6.0, 3.0};
constexpr double kEnd_s = 6.0;

// r, ṙ or r̈ (derivative 0, 1, 2) of joint j at t [rad, rad/s, rad/s²].
double reference(std::size_t j, double t_s, int derivative) {
  const double w = 2.0 * std::numbers::pi / kPeriod_s[j], a = kAmplitude_rad[j] / 2.0;
  if (derivative == 0) return a * (1.0 - std::cos(w * t_s));
  if (derivative == 1) return a * w * std::sin(w * t_s);
  return a * w * w * std::cos(w * t_s);
}

TEST(MujocoArm, TheTrajectoryFileIsTheStatedFormula) {
  std::ifstream csv(kArmDir / "arm_trajectory.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line, "t_s,yaw,shoulder,elbow");
  int rows = 0;
  double t_s = 0.0;
  std::array<double, kJoints> r{};
  while (std::getline(csv, line)) {
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &t_s, &r[0], &r[1], &r[2]), 4) << line;
    EXPECT_NEAR(t_s, 0.01 * rows, 1e-12) << line;
    // Written with 9 decimals: within half of their last digit.
    for (std::size_t j = 0; j < kJoints; ++j) EXPECT_NEAR(r[j], reference(j, t_s, 0), 5e-10) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 601);
  EXPECT_EQ(t_s, kEnd_s);
}

// Per joint: the servo's kp [N·m/rad], from the model's actuators, and kv [N·m·s/rad], its damping.
struct Servo {
  double kp = 0.0, kv = 0.0;
};

TEST(MujocoArm, FollowsItsTrajectoryAsItsServosPredict) {
  const auto model_file = kArmDir / "arm.xml";
  MujocoBackend b(model_file, kArmDir / "arm_trajectory.csv", 0.0);
  ASSERT_EQ(b.joint_names(), (std::vector<std::string>{"arm/yaw", "arm/shoulder", "arm/elbow"}));
  const double h_s = b.timestep_s();

  // The same model in MuJoCo, for the inverse dynamics at the reference.
  char error[1000] = "";
  mjModel* m = mj_loadXML(model_file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  ASSERT_EQ(m->nv, static_cast<int>(kJoints));
  std::array<Servo, kJoints> servo{};
  for (int a = 0; a < m->nu; ++a) {
    const int dof = m->jnt_dofadr[m->actuator_trnid[2 * a]];
    servo[static_cast<std::size_t>(dof)] = {m->actuator_gainprm[a * mjNGAIN], m->dof_damping[dof]};
  }
  for (const Servo& s : servo) ASSERT_GT(s.kp, 0.0) << "every joint has a position servo";

  // The servo's quasi-static error e0 = r − q at t: kp·e0 = τ_ID(r, ṙ, r̈) (damping included:
  // MuJoCo counts it as a passive force), plus ṙ·h/2 as each step holds ctrl from its start.
  const auto static_error_rad = [&](double t_s, std::array<double, kJoints>& e0) {
    for (std::size_t j = 0; j < kJoints; ++j) {
      d->qpos[j] = reference(j, t_s, 0);
      d->qvel[j] = reference(j, t_s, 1);
      d->qacc[j] = reference(j, t_s, 2);
    }
    mj_inverse(m, d);
    for (std::size_t j = 0; j < kJoints; ++j) e0[j] = d->qfrc_inverse[j] / servo[j].kp + reference(j, t_s, 1) * h_s / 2;
  };

  // From 0.5 s on: the start's mismatch (the arm at rest, e0(0) = M·r̈(0)/kp ≠ 0) decays at
  // least as fast as the servo's slow pole, kp/kv ≥ 23 rad/s: by e^(−11) by then.
  constexpr double kFrame_s = 0.01, kDerivativeStep_s = 1e-3;
  std::array<double, kJoints> tracking{}, residual{}, lead{}, e0{}, before{}, after{};
  for (int k = 1; k * kFrame_s <= kEnd_s + 1e-9; ++k) {
    const double t_s = k * kFrame_s;
    b.advance_to(t_s);
    if (t_s < 0.5) continue;
    static_error_rad(t_s - kDerivativeStep_s, before);
    static_error_rad(t_s + kDerivativeStep_s, after);
    static_error_rad(t_s, e0);
    for (std::size_t j = 0; j < kJoints; ++j) {
      const double error = reference(j, t_s, 0) - b.joint_values()[j];
      tracking[j] = std::max(tracking[j], std::abs(error));
      residual[j] = std::max(residual[j], std::abs(error - e0[j]));
      // The leading term e0 leaves out: the servo lags e0 as it lags a ramp, by kv/kp·ė0
      // (ė0 by central differences: their error, ~1e-6·|e0'''|, is far below it).
      const double e0_rate = (after[j] - before[j]) / (2 * kDerivativeStep_s);
      lead[j] = std::max(lead[j], servo[j].kv / servo[j].kp * std::abs(e0_rate));
    }
  }
  for (std::size_t j = 0; j < kJoints; ++j) {
    // Bound: twice that leading term. The next terms are each well below it here: (kv/kp)²·|ë0|
    // (a factor 2ζ·ω/ωn ≈ 0.08 of it, ω ≤ 2.1 rad/s of the trajectory, ωn ≈ 50 rad/s of the
    // servos), |∂τ_gravity/∂q|·|e0|/kp (≤ 14.6 N·m/rad · 0.02 rad / 2000 N·m/rad = 1.5e-4 rad at
    // the shoulder), the CSV's straight lines between rows (|r̈|·(10 ms)²/8 ≤ 4e-5 rad) and the
    // coupling between joints. A wrong column, gain or model misses by the whole e0 or more.
    EXPECT_LE(residual[j], 2.0 * lead[j]) << b.joint_names()[j];
    EXPECT_GT(tracking[j], 0.01) << b.joint_names()[j] << ": a servo lags; a zero error would mean no dynamics";
    char figures[160];
    std::snprintf(figures, sizeof figures, "max |r - q| %.4g rad, max |r - q - e0| %.4g rad, bound %.4g rad",
                  tracking[j], residual[j], 2.0 * lead[j]);
    RecordProperty(b.joint_names()[j], figures);
  }

  // After the CSV's last row the reference holds 0 (the arm upright, no gravity torque): the arm
  // settles there, its error decayed by e^(−23) or more within 1 s.
  b.advance_to(kEnd_s + 1.0);
  for (std::size_t j = 0; j < kJoints; ++j) EXPECT_NEAR(b.joint_values()[j], 0.0, 1e-9) << b.joint_names()[j];
  mj_deleteData(d);
  mj_deleteModel(m);
}

}  // namespace
}  // namespace cosim::dynamics::mujoco
