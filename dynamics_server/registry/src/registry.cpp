#include "cosim/dynamics/registry/registry.hpp"

#include <numbers>
#include <string>

#ifndef COSIM_REGISTRY_SELF_CONTAINED
#include "cosim/dynamics/fmu/fmu_backend.hpp"
#endif
#include "cosim/dynamics/kinematic/kinematic_backend.hpp"
#include "cosim/dynamics/mecanum3vw/mecanum3vw_backend.hpp"
#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
// COSIM_HAVE_MUJOCO: defined by backends/mujoco where MuJoCo is found (not in the Windows build).
#if defined(COSIM_HAVE_MUJOCO) && !defined(COSIM_REGISTRY_SELF_CONTAINED)
#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#endif
#include "cosim/dynamics/omniwheel/omniwheel_backend.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#ifndef COSIM_REGISTRY_SELF_CONTAINED
#include "cosim/dynamics/trajectory/trajectory_backend.hpp"
#endif
#include "cosim/util/errors.hpp"

namespace cosim::dynamics::registry {
namespace {

// Natural durations [s]: how long each backend's own scenario lasts (its MODEL.md, its seed).

/// Seed 000's run: 50 s of the rose (robotino MODEL.md §7); `kinematic` follows the same rose.
double robotino_rose_duration_s(const Params&) { return 50.0; }
/// Seed 002 §VI: "the test lasts 10 s" (spec A.3; mecanum4 MODEL.md).
double mecanum4_duration_s(const Params&) { return 10.0; }
/// Seed 004 §5.3: the free motion's 10 s (omniwheel MODEL.md).
double omniwheel_duration_s(const Params&) { return 10.0; }
/// Seed 003, spec B.3: one lap of the circle (2π/ω, 15.708 s) or one figure-eight, whose x
/// runs at ω/2 (4π/ω, 31.416 s) (mecanum3vw MODEL.md §4).
double mecanum3vw_duration_s(const Params& params) {
  const double turns = params.get_choice("path") == 0 ? 1.0 : 2.0;
  return turns * 2.0 * std::numbers::pi / params.get("path_rate_rad_per_s");
}

// Keep this list sorted by name (a unit test checks it). One line per backend.
// COSIM_REGISTRY_SELF_CONTAINED (the table inside exported FMUs, fmu_export/) keeps only the
// backends that read no file and load no library of their own.
constexpr BackendEntry kRegistry[] = {
#ifndef COSIM_REGISTRY_SELF_CONTAINED
    {"fmu",
     "Any co-simulation FMU (FMI 3.0 or 2.0) stepped in the dynamics process, its outputs mapped to scene "
     "joints by name or by a mapping file, its parameters set as fmu.NAME=VALUE; by default a pendulum FMU "
     "built with cosim (--param fmu=FILE, mapping=FILE; the scene: --scene, else the one named after the FMU's model)",
     "pendulum", {.dynamics = true, .energy_balance = false},
     &fmu::fmu_param_specs, &fmu::make_fmu_backend, &fmu::fmu_natural_duration_s, &fmu::fmu_model_scene},
#endif
    {"kinematic",
     "Robotino follows the rose reference exactly: Jacobian inverse kinematics, wheel and roller "
     "angles integrated, no dynamics (seeds 000 §3, 001)",
     "robotino", {.dynamics = false, .energy_balance = false},
     &kinematic::kinematic_param_specs, &kinematic::make_kinematic_backend, &robotino_rose_duration_s, nullptr},
    {"mecanum3vw",
     "Three Mecanum wheels tracking a circle or a figure-eight by computed torque from the "
     "virtual-work inverse dynamics, errors of the paper corrected (seed 003)",
     "mecanum3", {.dynamics = true, .energy_balance = true},
     &mecanum3vw::mecanum3vw_param_specs, &mecanum3vw::make_mecanum3vw_backend, &mecanum3vw_duration_s, nullptr},
    {"mecanum4",
     "Four Mecanum wheels with suspension on seed 002's 10 s manoeuvre, roller-level (16 contact spheres "
     "per wheel) or reduced (a sphere on a ball joint) wheels on a 3D multibody tree (seed 002)",
     "mecanum4", {.dynamics = true, .energy_balance = true},
     &mecanum4::mecanum4_param_specs, &mecanum4::make_mecanum4_backend, &mecanum4_duration_s, nullptr},
#if defined(COSIM_HAVE_MUJOCO) && !defined(COSIM_REGISTRY_SELF_CONTAINED)
    {"mujoco",
     "Any MJCF or URDF model stepped by MuJoCo at its own timestep: hinge, slide and free joints, actuators "
     "driven from a reference CSV or by the model's controller (robotino/mujoco/robotino.xml: the Robotino "
     "with the robotino PID); by default a pendulum (--param model=FILE, trajectory=CSV)",
     "pendulum", {.dynamics = true, .energy_balance = false},
     &mujoco::mujoco_param_specs, &mujoco::make_mujoco_backend,
     &mujoco::mujoco_natural_duration_s, &mujoco::mujoco_model_scene},
#endif
    {"omniwheel",
     "One omni wheel with rollers inclined by psi on a test bench, unilateral contact with friction, "
     "explicit or implicit contact tracking (seed 004)",
     "omniwheel", {.dynamics = true, .energy_balance = true},
     &omniwheel::omniwheel_param_specs, &omniwheel::make_omniwheel_backend, &omniwheel_duration_s, nullptr},
    {"robotino",
     "Robotino dynamics: chassis, wheels, side-rolling rollers with switching, DC motors through "
     "-1/16 reducers, PID wheel-speed control on the rose; a DAE solved with SUNDIALS IDA (seed 000 §3-4)",
     "robotino", {.dynamics = true, .energy_balance = true},
     &robotino_common::robotino_param_specs, &robotino::make_robotino_backend, &robotino_rose_duration_s, nullptr},
#ifndef COSIM_REGISTRY_SELF_CONTAINED
    {"trajectory",
     "Plays a joint CSV (t_s, then one column per scene joint) for any XML, URDF or MJCF scene, linear or "
     "cubic, optionally looping; outputs the joint rates; by default the Robotino on a circle (--param "
     "trajectory=CSV; another model needs --scene)",
     "robotino", {.dynamics = false, .energy_balance = false},
     &trajectory::trajectory_param_specs, &trajectory::make_trajectory_backend,
     &trajectory::trajectory_natural_duration_s, nullptr},
#endif
};

}  // namespace

std::span<const BackendEntry> backend_registry() { return kRegistry; }

const BackendEntry& find_backend(std::string_view name) {
  for (const BackendEntry& entry : kRegistry) {
    if (entry.name == name) return entry;
  }
  std::string valid;
  for (const BackendEntry& entry : kRegistry) {
    if (!valid.empty()) valid += ", ";
    valid += entry.name;
  }
  throw util::BadInputError("--backend: unknown backend '" + std::string(name) + "'; valid backends: " + valid);
}

}  // namespace cosim::dynamics::registry
