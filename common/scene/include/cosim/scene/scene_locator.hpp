#pragma once
/// \file
/// Where a program finds a scene when --scene is not given: a folder named after the model
/// (the visual side: lowercase Hello.model) or given by the backend's registry entry (the
/// dynamics), under one scenes root (docs/scenes.md "Finding scenes").

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosim::scene {

/// $COSIM_SCENES_DIR if set and not empty, else <folder of the running executable>/../share/cosim/scenes
/// (the build tree has build/share/cosim/scenes; `cmake --install` installs scenes there).
std::filesystem::path scenes_root();

/// scenes_root() / name, which must be a folder: an XML scene folder, or, when it holds no
/// projects/ but a file <name>.urdf, that URDF file (a URDF robot's folder). Throws SceneError
/// (bad input, exit 2) naming the folder tried and how to choose another (--scene,
/// COSIM_SCENES_DIR) otherwise, or for an empty name.
std::filesystem::path find_default_scene(std::string_view name);

/// Where a file a user names for a run is looked for (a parameter file, a model, a reference
/// CSV): absolute as given; relative, the current folder first, then scenes_root(); a path
/// the program ships (`shipped`: a default) only under scenes_root(). The places in that
/// order; the first regular file among them is the one.
std::vector<std::filesystem::path> input_file_candidates(const std::filesystem::path& given, bool shipped = false);

/// The first regular file of input_file_candidates(given, shipped), normalised; nullopt if
/// none (say the candidates in the error).
std::optional<std::filesystem::path> find_input_file(const std::filesystem::path& given, bool shipped = false);

/// The scene folder name of a model: "Robotino" -> "robotino" (ASCII lowercase).
std::string scene_name_of_model(std::string_view model);

}  // namespace cosim::scene
