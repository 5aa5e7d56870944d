# cosim_add_fmu(<target> IDENTIFIER <model identifier> DIR <folder with <id>.c and
#               modelDescription.xml> VERSION <2|3> OUTPUT <the .fmu to write>
#               [SOURCE <another .c>] [MODEL_DESCRIPTION <another .xml>] [DEFINES <NAME[=value]>...])
# An FMU of our own written in C: the binary built for this platform (a .so, or with mingw a
# .dll needing only Windows' own libraries) and packed with modelDescription.xml into a zip by
# `cmake -E tar --format=zip` (binaries/x86_64-linux, x86_64-windows for FMI 3; linux64, win64
# for FMI 2). The target <target> builds it with ALL. SOURCE, MODEL_DESCRIPTION and DEFINES
# build one source several ways (the broken FMUs of tests/fmus/broken/).
function(cosim_add_fmu target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "IDENTIFIER;DIR;VERSION;OUTPUT;SOURCE;MODEL_DESCRIPTION" "DEFINES")
  if(NOT arg_SOURCE)
    set(arg_SOURCE ${arg_DIR}/${arg_IDENTIFIER}.c)
  endif()
  if(NOT arg_MODEL_DESCRIPTION)
    set(arg_MODEL_DESCRIPTION ${arg_DIR}/modelDescription.xml)
  endif()
  if(arg_VERSION EQUAL 3)
    set(platform x86_64-linux)
    set(windows_platform x86_64-windows)
  else()
    set(platform linux64)
    set(windows_platform win64)
  endif()
  set(suffix .so)
  if(WIN32)
    set(platform ${windows_platform})
    set(suffix .dll)
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${target})
  add_library(${target}_binary SHARED ${arg_SOURCE})
  target_compile_definitions(${target}_binary PRIVATE ${arg_DEFINES})
  set_target_properties(${target}_binary PROPERTIES OUTPUT_NAME ${arg_IDENTIFIER} PREFIX "" SUFFIX ${suffix}
                        C_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${work}/lib RUNTIME_OUTPUT_DIRECTORY ${work}/lib
                        ARCHIVE_OUTPUT_DIRECTORY ${work}/lib)  # a DLL's import library: one folder per FMU
  if(WIN32)
    target_link_options(${target}_binary PRIVATE -static-libgcc)
  else()
    target_link_libraries(${target}_binary PRIVATE m)
  endif()
  get_filename_component(out_dir ${arg_OUTPUT} DIRECTORY)
  add_custom_command(OUTPUT ${arg_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${work}/fmu
    COMMAND ${CMAKE_COMMAND} -E make_directory ${work}/fmu/binaries/${platform} ${out_dir}
    COMMAND ${CMAKE_COMMAND} -E copy ${arg_MODEL_DESCRIPTION} ${work}/fmu/modelDescription.xml
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:${target}_binary> ${work}/fmu/binaries/${platform}/
    COMMAND ${CMAKE_COMMAND} -E chdir ${work}/fmu ${CMAKE_COMMAND} -E tar c ${arg_OUTPUT} --format=zip modelDescription.xml binaries
    DEPENDS ${target}_binary ${arg_MODEL_DESCRIPTION}
    COMMENT "the FMU ${arg_OUTPUT}")
  add_custom_target(${target} ALL DEPENDS ${arg_OUTPUT})
endfunction()
