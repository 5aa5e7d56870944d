#pragma once
// What the FMI function files share: the export attribute (the only symbols the binary shows;
// everything else, SUNDIALS included, stays hidden) and the instance behind an FMI handle.

#include "model_instance.hpp"

#ifdef _WIN32
#define COSIM_FMI_EXPORT extern "C" __declspec(dllexport)
#else
#define COSIM_FMI_EXPORT extern "C" __attribute__((visibility("default")))
#endif

namespace cosim::fmu_export {

inline ModelInstance* as_instance(void* handle) { return static_cast<ModelInstance*>(handle); }

}  // namespace cosim::fmu_export
