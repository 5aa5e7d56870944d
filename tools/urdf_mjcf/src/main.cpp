// cosim-urdf-mjcf: a URDF robot as an MJCF model for `cosim --backend mujoco`, with what a URDF
// cannot say (a floating base, a floor, servos on named joints). MODEL.md §10 of the mujoco
// backend says what it writes and why.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/mjcf/mjcf.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/urdf_mjcf/urdf_mjcf.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/exit_codes.hpp"

namespace {

namespace fs = std::filesystem;
using cosim::util::kExitBadInput;
using cosim::util::kExitOk;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim-urdf-mjcf: writes a URDF robot as an MJCF model for `cosim --backend mujoco`, through "
               "MuJoCo's own URDF importer, with what a URDF cannot say: a floating base, a floor, servos",
               "cosim-urdf-mjcf"};
  app.set_version_flag("--version", std::string("cosim-urdf-mjcf ") + COSIM_VERSION);
  fs::path urdf_file, out_file;
  std::vector<std::string> positions, velocities;
  std::vector<double> base_xyz;
  double timestep_s = 0.0;
  cosim::urdf_mjcf::Options o;
  cosim::util::add_path_option(app, "urdf", urdf_file, "the URDF file")->required();
  cosim::util::add_path_option(app, "-o,--output", out_file,
                               "write the model here, mesh paths relative to its folder (default: standard output, "
                               "mesh paths absolute)");
  cosim::util::add_folder_list_option(app, "--package-path", o.package_path,
                                      "folders holding the URDF's package:// packages (repeatable or ':'-separated), "
                                      "before $COSIM_PACKAGE_PATH");
  app.add_flag("--floating-base", o.floating_base,
               "free the root link: a free joint 'floating_base' (scene joints ROBOT/floating_base/x, /y, /z, "
               "/yaw, /pitch, /roll)");
  app.add_option("--base-xyz", base_xyz, "the root link's start position in the world [m] (default 0 0 0)")
      ->expected(3)
      ->type_name("X Y Z");
  app.add_flag("--floor", o.floor, "add a floor: a plane 'floor' at z = 0");
  app.add_option("--position", positions,
                 "a position servo on a joint, JOINT=KP[,DAMPING]: kp [N·m/rad or N/m], and damping added to "
                 "the joint [N·m·s/rad or N·s/m] (repeatable)")
      ->type_name("JOINT=KP[,D]");
  app.add_option("--velocity", velocities,
                 "a velocity servo on a joint, JOINT=KV: kv [N·m·s/rad or N·s/m] (repeatable)")
      ->type_name("JOINT=KV");
  app.add_option("--timestep", timestep_s, "MuJoCo's step [s] (default: MuJoCo's 0.002)");
  app.footer("Examples:\n"
             "  cosim-urdf-mjcf examples/diffbot/diffbot_description/urdf/diffbot.urdf --package-path examples/diffbot \\\n"
             "      --floating-base --floor --velocity left_wheel=0.2 --velocity right_wheel=0.2 --timestep 0.001 -o diffbot.xml\n"
             "  cosim --backend mujoco --param model=diffbot.xml --param trajectory=examples/diffbot/drive.csv\n"
             "A reference CSV names the servos' joints (t_s,left_wheel,right_wheel): positions [rad or m] or "
             "velocities [rad/s or m/s].\n"
             "Exit status: 0 written, 2 bad usage, a URDF MuJoCo cannot load or an unwritable file.");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    if (!base_xyz.empty()) o.base_xyz_m = {base_xyz[0], base_xyz[1], base_xyz[2]};
    if (app.count("--timestep") > 0) o.timestep_s = timestep_s;
    for (const std::string& s : positions) {
      o.servos.push_back(cosim::urdf_mjcf::parse_servo(s, cosim::urdf_mjcf::Servo::Kind::position));
    }
    for (const std::string& s : velocities) {
      o.servos.push_back(cosim::urdf_mjcf::parse_servo(s, cosim::urdf_mjcf::Servo::Kind::velocity));
    }
    if (!out_file.empty()) o.output_folder = fs::absolute(out_file).parent_path();
    std::vector<std::string> notes;
    const std::string text = cosim::urdf_mjcf::urdf_to_mjcf(urdf_file, o, &notes);
    for (const std::string& note : notes) std::fprintf(stderr, "cosim-urdf-mjcf: note: %s\n", note.c_str());
    if (out_file.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return kExitOk;
    }
    // Written beside and renamed over: a failed run leaves no half file.
    if (const std::error_code ec = cosim::platform::replace_file(out_file, text)) {
      std::fprintf(stderr, "cosim-urdf-mjcf: cannot write %s: %s\n", cosim::platform::utf8(out_file).c_str(),
                   ec.message().c_str());
      return kExitBadInput;
    }
    return kExitOk;
  } catch (const cosim::urdf_mjcf::ConvertError& e) {
    std::fprintf(stderr, "cosim-urdf-mjcf: %s\n", e.what());
    return kExitBadInput;
  } catch (const cosim::mjcf::ModelError& e) {
    std::fprintf(stderr, "cosim-urdf-mjcf: %s\n", e.what());
    return kExitBadInput;
  }
}
