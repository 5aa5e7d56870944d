// The Robotino in MuJoCo (issue 12, part 3) against the robotino backend's model: the committed
// MJCF is what cosim-robotino-mjcf writes; MuJoCo's mass matrix of it holds the robotino
// backend's lumped masses and inertias; its wheels are round with radius Rw and hand over between
// rollers where robotino_roller_contact says; and the model-defined controller is refused
// cleanly when the model lacks what it drives.
#include "cosim/robotino_mjcf/robotino_mjcf.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"
#include "robotino_mujoco_support.hpp"

namespace cosim::dynamics {
using robotino_common::RobotinoGeometry;
using robotino_common::RollerContact;
using robotino_common::read_robotino_geometry;
using robotino_common::read_robotino_model_params;
using robotino_common::robotino_roller_contact;

namespace {

using ::testing::HasSubstr;

TEST(RobotinoMjcf, TheCommittedModelIsTheGeneratorsOutput) {
  std::ifstream in(kRobotinoMjcf, std::ios::binary);
  ASSERT_TRUE(in) << kRobotinoMjcf;
  const std::string committed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(committed == robotino_mjcf::robotino_mjcf(default_robotino_params(), {}))
      << kRobotinoMjcf << " differs from the generator's output; regenerate it with "
      << "cosim-robotino-mjcf -o scenes/robotino/mujoco/robotino.xml";
}

TEST(RobotinoMjcf, MujocosMassMatrixHoldsTheRobotinoBackendsMassesAndInertias) {
  // The generator splits the lumped parameters into bodies; MuJoCo's joint-space mass matrix
  // adds them back up: M(x,x) = m, M(phi,phi) = I_z (about C, wheels included), M(axle,axle) =
  // I_w + J_m·N² (rotor as armature), M(roller,roller) = I_r, whatever the wheel angles (the
  // rollers' yaw inertia does not depend on them: Σ_j sin²(θ + j·60°) = 3).
  const Params params = default_robotino_params();
  const robotino_common::ModelParams p = read_robotino_model_params(params);
  const MujocoModel model = MujocoModel::load(kRobotinoMjcf);
  const mjModel* m = model.m.get();
  mjData* d = model.d.get();
  std::vector<double> full(static_cast<std::size_t>(m->nv * m->nv));
  const auto dof = [&](const char* joint) { return m->jnt_dofadr[mj_name2id(m, mjOBJ_JOINT, joint)]; };
  const auto entry = [&](int dof_index) { return full[static_cast<std::size_t>(dof_index * m->nv + dof_index)]; };
  for (const double theta_rad : {0.0, 0.3, 1.1, -2.5}) {
    mj_resetData(m, d);
    for (const char* axle : {"axle1", "axle2", "axle3"}) d->qpos[m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, axle)]] = theta_rad;
    mj_forward(m, d);
    mj_fullM(m, full.data(), d->qM);
    // The MJCF holds 13 significant digits of each derived mass and inertia.
    constexpr double kRelative = 1e-11;
    EXPECT_NEAR(entry(dof("x")), p.mass_kg, kRelative * p.mass_kg);
    EXPECT_NEAR(entry(dof("y")), p.mass_kg, kRelative * p.mass_kg);
    EXPECT_NEAR(entry(dof("phi")), p.yaw_inertia_kg_m2, kRelative * p.yaw_inertia_kg_m2) << "theta " << theta_rad;
    const double wheel = p.wheel_inertia_kg_m2 + p.rotor_inertia_kg_m2 * p.gear_ratio * p.gear_ratio;
    EXPECT_NEAR(entry(dof("axle2")), wheel, kRelative * wheel);
    EXPECT_NEAR(entry(dof("Wheel_3/roller4")), p.roller_inertia_kg_m2, kRelative * p.roller_inertia_kg_m2);
  }
}

TEST(RobotinoMjcf, EachWheelIsRoundAndItsRollersHandOverWhereRobotinosDo) {
  // Over a full turn, the lowest point of wheel 1's rollers lies Rw below the axle (the barrels
  // trace the wheel's circle), and belongs to the roller robotino_roller_contact names.
  const MujocoModel model = MujocoModel::load(kRobotinoMjcf);
  const mjModel* m = model.m.get();
  mjData* d = model.d.get();
  const RobotinoGeometry geometry = read_robotino_geometry(default_robotino_params(), "robotino");
  const int axle = m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, "axle1")];
  const int wheel_body = mj_name2id(m, mjOBJ_BODY, "Wheel_1");
  double worst_m = 0.0;
  for (int k = 0; k < 720; ++k) {
    const double theta_rad = -std::numbers::pi + (k + 0.25) * std::numbers::pi / 360.0;  // never on a switch
    mj_resetData(m, d);
    d->qpos[axle] = theta_rad;
    mj_kinematics(m, d);
    const LowestVertex lowest = lowest_roller_vertex(m, d, wheel_body);
    const double below_axle_m = d->xpos[3 * wheel_body + 2] - lowest.z_m;
    worst_m = std::max(worst_m, std::abs(below_axle_m - geometry.wheel_radius_m));
    // Within one profile step (1.5°) of a switch both rollers' end rings are equally low.
    const RollerContact contact = robotino_roller_contact(theta_rad);
    if (std::abs(contact.theta_b_rad) < std::numbers::pi / 6.0 - 1.5 * std::numbers::pi / 180.0) {
      EXPECT_EQ(lowest.roller, contact.roller) << "theta " << theta_rad;
    }
  }
  // Vertices are stored as floats (7 digits of 0.04 m: 4e-9 m) on a profile sampled every 1.5°,
  // whose chords sag by Rw·(1 − cos 0.75°) = 3.4e-6 m between samples.
  EXPECT_LT(worst_m, 3.5e-6);
  RecordProperty("worst_radius_error_m", std::to_string(worst_m));
}

TEST(RobotinoMjcf, ASplitThatLeavesABodyWithoutMassIsRefused) {
  Params params = default_robotino_params({"roller_inertia_kg_m2=0"});
  EXPECT_THAT(param_error([&] { (void)robotino_mjcf::robotino_mjcf(params, {}); }),
              HasSubstr("roller_inertia_kg_m2 = 0"));
  params = default_robotino_params({"mass_kg=0.5"});
  EXPECT_THAT(param_error([&] { (void)robotino_mjcf::robotino_mjcf(params, {}); }), HasSubstr("chassis mass"));
  robotino_mjcf::MjcfOptions options;
  options.contact_time_s = options.timestep_s;
  EXPECT_THAT(param_error([&] { (void)robotino_mjcf::robotino_mjcf(default_robotino_params(), options); }),
              HasSubstr("twice the timestep"));
}

}  // namespace
}  // namespace cosim::dynamics
