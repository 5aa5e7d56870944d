#include "cosim/scene/scene_locator.hpp"

#include <cstdlib>
#include <system_error>

#include "cosim/platform/paths.hpp"
#include "cosim/scene/error.hpp"

namespace cosim::scene {

std::filesystem::path scenes_root() {
  if (const char* dir = std::getenv("COSIM_SCENES_DIR"); dir != nullptr && *dir != '\0') return platform::path_from_utf8(dir);
  return (platform::executable_path().parent_path() / ".." / "share" / "cosim" / "scenes").lexically_normal();
}

std::vector<std::filesystem::path> input_file_candidates(const std::filesystem::path& given, bool shipped) {
  if (given.is_absolute()) return {given};
  if (shipped) return {scenes_root() / given};
  return {std::filesystem::absolute(given), scenes_root() / given};
}

std::optional<std::filesystem::path> find_input_file(const std::filesystem::path& given, bool shipped) {
  std::error_code ec;
  for (const std::filesystem::path& candidate : input_file_candidates(given, shipped)) {
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.lexically_normal();
  }
  return std::nullopt;
}

std::filesystem::path find_default_scene(std::string_view name) {
  const bool from_env = std::getenv("COSIM_SCENES_DIR") != nullptr && *std::getenv("COSIM_SCENES_DIR") != '\0';
  if (name.empty()) {
    throw SceneError({}, "no scene name to look for (the run names no model); give a scene with --scene");
  }
  const std::filesystem::path folder = scenes_root() / std::string(name);
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw SceneError({folder, 0}, std::string("no scene folder '") + std::string(name) + "' under " +
                                      (from_env ? "$COSIM_SCENES_DIR" : "the installed scenes") +
                                      "; give one with --scene or set COSIM_SCENES_DIR");
  }
  // A URDF robot's folder: no projects/, but <name>.urdf (a folder is otherwise an XML scene).
  const std::filesystem::path urdf = folder / (std::string(name) + ".urdf");
  if (!std::filesystem::exists(folder / "projects", ec) && std::filesystem::is_regular_file(urdf, ec)) return urdf;
  return folder;
}

std::string scene_name_of_model(std::string_view model) {
  std::string name(model);
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return name;
}

}  // namespace cosim::scene
