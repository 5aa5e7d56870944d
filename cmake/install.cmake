# `cmake --install build --prefix P` installs the programs, the scenes (P/share/cosim/scenes,
# where the programs look for them), and the common libraries with their headers and a CMake
# package, so another project can `find_package(cosim)` and link cosim::scene, cosim::wire,
# cosim::protocol (tests/install builds such a consumer against a real install).
include(CMakePackageConfigHelpers)

set(cosim_exported cosim_proto cosim_platform cosim_util cosim_wire cosim_protocol cosim_scene)
if(COSIM_HAVE_MUJOCO)
  list(APPEND cosim_exported cosim_mjcf)  # cosim::scene reads MuJoCo models through it
endif()
foreach(target IN LISTS cosim_exported)
  string(REPLACE "cosim_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
install(TARGETS ${cosim_exported} EXPORT cosimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(cosim_layers platform util wire protocol scene)
if(COSIM_HAVE_MUJOCO)
  list(APPEND cosim_layers mjcf)
endif()
foreach(layer IN LISTS cosim_layers)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/common/${layer}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/proto/gen/cosim/v1/cosim.pb.h ${PROJECT_SOURCE_DIR}/proto/cosim/v1/cosim.proto
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cosim/v1)

set(cosim_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cosim)
install(EXPORT cosimTargets NAMESPACE cosim:: DESTINATION ${cosim_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cosimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cosimConfig.cmake INSTALL_DESTINATION ${cosim_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cosimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cosimConfig.cmake ${PROJECT_BINARY_DIR}/cosimConfigVersion.cmake
        DESTINATION ${cosim_cmake_dir})
