#include "cosim/visual/vtk/pose.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>
#include <tuple>
#include <string>

#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::visual {

namespace {

using util::trim;

std::string all_joints(const scene::SceneModel& scene) {
  std::string out;
  for (const auto& name : scene.joint_names()) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "(the scene has no driven joints)" : out;
}

/// One "name=value" item; `where` prefixes every error ("--joints" or "file:line").
void apply_item(const scene::SceneModel& scene, std::string_view item, std::span<double> q, const std::string& where) {
  const auto eq = item.find('=');
  if (eq == std::string_view::npos) {
    throw util::BadInputError(where + ": expected name=value, got '" + std::string(item) + "'");
  }
  const std::string_view name = trim(item.substr(0, eq));
  std::string_view value = trim(item.substr(eq + 1));
  const int index = scene.find_joint(name);
  if (index < 0) {
    throw util::BadInputError(where + ": no driven joint '" + std::string(name) + "' in scene " + scene.name() +
                              "; joints: " + all_joints(scene));
  }
  // A unit, if given, must be one of the joint's: m for a prismatic one, rad or deg for a
  // revolute one (a number alone is in the joint's SI unit).
  const bool revolute =
      scene.frames()[static_cast<std::size_t>(scene.joint_frames()[static_cast<std::size_t>(index)])].drive ==
      scene::DriveType::revolute;
  double factor = 1.0;
  for (const auto& [suffix, unit_factor, for_revolute] :
       {std::tuple{std::string_view("deg"), std::numbers::pi / 180.0, true}, std::tuple{std::string_view("rad"), 1.0, true},
        std::tuple{std::string_view("m"), 1.0, false}}) {
    if (!value.ends_with(suffix)) continue;
    if (for_revolute != revolute) {
      throw util::BadInputError(where + ": joint " + std::string(name) + " is " + (revolute ? "revolute" : "prismatic") +
                                ": its value takes " + (revolute ? "rad or deg" : "m") + ", not " + std::string(suffix));
    }
    factor = unit_factor;
    value = trim(value.substr(0, value.size() - suffix.size()));
    break;
  }
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(number)) {
    throw util::BadInputError(where + ": joint " + std::string(name) + ": '" + std::string(value) +
                              "' is not a finite number");
  }
  q[static_cast<std::size_t>(index)] = number * factor;
}

}  // namespace

void apply_joint_list(const scene::SceneModel& scene, std::string_view text, std::span<double> q) {
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) apply_item(scene, item, q, "--joints");
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
}

void apply_pose_file(const scene::SceneModel& scene, const std::filesystem::path& file, std::span<double> q) {
  std::ifstream in(file);
  if (!in) throw util::BadInputError(file.string() + ": cannot open the pose file");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string_view text = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = trim(text);
    if (!text.empty()) apply_item(scene, text, q, file.string() + ":" + std::to_string(number));
  }
}

}  // namespace cosim::visual
