// A backend packed as an FMU (export.hpp).
#include "cosim/fmu_export/export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/fmi/shipped_scene.hpp"
#include "cosim/fmi/zip_writer.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::fmu_export {

namespace fs = std::filesystem;
namespace registry = dynamics::registry;

namespace {

// Largest binary packed [bytes]: ours is a few MB; anything much larger is the wrong file.
constexpr std::uintmax_t kMaxBinaryBytes = std::uintmax_t{256} << 20;
// Largest reference result [rows]: a longer experiment packs every n-th step.
constexpr std::size_t kMaxReferenceRows = 20'000;

// A file's bytes, at most kMaxBinaryBytes; `missing` says what to do when it is not there.
std::string read_bytes(const fs::path& file, const std::string& missing) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || !fs::is_regular_file(file, ec)) throw util::BadInputError(platform::utf8(file) + ": " + missing);
  if (size > kMaxBinaryBytes) throw util::BadInputError(platform::utf8(file) + ": larger than 256 MiB");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw util::BadInputError(platform::utf8(file) + ": cannot read");
  return bytes.str();
}

// The backend's scene folder as the FMU ships it (fmi::shipped_scene): what the scene reader
// needs (projects/, robots/, objects/, meshes/), regular files only, sorted: the same bytes
// from the same scene.
std::vector<std::pair<std::string, std::string>> scene_entries(const fs::path& folder) {
  std::vector<std::pair<std::string, fs::path>> files;
  for (const char* part : {"projects", "robots", "objects", "meshes"}) {
    std::error_code ec;
    if (!fs::is_directory(folder / part, ec)) continue;
    for (const auto& f : fs::recursive_directory_iterator(folder / part)) {  // links not followed
      if (f.is_symlink() || !f.is_regular_file()) continue;
      files.emplace_back(std::string(fmi::kShippedScenePrefix) + fs::relative(f.path(), folder).generic_string(), f.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, path] : files) out.emplace_back(name, read_bytes(path, "vanished while packing"));
  return out;
}

// binaries/<platform>/ for a binary of this extension and FMI version.
std::string platform_folder(const fs::path& binary, int version) {
  const std::string ext = binary.extension().string();
  if (ext == ".so") return version == 2 ? "linux64" : "x86_64-linux";
  if (ext == ".dll") return version == 2 ? "win64" : "x86_64-windows";
  throw util::BadInputError(platform::utf8(binary) + ": a binary is a .so (Linux) or a .dll (Windows)");
}

std::string g17(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string parameters_file(const ModelVariables& table) {
  std::string out = "# " + table.backend + "'s parameters as exported (cosim-fmu export); the FMU's start values\n";
  for (const Variable& v : table.variables) {
    if (v.source == Source::parameter) out += v.name + " = " + g17(v.start) + "\n";
  }
  return out;
}

// The model stepped as an importer steps the FMU, every output at every step: a CSV whose
// header is "time" and the output variables' names.
std::string reference_csv(const registry::BackendEntry& entry, const dynamics::Params& params, const ModelVariables& table,
                          const Experiment& e) {
  auto backend = entry.make(params, e.start_s);
  const auto steps = static_cast<std::size_t>(std::llround((e.stop_s - e.start_s) / e.step_s));
  const std::size_t every = std::max<std::size_t>(1, (steps + kMaxReferenceRows - 1) / kMaxReferenceRows);
  std::string out = "time";
  for (const Variable& v : table.variables) {
    if (v.source == Source::joint || v.source == Source::output) out += "," + v.name;
  }
  out += "\n";
  const auto row = [&] {
    out += g17(backend->time_s());
    for (const double q : backend->joint_values()) (out += ',') += g17(q);
    for (const double y : backend->outputs()) (out += ',') += g17(y);
    out += "\n";
  };
  row();
  double t = e.start_s;
  for (std::size_t k = 1; k <= steps; ++k) {
    t += e.step_s;  // as an importer adds its communication steps
    backend->advance_to(t);
    if (k % every == 0 || k == steps) row();
  }
  return out;
}

const registry::BackendEntry& exportable(const std::string& name) {
  for (const registry::BackendEntry& entry : registry::backend_registry()) {
    if (entry.name == name) return entry;
  }
  throw util::BadInputError("--backend: '" + name + "' cannot be exported (exportable: " +
                            util::join(exportable_backends()) +
                            "; fmu, mujoco and trajectory read files or load libraries of their own)");
}

}  // namespace

std::vector<std::string> exportable_backends() {
  std::vector<std::string> out;
  for (const registry::BackendEntry& entry : registry::backend_registry()) out.emplace_back(entry.name);
  return out;
}

fs::path default_binary() {
#ifdef _WIN32
  const char* name = "cosim_fmu.dll";
#else
  const char* name = "cosim_fmu.so";
#endif
  return platform::executable_path().parent_path().parent_path() / "lib" / "cosim" / name;
}

void export_fmu(const ExportOptions& o, const std::function<void(const std::string&)>& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  if (o.fmi_version != 2 && o.fmi_version != 3) throw util::BadInputError("--fmi: 2 or 3, not " + std::to_string(o.fmi_version));
  const registry::BackendEntry& entry = exportable(o.backend);
  if (std::error_code ec; !fs::is_directory(fs::absolute(o.output).parent_path(), ec)) {
    throw util::OutputError(platform::utf8(o.output) + ": its folder does not exist");
  }
  const fs::path* file = o.params_file ? &*o.params_file : nullptr;
  const dynamics::Params params = dynamics::Params::resolve(entry.name, entry.param_specs(), file, o.overrides);
  const auto probe = entry.make(params, 0.0);
  const ModelVariables table = model_variables(entry.name, entry.param_specs(), params, *probe);

  Experiment e;
  e.stop_s = o.stop_s.value_or(entry.natural_duration_s(params));
  e.step_s = o.step_s.value_or(e.step_s);
  if (!(e.step_s > 0.0) || !(e.stop_s > e.start_s) || !std::isfinite(e.stop_s)) {
    throw util::BadInputError(util::format("--stop %g s, --step %g s: the stop time must be > 0 and the step > 0", e.stop_s, e.step_s));
  }
  const std::string id = "cosim_" + table.backend;
  const std::vector<fs::path> binaries = o.binaries.empty() ? std::vector<fs::path>{default_binary()} : o.binaries;
  std::vector<std::pair<std::string, std::string>> entries;  // zip name, bytes
  entries.emplace_back("modelDescription.xml",
                       model_description_xml(table, o.fmi_version, id, std::string(entry.summary), e));
  for (const fs::path& binary : binaries) {
    const std::string folder = platform_folder(binary, o.fmi_version);
    for (const auto& [name, bytes] : entries) {
      if (name.rfind("binaries/" + folder + "/", 0) == 0) throw util::BadInputError("--binary: two binaries for " + folder);
    }
    entries.emplace_back("binaries/" + folder + "/" + id + binary.extension().string(),
                         read_bytes(binary, "no such binary (build the target cosim_fmu, or give --binary)"));
  }
  entries.emplace_back("resources/cosim/backend.txt", table.backend + "\n");
  entries.emplace_back("resources/cosim/parameters.params", parameters_file(table));
  if (o.scene) {  // the model draws itself in cosim wherever the FMU goes (docs/fmi.md)
    for (auto& file : scene_entries(scene::find_default_scene(entry.default_scene))) entries.push_back(std::move(file));
  }
  if (o.reference) {
    say("running " + table.backend + " for the reference result (" + util::format("%g s in steps of %g s)", e.stop_s, e.step_s));
    entries.emplace_back("extra/cosim/reference.csv", reference_csv(entry, params, table, e));
    entries.emplace_back("extra/cosim/README.txt",
                         "reference.csv: this FMU's outputs from its default experiment, stepped by cosim-fmu export\n"
                         "with the model itself in steps of stepSize (times added up, as an importer does), every\n"
                         "value printed to 17 digits. An importer that steps the FMU the same way should agree to\n"
                         "the model's integration tolerance (cosim's round trip: 1e-9 m).\n");
  }

  // A temporary file beside the FMU, renamed at the end: a failure leaves no half-written FMU.
  const fs::path partial = o.output.string() + ".partial";
  try {
    fmi::ZipWriter zip(partial);
    for (const auto& [name, bytes] : entries) zip.add(name, bytes);
    zip.finish();
    std::error_code ec;
    fs::rename(partial, o.output, ec);
    if (ec) throw util::OutputError(platform::utf8(o.output) + ": cannot write: " + ec.message());
  } catch (const util::OutputError& e) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw util::OutputError(platform::utf8(o.output) + ": not written: " + e.what());
  } catch (...) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw;
  }
  say(platform::utf8(o.output) + ": FMI " + std::to_string(o.fmi_version) + ".0 co-simulation FMU of " + table.backend +
      ", " + std::to_string(table.n_parameters) + " parameters, " + std::to_string(table.n_joints) + " joints, " +
      std::to_string(table.n_outputs) + " outputs");
}

}  // namespace cosim::fmu_export
