// modelDescription.xml of an exported backend, FMI 3.0 (the standard's §2.4) or 2.0 (§2.2),
// written from the variable table (export.hpp).
#include <cstdio>
#include <set>
#include <string>

#include "cosim/fmu_export/export.hpp"

namespace cosim::fmu_export {

namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;
      default: out += c;
    }
  }
  return out;
}

// Reads back as the same double.
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string attribute(const char* name, const std::string& value) { return std::string(" ") + name + "=\"" + escaped(value) + "\""; }

std::string units(const ModelVariables& table) {
  std::set<std::string> names;
  for (const Variable& v : table.variables) {
    if (!v.unit.empty()) names.insert(v.unit);
  }
  if (names.empty()) return "";
  std::string out = "  <UnitDefinitions>\n";
  for (const std::string& u : names) out += "    <Unit" + attribute("name", u) + "/>\n";
  return out + "  </UnitDefinitions>\n";
}

constexpr const char* kLogCategories =
    "  <LogCategories>\n"
    "    <Category name=\"logStatusError\" description=\"a call that failed: what and why\"/>\n"
    "    <Category name=\"logEvents\" description=\"initialisation\"/>\n"
    "  </LogCategories>\n";

std::string experiment_element(const Experiment& e) {
  return "  <DefaultExperiment" + attribute("startTime", number(e.start_s)) + attribute("stopTime", number(e.stop_s)) +
         attribute("stepSize", number(e.step_s)) + "/>\n";
}

std::string fmi3(const ModelVariables& table, const std::string& id, const std::string& summary, const Experiment& e) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"3.0\"" +
                    attribute("modelName", table.model_name) + attribute("description", summary) +
                    attribute("generationTool", "cosim-fmu export (cosim " COSIM_SOFTWARE_VERSION ")") +
                    attribute("instantiationToken", instantiation_token(table)) +
                    " variableNamingConvention=\"flat\">\n";
  out += "  <CoSimulation" + attribute("modelIdentifier", id) +
         " canHandleVariableCommunicationStepSize=\"true\" canBeInstantiatedOnlyOncePerProcess=\"false\""
         " canGetAndSetFMUState=\"false\" canSerializeFMUState=\"false\" providesDirectionalDerivatives=\"false\""
         " providesAdjointDerivatives=\"false\" hasEventMode=\"false\" needsExecutionTool=\"false\"/>\n";
  out += units(table) + kLogCategories + experiment_element(e) + "  <ModelVariables>\n";
  for (const Variable& v : table.variables) {
    out += "    <Float64" + attribute("name", v.name) + attribute("valueReference", std::to_string(v.vr));
    if (!v.description.empty()) out += attribute("description", v.description);
    switch (v.source) {
      case Source::time: out += " causality=\"independent\" variability=\"continuous\""; break;
      case Source::parameter:
        out += " causality=\"parameter\" variability=\"fixed\" initial=\"exact\"" + attribute("start", number(v.start)) +
               attribute("min", number(v.min)) + attribute("max", number(v.max));
        break;
      case Source::joint:
      case Source::output: out += " causality=\"output\" variability=\"continuous\" initial=\"calculated\""; break;
    }
    if (!v.unit.empty()) out += attribute("unit", v.unit);
    out += "/>\n";
  }
  out += "  </ModelVariables>\n  <ModelStructure>\n";
  for (const Variable& v : table.variables) {
    if (v.source == Source::joint || v.source == Source::output) out += "    <Output valueReference=\"" + std::to_string(v.vr) + "\"/>\n";
  }
  for (const Variable& v : table.variables) {
    if (v.source == Source::joint || v.source == Source::output) {
      out += "    <InitialUnknown valueReference=\"" + std::to_string(v.vr) + "\"/>\n";
    }
  }
  return out + "  </ModelStructure>\n</fmiModelDescription>\n";
}

std::string fmi2(const ModelVariables& table, const std::string& id, const std::string& summary, const Experiment& e) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"2.0\"" +
                    attribute("modelName", table.model_name) + attribute("description", summary) +
                    attribute("generationTool", "cosim-fmu export (cosim " COSIM_SOFTWARE_VERSION ")") +
                    attribute("guid", instantiation_token(table)) +
                    " variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\">\n";
  out += "  <CoSimulation" + attribute("modelIdentifier", id) +
         " canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"false\""
         " canBeInstantiatedOnlyOncePerProcess=\"false\" canGetAndSetFMUstate=\"false\" canSerializeFMUstate=\"false\""
         " providesDirectionalDerivative=\"false\" needsExecutionTool=\"false\"/>\n";
  out += units(table) + kLogCategories + experiment_element(e) + "  <ModelVariables>\n";
  // FMI 2 has no independent variable element of its own: time is not listed (value reference 0 stays unused).
  std::vector<std::size_t> outputs;  // 1-based indices in ModelVariables
  std::size_t index = 0;
  for (const Variable& v : table.variables) {
    if (v.source == Source::time) continue;
    ++index;
    out += "    <ScalarVariable" + attribute("name", v.name) + attribute("valueReference", std::to_string(v.vr));
    if (!v.description.empty()) out += attribute("description", v.description);
    std::string real = "<Real";
    if (v.source == Source::parameter) {
      out += " causality=\"parameter\" variability=\"fixed\" initial=\"exact\"";
      real += attribute("start", number(v.start)) + attribute("min", number(v.min)) + attribute("max", number(v.max));
    } else {
      out += " causality=\"output\" variability=\"continuous\" initial=\"calculated\"";
      outputs.push_back(index);
    }
    if (!v.unit.empty()) real += attribute("unit", v.unit);
    out += ">" + real + "/></ScalarVariable>\n";
  }
  out += "  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n";
  for (const std::size_t i : outputs) out += "      <Unknown index=\"" + std::to_string(i) + "\"/>\n";
  out += "    </Outputs>\n    <InitialUnknowns>\n";
  for (const std::size_t i : outputs) out += "      <Unknown index=\"" + std::to_string(i) + "\"/>\n";
  return out + "    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n";
}

}  // namespace

std::string model_description_xml(const ModelVariables& table, int version, const std::string& model_identifier,
                                  const std::string& summary, const Experiment& experiment) {
  return version == 2 ? fmi2(table, model_identifier, summary, experiment)
                      : fmi3(table, model_identifier, summary, experiment);
}

}  // namespace cosim::fmu_export
