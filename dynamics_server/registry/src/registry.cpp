#include "cosim/dynamics/registry/registry.hpp"

#include <string>

#include "cosim/dynamics/kinematic/kinematic_backend.hpp"
#include "cosim/dynamics/mecanum3vw/mecanum3vw_backend.hpp"
#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
#ifdef COSIM_HAVE_MUJOCO  // defined by backends/mujoco where MuJoCo is found (not in the Windows build)
#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#endif
#include "cosim/dynamics/omniwheel/omniwheel_backend.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "cosim/dynamics/trajectory/trajectory_backend.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::dynamics::registry {
namespace {

// Keep this list sorted by name (a unit test checks it). One line per backend.
constexpr BackendEntry kRegistry[] = {
    {"kinematic",
     "Robotino follows the rose reference exactly: Jacobian inverse kinematics, wheel and roller "
     "angles integrated, no dynamics (seeds 000 §3, 001)",
     "robotino", {.dynamics = false, .energy_balance = false},
     &kinematic::kinematic_param_specs, &kinematic::make_kinematic_backend},
    {"mecanum3vw",
     "Three Mecanum wheels tracking a circle or a figure-eight by computed torque from the "
     "virtual-work inverse dynamics, errors of the paper corrected (seed 003)",
     "mecanum3", {.dynamics = true, .energy_balance = true},
     &mecanum3vw::mecanum3vw_param_specs, &mecanum3vw::make_mecanum3vw_backend},
    {"mecanum4",
     "Four Mecanum wheels with suspension on seed 002's 10 s manoeuvre, roller-level (16 contact spheres "
     "per wheel) or reduced (a sphere on a ball joint) wheels on a 3D multibody tree (seed 002)",
     "mecanum4", {.dynamics = true, .energy_balance = true},
     &mecanum4::mecanum4_param_specs, &mecanum4::make_mecanum4_backend},
#ifdef COSIM_HAVE_MUJOCO
    {"mujoco",
     "Any MJCF or URDF model stepped by MuJoCo at its own timestep: hinge, slide and free joints, actuators "
     "driven from a reference CSV or by the model's controller (robotino/mujoco/robotino.xml: the Robotino "
     "with the robotino PID); by default a pendulum (--param model=FILE, trajectory=CSV)",
     "pendulum", {.dynamics = true, .energy_balance = false},
     &mujoco::mujoco_param_specs, &mujoco::make_mujoco_backend},
#endif
    {"omniwheel",
     "One omni wheel with rollers inclined by psi on a test bench, unilateral contact with friction, "
     "explicit or implicit contact tracking (seed 004)",
     "omniwheel", {.dynamics = true, .energy_balance = true},
     &omniwheel::omniwheel_param_specs, &omniwheel::make_omniwheel_backend},
    {"robotino",
     "Robotino dynamics: chassis, wheels, side-rolling rollers with switching, DC motors through "
     "-1/16 reducers, PID wheel-speed control on the rose; a DAE solved with SUNDIALS IDA (seed 000 §3-4)",
     "robotino", {.dynamics = true, .energy_balance = true},
     &robotino_common::robotino_param_specs, &robotino::make_robotino_backend},
    {"trajectory",
     "Plays a joint CSV (t_s, then one column per scene joint) for any XML, URDF or MJCF scene, linear or "
     "cubic, optionally looping; outputs the joint rates; by default the Robotino on a circle (--param "
     "trajectory=CSV; another model needs --scene)",
     "robotino", {.dynamics = false, .energy_balance = false},
     &trajectory::trajectory_param_specs, &trajectory::make_trajectory_backend},
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
