#pragma once
/// @file
/// The part of FMI 3.0's C interface (the standard's §2.2, fmi3FunctionTypes.h there) that a
/// co-simulation importer calls, declared here from the standard's text: its types, its status
/// codes and the signatures of the functions looked up in an FMU's binary.

#include <cstddef>
#include <cstdint>

namespace cosim::fmi::fmi3 {

using Instance = void*;
using InstanceEnvironment = void*;
using Float64 = double;
using Int32 = std::int32_t;
using Boolean = bool;  // C99 bool
using String = const char*;
using ValueReference = std::uint32_t;

/// fmi3Status: a C enum, passed as int.
enum Status : int { kOK = 0, kWarning = 1, kDiscard = 2, kError = 3, kFatal = 4 };

extern "C" {
using LogMessageCallback = void (*)(InstanceEnvironment environment, Status status, String category, String message);
using IntermediateUpdateCallback = void (*)(InstanceEnvironment environment, Float64 intermediate_update_time,
                                            Boolean variable_set_requested, Boolean variable_get_allowed,
                                            Boolean step_finished, Boolean can_return_early,
                                            Boolean* early_return_requested, Float64* early_return_time);

using GetVersion = const char* (*)();
using InstantiateCoSimulation = Instance (*)(String instance_name, String instantiation_token, String resource_path,
                                             Boolean visible, Boolean logging_on, Boolean event_mode_used,
                                             Boolean early_return_allowed,
                                             const ValueReference required_intermediate_variables[],
                                             std::size_t n_required_intermediate_variables,
                                             InstanceEnvironment environment, LogMessageCallback log_message,
                                             IntermediateUpdateCallback intermediate_update);
using FreeInstance = void (*)(Instance instance);
using EnterInitializationMode = Status (*)(Instance instance, Boolean tolerance_defined, Float64 tolerance,
                                           Float64 start_time, Boolean stop_time_defined, Float64 stop_time);
using ExitInitializationMode = Status (*)(Instance instance);
using Terminate = Status (*)(Instance instance);
using GetFloat64 = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, Float64 values[],
                              std::size_t n_values);
using SetFloat64 = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, const Float64 values[],
                              std::size_t n_values);
using GetInt32 = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, Int32 values[],
                            std::size_t n_values);
using SetInt32 = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, const Int32 values[],
                            std::size_t n_values);
using SetBoolean = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, const Boolean values[],
                              std::size_t n_values);
using SetString = Status (*)(Instance instance, const ValueReference vrs[], std::size_t n_vrs, const String values[],
                             std::size_t n_values);
using DoStep = Status (*)(Instance instance, Float64 current_communication_point, Float64 communication_step_size,
                          Boolean no_set_fmu_state_prior_to_current_point, Boolean* event_handling_needed,
                          Boolean* terminate_simulation, Boolean* early_return, Float64* last_successful_time);
}

}  // namespace cosim::fmi::fmi3
