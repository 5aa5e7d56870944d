#pragma once
/// @file
/// The scene of the `mecanum4` backend (scenes/mecanum4: seed 002's platform, spec
/// seeds_002_004 §A.5) written from the backend's own parameters and model, so that the 3D model
/// cannot drift from the dynamics: the wheel radius R, the rollers' contact-sphere radius r_s and
/// count, the wheel positions (l_x, l_y), the roller angles γ_i, the chassis's height above the
/// hubs, the static sink and the joint names and drives are read from the mecanum4 backend
/// built with the given parameters (Mecanum4Backend::model(), joint_names()). What the backend
/// does not model (colours, the hub's and plates' widths, the motors, the chassis box, the floor
/// and its grid) is the tool's own.

#include <filesystem>
#include <string>
#include <vector>

#include "cosim/dynamics/params.hpp"

namespace cosim::mecanum4_scene {

/// One file of the scene.
struct SceneFile {
  std::string path;  ///< relative to the scene folder, '/'-separated: "objects/Ground.xml"
  std::string text;  ///< the whole file, '\n' line ends
};

/// The files of scenes/mecanum4 (project, robot, wheels, reduced sphere, floor), sorted by path,
/// for mecanum4 parameters resolved with mecanum4_param_specs(). Throws ParamError when the
/// backend refuses the parameters (e.g. a roller radius of half the wheel radius or more), and
/// std::logic_error if the scene would not drive exactly the backend's joints (a bug here).
std::vector<SceneFile> mecanum4_scene(const dynamics::Params& params);

/// The first difference between `files` and the folder `dir`, as "objects/Ground.xml line 3:
/// ..." with both lines (or the file missing or shorter), or "" when every file in `files`
/// is byte for byte the one in `dir`. Other files in `dir` are not looked at.
std::string first_difference(const std::vector<SceneFile>& files, const std::filesystem::path& dir);

}  // namespace cosim::mecanum4_scene
