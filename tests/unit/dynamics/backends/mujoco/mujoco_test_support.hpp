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
#include <unistd.h>

#include "cosim/dynamics/mujoco/mujoco_backend.hpp"
#include "param_error.hpp"

namespace cosim::dynamics::mujoco {

using cosim::test::param_error;

class MujocoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cosim_mujoco_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }

  // Through the registry's path: declared parameters, CLI overrides.
  static std::unique_ptr<Backend> make(const std::vector<std::string>& cli, double t0_s = 0.0) {
    return make_mujoco_backend(Params::resolve("mujoco", mujoco_param_specs(), nullptr, cli), t0_s);
  }

  std::filesystem::path dir_;
};

}  // namespace cosim::dynamics::mujoco
