// cosim-fmu: a registered backend packed as an FMI 3.0 or 2.0 co-simulation FMU that other
// tools run (docs/fmi.md).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/fmu_export/export.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/util/text.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  CLI::App app{"cosim-fmu: packs a cosim backend (a seed model verified against its paper) as an FMI 3.0 or 2.0 "
               "co-simulation FMU that FMPy, OMSimulator, libcosim or cosim's own fmu backend can run",
               "cosim-fmu"};
  app.set_version_flag("--version", std::string("cosim-fmu ") + COSIM_SOFTWARE_VERSION);
  app.require_subcommand(1);
  CLI::App* exp = app.add_subcommand("export", "writes an FMU of a backend");
  cosim::fmu_export::ExportOptions o;
  fs::path params_file, output;
  std::optional<double> stop_s, step_s;
  bool no_reference = false, no_scene = false;
  exp->add_option("--backend", o.backend, "the backend: " + cosim::util::join(cosim::fmu_export::exportable_backends()))
      ->required();
  cosim::util::add_path_option(*exp, "--params", params_file, "parameter file (key = value lines): the FMU's start values");
  exp->add_option("--param", o.overrides, "KEY=VALUE, a start value (repeatable; after --params)");
  exp->add_option("--fmi", o.fmi_version, "FMI version: 3 (default) or 2")->check(CLI::IsMember({2, 3}));
  cosim::util::add_path_option(*exp, "-o,--output", output, "the .fmu to write")->required();
  std::vector<std::string> binaries;
  exp->add_option("--binary", binaries,
                  "a binary to pack (repeatable): a .so for Linux, a .dll for Windows (the Windows build's "
                  "lib/cosim/cosim_fmu.dll); default: this platform's, " +
                      cosim::platform::utf8(cosim::fmu_export::default_binary()));
  exp->add_option("--stop", stop_s, "the default experiment's stop time [s] (default: the backend's own scenario)");
  exp->add_option("--step", step_s, "the default experiment's step [s] (default: 0.02, cosim-dynamics' output step)");
  exp->add_flag("--no-reference", no_reference, "do not run the model for extra/cosim/reference.csv");
  exp->add_flag("--no-scene", no_scene, "do not pack the backend's scene (resources/cosim/scene/: cosim draws the model "
                                        "from it wherever the FMU goes)");
  app.add_subcommand("list", "prints the backends that can be exported");
  app.footer("Examples:\n"
             "  cosim-fmu export --backend robotino -o robotino.fmu\n"
             "  cosim-fmu export --backend robotino --fmi 2 --params my.params -o robotino2.fmu\n"
             "  cosim-dynamics --backend fmu --param fmu=robotino.fmu --scene robotino --out runs/rt\n"
             "Exit status: 0 written, 2 a bad option, backend, parameter or binary, or the FMU could not be written.");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    if (app.got_subcommand("list")) {
      for (const std::string& name : cosim::fmu_export::exportable_backends()) std::printf("%s\n", name.c_str());
      return cosim::util::kExitOk;
    }
    if (!params_file.empty()) o.params_file = params_file;
    for (const std::string& b : binaries) o.binaries.push_back(cosim::platform::path_from_utf8(b));
    o.output = output;
    o.stop_s = stop_s;
    o.step_s = step_s;
    o.reference = !no_reference;
    o.scene = !no_scene;
    cosim::fmu_export::export_fmu(o, [](const std::string& line) { std::fprintf(stderr, "cosim-fmu: %s\n", line.c_str()); });
    return cosim::util::kExitOk;
  } catch (const cosim::util::CosimError& e) {
    std::fprintf(stderr, "cosim-fmu: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {  // a bug
    std::fprintf(stderr, "cosim-fmu: error: %s\n", e.what());
    return cosim::util::kExitInternal;
  }
}
