#!/usr/bin/env bash
# Builds everything but cosim-visual and the benchmarks with clang, AddressSanitizer
# (LeakSanitizer included) and UndefinedBehaviorSanitizer into build-asan/, and runs the
# unit, integration and hostile suites there (the render suite needs VTK and is not built). Any
# sanitizer finding aborts the process that made it, so its test fails; at the end the first
# lines of every report are printed again. Exits with ctest's status.
#   scripts/sanitize.sh [extra ctest arguments, e.g. -R Lockstep]
#   COSIM_ASAN_BUILD_DIR  build folder (default: <repo>/build-asan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_ASAN_BUILD_DIR:-$root/build-asan}
. "$root/scripts/lib/stage.sh"

# Packages (scripts/lib/packages.sh): the same list as scripts/setup.sh's.
. "$root/scripts/lib/packages.sh"
stage "packages" ensure_packages linux clang

# -O2: reports keep their lines and the numeric suites (Eigen templates) run ~2× faster than at -O1. Debug keeps
# assert() on. Errors abort instead of being reported and continued.
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# The developer tools (tools/: generators of committed files) and their suites run in the
# Release tree only. -gline-tables-only: reports need file:line and function names, not variables; full debug
# information made the build about 10 % slower and its objects 60 % larger.
# A unity build: each target's sources compiled a few at a time (from scratch on the 2-core
# machine, about 1000 s of CPU to 600 s); names in anonymous namespaces must be unique within
# a target (docs/extending.md).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
  -DCMAKE_C_FLAGS="-O2 $sanitize" -DCMAKE_CXX_FLAGS="-O2 $sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCOSIM_BUILD_VISUAL=OFF -DCOSIM_BUILD_BENCHMARKS=OFF -DCOSIM_BUILD_TOOLS=OFF -DCOSIM_BUILD_TESTS=ON >/dev/null
# Two jobs: this machine has two cores.
stage "build ${build##*/}" cmake --build "$build" -j2

# Every process the tests start (cosim-dynamics, cosim-recorder, cosim-report, cosim.sh)
# inherits these. abort_on_error: a finding ends the process with SIGABRT, never with an exit
# code a test could mistake for one of ours (ASan's default exit code 1 is kExitInternal).
# LeakSanitizer works in this container (checked: it needs ptrace-like thread suspension,
# which some sandboxes forbid; there it would have to be detect_leaks=0).
symbolizer=$(command -v llvm-symbolizer || true)
common="abort_on_error=1:symbolize=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
export ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1"
export UBSAN_OPTIONS="$common:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="$common"

cd "$build"
rc=0
# Unit suites two at a time (CPU-bound, the numeric ones take minutes under the sanitizers);
# the integration and hostile suites one at a time (real processes and timeouts).
stage "tests ${build##*/} unit" ctest --output-on-failure --timeout 600 -j2 -L unit "$@" || rc=$?
cp Testing/Temporary/LastTest.log Testing/Temporary/LastTest-unit.log
stage "tests ${build##*/} integration" ctest --output-on-failure --timeout 600 -L "integration|hostile" "$@" || rc=$?

if [ "$rc" -ne 0 ]; then
  # The first lines of each sanitizer report in the failed tests' output: what, where
  # (file:line of the first frames) and the summary.
  echo "sanitize: ctest failed (exit $rc); sanitizer reports in the test output:" >&2
  awk '/^[0-9]+\/[0-9]+ Testing: / { test = $3 }
       /ERROR: (Address|Leak)Sanitizer|runtime error:|^SUMMARY: [A-Za-z]+Sanitizer/ {
         print "  [" test "] " $0; frames = 4; next }
       frames > 0 && /^ +#[0-9]+ / { print "  [" test "]     " $0; frames-- }' \
    Testing/Temporary/LastTest-unit.log Testing/Temporary/LastTest.log >&2 || true
fi
exit "$rc"
