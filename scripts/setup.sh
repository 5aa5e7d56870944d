#!/usr/bin/env bash
# Installs the Debian packages cosim needs (only those missing) and builds it into build/.
# Idempotent: a second run only rebuilds what changed.
#   COSIM_BUILD_DIR   build folder (default: <repo>/build)
#   COSIM_BUILD_TYPE  CMake build type (default: Release)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}
. "$root/scripts/lib/stage.sh"

packages=(
  cmake ninja-build g++ pkg-config
  libboost-all-dev libeigen3-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev libsundials-dev libcli11-dev
  libvtk9-dev xvfb xauth ffmpeg gnuplot-nox bc time
  xdotool  # the window test presses keys in cosim-visual
  liburdfdom-dev libassimp-dev  # URDF scenes; their COLLADA (.dae), OBJ and PLY meshes
  libmujoco-dev  # the mujoco backend
  python3  # scripts/robotino_study.py, scripts/bench.sh
  clang libclang-rt-dev llvm  # sanitize.sh, fuzz.sh: clang, its sanitizer and libFuzzer runtimes, llvm-symbolizer
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  install() {
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  }
  stage "packages" install
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${COSIM_BUILD_TYPE:-Release}" >/dev/null
fi
# Two jobs: this machine has two cores and VTK translation units are memory hungry.
stage "build ${build##*/}" cmake --build "$build" -j2
