# Cross build for 64-bit Windows with Debian's mingw-w64 (posix threads variant: the win32
# one has no std::thread). COSIM_WINDOWS_SYSROOT holds the cross-built dependencies
# (scripts/windows/build.sh); nothing is searched in the host's /usr.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

if(NOT COSIM_WINDOWS_SYSROOT AND DEFINED ENV{COSIM_WINDOWS_SYSROOT})
  set(COSIM_WINDOWS_SYSROOT $ENV{COSIM_WINDOWS_SYSROOT})
endif()
# try_compile projects see the toolchain file again, without the cache: pass it on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES COSIM_WINDOWS_SYSROOT)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${COSIM_WINDOWS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Static executables import only KERNEL32.dll and msvcrt.dll (plus system DLLs): they run
# from any folder, under Wine too, without shipping the mingw runtime.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(ZLIB_USE_STATIC_LIBS ON)  # libz.a, not libz.dll.a: no zlib1.dll to ship beside the programs

# Tests and try_run go through Wine.
find_program(COSIM_WINE64 NAMES wine64 PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(COSIM_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${COSIM_WINE64})
endif()
