#pragma once
/// @file
/// An FMU's modelDescription.xml (FMI 3.0 or 2.0), read strictly into one form for both
/// versions: the model's identity, its co-simulation interface, its units, its default
/// experiment and its variables. What an importer relies on is checked here, each problem one
/// line naming the file, the line and the variable.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cosim::fmi {

enum class FmiVersion { v2, v3 };

/// A variable's type, both versions' names folded (FMI 2's Real is Float64, Integer Int32).
enum class VariableType { float64, float32, int8, uint8, int16, uint16, int32, uint32, int64, uint64, boolean, string,
                          binary, enumeration, clock };
/// "Float64", "Int32", … (FMI 3's element names).
const char* type_name(VariableType type);

enum class Causality { parameter, calculated_parameter, input, output, local, independent, structural_parameter };
enum class Variability { constant, fixed, tunable, discrete, continuous };
/// "parameter", "calculatedParameter", … and "constant", "fixed", … (the standard's words).
const char* causality_name(Causality c);
const char* variability_name(Variability v);

struct Variable {
  std::string name;
  std::uint32_t value_reference = 0;
  VariableType type = VariableType::float64;
  Causality causality = Causality::local;
  Variability variability = Variability::continuous;
  std::string initial;      ///< "exact", "approx", "calculated" or "" (not given)
  std::string description;
  std::string unit;         ///< "" for none
  std::optional<double> start, min, max;  ///< numeric types only (Boolean start: 0 or 1)
  std::string start_text;   ///< the start value as written (String variables, messages)
  bool scalar = true;       ///< FMI 3: false for an array variable (it has Dimension elements)
  std::size_t line = 0;     ///< in modelDescription.xml
};

/// The CoSimulation element: the FMU can be co-simulated.
struct CoSimulation {
  std::string model_identifier;  ///< the binary's name: binaries/<platform>/<model_identifier>.so
  bool can_handle_variable_step = false;  ///< canHandleVariableCommunicationStepSize
  std::optional<double> fixed_internal_step_s;  ///< FMI 3 fixedInternalStepSize
  bool needs_execution_tool = false;
  bool can_get_and_set_state = false;
};

struct ModelDescription {
  FmiVersion version = FmiVersion::v3;
  std::string fmi_version;   ///< as written ("3.0", "2.0")
  std::string model_name;
  std::string token;         ///< FMI 3 instantiationToken, FMI 2 guid
  std::string generation_tool;
  std::optional<CoSimulation> co_simulation;  ///< none: model exchange or scheduled execution only
  bool model_exchange = false;                 ///< a ModelExchange element is there too
  std::set<std::string> units;                 ///< UnitDefinitions' unit names
  std::optional<double> start_time_s, stop_time_s, step_size_s, tolerance;  ///< DefaultExperiment
  std::vector<Variable> variables;

  /// The variable called `name`, or null.
  const Variable* find(const std::string& name) const;
};

/// Reads a modelDescription.xml. `where` names it in messages ("robot.fmu:modelDescription.xml").
/// Throws util::BadInputError "<where>:<line>: <what>" for XML that is not a model description
/// of FMI 2.0 or 3.x, a variable without a name or value reference, a name given twice, a
/// value reference given twice (FMI 3; FMI 2 only across types: its aliases share one), a
/// causality or variability the standard does not have, a start outside [min, max], or a
/// number that does not read.
ModelDescription parse_model_description(const std::string& xml, const std::string& where);

}  // namespace cosim::fmi
