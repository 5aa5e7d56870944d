#pragma once
/// \file
/// Where a program finds a scene when --scene is not given: a folder named after the model
/// (the visual side: lowercase Hello.model) or given by the backend's registry entry (the
/// dynamics), under one scenes root (docs/scenes.md "Finding scenes").

#include <filesystem>
#include <string>
#include <string_view>

namespace cosim::scene {

/// $COSIM_SCENES_DIR if set and not empty, else <folder of the running executable>/../share/cosim/scenes
/// (the build tree has build/share/cosim/scenes; `cmake --install` installs scenes there).
std::filesystem::path scenes_root();

/// scenes_root() / name, which must be a folder: an XML scene folder, or, when it holds no
/// projects/ but a file <name>.urdf, that URDF file (a URDF robot's folder). Throws SceneError
/// (bad input, exit 2) naming the folder tried and how to choose another (--scene,
/// COSIM_SCENES_DIR) otherwise, or for an empty name.
std::filesystem::path find_default_scene(std::string_view name);

/// The scene folder name of a model: "Robotino" -> "robotino" (ASCII lowercase).
std::string scene_name_of_model(std::string_view model);

}  // namespace cosim::scene
