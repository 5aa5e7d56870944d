#!/usr/bin/env bash
# Runs a co-simulation with one command: builds what is missing, starts cosim-dynamics and
# the visual side over a private FIFO channel, forwards Ctrl-C to both, removes the channel,
# prints the run summary, writes the report (cosim-report) and says where both are.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}

usage() {
  cat <<USAGE
usage: scripts/cosim.sh [options] [-- extra cosim-dynamics options]

  --backend NAME    dynamics backend (default: robotino; see cosim-dynamics --list-backends)
  --scene PATH      scene folder or project file (default: scenes/robotino)
  --fps N           frames per second (default: 20)
  --duration S      simulated seconds (default: 50)
  --mode MODE       lockstep | free | realtime (default: lockstep)
  --rate R          realtime mode: sim seconds per wall second (default: 1)
  --params FILE     backend parameter file
  --channel SPEC    fifo:DIR to use that folder (default: a private one, removed at the end)
  --out DIR         run folder (default: runs/<UTC time>-<backend>)
  --recorder        visual side = cosim-recorder (the headless recorder stub)
  --no-build        do not run scripts/setup.sh first
  -h, --help        this text
USAGE
}

backend=robotino scene="$root/scenes/robotino" fps=20 duration=50 mode=lockstep rate=1
params="" out="" peer="" build_first=1 extra=() channel=""

while (($#)); do
  case "$1" in
    --backend) backend=$2; shift 2 ;;
    --scene) scene=$2; shift 2 ;;
    --fps) fps=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --params) params=$2; shift 2 ;;
    --channel) channel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --recorder) peer=recorder; shift ;;
    --no-build) build_first=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "cosim.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if ((build_first)); then "$root/scripts/setup.sh" >&2; fi
bin="$build/bin"
if [ -z "$peer" ]; then
  if [ -x "$bin/cosim-visual" ]; then peer=visual; else
    peer=recorder
    echo "cosim.sh: cosim-visual is not built; the visual side is the recorder stub (no graphics)" >&2
  fi
fi
if [ -z "$out" ]; then
  # A new folder even for two runs started in the same second (mkdir is atomic).
  base="$root/runs/$(date -u +%Y%m%dT%H%M%SZ)-$backend"
  mkdir -p "$root/runs"
  out=$base n=1
  until mkdir "$out" 2>/dev/null; do n=$((n + 1)); out="$base-$n"; done
fi
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

# A private channel folder (0700), removed whatever happens; or the user's own.
if [ -z "$channel" ]; then
  fifo_dir=$(mktemp -d -t cosim-fifo.XXXXXX)
  channel="fifo:$fifo_dir"
else
  case "$channel" in
    fifo:?*) fifo_dir="" ;;  # cosim-dynamics creates it and removes its FIFOs itself
    *) echo "cosim.sh: error: --channel '$channel': expected fifo:DIR" >&2; exit 2 ;;
  esac
fi
pids=()
interrupted=0
cleanup() { if [ -n "$fifo_dir" ]; then rm -rf "$fifo_dir"; fi; }
forward() {
  # The dynamics first: it is the one that records why the run ended.
  interrupted=1
  echo "cosim.sh: stopping..." >&2
  kill -TERM "${pids[@]}" 2>/dev/null || true
}
trap cleanup EXIT
trap forward INT TERM

dyn_args=(--backend "$backend" --scene "$scene" --fps "$fps" --duration "$duration" --mode "$mode"
          --rate "$rate" --channel "$channel" --out "$out")
[ -n "$params" ] && dyn_args+=(--params "$params")
"$bin/cosim-dynamics" "${dyn_args[@]}" "${extra[@]}" &
pids+=($!)
if [ "$peer" = recorder ]; then
  "$bin/cosim-recorder" --channel "$channel" --scene "$scene" --out "$out" --quiet &
else
  "$bin/cosim-visual" --channel "$channel" --scene "$scene" --out "$out" &
fi
pids+=($!)

# Wait for both; the first failure decides the exit code. A trapped Ctrl-C makes `wait`
# return early, so wait until each child is really gone, then ask bash for its status.
status=0
for p in "${pids[@]}"; do
  while kill -0 "$p" 2>/dev/null; do wait "$p" 2>/dev/null || true; done
  set +e; wait "$p" 2>/dev/null; code=$?; set -e
  if [ "$code" -ne 0 ] && [ "$status" -eq 0 ]; then status=$code; fi
done
if [ -f "$out/run.json" ]; then
  "$bin/cosim-report" "$out" || echo "cosim.sh: no report (cosim-report failed)" >&2
fi
echo "cosim.sh: run folder: $out" >&2
[ -f "$out/report.md" ] && echo "cosim.sh: report: $out/report.md" >&2
if ((interrupted)); then exit 130; fi
exit "$status"
