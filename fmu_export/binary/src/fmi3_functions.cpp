// Every function of FMI 3.0 (the standard's §2.2-2.4; fmi3FunctionTypes.h there), exported by
// the binary of a cosim FMU. Co-simulation is offered; model exchange, scheduled execution,
// FMU state, derivatives, clocks and the types other than Float64 return Error and log why.
// The signatures are the importer's (cosim/fmi/fmi3_api.hpp) where it calls them: checked below.

#include <cstring>
#include <type_traits>

#include "cosim/fmi/fmi3_api.hpp"
#include "cosim/platform/paths.hpp"
#include "fmi_export.hpp"

namespace fmi3 = cosim::fmi::fmi3;
using cosim::fmu_export::as_instance;
using cosim::fmu_export::guarded;
using cosim::fmu_export::ModelInstance;
using cosim::fmu_export::Status;
using cosim::fmu_export::unsupported;

// The types of FMI 3.0 the importer's header does not need.
using fmi3Float32 = float;
using fmi3Int8 = std::int8_t;
using fmi3UInt8 = std::uint8_t;
using fmi3Int16 = std::int16_t;
using fmi3UInt16 = std::uint16_t;
using fmi3UInt32 = std::uint32_t;
using fmi3Int64 = std::int64_t;
using fmi3UInt64 = std::uint64_t;
using fmi3Byte = std::uint8_t;
using fmi3Binary = const fmi3Byte*;
using fmi3Clock = bool;
using fmi3FMUState = void*;
using fmi3IntervalQualifier = int;  // a C enum
using fmi3DependencyKind = int;     // a C enum
using VR = fmi3::ValueReference;
extern "C" {
using fmi3ClockUpdateCallback = void (*)(fmi3::InstanceEnvironment);
using fmi3LockPreemptionCallback = void (*)();
using fmi3UnlockPreemptionCallback = void (*)();
}

namespace {

constexpr const char* kFmi3CoSimulationOnly = "a cosim FMU is a co-simulation FMU";
constexpr const char* kFmi3NoState = "canGetAndSetFMUState and canSerializeFMUState are false";
constexpr const char* kFmi3NoDerivatives = "providesDirectionalDerivatives and providesAdjointDerivatives are false";
constexpr const char* kFmi3NoClocks = "a cosim FMU has no clocks";
constexpr const char* kFmi3Float64Only = "its variables are Float64";
constexpr const char* kFmi3NoEvents = "hasEventMode is false";

fmi3::Status fmi3_status(Status s) { return static_cast<fmi3::Status>(s); }

// The importer's callback, with its environment; nothing logged when it gave none.
cosim::fmu_export::LogFunction fmi3_log_function(fmi3::InstanceEnvironment environment, fmi3::LogMessageCallback callback) {
  if (callback == nullptr) return {};
  return [environment, callback](Status s, const char* category, const std::string& message) {
    callback(environment, static_cast<fmi3::Status>(s), category, message.c_str());
  };
}

}  // namespace

COSIM_FMI_EXPORT const char* fmi3GetVersion() { return "3.0"; }

COSIM_FMI_EXPORT fmi3::Status fmi3SetDebugLogging(fmi3::Instance instance, fmi3::Boolean logging_on, size_t,
                                                  const fmi3::String[]) {
  return fmi3_status(guarded(as_instance(instance), "fmi3SetDebugLogging", [&](ModelInstance& m) { m.set_logging(logging_on); }));
}

COSIM_FMI_EXPORT fmi3::Instance fmi3InstantiateModelExchange(fmi3::String, fmi3::String, fmi3::String, fmi3::Boolean,
                                                             fmi3::Boolean, fmi3::InstanceEnvironment environment,
                                                             fmi3::LogMessageCallback log_message) {
  if (log_message != nullptr) {
    log_message(environment, fmi3::kError, "logStatusError",
                "fmi3InstantiateModelExchange: not supported by cosim FMUs (a cosim FMU is a co-simulation FMU)");
  }
  return nullptr;
}

COSIM_FMI_EXPORT fmi3::Instance fmi3InstantiateCoSimulation(
    fmi3::String instance_name, fmi3::String instantiation_token, fmi3::String resource_path, fmi3::Boolean,
    fmi3::Boolean logging_on, fmi3::Boolean event_mode_used, fmi3::Boolean, const fmi3::ValueReference[], size_t,
    fmi3::InstanceEnvironment environment, fmi3::LogMessageCallback log_message, fmi3::IntermediateUpdateCallback) {
  const auto log = fmi3_log_function(environment, log_message);
  const std::string name = instance_name != nullptr ? instance_name : "";
  try {
    if (event_mode_used) throw std::invalid_argument("eventModeUsed: a cosim FMU has no event mode (hasEventMode false)");
    if (resource_path == nullptr) throw std::invalid_argument("no resource path: the FMU's resources/ are needed");
    if (instantiation_token == nullptr) throw std::invalid_argument("no instantiation token");
    auto* m = new ModelInstance(name, cosim::platform::path_from_utf8(resource_path), instantiation_token, log);
    m->set_logging(logging_on);
    return m;
  } catch (const std::exception& e) {
    if (log) log(Status::error, "logStatusError", "fmi3InstantiateCoSimulation: " + name + ": " + e.what());
  } catch (...) {
  }
  return nullptr;
}

COSIM_FMI_EXPORT fmi3::Instance fmi3InstantiateScheduledExecution(fmi3::String, fmi3::String, fmi3::String,
                                                                  fmi3::Boolean, fmi3::Boolean,
                                                                  fmi3::InstanceEnvironment environment,
                                                                  fmi3::LogMessageCallback log_message,
                                                                  fmi3ClockUpdateCallback, fmi3LockPreemptionCallback,
                                                                  fmi3UnlockPreemptionCallback) {
  if (log_message != nullptr) {
    log_message(environment, fmi3::kError, "logStatusError",
                "fmi3InstantiateScheduledExecution: not supported by cosim FMUs (a cosim FMU is a co-simulation FMU)");
  }
  return nullptr;
}

COSIM_FMI_EXPORT void fmi3FreeInstance(fmi3::Instance instance) { delete as_instance(instance); }

COSIM_FMI_EXPORT fmi3::Status fmi3EnterInitializationMode(fmi3::Instance instance, fmi3::Boolean, fmi3::Float64,
                                                          fmi3::Float64 start_time, fmi3::Boolean, fmi3::Float64) {
  return fmi3_status(guarded(as_instance(instance), "fmi3EnterInitializationMode",
                        [&](ModelInstance& m) { m.enter_initialization(start_time); }));
}

COSIM_FMI_EXPORT fmi3::Status fmi3ExitInitializationMode(fmi3::Instance instance) {
  return fmi3_status(guarded(as_instance(instance), "fmi3ExitInitializationMode", [](ModelInstance& m) { m.exit_initialization(); }));
}

COSIM_FMI_EXPORT fmi3::Status fmi3EnterEventMode(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3EnterEventMode", kFmi3NoEvents));
}

COSIM_FMI_EXPORT fmi3::Status fmi3Terminate(fmi3::Instance instance) {
  return fmi3_status(guarded(as_instance(instance), "fmi3Terminate", [](ModelInstance& m) { m.terminate(); }));
}

COSIM_FMI_EXPORT fmi3::Status fmi3Reset(fmi3::Instance instance) {
  return fmi3_status(guarded(as_instance(instance), "fmi3Reset", [](ModelInstance& m) { m.reset(); }));
}

// Getting and setting variable values: Float64 only.
COSIM_FMI_EXPORT fmi3::Status fmi3GetFloat64(fmi3::Instance instance, const VR vrs[], size_t n_vrs, fmi3::Float64 values[],
                                             size_t n_values) {
  return fmi3_status(guarded(as_instance(instance), "fmi3GetFloat64", [&](ModelInstance& m) {
    if (n_values != n_vrs) throw std::invalid_argument("nValues differs from nValueReferences (no arrays)");
    m.get_float64({vrs, n_vrs}, {values, n_values});
  }));
}

COSIM_FMI_EXPORT fmi3::Status fmi3SetFloat64(fmi3::Instance instance, const VR vrs[], size_t n_vrs,
                                             const fmi3::Float64 values[], size_t n_values) {
  return fmi3_status(guarded(as_instance(instance), "fmi3SetFloat64", [&](ModelInstance& m) {
    if (n_values != n_vrs) throw std::invalid_argument("nValues differs from nValueReferences (no arrays)");
    m.set_float64({vrs, n_vrs}, {values, n_values});
  }));
}

#define COSIM_FMI3_NO_TYPE(Type, CType)                                                                          \
  COSIM_FMI_EXPORT fmi3::Status fmi3Get##Type(fmi3::Instance instance, const VR[], size_t, CType[], size_t) {   \
    return fmi3_status(unsupported(as_instance(instance), "fmi3Get" #Type, kFmi3Float64Only));                           \
  }                                                                                                              \
  COSIM_FMI_EXPORT fmi3::Status fmi3Set##Type(fmi3::Instance instance, const VR[], size_t, const CType[], size_t) { \
    return fmi3_status(unsupported(as_instance(instance), "fmi3Set" #Type, kFmi3Float64Only));                           \
  }
COSIM_FMI3_NO_TYPE(Float32, fmi3Float32)
COSIM_FMI3_NO_TYPE(Int8, fmi3Int8)
COSIM_FMI3_NO_TYPE(UInt8, fmi3UInt8)
COSIM_FMI3_NO_TYPE(Int16, fmi3Int16)
COSIM_FMI3_NO_TYPE(UInt16, fmi3UInt16)
COSIM_FMI3_NO_TYPE(Int32, fmi3::Int32)
COSIM_FMI3_NO_TYPE(UInt32, fmi3UInt32)
COSIM_FMI3_NO_TYPE(Int64, fmi3Int64)
COSIM_FMI3_NO_TYPE(UInt64, fmi3UInt64)
COSIM_FMI3_NO_TYPE(Boolean, fmi3::Boolean)
COSIM_FMI3_NO_TYPE(String, fmi3::String)
#undef COSIM_FMI3_NO_TYPE

COSIM_FMI_EXPORT fmi3::Status fmi3GetBinary(fmi3::Instance instance, const VR[], size_t, size_t[], fmi3Binary[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetBinary", kFmi3Float64Only));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetBinary(fmi3::Instance instance, const VR[], size_t, const size_t[],
                                            const fmi3Binary[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetBinary", kFmi3Float64Only));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetClock(fmi3::Instance instance, const VR[], size_t, fmi3Clock[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetClock", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetClock(fmi3::Instance instance, const VR[], size_t, const fmi3Clock[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetClock", kFmi3NoClocks));
}

// Variable dependencies: the model structure lists none (every output may depend on every
// parameter), so there is nothing finer to report.
COSIM_FMI_EXPORT fmi3::Status fmi3GetNumberOfVariableDependencies(fmi3::Instance instance, VR, size_t* n) {
  return fmi3_status(guarded(as_instance(instance), "fmi3GetNumberOfVariableDependencies", [&](ModelInstance&) {
    if (n == nullptr) throw std::invalid_argument("nDependencies is null");
    *n = 0;
  }));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetVariableDependencies(fmi3::Instance instance, VR, size_t[], VR[], size_t[],
                                                          fmi3DependencyKind[], size_t n) {
  return fmi3_status(guarded(as_instance(instance), "fmi3GetVariableDependencies", [&](ModelInstance&) {
    if (n != 0) throw std::invalid_argument("no dependencies are listed (fmi3GetNumberOfVariableDependencies gives 0)");
  }));
}

// FMU state.
COSIM_FMI_EXPORT fmi3::Status fmi3GetFMUState(fmi3::Instance instance, fmi3FMUState*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetFMUState", kFmi3NoState));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetFMUState(fmi3::Instance instance, fmi3FMUState) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetFMUState", kFmi3NoState));
}
COSIM_FMI_EXPORT fmi3::Status fmi3FreeFMUState(fmi3::Instance instance, fmi3FMUState*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3FreeFMUState", kFmi3NoState));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SerializedFMUStateSize(fmi3::Instance instance, fmi3FMUState, size_t*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SerializedFMUStateSize", kFmi3NoState));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SerializeFMUState(fmi3::Instance instance, fmi3FMUState, fmi3Byte[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SerializeFMUState", kFmi3NoState));
}
COSIM_FMI_EXPORT fmi3::Status fmi3DeserializeFMUState(fmi3::Instance instance, const fmi3Byte[], size_t, fmi3FMUState*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3DeserializeFMUState", kFmi3NoState));
}

// Partial derivatives.
COSIM_FMI_EXPORT fmi3::Status fmi3GetDirectionalDerivative(fmi3::Instance instance, const VR[], size_t, const VR[],
                                                           size_t, const fmi3::Float64[], size_t, fmi3::Float64[],
                                                           size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetDirectionalDerivative", kFmi3NoDerivatives));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetAdjointDerivative(fmi3::Instance instance, const VR[], size_t, const VR[], size_t,
                                                       const fmi3::Float64[], size_t, fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetAdjointDerivative", kFmi3NoDerivatives));
}

// Configuration mode (structural parameters): there are none.
COSIM_FMI_EXPORT fmi3::Status fmi3EnterConfigurationMode(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3EnterConfigurationMode", "a cosim FMU has no structural parameters"));
}
COSIM_FMI_EXPORT fmi3::Status fmi3ExitConfigurationMode(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3ExitConfigurationMode", "a cosim FMU has no structural parameters"));
}

// Clocks.
COSIM_FMI_EXPORT fmi3::Status fmi3GetIntervalDecimal(fmi3::Instance instance, const VR[], size_t, fmi3::Float64[],
                                                     fmi3IntervalQualifier[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetIntervalDecimal", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetIntervalFraction(fmi3::Instance instance, const VR[], size_t, fmi3UInt64[],
                                                      fmi3UInt64[], fmi3IntervalQualifier[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetIntervalFraction", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetShiftDecimal(fmi3::Instance instance, const VR[], size_t, fmi3::Float64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetShiftDecimal", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetShiftFraction(fmi3::Instance instance, const VR[], size_t, fmi3UInt64[], fmi3UInt64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetShiftFraction", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetIntervalDecimal(fmi3::Instance instance, const VR[], size_t, const fmi3::Float64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetIntervalDecimal", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetIntervalFraction(fmi3::Instance instance, const VR[], size_t, const fmi3UInt64[],
                                                      const fmi3UInt64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetIntervalFraction", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetShiftDecimal(fmi3::Instance instance, const VR[], size_t, const fmi3::Float64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetShiftDecimal", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetShiftFraction(fmi3::Instance instance, const VR[], size_t, const fmi3UInt64[],
                                                   const fmi3UInt64[]) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetShiftFraction", kFmi3NoClocks));
}
COSIM_FMI_EXPORT fmi3::Status fmi3EvaluateDiscreteStates(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3EvaluateDiscreteStates", kFmi3NoEvents));
}
COSIM_FMI_EXPORT fmi3::Status fmi3UpdateDiscreteStates(fmi3::Instance instance, fmi3::Boolean*, fmi3::Boolean*,
                                                       fmi3::Boolean*, fmi3::Boolean*, fmi3::Boolean*, fmi3::Float64*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3UpdateDiscreteStates", kFmi3NoEvents));
}

// Model exchange.
COSIM_FMI_EXPORT fmi3::Status fmi3EnterContinuousTimeMode(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3EnterContinuousTimeMode", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3CompletedIntegratorStep(fmi3::Instance instance, fmi3::Boolean, fmi3::Boolean*,
                                                          fmi3::Boolean*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3CompletedIntegratorStep", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetTime(fmi3::Instance instance, fmi3::Float64) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetTime", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3SetContinuousStates(fmi3::Instance instance, const fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3SetContinuousStates", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetContinuousStateDerivatives(fmi3::Instance instance, fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetContinuousStateDerivatives", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetEventIndicators(fmi3::Instance instance, fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetEventIndicators", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetContinuousStates(fmi3::Instance instance, fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetContinuousStates", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetNominalsOfContinuousStates(fmi3::Instance instance, fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetNominalsOfContinuousStates", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetNumberOfEventIndicators(fmi3::Instance instance, size_t*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetNumberOfEventIndicators", kFmi3CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetNumberOfContinuousStates(fmi3::Instance instance, size_t*) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetNumberOfContinuousStates", kFmi3CoSimulationOnly));
}

// Co-simulation.
COSIM_FMI_EXPORT fmi3::Status fmi3EnterStepMode(fmi3::Instance instance) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3EnterStepMode", kFmi3NoEvents));
}
COSIM_FMI_EXPORT fmi3::Status fmi3GetOutputDerivatives(fmi3::Instance instance, const VR[], size_t, const fmi3::Int32[],
                                                       fmi3::Float64[], size_t) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3GetOutputDerivatives", "maxOutputDerivativeOrder is 0"));
}

COSIM_FMI_EXPORT fmi3::Status fmi3DoStep(fmi3::Instance instance, fmi3::Float64 current_communication_point,
                                         fmi3::Float64 communication_step_size, fmi3::Boolean,
                                         fmi3::Boolean* event_handling_needed, fmi3::Boolean* terminate_simulation,
                                         fmi3::Boolean* early_return, fmi3::Float64* last_successful_time) {
  ModelInstance* m = as_instance(instance);
  const Status s = guarded(m, "fmi3DoStep", [&](ModelInstance& model) {
    model.do_step(current_communication_point, communication_step_size);
  });
  if (event_handling_needed != nullptr) *event_handling_needed = false;
  if (terminate_simulation != nullptr) *terminate_simulation = false;
  if (early_return != nullptr) *early_return = false;
  if (last_successful_time != nullptr && m != nullptr) {
    double t = 0.0;
    const std::uint32_t time_vr = 0;
    if (guarded(m, "fmi3DoStep", [&](ModelInstance& model) { model.get_float64({&time_vr, 1}, {&t, 1}); }) == Status::ok) {
      *last_successful_time = t;
    }
  }
  return fmi3_status(s);
}

// Scheduled execution.
COSIM_FMI_EXPORT fmi3::Status fmi3ActivateModelPartition(fmi3::Instance instance, VR, fmi3::Float64) {
  return fmi3_status(unsupported(as_instance(instance), "fmi3ActivateModelPartition", kFmi3CoSimulationOnly));
}

// The importer calls these through its own declarations: the same types, or this fails to compile.
static_assert(std::is_same_v<decltype(&fmi3InstantiateCoSimulation), fmi3::InstantiateCoSimulation>);
static_assert(std::is_same_v<decltype(&fmi3FreeInstance), fmi3::FreeInstance>);
static_assert(std::is_same_v<decltype(&fmi3EnterInitializationMode), fmi3::EnterInitializationMode>);
static_assert(std::is_same_v<decltype(&fmi3ExitInitializationMode), fmi3::ExitInitializationMode>);
static_assert(std::is_same_v<decltype(&fmi3Terminate), fmi3::Terminate>);
static_assert(std::is_same_v<decltype(&fmi3GetFloat64), fmi3::GetFloat64>);
static_assert(std::is_same_v<decltype(&fmi3SetFloat64), fmi3::SetFloat64>);
static_assert(std::is_same_v<decltype(&fmi3SetInt32), fmi3::SetInt32>);
static_assert(std::is_same_v<decltype(&fmi3GetInt32), fmi3::GetInt32>);
static_assert(std::is_same_v<decltype(&fmi3SetBoolean), fmi3::SetBoolean>);
static_assert(std::is_same_v<decltype(&fmi3SetString), fmi3::SetString>);
static_assert(std::is_same_v<decltype(&fmi3DoStep), fmi3::DoStep>);
static_assert(std::is_same_v<decltype(&fmi3GetVersion), fmi3::GetVersion>);
