#pragma once
// Where the render tests find scenes and reference images (executables: harness.hpp).
#include <filesystem>

#include "harness.hpp"

namespace cosim::test {

inline const std::filesystem::path kTestScenesDir = COSIM_TEST_SCENES_DIR;
inline const std::filesystem::path kBaselineDir = COSIM_RENDER_BASELINE_DIR;
inline const std::filesystem::path kExamplesDir = COSIM_EXAMPLES_DIR;

/// True when an X display is there (the render suite runs under xvfb-run).
inline bool have_display() {
  const char* display = std::getenv("DISPLAY");
  return display != nullptr && *display != '\0';
}

}  // namespace cosim::test
