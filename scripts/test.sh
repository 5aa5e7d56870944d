#!/usr/bin/env bash
# Sets up (installs missing packages, builds) and runs every test: unit, integration and
# render suites, under a virtual X server when there is no display.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit or -R Lockstep]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}
. "$root/scripts/lib/stage.sh"
"$root/scripts/setup.sh"
cd "$build"
# The Slurm suite (label slurm) runs cosim-sweep on a real single-node Slurm started here, as
# root (slurmd runs the jobs): installed when missing, stopped on the way out, whatever happens.
if [ "$(id -u)" -eq 0 ] && [ -z "${COSIM_NO_SLURM:-}" ]; then
  cluster="$build/slurm-cluster"
  trap '"$root/scripts/slurm/cluster.sh" stop "$cluster"' EXIT
  COSIM_TEST_SLURM_CONF=$(stage "slurm cluster" "$root/scripts/slurm/cluster.sh" start "$cluster" | tail -n 1)
  export COSIM_TEST_SLURM_CONF
fi
# The wine suite drives the Windows build: scripts/windows/test.sh runs it. Two at a time, one
# per core: every suite passes so (CI time: 278 s serial, ~110 s here).
run=(ctest --output-on-failure --timeout 600 -j2 -LE wine "$@")
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
  # Render tests need an X server: VTK 9.1 from Debian renders offscreen through X only.
  stage "tests ${build##*/}" xvfb-run -a -s "-screen 0 1920x1080x24" "${run[@]}"
else
  stage "tests ${build##*/}" "${run[@]}"
fi
