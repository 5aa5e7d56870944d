// Every function of FMI 2.0 (the standard's §2.1, 3.2 and 4.2; fmi2FunctionTypes.h there),
// exported by the binary of a cosim FMU beside the FMI 3.0 ones (their names differ). Co-
// simulation with Real variables is offered; the rest returns Error and logs why. The
// signatures are the importer's (cosim/fmi/fmi2_api.hpp) where it calls them: checked below.

#include <cstdio>
#include <type_traits>

#include "cosim/fmi/fmi2_api.hpp"
#include "fmi_export.hpp"

namespace fmi2 = cosim::fmi::fmi2;
using cosim::fmu_export::as_instance;
using cosim::fmu_export::guarded;
using cosim::fmu_export::ModelInstance;
using cosim::fmu_export::Status;
using cosim::fmu_export::unsupported;

// The types of FMI 2.0 the importer's header does not need.
using fmi2FMUstate = void*;
using fmi2Byte = char;
using fmi2StatusKind = int;  // a C enum
using VR = fmi2::ValueReference;
struct fmi2EventInfo;

namespace {

constexpr const char* kFmi2CoSimulationOnly = "a cosim FMU is a co-simulation FMU";
constexpr const char* kFmi2NoState = "canGetAndSetFMUstate and canSerializeFMUstate are false";
constexpr const char* kFmi2RealOnly = "its variables are Real";

fmi2::Status fmi2_status(Status s) { return static_cast<fmi2::Status>(s); }

// A step of a cosim FMU ends within the call (no asynchronous doStep, no fmi2Pending).
constexpr const char* kFmi2NoStatus = "fmi2DoStep never returns fmi2Pending";

}  // namespace

COSIM_FMI_EXPORT const char* fmi2GetTypesPlatform() { return "default"; }
COSIM_FMI_EXPORT const char* fmi2GetVersion() { return "2.0"; }

COSIM_FMI_EXPORT fmi2::Status fmi2SetDebugLogging(fmi2::Component c, fmi2::Boolean logging_on, size_t, const fmi2::String[]) {
  return fmi2_status(guarded(as_instance(c), "fmi2SetDebugLogging", [&](ModelInstance& m) { m.set_logging(logging_on != 0); }));
}

COSIM_FMI_EXPORT fmi2::Component fmi2Instantiate(fmi2::String instance_name, fmi2::Type fmu_type, fmi2::String guid,
                                                 fmi2::String resource_location,
                                                 const fmi2::CallbackFunctions* functions, fmi2::Boolean,
                                                 fmi2::Boolean logging_on) {
  const std::string name = instance_name != nullptr ? instance_name : "";
  cosim::fmu_export::LogFunction log;
  if (functions != nullptr && functions->logger != nullptr) {
    const fmi2::CallbackLogger logger = functions->logger;
    const fmi2::ComponentEnvironment environment = functions->component_environment;
    // The logger is variadic with a printf format: the message goes in as an argument, never
    // as the format ('%' in a parameter's name must not be read as a conversion).
    log = [logger, environment, name](Status s, const char* category, const std::string& message) {
      logger(environment, name.c_str(), static_cast<fmi2::Status>(s), category, "%s", message.c_str());
    };
  }
  try {
    if (fmu_type != fmi2::kCoSimulation) throw std::invalid_argument("fmuType is not fmi2CoSimulation (a cosim FMU is a co-simulation FMU)");
    if (resource_location == nullptr) throw std::invalid_argument("no resource location: the FMU's resources/ are needed");
    if (guid == nullptr) throw std::invalid_argument("no GUID");
    auto* m = new ModelInstance(name, cosim::fmu_export::path_from_file_uri(resource_location), guid, log);
    m->set_logging(logging_on != 0);
    return m;
  } catch (const std::exception& e) {
    if (log) log(Status::error, "logStatusError", std::string("fmi2Instantiate: ") + name + ": " + e.what());
  } catch (...) {
  }
  return nullptr;
}

COSIM_FMI_EXPORT void fmi2FreeInstance(fmi2::Component c) { delete as_instance(c); }

COSIM_FMI_EXPORT fmi2::Status fmi2SetupExperiment(fmi2::Component c, fmi2::Boolean, fmi2::Real, fmi2::Real start_time,
                                                  fmi2::Boolean, fmi2::Real) {
  // FMI 2 gives the start time here, before initialisation mode, and FMI 3 when entering it.
  return fmi2_status(guarded(as_instance(c), "fmi2SetupExperiment", [&](ModelInstance& m) { m.enter_initialization(start_time); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2EnterInitializationMode(fmi2::Component c) {
  // The instance entered it at fmi2SetupExperiment: nothing more to do, but a null is an error.
  return fmi2_status(guarded(as_instance(c), "fmi2EnterInitializationMode", [](ModelInstance&) {}));
}

COSIM_FMI_EXPORT fmi2::Status fmi2ExitInitializationMode(fmi2::Component c) {
  return fmi2_status(guarded(as_instance(c), "fmi2ExitInitializationMode", [](ModelInstance& m) { m.exit_initialization(); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2Terminate(fmi2::Component c) {
  return fmi2_status(guarded(as_instance(c), "fmi2Terminate", [](ModelInstance& m) { m.terminate(); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2Reset(fmi2::Component c) {
  return fmi2_status(guarded(as_instance(c), "fmi2Reset", [](ModelInstance& m) { m.reset(); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2GetReal(fmi2::Component c, const VR vrs[], size_t n, fmi2::Real values[]) {
  return fmi2_status(guarded(as_instance(c), "fmi2GetReal", [&](ModelInstance& m) { m.get_float64({vrs, n}, {values, n}); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2SetReal(fmi2::Component c, const VR vrs[], size_t n, const fmi2::Real values[]) {
  return fmi2_status(guarded(as_instance(c), "fmi2SetReal", [&](ModelInstance& m) { m.set_float64({vrs, n}, {values, n}); }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2GetInteger(fmi2::Component c, const VR[], size_t, fmi2::Integer[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetInteger", kFmi2RealOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetBoolean(fmi2::Component c, const VR[], size_t, fmi2::Boolean[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetBoolean", kFmi2RealOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetString(fmi2::Component c, const VR[], size_t, fmi2::String[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetString", kFmi2RealOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetInteger(fmi2::Component c, const VR[], size_t, const fmi2::Integer[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetInteger", kFmi2RealOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetBoolean(fmi2::Component c, const VR[], size_t, const fmi2::Boolean[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetBoolean", kFmi2RealOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetString(fmi2::Component c, const VR[], size_t, const fmi2::String[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetString", kFmi2RealOnly));
}

COSIM_FMI_EXPORT fmi2::Status fmi2GetFMUstate(fmi2::Component c, fmi2FMUstate*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetFMUstate", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetFMUstate(fmi2::Component c, fmi2FMUstate) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetFMUstate", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2FreeFMUstate(fmi2::Component c, fmi2FMUstate*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2FreeFMUstate", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SerializedFMUstateSize(fmi2::Component c, fmi2FMUstate, size_t*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SerializedFMUstateSize", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SerializeFMUstate(fmi2::Component c, fmi2FMUstate, fmi2Byte[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SerializeFMUstate", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2DeSerializeFMUstate(fmi2::Component c, const fmi2Byte[], size_t, fmi2FMUstate*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2DeSerializeFMUstate", kFmi2NoState));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetDirectionalDerivative(fmi2::Component c, const VR[], size_t, const VR[], size_t,
                                                           const fmi2::Real[], fmi2::Real[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetDirectionalDerivative", "providesDirectionalDerivative is false"));
}

// Model exchange.
COSIM_FMI_EXPORT fmi2::Status fmi2EnterEventMode(fmi2::Component c) {
  return fmi2_status(unsupported(as_instance(c), "fmi2EnterEventMode", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2NewDiscreteStates(fmi2::Component c, fmi2EventInfo*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2NewDiscreteStates", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2EnterContinuousTimeMode(fmi2::Component c) {
  return fmi2_status(unsupported(as_instance(c), "fmi2EnterContinuousTimeMode", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2CompletedIntegratorStep(fmi2::Component c, fmi2::Boolean, fmi2::Boolean*, fmi2::Boolean*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2CompletedIntegratorStep", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetTime(fmi2::Component c, fmi2::Real) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetTime", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2SetContinuousStates(fmi2::Component c, const fmi2::Real[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetContinuousStates", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetDerivatives(fmi2::Component c, fmi2::Real[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetDerivatives", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetEventIndicators(fmi2::Component c, fmi2::Real[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetEventIndicators", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetContinuousStates(fmi2::Component c, fmi2::Real[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetContinuousStates", kFmi2CoSimulationOnly));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetNominalsOfContinuousStates(fmi2::Component c, fmi2::Real[], size_t) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetNominalsOfContinuousStates", kFmi2CoSimulationOnly));
}

// Co-simulation.
COSIM_FMI_EXPORT fmi2::Status fmi2SetRealInputDerivatives(fmi2::Component c, const VR[], size_t, const fmi2::Integer[],
                                                          const fmi2::Real[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2SetRealInputDerivatives", "a cosim FMU has no inputs"));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetRealOutputDerivatives(fmi2::Component c, const VR[], size_t, const fmi2::Integer[],
                                                           fmi2::Real[]) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetRealOutputDerivatives", "maxOutputDerivativeOrder is 0"));
}

COSIM_FMI_EXPORT fmi2::Status fmi2DoStep(fmi2::Component c, fmi2::Real current_communication_point,
                                         fmi2::Real communication_step_size, fmi2::Boolean) {
  return fmi2_status(guarded(as_instance(c), "fmi2DoStep", [&](ModelInstance& m) {
    m.do_step(current_communication_point, communication_step_size);
  }));
}

COSIM_FMI_EXPORT fmi2::Status fmi2CancelStep(fmi2::Component c) {
  return fmi2_status(unsupported(as_instance(c), "fmi2CancelStep", kFmi2NoStatus));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetStatus(fmi2::Component c, fmi2StatusKind, fmi2::Status*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetStatus", kFmi2NoStatus));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetRealStatus(fmi2::Component c, fmi2StatusKind, fmi2::Real*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetRealStatus", kFmi2NoStatus));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetIntegerStatus(fmi2::Component c, fmi2StatusKind, fmi2::Integer*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetIntegerStatus", kFmi2NoStatus));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetBooleanStatus(fmi2::Component c, fmi2StatusKind, fmi2::Boolean*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetBooleanStatus", kFmi2NoStatus));
}
COSIM_FMI_EXPORT fmi2::Status fmi2GetStringStatus(fmi2::Component c, fmi2StatusKind, fmi2::String*) {
  return fmi2_status(unsupported(as_instance(c), "fmi2GetStringStatus", kFmi2NoStatus));
}

// The importer calls these through its own declarations: the same types, or this fails to compile.
static_assert(std::is_same_v<decltype(&fmi2Instantiate), fmi2::Instantiate>);
static_assert(std::is_same_v<decltype(&fmi2FreeInstance), fmi2::FreeInstance>);
static_assert(std::is_same_v<decltype(&fmi2SetupExperiment), fmi2::SetupExperiment>);
static_assert(std::is_same_v<decltype(&fmi2EnterInitializationMode), fmi2::EnterInitializationMode>);
static_assert(std::is_same_v<decltype(&fmi2ExitInitializationMode), fmi2::ExitInitializationMode>);
static_assert(std::is_same_v<decltype(&fmi2Terminate), fmi2::Terminate>);
static_assert(std::is_same_v<decltype(&fmi2GetReal), fmi2::GetReal>);
static_assert(std::is_same_v<decltype(&fmi2SetReal), fmi2::SetReal>);
static_assert(std::is_same_v<decltype(&fmi2SetInteger), fmi2::SetInteger>);
static_assert(std::is_same_v<decltype(&fmi2SetBoolean), fmi2::SetBoolean>);
static_assert(std::is_same_v<decltype(&fmi2SetString), fmi2::SetString>);
static_assert(std::is_same_v<decltype(&fmi2DoStep), fmi2::DoStep>);
