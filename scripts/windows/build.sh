#!/usr/bin/env bash
# Cross-builds cosim for 64-bit Windows on Debian: installs mingw-w64 and Wine (only what is
# missing), builds the dependency sysroot once (scripts/windows/sysroot.sh, cached), then
# cosim-dynamics.exe, cosim-recorder.exe, cosim-report.exe, cosim.exe and the test suites as
# static executables into build-windows/bin. cosim-visual needs VTK, which has no mingw build
# here: see docs/windows.md for a native build.
#   COSIM_WINDOWS_BUILD_DIR  build folder (default: <repo>/build-windows)
#   COSIM_WINDOWS_CACHE      dependency sources and sysroots (default: ~/.cache/cosim-windows)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${COSIM_WINDOWS_BUILD_DIR:-$root/build-windows}
. "$root/scripts/lib/stage.sh"

. "$root/scripts/lib/packages.sh"
stage "packages (windows)" ensure_packages windows

sysroot_start=$SECONDS
sysroot=$("$root/scripts/windows/sysroot.sh")
# As stage() does: a cached sysroot (under a second) is not listed.
if [ -n "${COSIM_STAGE_TIMES:-}" ] && [ $((SECONDS - sysroot_start)) -gt 0 ]; then
  printf '%swindows sysroot\t%d\t0\n' "${COSIM_STAGE_PREFIX:-}" $((SECONDS - sysroot_start)) >>"$COSIM_STAGE_TIMES"
fi
# A unity build: each target's sources compiled a few at a time, so mingw parses <windows.h>,
# Boost.Asio and the rest once per group, not once per file (from scratch on the 2-core machine: 790 s of CPU to 500 s). The
# price: names in anonymous namespaces must be unique within a target (docs/extending.md).
if [ ! -f "$build/build.ninja" ] || ! grep -q "COSIM_WINDOWS_SYSROOT:.*=$sysroot\$" "$build/CMakeCache.txt" ||
   ! grep -q "^CMAKE_UNITY_BUILD:[A-Z]*=ON" "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/mingw-w64.cmake" -DCOSIM_WINDOWS_SYSROOT="$sysroot" \
    -DCOSIM_BUILD_VISUAL=OFF -DCOSIM_BUILD_BENCHMARKS=OFF -DCOSIM_BUILD_TOOLS=OFF \
    -DBoost_NO_BOOST_CMAKE=ON -DBOOST_ROOT="$sysroot" \
    -DProtobuf_PROTOC_EXECUTABLE=/usr/bin/protoc >/dev/null
fi
stage "build ${build##*/}" cmake --build "$build" -j2
