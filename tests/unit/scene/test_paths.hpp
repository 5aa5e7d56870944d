#pragma once
// Where the scene test fixtures are (set by CMake).

#include <filesystem>

namespace cosim::scene::test {

inline std::filesystem::path scenes_dir() { return COSIM_SCENES_DIR; }
inline std::filesystem::path fixtures_dir() { return COSIM_TEST_SCENES_DIR; }

}  // namespace cosim::scene::test
