#pragma once
// What the scene tests share: the names they use (`using namespace cosim::scene::test;`) and
// expect_scene_error(), the check of one SceneError.

#include <filesystem>
#include <iostream>
#include <numbers>
#include <string>

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "cosim/scene/scene.hpp"
#include "test_paths.hpp"

namespace cosim::scene::test {

namespace fs = std::filesystem;
using Eigen::AngleAxisd;
using Eigen::Isometry3d;
using Eigen::Vector3d;
inline constexpr double kPi = std::numbers::pi;

/// Loads `path` and checks the SceneError: it names `expected_file` and `line` (0: no line)
/// in where() and as the prefix of its one-line what(), and what() contains `message_part`.
/// Prints the message (the messages users see, for review).
inline void expect_scene_error(const fs::path& path, const fs::path& expected_file, int line,
                               const std::string& message_part, const LoadOptions& options = {}) {
  try {
    SceneModel::load(path, options);
    ADD_FAILURE() << path << ": loaded without error";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().file, expected_file) << e.what();
    EXPECT_EQ(e.where().line, line) << e.what();
    const std::string what = e.what();
    const std::string prefix = expected_file.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(message_part), std::string::npos) << "'" << message_part << "' not in: " << what;
    EXPECT_EQ(what, prefix + e.message());
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    std::cout << "    " << what << "\n";
  }
}

}  // namespace cosim::scene::test
