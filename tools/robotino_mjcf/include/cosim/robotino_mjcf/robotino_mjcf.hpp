#pragma once
/// @file
/// The Robotino as an MJCF model for the `mujoco` backend (issue 12, part 3): the plant of
/// seed 000 (dynamics_server/backends/robotino/MODEL.md) built from bodies, joints and contacts
/// instead of equations, so that MuJoCo checks the bond-graph model independently. Chassis on
/// x, y, z slides and a yaw hinge; three wheels on hinges (axle1..3, the rotors as armature);
/// six passive rollers per wheel on hinges, each a convex barrel that rolls on a plane floor.
/// The wheels are driven by the robotino backend's PID (`<custom>` fields read by the mujoco
/// backend's Robotino controller), with the same parameter values. MuJoCo 2.2.2 has no
/// <replicate>, hence a generator. Choices and their reasons: backends/mujoco/MODEL.md §9.

#include <string>

#include "cosim/dynamics/params.hpp"

namespace cosim::robotino_mjcf {

/// What the robotino parameters do not say: MuJoCo's own settings.
struct MjcfOptions {
  double timestep_s = 2e-4;    ///< MuJoCo's step h [s]; the drives' discrete PID runs at it
  double roller_offset_m = 0;  ///< axial offset of the two roller groups (±); 0: one row, as the seed's model
  int profile_points = 41;     ///< barrel profile samples over the roller's 60° of wheel circle
  int facets = 256;            ///< barrel facets about the roller axis
  double friction = 1.0;       ///< sliding friction coefficient roller-floor [1]
  /// Time constant of MuJoCo's soft contacts (solref) [s]: MuJoCo's default 0.02 lets the
  /// rollers sink ~0.3 mm and creep; stiffer needs a step of at most half of it.
  double contact_time_s = 0.004;
  /// MuJoCo's noslip iterations (a post-pass removing the soft friction's creep): 0, since
  /// 20 changed no figure of the comparison and cost 11 % (scripts/robotino_study.py mujoco).
  int noslip_iterations = 0;
};

/// The MJCF text for robotino parameters resolved with robotino_param_specs() (geometry,
/// masses, motor, PID, rose, start; the solver keys are not used). Throws ParamError when the
/// split of the robot's mass and inertias into bodies leaves one non-positive (e.g. a roller
/// inertia of 0, or wheels heavier than the robot), or an option is out of range.
std::string robotino_mjcf(const dynamics::Params& params, const MjcfOptions& options);

}  // namespace cosim::robotino_mjcf
