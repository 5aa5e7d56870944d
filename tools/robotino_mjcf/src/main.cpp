// cosim-robotino-mjcf: writes the Robotino as an MJCF model for the mujoco backend, from the
// robotino backend's parameters (defaults, a --params file, --param overrides). The default
// model is committed as scenes/robotino/mujoco/robotino.xml; tests/unit/robotino_mjcf fails
// when it differs from this program's output.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/dynamics/robotino_common/robotino_drive.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/robotino_mjcf/robotino_mjcf.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/exit_codes.hpp"

namespace {

namespace fs = std::filesystem;
using cosim::util::kExitBadInput;
using cosim::util::kExitOk;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim-robotino-mjcf: writes the Robotino (seed 000's plant, the robotino backend's PID) as an MJCF "
               "model for `cosim-dynamics --backend mujoco`",
               "cosim-robotino-mjcf"};
  app.set_version_flag("--version", std::string("cosim-robotino-mjcf ") + COSIM_VERSION);
  std::string params_file;
  std::vector<std::string> overrides;
  std::string out_file;
  cosim::robotino_mjcf::MjcfOptions o;
  app.add_option("--params", params_file, "robotino parameter file ('key = value'), e.g. "
                                          "scenes/robotino/params/seed000.params");
  app.add_option("--param", overrides, "robotino parameter override key=value (repeatable)");
  app.add_option("-o,--output", out_file, "write the model here (default: standard output)");
  app.add_option("--timestep", o.timestep_s, "MuJoCo's step [s]; the drives' PID runs at it")->capture_default_str();
  app.add_option("--roller-offset", o.roller_offset_m,
                 "axial offset of the two roller groups [m]; 0: one row, the seed's contact in the wheel plane")
      ->capture_default_str();
  app.add_option("--profile-points", o.profile_points, "barrel profile samples per roller")->capture_default_str();
  app.add_option("--facets", o.facets, "barrel facets about the roller axis")->capture_default_str();
  app.add_option("--friction", o.friction, "roller-floor sliding friction coefficient")->capture_default_str();
  app.add_option("--contact-time", o.contact_time_s,
                 "time constant of MuJoCo's soft contacts (solref) [s]; at least twice the timestep")
      ->capture_default_str();
  app.add_option("--noslip-iterations", o.noslip_iterations,
                 "MuJoCo's noslip iterations (0: MuJoCo's soft friction alone, which creeps)")
      ->capture_default_str();
  app.footer("Example:\n"
             "  cosim-robotino-mjcf -o robotino.xml    then: cosim --backend mujoco --param model=robotino.xml\n"
             "Exit status: 0 written, 2 bad usage, parameters or an unwritable file.");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    const fs::path file = cosim::platform::path_from_utf8(params_file);
    const auto params = cosim::dynamics::Params::resolve("robotino", cosim::dynamics::robotino_common::robotino_param_specs(),
                                                         params_file.empty() ? nullptr : &file, overrides);
    (void)cosim::dynamics::robotino_common::read_robotino_model_params(params);  // the combination checks robotino makes
    const std::string text = cosim::robotino_mjcf::robotino_mjcf(params, o);
    if (out_file.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return kExitOk;
    }
    const fs::path out_path = cosim::platform::path_from_utf8(out_file);
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "cosim-robotino-mjcf: cannot write %s\n", out_file.c_str());
      return kExitBadInput;
    }
    return kExitOk;
  } catch (const cosim::dynamics::ParamError& e) {
    std::fprintf(stderr, "cosim-robotino-mjcf: %s\n", e.what());
    return kExitBadInput;
  }
}
