// The `fmu` backend (fmu_backend.hpp, docs/fmi.md): the FMU unpacked into a private folder,
// its outputs mapped to scene joints, its parameters set from `--param fmu.NAME=VALUE`, stepped
// at the frame period in communication steps no longer than step_s.
#include "cosim/dynamics/fmu/fmu_backend.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cosim/fmi/instance.hpp"
#include "cosim/fmi/model_description.hpp"
#include "cosim/fmi/shipped_scene.hpp"
#include "cosim/fmi/zip_reader.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/text.hpp"

namespace cosim::dynamics::fmu {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDefaultFmu = "pendulum.fmu";
constexpr double kDefaultStep_s = 1e-3;
constexpr std::string_view kFamily = "fmu.";

// Relative FMUs: the current folder, then those shipped with cosim (<bin>/../share/cosim/fmus).
std::vector<fs::path> fmu_candidates(const fs::path& given, bool /*shipped*/) {
  if (given.is_absolute()) return {given};
  std::vector<fs::path> out{given};
  if (const fs::path exe = platform::executable_path(); !exe.empty()) {
    out.push_back(exe.parent_path().parent_path() / "share" / "cosim" / "fmus" / given);
  }
  return out;
}

fs::path fmu_file(const Params& params) { return params.input_file("fmu", "FMU", &fmu_candidates); }

fmi::ModelDescription read_description(fmi::ZipArchive& zip, const std::string& name) {
  const fmi::ZipEntry* entry = zip.find("modelDescription.xml");
  if (entry == nullptr) throw ParamError(name + ": no modelDescription.xml: not an FMU");
  try {
    return fmi::parse_model_description(zip.read(*entry), name + ":modelDescription.xml");
  } catch (const util::BadInputError& e) {
    throw ParamError(e.what());
  }
}

// The unpacked FMU: a private folder, removed with it.
class Unpacked {
 public:
  Unpacked(const fs::path& file, const std::string& name) {
    try {
      fmi::ZipArchive zip(file);
      md = read_description(zip, name);
      folder = platform::make_private_temp_dir("cosim-fmu-");
      zip.extract_all(folder);
    } catch (const ParamError&) {
      remove();
      throw;
    } catch (const util::CosimError& e) {
      remove();
      throw ParamError(e.what());
    }
  }
  ~Unpacked() { remove(); }
  Unpacked(const Unpacked&) = delete;
  Unpacked& operator=(const Unpacked&) = delete;

  fs::path folder;
  fmi::ModelDescription md;

 private:
  void remove() {
    if (folder.empty()) return;
    std::error_code ec;
    fs::remove_all(folder, ec);
  }
};

struct Mapped {
  std::string joint;
  const fmi::Variable* variable = nullptr;
  double scale = 1.0, offset = 0.0;
};

bool is_real_output(const fmi::Variable& v) {
  return v.causality == fmi::Causality::output && v.scalar &&
         (v.type == fmi::VariableType::float64 || v.type == fmi::VariableType::float32);
}

// The joints from a mapping file, `Model/joint = variable [scale [offset]]` a line, '#' comments.
std::vector<Mapped> read_mapping(const fs::path& file, const fmi::ModelDescription& md) {
  std::ifstream in(file);
  if (!in) throw ParamError("mapping file '" + file.string() + "': cannot read");
  std::vector<Mapped> out;
  std::set<std::string> joints;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = file.string() + ":" + std::to_string(n);
    std::string_view text = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = util::trim(text);
    if (text.empty()) continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) throw ParamError(where + ": expected 'Model/joint = variable [scale [offset]]'");
    Mapped m;
    m.joint = std::string(util::trim(text.substr(0, eq)));
    std::istringstream rest{std::string(text.substr(eq + 1))};
    std::string variable;
    rest >> variable;
    if (m.joint.find('/') == std::string::npos) throw ParamError(where + ": '" + m.joint + "' is no scoped scene joint (Model/joint)");
    if (!joints.insert(m.joint).second) throw ParamError(where + ": joint '" + m.joint + "' mapped twice");
    m.variable = md.find(variable);
    if (m.variable == nullptr) throw ParamError(where + ": the FMU has no variable '" + variable + "'");
    if (!is_real_output(*m.variable)) {
      throw ParamError(where + ": variable '" + variable + "' is no Float64 or Float32 output (it is a " +
                       fmi::type_name(m.variable->type) + " " + fmi::causality_name(m.variable->causality) + ")");
    }
    // Up to two numbers after the variable: scale (default 1), offset (default 0).
    std::vector<std::string> numbers;
    for (std::string word; rest >> word;) numbers.push_back(word);
    if (numbers.size() > 2) throw ParamError(where + ": more than scale and offset after the variable");
    for (std::size_t k = 0; k < numbers.size(); ++k) {
      char* end = nullptr;
      const double v = std::strtod(numbers[k].c_str(), &end);
      if (end != numbers[k].c_str() + numbers[k].size() || !std::isfinite(v)) {
        throw ParamError(where + ": " + (k == 0 ? "scale" : "offset") + " '" + numbers[k] + "' is not a finite number");
      }
      (k == 0 ? m.scale : m.offset) = v;
    }
    out.push_back(m);
  }
  if (out.empty()) throw ParamError("mapping file '" + file.string() + "' maps no joint");
  return out;
}

// Without a mapping: every real output named as a scoped scene joint ("Pendulum/swing").
std::vector<Mapped> mapping_by_name(const fmi::ModelDescription& md, const std::string& name) {
  std::vector<Mapped> out;
  for (const fmi::Variable& v : md.variables) {
    if (is_real_output(v) && v.name.find('/') != std::string::npos) out.push_back({v.name, &v, 1.0, 0.0});
  }
  if (out.empty()) {
    throw ParamError(name + ": no output is named as a scene joint (Model/joint); map its outputs to the scene's "
                            "joints with --param mapping=FILE");
  }
  return out;
}

// "Robot/arm speed" in "m/s" -> "Robot_arm_speed_m_per_s": a dynamics.csv column (letters,
// digits and '_'; a unit's '/' reads "per"). A name that already ends in its unit keeps it
// once: "vx_m_per_s" in "m/s" (what cosim's own exported FMUs name their outputs).
std::string column_name(const fmi::Variable& v) {
  const auto identifier = [](const std::string& text, bool slash_is_per) {
    std::string out;
    for (const char c : text) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      out += ok ? std::string(1, c) : (c == '/' && slash_is_per && !out.empty()) ? "_per_" : "_";
    }
    return out;
  };
  const std::string name = identifier(v.name, false);
  if (v.unit.empty()) return name;
  std::string suffix = "_";
  suffix += identifier(v.unit, true);
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return name;
  return name + suffix;
}

struct Plan {
  std::unique_ptr<Unpacked> fmu;
  std::string name;
  std::vector<Mapped> joints;
  std::vector<const fmi::Variable*> outputs;
  std::vector<std::string> output_names, joint_names;
};

Plan plan(const Params& params) {
  Plan p;
  const fs::path file = fmu_file(params);
  p.name = file.filename().string();
  p.fmu = std::make_unique<Unpacked>(file, p.name);
  const fmi::ModelDescription& md = p.fmu->md;
  if (!md.co_simulation) {
    throw ParamError(p.name + ": no CoSimulation element (model exchange only): the fmu backend runs co-simulation FMUs");
  }
  const std::string& mapping = params.get_text("mapping");
  p.joints = mapping.empty() ? mapping_by_name(md, p.name) : read_mapping(params.input_file("mapping", "mapping file", &fmu_candidates), md);
  std::set<const fmi::Variable*> used;
  for (const Mapped& m : p.joints) {
    p.joint_names.push_back(m.joint);
    used.insert(m.variable);
  }
  for (const fmi::Variable& v : md.variables) {
    if (is_real_output(v) && !used.count(&v)) {
      p.outputs.push_back(&v);
      p.output_names.push_back(column_name(v));
    }
  }
  return p;
}

// One `fmu.NAME=VALUE`, checked against its variable and set.
void set_parameter(fmi::Instance& instance, const fmi::ModelDescription& md, const Params::Entry& entry,
                   const std::string& fmu_name) {
  const std::string name = entry.key.substr(kFamily.size());
  const std::string& text = *entry.text;
  const std::string where = "parameter '" + entry.key + "' = '" + text + "'";
  const fmi::Variable* v = md.find(name);
  if (v == nullptr) {
    std::string names;
    for (const fmi::Variable& other : md.variables) {
      if (other.causality == fmi::Causality::parameter || other.causality == fmi::Causality::input) {
        names += (names.empty() ? "" : ", ") + other.name;
      }
    }
    throw ParamError(where + ": " + fmu_name + " has no variable '" + name + "' (its parameters and inputs: " +
                     (names.empty() ? "none" : names) + ")");
  }
  if (v->causality != fmi::Causality::parameter && v->causality != fmi::Causality::input &&
      v->causality != fmi::Causality::structural_parameter) {
    throw ParamError(where + ": '" + name + "' is " + fmi::causality_name(v->causality) + ", not a parameter or input");
  }
  if (v->variability == fmi::Variability::constant) throw ParamError(where + ": '" + name + "' is a constant");
  const std::uint32_t vr = v->value_reference;
  const auto number = [&]() {
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(d)) {
      throw ParamError(where + ": not a finite number (" + name + " is " + fmi::type_name(v->type) + ")");
    }
    if ((v->min && d < *v->min) || (v->max && d > *v->max)) {
      throw ParamError(where + ": outside [" + (v->min ? util::format("%g", *v->min) : std::string("-inf")) + ", " +
                       (v->max ? util::format("%g", *v->max) : std::string("inf")) + "] " + v->unit);
    }
    return d;
  };
  switch (v->type) {
    case fmi::VariableType::float64: {
      const double d = number();
      instance.set_float64(std::span(&vr, 1), std::span(&d, 1));
      return;
    }
    case fmi::VariableType::int32: {
      const double d = number();
      if (d != std::floor(d) || d < std::numeric_limits<std::int32_t>::min() || d > std::numeric_limits<std::int32_t>::max()) {
        throw ParamError(where + ": not an Int32");
      }
      const auto i = static_cast<std::int32_t>(d);
      instance.set_int32(std::span(&vr, 1), std::span(&i, 1));
      return;
    }
    case fmi::VariableType::boolean: {
      if (text != "true" && text != "false" && text != "1" && text != "0") throw ParamError(where + ": expected true or false");
      const bool b = text == "true" || text == "1";
      instance.set_boolean(std::span(&vr, 1), std::span(&b, 1));
      return;
    }
    case fmi::VariableType::string: {
      const char* s = text.c_str();
      instance.set_string(std::span(&vr, 1), std::span(&s, 1));
      return;
    }
    default:
      throw ParamError(where + ": a " + std::string(fmi::type_name(v->type)) + " variable (Float64, Int32, Boolean and "
                       "String can be set)");
  }
}

class FmuBackend final : public Backend {
 public:
  FmuBackend(Plan p, const Params& params, double t0_s)
      : Backend("fmu", p.fmu->md.model_name, p.joint_names, p.output_names, t0_s), plan_(std::move(p)) {
    const fmi::ModelDescription& md = plan_.fmu->md;
    set_model_file(plan_.name);
    set_runs_foreign_code();  // the FMU's binary: a crash in it must not lose the rows before
    for (const Mapped& m : plan_.joints) joint_vrs_.push_back(m.variable->value_reference);
    for (const fmi::Variable* v : plan_.outputs) output_vrs_.push_back(v->value_reference);
    joint_values_.resize(joint_vrs_.size());
    variable_step_ = md.co_simulation->can_handle_variable_step;
    // The FMU's own step: its default experiment's, else its fixed internal step (FMI 3).
    const std::optional<double> own_step_s =
        md.step_size_s ? md.step_size_s : md.co_simulation->fixed_internal_step_s;
    const double asked = params.get("step_s");
    step_s_ = asked > 0 ? asked : own_step_s.value_or(kDefaultStep_s);
    if (!variable_step_ && own_step_s && asked > 0 && asked != *own_step_s) {
      throw ParamError("parameter 'step_s' = " + util::format("%g", asked) + ": " + plan_.name +
                       " takes communication steps of " + util::format("%g", *own_step_s) +
                       " s only (canHandleVariableCommunicationStepSize=false)");
    }
    const std::string name = plan_.name;
    try {
      instance_ = fmi::instantiate(plan_.fmu->folder, md, name, [this, name](std::string_view status,
                                                                               std::string_view category,
                                                                               std::string_view message) {
        // A line of its own in dynamics.log (Backend::say): "pendulum.fmu: Warning: category: text".
        say(name + ": " + std::string(status) + ": " + std::string(category) + ": " + std::string(message));
      });
      instance_->enter_initialization_mode(t0_s, std::nullopt, md.tolerance);
      for (const Params::Entry* entry : params.family(kFamily)) set_parameter(*instance_, md, *entry, name);
      instance_->exit_initialization_mode();
      read_first();
    } catch (const ParamError&) {
      throw;
    } catch (const util::CosimError& e) {
      throw ParamError(e.what());
    }
  }

 private:
  void read(std::span<double> q, std::span<double> outputs) {
    instance_->get_float64(joint_vrs_, joint_values_);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = plan_.joints[i].scale * joint_values_[i] + plan_.joints[i].offset;
    if (!output_vrs_.empty()) instance_->get_float64(output_vrs_, outputs);
  }

  // The first read, before running: an output the binary refuses (its model description
  // declares what it does not have) is named with its value reference.
  void read_first() {
    try {
      read(mutable_joint_values(), mutable_outputs());
    } catch (const util::BadInputError& e) {
      for (const fmi::Variable& v : plan_.fmu->md.variables) {
        if (!is_real_output(v)) continue;
        double value = 0;
        try {
          instance_->get_float64(std::span(&v.value_reference, 1), std::span(&value, 1));
        } catch (const util::BadInputError& refused) {
          std::string why = refused.what();  // "<name>: fmi3GetFloat64 returned Error: ..."
          if (why.starts_with(plan_.name + ": ")) why.erase(0, plan_.name.size() + 2);
          throw ParamError(plan_.name + ": its binary refuses the output '" + v.name + "' (valueReference " +
                           std::to_string(v.value_reference) + ", modelDescription.xml line " + std::to_string(v.line) +
                           "): " + why);
        }
      }
      throw;
    }
  }

  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override {
    const double t0 = time_s(), span = t_s - t0;
    // Equal steps no longer than step_s; an FMU of one fixed step takes exactly that many.
    const double steps = span / step_s_;
    auto n = static_cast<long>(std::ceil(steps - 1e-9));
    if (!variable_step_) {
      n = std::lround(steps);
      if (n < 1 || std::abs(static_cast<double>(n) * step_s_ - span) > 1e-9 * std::max(1.0, span)) {
        throw ParamError(plan_.name + " takes communication steps of exactly " + util::format("%g", step_s_) +
                         " s (canHandleVariableCommunicationStepSize=false); the run advances by " +
                         util::format("%g", span) + " s: choose --fps or --output-step a multiple of it");
      }
    }
    n = std::max<long>(n, 1);
    const double h = span / static_cast<double>(n);
    for (long i = 0; i < n; ++i) {
      instance_->do_step(t0 + static_cast<double>(i) * h, i + 1 == n ? t_s - (t0 + static_cast<double>(i) * h) : h);
    }
    read(q, outputs);
  }

  Plan plan_;
  std::unique_ptr<fmi::Instance> instance_;
  std::vector<std::uint32_t> joint_vrs_, output_vrs_;
  std::vector<double> joint_values_;
  double step_s_ = kDefaultStep_s;
  bool variable_step_ = true;
};

}  // namespace

std::span<const ParamSpec> fmu_param_specs() {
  static const std::vector<ParamSpec> specs{
      text_param_spec("fmu", kDefaultFmu, "path",
                      "the co-simulation FMU (FMI 3.0 or 2.0); relative: the current folder, then the FMUs shipped "
                      "with cosim (share/cosim/fmus)",
                      "assumption: scenes/pendulum's pendulum, built with cosim (dynamics_server/backends/fmu/pendulum_fmu)"),
      text_param_spec("mapping", "", "path",
                      "file of 'Model/joint = variable [scale [offset]]' lines; empty: the outputs named as scene joints",
                      "assumption"),
      {"step_s", 0.0, 0.0, 1.0, "s",
       "largest communication step; 0: the FMU's default experiment's step, else 1 ms", "assumption"},
      family_param_spec("fmu.", "a parameter or input of the FMU (fmu.NAME=VALUE), checked against its model description",
                        "the FMU"),
  };
  return specs;
}

std::unique_ptr<Backend> make_fmu_backend(const Params& params, double t0_s) {
  return std::make_unique<FmuBackend>(plan(params), params, t0_s);
}

fs::path fmu_model_scene(const Params& params) {
  const fs::path file = fmu_file(params);
  try {
    if (auto shipped = fmi::shipped_scene(file)) return *shipped;
  } catch (const util::CosimError& e) {
    throw ParamError(e.what());
  }
  fmi::ZipArchive zip(file);
  const std::string folder = scene::scene_name_of_model(read_description(zip, file.filename().string()).model_name);
  // From a file anyone may have written: a plain folder name, or nothing.
  const bool plain = !folder.empty() && folder != "." && folder != ".." &&
                     folder.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-.") == std::string::npos;
  if (!plain) return {};
  std::error_code ec;
  const fs::path candidate = scene::scenes_root() / folder;
  return fs::is_directory(candidate, ec) ? candidate : fs::path{};
}

double fmu_natural_duration_s(const Params& params) {
  const fs::path file = fmu_file(params);
  fmi::ZipArchive zip(file);
  const fmi::ModelDescription md = read_description(zip, file.filename().string());
  if (md.start_time_s && md.stop_time_s && *md.stop_time_s > *md.start_time_s) return *md.stop_time_s - *md.start_time_s;
  return 10.0;
}

}  // namespace cosim::dynamics::fmu
