#pragma once
/// @file
/// The `fmu` backend: a co-simulation FMU (FMI 3.0 or 2.0) stepped in the dynamics process, its
/// outputs mapped to scene joints (docs/fmi.md). By default the pendulum FMU built with cosim
/// (pendulum_fmu/), for scenes/pendulum.

#include <filesystem>
#include <memory>
#include <span>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::fmu {

/// Declared parameters: `fmu` (the .fmu; relative: the current folder, then the FMUs shipped
/// with cosim, <bin>/../share/cosim/fmus), `mapping` (a file of `Model/joint = variable [scale
/// [offset]]` lines; empty: outputs named as scene joints), `step_s` (the largest communication
/// step; 0: the FMU's default experiment's step, else 1 ms) and the family `fmu.<variable>`
/// (a parameter or input of the FMU, checked against its model description).
std::span<const ParamSpec> fmu_param_specs();

/// Registry factory. Throws ParamError for an FMU that cannot be read or run here (naming it and
/// what is wrong), a mapping line or an `fmu.` value its variable refuses.
std::unique_ptr<Backend> make_fmu_backend(const Params& params, double t0_s);

/// The FMU's default experiment (stop - start), else 10 s.
double fmu_natural_duration_s(const Params& params);

/// The scene of the FMU's model: the one it ships in resources/cosim/scene/, unpacked into the
/// user's cache (fmi::shipped_scene; the launcher gives the same folder to the visual side);
/// else the scene folder named after its modelName in lower case under the scenes root, the
/// rule the visual side follows without --scene (Hello.model), when there is one ("Robotino"
/// -> scenes/robotino); else empty (the registry's default scene). A name that is no plain
/// folder name is ignored. Throws ParamError for an FMU the zip reader refuses or a cache that
/// cannot be written.
std::filesystem::path fmu_model_scene(const Params& params);

}  // namespace cosim::dynamics::fmu
