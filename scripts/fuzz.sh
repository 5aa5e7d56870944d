#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan, RelWithDebInfo) into build-fuzz/
# and runs each one for a time budget on a copy of its seed corpus (fuzz/corpus/<name>/ is
# only read), as many at a time as there are cores. Prints per target the executions, executions per second and coverage (cov =
# covered edges, ft = features, from libFuzzer's last status line). Exits 1 if any target
# crashed (sanitizer report, undocumented exception, timeout, out of memory); its inputs are
# left in build-fuzz/crashes/<name>/ and named in the output.
#   scripts/fuzz.sh [SECONDS per target, default 30]
#   COSIM_FUZZ_BUILD_DIR  build folder (default: <repo>/build-fuzz)
#   COSIM_FUZZ_TARGETS    names to run (default: every fuzz/<name>_fuzz.cpp)
#   COSIM_FUZZ_JOBS       targets run at a time, one core each (default: the number of cores)
# Reproduce a crash: build-fuzz/bin/<name>_fuzz build-fuzz/crashes/<name>/<file>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-30}
. "$root/scripts/lib/stage.sh"
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS per target]" >&2; exit 2; }

# Packages (scripts/lib/packages.sh): the same list as scripts/setup.sh's.
. "$root/scripts/lib/packages.sh"
stage "packages" ensure_packages linux clang

# A unity build, as scripts/sanitize.sh's.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCOSIM_BUILD_FUZZERS=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCOSIM_BUILD_VISUAL=OFF -DCOSIM_BUILD_TESTS=OFF -DCOSIM_BUILD_BENCHMARKS=OFF >/dev/null
# Two jobs: this machine has two cores. Only the fuzz targets and what they link.
stage "build ${build##*/}" cmake --build "$build" --target cosim_fuzzers -j2

if [ -n "${COSIM_FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$COSIM_FUZZ_TARGETS"
else
  targets=()
  for f in "$root"/fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" _fuzz.cpp)"); done
fi

# Sanitizer reports with symbolized stacks; libFuzzer itself turns each into a saved crash.
symbolizer=$(command -v llvm-symbolizer || true)
export ASAN_OPTIONS="detect_leaks=1:symbolize=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
export UBSAN_OPTIONS="print_stacktrace=1:symbolize=1${symbolizer:+:external_symbolizer_path=$symbolizer}"

# The targets write every input to a file in a scratch folder under TMPDIR: on tmpfs they run
# several times faster than on this ext4 disk. Removed at exit, with what crashing processes leave.
scratch=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "$build")/cosim-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# One target's run: its result row in $work/row, its failure report (if any) in $work/report.
fuzz_one() {
  local name=$1
  local exe=$build/bin/${name}_fuzz seeds=$root/fuzz/corpus/$name work=$build/fuzz-work/$name
  local crashes=$build/crashes/$name
  # A fresh copy of the seeds each run: libFuzzer adds what it finds to the copy.
  rm -rf "$work" "$crashes"
  mkdir -p "$work/corpus" "$scratch/$name" "$crashes"
  cp -R "$seeds/." "$work/corpus/"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$crashes/")
  [ -f "$root/fuzz/dict/$name.dict" ] && args+=(-dict="$root/fuzz/dict/$name.dict")
  # The nesting readers: room for inputs past their depth limits (libFuzzer's own limit is the
  # largest seed's size, or 4 KiB), from the deep seeds of make_corpus.sh.
  case $name in scene | runjson) args+=(-max_len=65536) ;; esac
  echo "fuzz: $name for ${seconds} s (log: ${work#$root/}/fuzz.log)" >&2
  local rc=0
  TMPDIR=$scratch/$name "$exe" "${args[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || rc=$?

  local execs rate status cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log" | tail -n 1)
  status=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$work/fuzz.log" | tail -n 1 || true)
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$status")
  ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$status")
  corp=$(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$status")
  printf '%-10s %10s %9s %7s %7s %12s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "${corp:-?}" "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")" >"$work/row"
  rm -f "$work/report"
  if [ "$rc" -ne 0 ]; then
    {
      echo "fuzz: $name FAILED (exit $rc); first lines of the report:"
      # From the first report line (sanitizer, our own check, libFuzzer's deadly signal/timeout/OOM),
      # without the stack frames of libFuzzer, the sanitizer runtime and libc.
      awk '/^==[0-9]+==|^cosim fuzz:|runtime error:|ERROR: libFuzzer|^SUMMARY/ { on = 1 }
           on && /^MS: [0-9]|^Shadow bytes around/ { exit }
           / in (fuzzer::|__sanitizer_|__asan_|__ubsan_|__libc_|_start |__pthread_kill|raise |abort |main \()|libc\.so/ { next }
           on && n++ < 25' "$work/fuzz.log" | sed 's/^/    /'
      for f in "$crashes"/*; do [ -e "$f" ] && echo "fuzz: $name input saved: ${f#$root/}"; done
    } >"$work/report"
  fi
}

for name in "${targets[@]}"; do
  [ -x "$build/bin/${name}_fuzz" ] && [ -d "$root/fuzz/corpus/$name" ] ||
    { echo "fuzz: no target '$name' ($build/bin/${name}_fuzz, fuzz/corpus/$name)" >&2; exit 2; }
done
# Each libFuzzer process uses one core: COSIM_FUZZ_JOBS targets at a time (default: the cores).
jobs=${COSIM_FUZZ_JOBS:-$(nproc)}
fuzz_start=$SECONDS
running=0
for name in "${targets[@]}"; do
  fuzz_one "$name" &
  if ((++running >= jobs)); then
    wait -n || true
    ((running--)) || true
  fi
done
wait
failed=()
rows=()
for name in "${targets[@]}"; do
  work=$build/fuzz-work/$name
  rows+=("$(cat "$work/row")")
  if [ -f "$work/report" ]; then
    failed+=("$name")
    cat "$work/report" >&2
  fi
done

[ -z "${COSIM_STAGE_TIMES:-}" ] ||
  printf 'fuzz %d targets\t%d\t%d\n' "${#targets[@]}" $((SECONDS - fuzz_start)) "${#failed[@]}" >>"$COSIM_STAGE_TIMES"
echo
printf '%-10s %10s %9s %7s %7s %12s  %s\n' target execs "execs/s" cov ft corpus result
printf '%s\n' "${rows[@]}"
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (inputs in ${build#$root/}/crashes/; reproduce with ${build#$root/}/bin/<name>_fuzz <input>)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds} s each without a crash"
