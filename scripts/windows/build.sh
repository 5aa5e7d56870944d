#!/usr/bin/env bash
# Cross-builds cosim for 64-bit Windows on Debian: installs mingw-w64 and Wine (only what is
# missing), builds the dependency sysroot once (scripts/windows/sysroot.sh, cached), then
# cosim-dynamics.exe, cosim-recorder.exe, cosim-report.exe, cosim.exe and the test suites as
# static executables into build-windows/bin. cosim-visual needs VTK, which has no mingw build
# here: see the README's Windows section for a native build.
#   COSIM_WINDOWS_BUILD_DIR  build folder (default: <repo>/build-windows)
#   COSIM_WINDOWS_CACHE      dependency sources and sysroots (default: ~/.cache/cosim-windows)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${COSIM_WINDOWS_BUILD_DIR:-$root/build-windows}
. "$root/scripts/lib/stage.sh"

packages=(
  g++-mingw-w64-x86-64-posix wine64 dpkg-dev cmake ninja-build
  protobuf-compiler  # the host's protoc generates the code; same version as the sysroot's
  libboost-dev libeigen3-dev libcli11-dev  # header-only, used as they are
  libprotobuf-dev libpugixml-dev libsundials-dev googletest  # their versions pick the sources
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "windows/build: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  install() {
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  }
  stage "packages (windows)" install
fi

sysroot_start=$SECONDS
sysroot=$("$root/scripts/windows/sysroot.sh")
[ -z "${COSIM_STAGE_TIMES:-}" ] || printf 'windows sysroot\t%d\t0\n' $((SECONDS - sysroot_start)) >>"$COSIM_STAGE_TIMES"
if [ ! -f "$build/build.ninja" ] || ! grep -q "COSIM_WINDOWS_SYSROOT:.*=$sysroot\$" "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/mingw-w64.cmake" -DCOSIM_WINDOWS_SYSROOT="$sysroot" \
    -DCOSIM_BUILD_VISUAL=OFF -DCOSIM_BUILD_BENCHMARKS=OFF \
    -DBoost_NO_BOOST_CMAKE=ON -DBOOST_ROOT="$sysroot" \
    -DProtobuf_PROTOC_EXECUTABLE=/usr/bin/protoc >/dev/null
fi
stage "build ${build##*/}" cmake --build "$build" -j2
