#!/usr/bin/env bash
# Installs the Debian packages cosim needs (only those missing) and builds it into build/.
# Idempotent: a second run only rebuilds what changed.
#   COSIM_BUILD_DIR   build folder (default: <repo>/build)
#   COSIM_BUILD_TYPE  CMake build type (default: Release)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}
. "$root/scripts/lib/stage.sh"

. "$root/scripts/lib/packages.sh"
stage "packages" ensure_packages linux clang

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${COSIM_BUILD_TYPE:-Release}" >/dev/null
fi
# Two jobs: this machine has two cores and VTK translation units are memory hungry.
stage "build ${build##*/}" cmake --build "$build" -j2
