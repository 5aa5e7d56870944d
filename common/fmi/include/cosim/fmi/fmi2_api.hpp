#pragma once
/// @file
/// The part of FMI 2.0's C interface (the standard's §2.1, fmi2FunctionTypes.h there) that a
/// co-simulation importer calls, declared here from the standard's text.

#include <cstddef>

namespace cosim::fmi::fmi2 {

using Component = void*;
using ComponentEnvironment = void*;
using Real = double;
using Integer = int;
using Boolean = int;  // fmi2True 1, fmi2False 0
using String = const char*;
using ValueReference = unsigned int;

/// fmi2Status and fmi2Type: C enums, passed as int.
enum Status : int { kOK = 0, kWarning = 1, kDiscard = 2, kError = 3, kFatal = 4, kPending = 5 };
enum Type : int { kModelExchange = 0, kCoSimulation = 1 };

extern "C" {
/// The logger is variadic: `message` is a printf format for the arguments after it.
using CallbackLogger = void (*)(ComponentEnvironment environment, String instance_name, Status status, String category,
                                String message, ...);
using CallbackAllocateMemory = void* (*)(std::size_t n_objects, std::size_t size);
using CallbackFreeMemory = void (*)(void* object);
using StepFinished = void (*)(ComponentEnvironment environment, Status status);
}

/// fmi2CallbackFunctions, in the standard's member order.
struct CallbackFunctions {
  CallbackLogger logger;
  CallbackAllocateMemory allocate_memory;
  CallbackFreeMemory free_memory;
  StepFinished step_finished;
  ComponentEnvironment component_environment;
};

extern "C" {
using Instantiate = Component (*)(String instance_name, Type fmu_type, String guid, String resource_location,
                                  const CallbackFunctions* functions, Boolean visible, Boolean logging_on);
using FreeInstance = void (*)(Component c);
using SetupExperiment = Status (*)(Component c, Boolean tolerance_defined, Real tolerance, Real start_time,
                                   Boolean stop_time_defined, Real stop_time);
using EnterInitializationMode = Status (*)(Component c);
using ExitInitializationMode = Status (*)(Component c);
using Terminate = Status (*)(Component c);
using GetReal = Status (*)(Component c, const ValueReference vrs[], std::size_t n, Real values[]);
using SetReal = Status (*)(Component c, const ValueReference vrs[], std::size_t n, const Real values[]);
using SetInteger = Status (*)(Component c, const ValueReference vrs[], std::size_t n, const Integer values[]);
using SetBoolean = Status (*)(Component c, const ValueReference vrs[], std::size_t n, const Boolean values[]);
using SetString = Status (*)(Component c, const ValueReference vrs[], std::size_t n, const String values[]);
using DoStep = Status (*)(Component c, Real current_communication_point, Real communication_step_size,
                          Boolean no_set_fmu_state_prior_to_current_point);
}

}  // namespace cosim::fmi::fmi2
