#pragma once
/// \file
/// A single pose given by hand (`--joints`, `--pose`), for screenshots without dynamics.

#include <filesystem>
#include <span>
#include <string_view>

#include "cosim/scene/scene_model.hpp"

namespace cosim::visual {

/// Sets joints from "name=value,name=value,...": scoped joint names, values in SI units
/// (m or rad), or degrees with a "deg" suffix ("Robotino/phi=40deg"). `q` has one entry per
/// scene joint (joint_names() order); joints not named keep their value. Throws
/// util::BadInputError naming the item and, for an unknown joint, the valid names.
void apply_joint_list(const scene::SceneModel& scene, std::string_view text, std::span<double> q);

/// Same, from a file with one "name = value" per line; '#' starts a comment. Errors name
/// file:line.
void apply_pose_file(const scene::SceneModel& scene, const std::filesystem::path& file, std::span<double> q);

}  // namespace cosim::visual
