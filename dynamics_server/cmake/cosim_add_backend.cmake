# cosim_add_backend(NAME <name> SOURCES <src>... [LINKS <target>...] [PRIVATE_LINKS <target>...])
#
# The one way to declare a backend, called from dynamics_server/backends/<name>/CMakeLists.txt.
# Creates the static library cosim_backend_<name> (alias cosim::backend_<name>) with the public
# include dir <folder>/include (headers in include/cosim/dynamics/<name>/, code in namespace
# cosim::dynamics::<name>) and the private one <folder>/src, linking cosim::backend_api and
# LINKS publicly (what its public headers include) and PRIVATE_LINKS privately, and appends it
# to the global property COSIM_BACKEND_TARGETS, which registry/ links: a new backend is its
# folder plus one line in registry/src/registry.cpp, and no other CMake line.
function(cosim_add_backend)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;LINKS;PRIVATE_LINKS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cosim_add_backend: unknown arguments '${arg_UNPARSED_ARGUMENTS}' in ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  if(NOT arg_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "cosim_add_backend: NAME '${arg_NAME}' must be a lower-case identifier (${CMAKE_CURRENT_LIST_FILE})")
  endif()
  get_filename_component(folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT arg_NAME STREQUAL folder)
    message(FATAL_ERROR "cosim_add_backend: NAME '${arg_NAME}' must equal its folder name backends/${folder}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "cosim_add_backend(${arg_NAME}): SOURCES is empty")
  endif()
  # Each backend owns its include prefix (and namespace cosim::dynamics::<name>).
  if(NOT IS_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/include/cosim/dynamics/${arg_NAME}")
    message(FATAL_ERROR "cosim_add_backend(${arg_NAME}): ${CMAKE_CURRENT_SOURCE_DIR}/include/cosim/dynamics/${arg_NAME} does not exist (public headers go there)")
  endif()

  set(target cosim_backend_${arg_NAME})
  add_library(${target} STATIC ${arg_SOURCES})
  add_library(cosim::backend_${arg_NAME} ALIAS ${target})
  target_include_directories(${target}
    PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC cosim::backend_api ${arg_LINKS} PRIVATE ${arg_PRIVATE_LINKS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY COSIM_BACKEND_TARGETS ${target})
endfunction()

# cosim_skip_backend(NAME <name> REASON <text>)
#
# Called instead of cosim_add_backend by a backend whose dependency this build lacks (MuJoCo in
# the Windows cross build): says so at configure time and records the name in the global
# property COSIM_SKIPPED_BACKENDS, which the folder loop below and the test folders
# (tests/unit/dynamics) accept in place of the target. The backend's registry row must then be
# compiled out (backends/mujoco defines COSIM_HAVE_MUJOCO for registry.cpp).
function(cosim_skip_backend)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;REASON" "")
  get_filename_component(folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT arg_NAME STREQUAL folder OR NOT arg_REASON OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cosim_skip_backend: expected NAME ${folder} REASON <text> in ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  message(STATUS "backend ${arg_NAME} not built: ${arg_REASON}")
  set_property(GLOBAL APPEND PROPERTY COSIM_SKIPPED_BACKENDS ${arg_NAME})
endfunction()

# Adds every folder under `backends_dir` (sorted by name). A folder without CMakeLists.txt, or
# whose CMakeLists.txt calls neither cosim_add_backend nor cosim_skip_backend with its own name,
# is a configure error: a backend is never silently left out of the registry.
function(cosim_add_backend_folders backends_dir)
  file(GLOB children LIST_DIRECTORIES true CONFIGURE_DEPENDS RELATIVE "${backends_dir}" "${backends_dir}/*")
  list(SORT children)
  foreach(child IN LISTS children)
    if(NOT IS_DIRECTORY "${backends_dir}/${child}")
      continue()
    endif()
    if(NOT EXISTS "${backends_dir}/${child}/CMakeLists.txt")
      message(FATAL_ERROR "${backends_dir}/${child} has no CMakeLists.txt: every folder under "
                          "backends/ is a backend and must call cosim_add_backend(NAME ${child} ...)")
    endif()
    add_subdirectory("${backends_dir}/${child}")
    get_property(skipped GLOBAL PROPERTY COSIM_SKIPPED_BACKENDS)
    if(NOT TARGET cosim_backend_${child} AND NOT child IN_LIST skipped)
      message(FATAL_ERROR "${backends_dir}/${child}/CMakeLists.txt does not call "
                          "cosim_add_backend(NAME ${child} ...)")
    endif()
  endforeach()
endfunction()
