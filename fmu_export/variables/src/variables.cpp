// The exported variables (variables.hpp).
#include "cosim/fmu_export/variables.hpp"

#include <array>
#include <cinttypes>
#include <cstdio>

#include "cosim/util/digest.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmu_export {

namespace {

const char* source_name(Source s) {
  switch (s) {
    case Source::time: return "time";
    case Source::parameter: return "parameter";
    case Source::joint: return "joint";
    case Source::output: return "output";
  }
  return "?";
}

std::string joint_unit(dynamics::JointKind kind) {
  switch (kind) {
    case dynamics::JointKind::revolute: return "rad";
    case dynamics::JointKind::prismatic: return "m";
    case dynamics::JointKind::unknown: break;
  }
  return "";
}

std::string joint_description(dynamics::JointKind kind) {
  std::string out = "joint value (";
  out += dynamics::joint_kind_name(kind);
  out += ')';
  return out;
}

}  // namespace

std::vector<double> ModelVariables::parameter_starts() const {
  std::vector<double> out;
  for (const Variable& v : variables) {
    if (v.source == Source::parameter) out.push_back(v.start);
  }
  return out;
}

std::string unit_from_column(std::string_view column) {
  // Longest suffixes first: "_rad_per_s" before "_s".
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kSuffixes{{
      {"_rad_per_s2", "rad/s2"}, {"_rad_per_s", "rad/s"}, {"_m_per_s2", "m/s2"}, {"_m_per_s", "m/s"},
      {"_N_m", "N.m"}, {"_kg_m2", "kg.m2"}, {"_rad", "rad"}, {"_deg", "deg"}, {"_m", "m"}, {"_s", "s"},
      {"_J", "J"}, {"_W", "W"}, {"_N", "N"}, {"_V", "V"}, {"_A", "A"}, {"_kg", "kg"}, {"_Hz", "Hz"},
  }};
  for (const auto& [suffix, unit] : kSuffixes) {
    if (column.size() > suffix.size() && column.substr(column.size() - suffix.size()) == suffix) return std::string(unit);
  }
  return "";
}

ModelVariables model_variables(std::string_view backend_name, std::span<const dynamics::ParamSpec> specs,
                               const dynamics::Params& params, const dynamics::Backend& backend) {
  ModelVariables table;
  table.backend = std::string(backend_name);
  table.model_name = backend.model_name();
  const auto add = [&](Variable v) {
    v.vr = static_cast<std::uint32_t>(table.variables.size());
    table.variables.push_back(std::move(v));
  };
  add({.name = "time", .source = Source::time, .unit = "s", .description = "model time"});
  for (const dynamics::ParamSpec& spec : specs) {
    if (dynamics::is_family(spec) || spec.text_default) {
      throw util::BadInputError("backend '" + table.backend + "': parameter '" + spec.key +
                                "' is text (a file or a family); an exported FMU's parameters are numbers");
    }
    std::string doc = spec.doc + " (" + spec.source + ")";
    if (!spec.choices.empty()) {
      doc += "; a switch:";
      for (std::size_t i = 0; i < spec.choices.size(); ++i) ((doc += ' ') += std::to_string(i)) += ' ' + spec.choices[i];
    }
    add({.name = spec.key, .source = Source::parameter, .index = table.n_parameters++,
         .unit = spec.unit == "1" ? "" : spec.unit, .description = doc, .start = params.get(spec.key),
         .min = spec.min_value, .max = spec.max_value});
  }
  const auto kinds = backend.joint_kinds();
  for (std::size_t i = 0; i < backend.joint_names().size(); ++i) {
    add({.name = backend.joint_names()[i], .source = Source::joint, .index = table.n_joints++,
         .unit = joint_unit(kinds[i]), .description = joint_description(kinds[i])});
  }
  for (const std::string& column : backend.output_names()) {
    add({.name = column, .source = Source::output, .index = table.n_outputs++, .unit = unit_from_column(column),
         .description = "output"});
  }
  return table;
}

std::string instantiation_token(const ModelVariables& table) {
  std::uint64_t a = util::fnv1a_64("cosim-fmu 1\n" + table.backend + "\n" + table.model_name + "\n");
  std::uint64_t b = util::fnv1a_64(table.backend, 0x84222325cbf29ce4ULL);  // a second, independent start
  for (const Variable& v : table.variables) {
    const std::string line = v.name + "\t" + source_name(v.source) + "\t" + v.unit + "\n";
    a = util::fnv1a_64(line, a);
    b = util::fnv1a_64(line, b ^ a);
  }
  char text[40];
  std::snprintf(text, sizeof text, "{%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64 "}", a >> 32,
                (a >> 16) & 0xffff, a & 0xffff, b >> 48, static_cast<std::uint64_t>(b & 0xffffffffffffULL));
  return text;
}

std::vector<std::string> parameter_overrides(const ModelVariables& table, std::span<const double> values) {
  std::vector<std::string> out;
  for (const Variable& v : table.variables) {
    if (v.source != Source::parameter) continue;
    char number[32];
    std::snprintf(number, sizeof number, "%.17g", values[v.index]);
    out.push_back(v.name + "=" + number);
  }
  return out;
}

}  // namespace cosim::fmu_export
