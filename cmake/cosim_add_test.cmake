# cosim_add_test(<executable> LABEL <unit|integration|render> SOURCES <file>...
#                [LINKS <target>...] [DEFINES <NAME=value>...] [DEPENDS <program>...] [TIMEOUT <s>]
#                [RESOURCE_LOCK <name>])
# One GoogleTest executable (gtest_main and gmock linked), its tests discovered into CTest,
# each carrying LABEL (required: `ctest -L unit` must see every unit test). DEPENDS names
# the programs an integration suite starts, so they are built first. RESOURCE_LOCK: tests that
# share something (the render suite's X display, where xdotool types into the focused window)
# never run at the same time under `ctest -j`.
# One precompiled header for every test executable of a build tree: GoogleTest, GoogleMock,
# Eigen and the standard headers the suites use are parsed once, not once per test file (they
# are about 2.5 s of a test file's 6 s, and CI compiles the tests in three trees). The suites
# still include what they use; the header only makes those includes free.
if(NOT TARGET cosim_test_pch)
  add_library(cosim_test_pch OBJECT ${PROJECT_SOURCE_DIR}/tests/support/src/test_pch.cpp)
  # cosim::platform for its definitions (on Windows NOMINMAX and friends, which GoogleTest's
  # <windows.h> sees): a header is only used with the macros it was built with.
  target_link_libraries(cosim_test_pch PRIVATE GTest::gmock GTest::gtest Eigen3::Eigen cosim::platform)
  target_precompile_headers(cosim_test_pch PRIVATE
    <gtest/gtest.h> <gmock/gmock.h> <Eigen/Core> <Eigen/Geometry>
    <algorithm> <array> <chrono> <cmath> <cstdint> <cstdio> <filesystem> <fstream> <functional>
    <map> <memory> <optional> <span> <sstream> <string> <string_view> <thread> <vector>)
endif()

function(cosim_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "LABEL;TIMEOUT;RESOURCE_LOCK" "SOURCES;LINKS;DEFINES;DEPENDS")
  if(NOT arg_LABEL OR NOT arg_SOURCES)
    message(FATAL_ERROR "cosim_add_test(${name}): LABEL and SOURCES are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cosim_add_test(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LINKS} GTest::gmock GTest::gtest_main Eigen3::Eigen cosim::platform)
  target_precompile_headers(${name} REUSE_FROM cosim_test_pch)
  if(arg_DEFINES)
    target_compile_definitions(${name} PRIVATE ${arg_DEFINES})
  endif()
  if(arg_DEPENDS)
    add_dependencies(${name} ${arg_DEPENDS})
  endif()
  set(properties LABELS ${arg_LABEL})
  if(arg_TIMEOUT)
    list(APPEND properties TIMEOUT ${arg_TIMEOUT})
  endif()
  if(arg_RESOURCE_LOCK)
    list(APPEND properties RESOURCE_LOCK ${arg_RESOURCE_LOCK})
  endif()
  # Cross-built (Windows under Wine): list the tests when CTest runs, not at build time,
  # where a starting wineserver would hold the build's output pipe open.
  set(discovery_mode POST_BUILD)
  if(CMAKE_CROSSCOMPILING)
    set(discovery_mode PRE_TEST)
  endif()
  gtest_discover_tests(${name} PROPERTIES ${properties} DISCOVERY_MODE ${discovery_mode} DISCOVERY_TIMEOUT 60)
endfunction()
