#pragma once
/// @file
/// A registered backend packed as an FMI 3.0 or 2.0 co-simulation FMU (cosim-fmu export,
/// docs/fmi.md): modelDescription.xml from the backend's parameter table, joints and outputs;
/// the binary (fmu_export/binary) for Linux and, when given, Windows; the backend's name and
/// parameters in resources/cosim/, with the backend's scene; a reference result in extra/cosim/.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cosim/fmu_export/variables.hpp"

namespace cosim::fmu_export {

/// The default experiment written into the FMU.
struct Experiment {
  double start_s = 0.0;
  double stop_s = 10.0;
  double step_s = 0.02;  ///< cosim-dynamics' default output step
};

/// modelDescription.xml for `table` (FMI `version` 3 or 2), the binary named `model_identifier`.
std::string model_description_xml(const ModelVariables& table, int version, const std::string& model_identifier,
                                  const std::string& summary, const Experiment& experiment);

struct ExportOptions {
  std::string backend;                              ///< a self-contained backend's registry name
  std::optional<std::filesystem::path> params_file; ///< --params
  std::vector<std::string> overrides;               ///< --param KEY=VALUE
  int fmi_version = 3;
  std::filesystem::path output;                     ///< the .fmu written
  /// Binaries to pack (.so: Linux, .dll: Windows); empty: this platform's, found beside the tool.
  std::vector<std::filesystem::path> binaries;
  std::optional<double> stop_s, step_s;             ///< default: the backend's natural duration, 0.02 s
  bool reference = true;                            ///< run the model and pack extra/cosim/reference.csv
  bool scene = true;                                ///< pack the backend's scene in resources/cosim/scene/
};

/// Writes the FMU (through a temporary file beside it, renamed at the end: no half-written FMU).
/// Throws util::BadInputError for a backend that cannot be exported, a bad parameter or a
/// missing binary; util::OutputError when the FMU cannot be written. `progress` gets one line per stage.
void export_fmu(const ExportOptions& options, const std::function<void(const std::string&)>& progress = {});

/// The binary of this platform beside the tool: <bin>/../lib/cosim/cosim_fmu.so (.dll).
std::filesystem::path default_binary();

/// The exportable backends' names (those that read no file and load no library of their own).
std::vector<std::string> exportable_backends();

}  // namespace cosim::fmu_export
