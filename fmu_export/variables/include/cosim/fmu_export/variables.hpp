#pragma once
/// @file
/// The variables of a backend exported as an FMU, one table shared by the tool that writes the
/// FMU's modelDescription.xml (cosim-fmu export) and the binary that runs it, so that both
/// agree on every value reference: time, the declared parameters, the joint values, the outputs.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::fmu_export {

/// What a value reference reads or writes.
enum class Source : std::uint8_t {
  time,       ///< the independent variable [s]
  parameter,  ///< a declared parameter, set before the run (causality parameter, variability fixed)
  joint,      ///< a joint value [rad or m], an output
  output,     ///< a backend output (a dynamics.csv column), an output
};

struct Variable {
  std::string name;         ///< the parameter key, the scoped joint ("Robotino/Wheel_1/angle") or the column
  std::uint32_t vr = 0;     ///< value reference: its index in the table
  Source source = Source::time;
  std::size_t index = 0;    ///< into the parameters (spec order), the joints or the outputs
  std::string unit;         ///< "" when dimensionless or unknown
  std::string description;  ///< a parameter's doc and source; a joint's kind
  double start = 0.0;       ///< a parameter's value as exported [unit]
  double min = 0.0, max = 0.0;  ///< a parameter's range [unit]
};

struct ModelVariables {
  std::string backend;                ///< registry name, e.g. "robotino"
  std::string model_name;             ///< e.g. "Robotino"
  std::vector<Variable> variables;    ///< value reference order
  std::size_t n_parameters = 0, n_joints = 0, n_outputs = 0;

  /// The parameters' start values, spec order.
  std::vector<double> parameter_starts() const;
};

/// The table of `backend_name` with parameters `specs` resolved to `params`, for the model
/// `backend` built from them. Throws util::BadInputError naming the parameter for a text
/// parameter or a family (an FMU's parameters are numbers; such backends are not exported).
ModelVariables model_variables(std::string_view backend_name, std::span<const dynamics::ParamSpec> specs,
                               const dynamics::Params& params, const dynamics::Backend& backend);

/// The unit an output column's name ends in ("x_m" -> "m", "omega1_rad_per_s" -> "rad/s",
/// "energy_in_J" -> "J"); "" when its suffix is no unit this knows.
std::string unit_from_column(std::string_view column);

/// The FMI instantiation token (FMI 2: the guid): a digest of the backend and every variable's
/// name, source and unit, as "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}". Start values are not in
/// it: a parameter set differently keeps the model.
std::string instantiation_token(const ModelVariables& table);

/// "key=value" for every parameter, `values` in spec order, each printed so that it reads back
/// to the same double (%.17g): Params::resolve's command-line overrides.
std::vector<std::string> parameter_overrides(const ModelVariables& table, std::span<const double> values);

}  // namespace cosim::fmu_export
