// modelDescription.xml of FMI 3.0 and 2.0 (model_description.hpp), from the standards' text:
// FMI 3.0 §2.4 (fmiModelDescription, ModelVariables, UnitDefinitions, DefaultExperiment,
// CoSimulation), FMI 2.0 §2.2.
#include "cosim/fmi/model_description.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include <pugixml.hpp>

#include "cosim/util/errors.hpp"

namespace cosim::fmi {

namespace {

struct TypeName {
  std::string_view v3, v2;  // element names; v2 empty where FMI 2 has no such type
  VariableType type;
};
constexpr TypeName kTypes[] = {
    {"Float64", "Real", VariableType::float64}, {"Float32", "", VariableType::float32},
    {"Int8", "", VariableType::int8},           {"UInt8", "", VariableType::uint8},
    {"Int16", "", VariableType::int16},         {"UInt16", "", VariableType::uint16},
    {"Int32", "Integer", VariableType::int32},  {"UInt32", "", VariableType::uint32},
    {"Int64", "", VariableType::int64},         {"UInt64", "", VariableType::uint64},
    {"Boolean", "Boolean", VariableType::boolean}, {"String", "String", VariableType::string},
    {"Binary", "", VariableType::binary},       {"Enumeration", "Enumeration", VariableType::enumeration},
    {"Clock", "", VariableType::clock},
};
constexpr std::pair<std::string_view, Causality> kCausalities[] = {
    {"parameter", Causality::parameter}, {"calculatedParameter", Causality::calculated_parameter},
    {"input", Causality::input},         {"output", Causality::output},
    {"local", Causality::local},         {"independent", Causality::independent},
    {"structuralParameter", Causality::structural_parameter},
};
constexpr std::pair<std::string_view, Variability> kVariabilities[] = {
    {"constant", Variability::constant}, {"fixed", Variability::fixed}, {"tunable", Variability::tunable},
    {"discrete", Variability::discrete}, {"continuous", Variability::continuous},
};

class Reader {
 public:
  Reader(const std::string& xml, std::string where) : xml_(xml), where_(std::move(where)) {}
  ModelDescription read();

 private:
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& what) const {
    throw util::BadInputError(where_ + ":" + std::to_string(line_of(node)) + ": " + what);
  }
  std::size_t line_of(const pugi::xml_node& node) const {
    const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, node.offset_debug()));
    return 1 + static_cast<std::size_t>(std::count(xml_.begin(), xml_.begin() + std::min(offset, xml_.size()), '\n'));
  }
  double number(const pugi::xml_node& node, const char* attribute) const;
  std::optional<double> optional_number(const pugi::xml_node& node, const char* attribute) const;
  bool flag(const pugi::xml_node& node, const char* attribute) const;
  Variable variable(const pugi::xml_node& element, const pugi::xml_node& typed, VariableType type, bool v2) const;

  const std::string& xml_;
  std::string where_;
};

double Reader::number(const pugi::xml_node& node, const char* attribute) const {
  const std::string text = node.attribute(attribute).as_string();
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) {
    fail(node, std::string(attribute) + "=\"" + text + "\" is not a finite number");
  }
  return v;
}

std::optional<double> Reader::optional_number(const pugi::xml_node& node, const char* attribute) const {
  if (!node.attribute(attribute)) return std::nullopt;
  return number(node, attribute);
}

bool Reader::flag(const pugi::xml_node& node, const char* attribute) const {
  const pugi::xml_attribute a = node.attribute(attribute);
  if (!a) return false;
  const std::string_view v = a.value();
  if (v == "true") return true;
  if (v == "false") return false;
  fail(node, std::string(attribute) + "=\"" + std::string(v) + "\": expected true or false");
}

// `element` carries name, valueReference, causality…; `typed` the start, min, max and unit
// (the same element in FMI 3, the type child of ScalarVariable in FMI 2).
Variable Reader::variable(const pugi::xml_node& element, const pugi::xml_node& typed, VariableType type, bool v2) const {
  Variable v;
  v.line = line_of(element);
  v.type = type;
  v.name = element.attribute("name").as_string();
  if (v.name.empty()) fail(element, "a variable without a name");
  const auto refuse = [&](const std::string& what) { fail(element, "variable '" + v.name + "': " + what); };
  const std::string vr = element.attribute("valueReference").as_string();
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(vr.c_str(), &end, 10);
  if (vr.empty() || vr.front() == '-' || end != vr.c_str() + vr.size() || errno == ERANGE || value > 0xffffffffULL) {
    refuse("valueReference=\"" + vr + "\" is not an unsigned 32-bit number");
  }
  v.value_reference = static_cast<std::uint32_t>(value);
  v.description = element.attribute("description").as_string();
  v.initial = element.attribute("initial").as_string();
  if (!v.initial.empty() && v.initial != "exact" && v.initial != "approx" && v.initial != "calculated") {
    refuse("initial=\"" + v.initial + "\" is none of exact, approx, calculated");
  }
  if (const pugi::xml_attribute c = element.attribute("causality")) {
    const auto it = std::find_if(std::begin(kCausalities), std::end(kCausalities),
                                 [&](const auto& p) { return p.first == c.value(); });
    if (it == std::end(kCausalities) || (v2 && it->second == Causality::structural_parameter)) {
      refuse(std::string("causality=\"") + c.value() + "\" is not one of FMI " + (v2 ? "2.0" : "3.0") + "'s");
    }
    v.causality = it->second;
  }
  const bool real = type == VariableType::float64 || type == VariableType::float32;
  v.variability = real ? Variability::continuous : Variability::discrete;
  if (const pugi::xml_attribute a = element.attribute("variability")) {
    const auto it = std::find_if(std::begin(kVariabilities), std::end(kVariabilities),
                                 [&](const auto& p) { return p.first == a.value(); });
    if (it == std::end(kVariabilities)) refuse(std::string("variability=\"") + a.value() + "\" is not one of the standard's");
    v.variability = it->second;
  }
  if (v.variability == Variability::continuous && !real) refuse("continuous, but of type " + std::string(type_name(type)));
  v.unit = typed.attribute("unit").as_string();
  v.start_text = typed.attribute("start").as_string();
  v.scalar = !element.child("Dimension");
  const bool numeric = type != VariableType::string && type != VariableType::binary && type != VariableType::clock &&
                       type != VariableType::boolean;
  if (numeric && v.scalar) {
    v.start = optional_number(typed, "start");
    v.min = optional_number(typed, "min");
    v.max = optional_number(typed, "max");
  } else if (type == VariableType::boolean && typed.attribute("start")) {
    if (v.start_text == "true" || v.start_text == "1") v.start = 1.0;
    else if (v.start_text == "false" || v.start_text == "0") v.start = 0.0;
    else refuse("start=\"" + v.start_text + "\" is not a Boolean");
  }
  if (v.min && v.max && *v.min > *v.max) refuse("min > max");
  if (v.start && ((v.min && *v.start < *v.min) || (v.max && *v.start > *v.max))) refuse("start=" + v.start_text + " outside [min, max]");
  return v;
}

ModelDescription Reader::read() {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(xml_.data(), xml_.size());
  if (!parsed) {
    throw util::BadInputError(where_ + ": not XML: " + parsed.description() + " at byte " + std::to_string(parsed.offset));
  }
  const pugi::xml_node root = doc.child("fmiModelDescription");
  if (!root) throw util::BadInputError(where_ + ": no <fmiModelDescription> element: not an FMU's model description");
  ModelDescription md;
  md.fmi_version = root.attribute("fmiVersion").as_string();
  if (md.fmi_version == "2.0") {
    md.version = FmiVersion::v2;
  } else if (md.fmi_version.rfind("3.", 0) == 0) {
    md.version = FmiVersion::v3;
  } else {
    fail(root, "fmiVersion=\"" + md.fmi_version + "\": FMI 3.x and 2.0 are read");
  }
  const bool v2 = md.version == FmiVersion::v2;
  md.model_name = root.attribute("modelName").as_string();
  md.token = root.attribute(v2 ? "guid" : "instantiationToken").as_string();
  md.generation_tool = root.attribute("generationTool").as_string();
  if (md.model_name.empty()) fail(root, "no modelName");
  if (md.token.empty()) fail(root, v2 ? "no guid" : "no instantiationToken");

  if (const pugi::xml_node cs = root.child("CoSimulation")) {
    CoSimulation c;
    c.model_identifier = cs.attribute("modelIdentifier").as_string();
    if (c.model_identifier.empty()) fail(cs, "CoSimulation without a modelIdentifier");
    // The binary's file name: letters, digits and '_' (a C identifier, FMI 3 §2.4.1).
    const bool identifier = std::all_of(c.model_identifier.begin(), c.model_identifier.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    });
    if (!identifier || (c.model_identifier[0] >= '0' && c.model_identifier[0] <= '9')) {
      fail(cs, "modelIdentifier=\"" + c.model_identifier + "\" is not a C identifier (it names the binary)");
    }
    c.can_handle_variable_step = flag(cs, "canHandleVariableCommunicationStepSize");
    c.fixed_internal_step_s = optional_number(cs, "fixedInternalStepSize");
    c.needs_execution_tool = flag(cs, "needsExecutionTool");
    c.can_get_and_set_state = flag(cs, v2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState");
    md.co_simulation = c;
  }
  md.model_exchange = static_cast<bool>(root.child("ModelExchange"));
  for (const pugi::xml_node unit : root.child("UnitDefinitions").children("Unit")) {
    md.units.insert(unit.attribute("name").as_string());
  }
  if (const pugi::xml_node de = root.child("DefaultExperiment")) {
    md.start_time_s = optional_number(de, "startTime");
    md.stop_time_s = optional_number(de, "stopTime");
    md.step_size_s = optional_number(de, "stepSize");
    md.tolerance = optional_number(de, "tolerance");
  }

  const pugi::xml_node variables = root.child("ModelVariables");
  for (const pugi::xml_node element : variables.children()) {
    if (element.type() != pugi::node_element) continue;
    const std::string_view tag = element.name();
    if (v2) {
      if (tag != "ScalarVariable") fail(element, "<" + std::string(tag) + "> in ModelVariables (FMI 2.0 has ScalarVariable only)");
      pugi::xml_node typed;
      const TypeName* t = nullptr;
      for (const pugi::xml_node child : element.children()) {
        for (const TypeName& candidate : kTypes) {
          if (!candidate.v2.empty() && candidate.v2 == child.name()) {
            if (typed) fail(element, "a ScalarVariable of two types");
            typed = child;
            t = &candidate;
          }
        }
      }
      if (t == nullptr) fail(element, "a ScalarVariable without its type (Real, Integer, Boolean, String, Enumeration)");
      md.variables.push_back(variable(element, typed, t->type, true));
    } else {
      const auto t = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const TypeName& c) { return c.v3 == tag; });
      if (t == std::end(kTypes)) fail(element, "<" + std::string(tag) + "> is no FMI 3.0 variable type");
      md.variables.push_back(variable(element, element, t->type, false));
    }
  }
  // Names once; value references once (FMI 2: an alias shares one within its type).
  std::map<std::string, const Variable*> names;
  std::map<std::pair<std::uint32_t, int>, const Variable*> references;
  for (const Variable& var : md.variables) {
    const auto line = std::to_string(var.line);
    if (!names.emplace(var.name, &var).second) {
      throw util::BadInputError(where_ + ":" + line + ": variable '" + var.name + "' is declared twice");
    }
    const int kind = v2 ? static_cast<int>(var.type) : 0;
    const auto [it, fresh] = references.emplace(std::pair{var.value_reference, kind}, &var);
    if (!fresh && !v2) {
      throw util::BadInputError(where_ + ":" + line + ": variable '" + var.name + "': valueReference " +
                                std::to_string(var.value_reference) + " is also '" + it->second->name + "''s");
    }
  }
  return md;
}

}  // namespace

const char* type_name(VariableType type) {
  for (const TypeName& t : kTypes) {
    if (t.type == type) return t.v3.data();
  }
  return "?";
}

const char* causality_name(Causality c) {
  for (const auto& [name, value] : kCausalities) {
    if (value == c) return name.data();
  }
  return "?";
}

const char* variability_name(Variability v) {
  for (const auto& [name, value] : kVariabilities) {
    if (value == v) return name.data();
  }
  return "?";
}

const Variable* ModelDescription::find(const std::string& name) const {
  for (const Variable& v : variables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

ModelDescription parse_model_description(const std::string& xml, const std::string& where) {
  return Reader(xml, where).read();
}

}  // namespace cosim::fmi
