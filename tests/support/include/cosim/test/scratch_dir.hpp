#pragma once
// A fixture owning one scratch folder per test, <tmp>/cosim_<suite>_<pid>_<test>: created before
// the test, removed after it, with write() to put a file in it. For the unit suites, which
// write small input files (models, CSVs, parameter files); the integration suites use
// cosim::test_process's TempDir.

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace cosim::test {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("cosim_" + std::string(test->test_suite_name()) + "_" +
                                                     std::to_string(::getpid()) + "_" + test->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  /// Writes `text` as it is (no newline translation) to `name` in the folder (a relative path:
  /// its folders are made); its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::filesystem::path dir_;
};

}  // namespace cosim::test
