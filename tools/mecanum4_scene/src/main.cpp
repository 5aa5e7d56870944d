// cosim-mecanum4-scene: writes the mecanum4 backend's scene (seed 002's platform: project, robot,
// wheels, reduced sphere, floor) from the backend's parameters (defaults, a --params file,
// --param overrides), or checks a folder against it. The default scene is committed as
// scenes/mecanum4; tests/unit/dynamics/mecanum4_scene fails when it differs from this output.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
#include "cosim/mecanum4_scene/mecanum4_scene.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/exit_codes.hpp"

namespace {

namespace fs = std::filesystem;
using cosim::util::kExitBadInput;
using cosim::util::kExitOk;
// --check found a file that differs (as cosim-meshgen --check).
constexpr int kExitDiffers = 1;

// Writes every file under `dir`, creating its folders; false, having said which, if one fails.
bool write_files(const std::vector<cosim::mecanum4_scene::SceneFile>& files, const fs::path& dir) {
  for (const auto& file : files) {
    const fs::path path = dir / cosim::platform::path_from_utf8(file.path);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(file.text.data(), static_cast<std::streamsize>(file.text.size()));
    out.close();
    if (ec || !out) {
      std::fprintf(stderr, "cosim-mecanum4-scene: cannot write %s%s%s\n", cosim::platform::utf8(path).c_str(),
                   ec ? ": " : "", ec ? ec.message().c_str() : "");
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim-mecanum4-scene: writes the mecanum4 backend's scene (seed 002's platform: project, robot, "
               "Mecanum wheels, reduced sphere, floor) from the backend's parameters",
               "cosim-mecanum4-scene"};
  app.set_version_flag("--version", std::string("cosim-mecanum4-scene ") + COSIM_VERSION);
  std::string params_file;
  std::vector<std::string> overrides;
  std::string out_dir;
  bool check = false;
  app.add_option("--params", params_file, "mecanum4 parameter file ('key = value')");
  app.add_option("--param", overrides, "mecanum4 parameter override key=value (repeatable)");
  app.add_option("-o,--out", out_dir, "the scene folder to write (created if missing), e.g. scenes/mecanum4")
      ->required();
  app.add_flag("--check", check,
               "write nothing: compare the folder's files with what would be written and name the first "
               "differing line");
  app.footer("Example:\n"
             "  cosim-mecanum4-scene -o scenes/mecanum4 --check    compare the committed scene with what would be written\n"
             "Exit status: 0 written (--check: equal), 1 --check found a difference, 2 bad usage, parameters or an "
             "unwritable folder.");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    const fs::path file = cosim::platform::path_from_utf8(params_file);
    const auto params = cosim::dynamics::Params::resolve("mecanum4", cosim::dynamics::mecanum4::mecanum4_param_specs(),
                                                         params_file.empty() ? nullptr : &file, overrides);
    const auto files = cosim::mecanum4_scene::mecanum4_scene(params);
    const fs::path dir = cosim::platform::path_from_utf8(out_dir);
    if (check) {
      const std::string difference = cosim::mecanum4_scene::first_difference(files, dir);
      if (!difference.empty()) {
        std::fprintf(stderr, "cosim-mecanum4-scene: %s\n", difference.c_str());
        return kExitDiffers;
      }
      std::printf("%zu files in %s are as generated\n", files.size(), out_dir.c_str());
      return kExitOk;
    }
    if (!write_files(files, dir)) return kExitBadInput;
    std::printf("wrote %zu files under %s\n", files.size(), out_dir.c_str());
    return kExitOk;
  } catch (const cosim::dynamics::ParamError& e) {
    std::fprintf(stderr, "cosim-mecanum4-scene: %s\n", e.what());
    return kExitBadInput;
  }
}
