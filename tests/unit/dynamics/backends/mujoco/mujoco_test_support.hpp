#pragma once
// A scratch folder for the mujoco backend's tests: model files and reference CSVs written
// from strings, backends made from them directly or through the declared parameters; and
// param_error() (support/param_error.hpp) for what they refuse.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "cosim/test/scratch_dir.hpp"
#include "param_error.hpp"

namespace cosim::dynamics::mujoco {

using cosim::test::param_error;

class MujocoTest : public cosim::test::ScratchDirTest {
 protected:
  // Through the registry's path: declared parameters, CLI overrides.
  static std::unique_ptr<Backend> make(const std::vector<std::string>& cli, double t0_s = 0.0) {
    return make_mujoco_backend(Params::resolve("mujoco", mujoco_param_specs(), nullptr, cli), t0_s);
  }

};

}  // namespace cosim::dynamics::mujoco
