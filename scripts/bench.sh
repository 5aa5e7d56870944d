#!/usr/bin/env bash
# Measures the figures of docs/performance.md on this machine.
#   scripts/bench.sh            all benchmarks
#   scripts/bench.sh codec      encode + decode of one Frame (Google Benchmark)
#   scripts/bench.sh roundtrip  FIFO round trip Frame -> ProbeReport with the recorder stub
#   scripts/bench.sh channels   fifo, tcp and shm round trips side by side with a raw blocking FIFO ping-pong,
#                               CPU per 10 000 round trips, then all again beside two CPU-bound processes
#   scripts/bench.sh loaded     the loaded row repeated (COSIM_BENCH_RUNS, default 8): p50 of every run of each channel
#                               and of the raw anchors, and fifo:/shm: with their move off the peer's CPU switched off
#   scripts/bench.sh loop       headless 50 s rose at 50 fps, lockstep and free, wall time
#   scripts/bench.sh robotino   robotino backend alone, 50 s at output 0.02 s, tolerances 1e-6
#   scripts/bench.sh mujoco     the Robotino in MuJoCo: steps/s alone, and the co-simulation overhead (alone vs with
#                               the recorder in lockstep at 50 fps), beside the robotino backend on the same 10 s
#   scripts/bench.sh omniwheel  omniwheel backend, seed 004's 10 s run at psi = 30 deg, explicit vs implicit tracking
#   scripts/bench.sh mecanum4   mecanum4 backend, seed 002's 10 s manoeuvre, roller-level vs reduced wheels
#   scripts/bench.sh render     VTK offscreen fps at 1280x720 and the coupled 50 s run at 30 fps with video
#   scripts/bench.sh memory     peak RSS of each process, short run vs 10x longer run (flat = no growth)
#   scripts/bench.sh fmu        the exported Robotino FMU (FMI 3.0 and 2.0) stepped by the fmu backend against
#                               --backend robotino on the same 50 s at output 0.02 s, 5 rounds alternated, median
#                               (target <= 1.5x); cosim-fmu export's time, and the FMU's unpacking and loading
#   scripts/bench.sh sweep      cosim-sweep: 200 short Robotino points with --jobs 2 against --jobs 1, three times
#                               interleaved; median wall time of each and their ratio (target >= 1.8 on 2 cores);
#                               then, on a Slurm ($SLURM_CONF, or as root a single-node one started here by
#                               scripts/slurm/cluster.sh), --executor slurm against local --jobs 2 (target <= 1.3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >&2
bin="$build/bin"
what=${1:-all}
work=$(mktemp -d -t cosim-bench.XXXXXX)
hogs=()  # CPU-bound neighbours of the "channels" benchmark: never left running
cluster=""  # a Slurm the "sweep" benchmark started: always stopped
trap 'if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi
      if [ -n "$cluster" ]; then "$root/scripts/slurm/cluster.sh" stop "$cluster" || true; fi; rm -rf "$work"' EXIT

metric() {  # metric RUN_DIR KEY[.KEY]  -> that value of `cosim-report --json RUN_DIR` (docs/design.md)
  "$bin/cosim-report" --json "$1" | python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."): v = v[k]
print(f"{v:.1f}" if isinstance(v, float) else v)' "$2"
}

# run_pair NAME DYNAMICS_ARGS... : one co-simulation with the recorder stub; prints wall seconds.
# The channel is $channel if set (e.g. tcp:127.0.0.1:PORT), else a FIFO folder of its own;
# $pin prefixes both processes (e.g. "taskset -c 0").
pin=""
run_pair() {
  local name=$1; shift
  local ch=${channel:-fifo:$work/fifo-$name} out="$work/run-$name"
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/cpu-dyn-$name" $pin \
    "$bin/cosim-dynamics" --backend "${backend:-kinematic}" --channel "$ch" --out "$out" --progress never --quiet "$@" \
    2> >(grep -v 'session token' >&2) &
  local dyn=$!
  /usr/bin/time -f "%U %S" -o "$work/cpu-rec-$name" $pin "$bin/cosim-recorder" --channel "$ch" --quiet &
  local rec=$!
  wait "$dyn"; wait "$rec"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

# cpu_of NAME : CPU seconds (user + system) of both processes of run_pair NAME.
cpu_of() {
  cat "$work/cpu-dyn-$1" "$work/cpu-rec-$1" | awk '{ s += $1 + $2 } END { printf "%.2f", s }'
}

# One line per channel: rtt p50/p99/max and CPU per 10 000 round trips. $1: a label.
channel_round_trips() {
  local label=$1 frames=20000
  for kind in fifo tcp shm; do
    case $kind in
      fifo) channel="fifo:$work/fifo-ch-$label" ;;
      tcp)  channel="tcp:127.0.0.1:$(python3 -c 'import random; print(random.randint(20000, 31999))')" ;;
      shm)  channel="shm:cosim-bench-$$-$label" ;;
    esac
    run_pair "ch-$kind-$label" --fps 500 --duration 40 --mode lockstep >/dev/null
    local j="$work/run-ch-$kind-$label"
    printf '%-5s %-9s rtt_us p50 %6s  p99 %6s  max %8s  (reports %s); CPU %s s per 10000 round trips\n' \
      "$kind" "$label" "$(metric "$j" rtt_us.p50)" "$(metric "$j" rtt_us.p99)" "$(metric "$j" rtt_us.max)" \
      "$(metric "$j" reports)" \
      "$(python3 -c "print(f'{$(cpu_of "ch-$kind-$label") * 10000 / $frames:.2f}')")"
  done
  unset channel
  # The anchor: messages of the size this run's frames and reports had on the wire.
  read -r frame_bytes report_bytes < <(python3 - "$work/run-ch-fifo-$label/frames.cosimlog" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos = data.index(b"\n") + 1
sizes = {1: [], 2: []}
while pos + 17 <= len(data):
    direction = data[pos]
    length = struct.unpack_from("<I", data, pos + 13)[0]
    sizes[direction].append(8 + length)
    pos += 9 + 8 + length
median = lambda v: sorted(v)[len(v) // 2]
print(median(sizes[1]), median(sizes[2]))
PY
)
  printf '%-5s %-9s ' raw "$label"
  $pin "$bin/cosim_bench_pingpong" --frame-bytes "$frame_bytes" --report-bytes "$report_bytes" --count "$frames"
  printf '%-5s %-9s ' raw "$label"  # the like-with-like anchor for tcp:
  $pin "$bin/cosim_bench_pingpong" --frame-bytes "$frame_bytes" --report-bytes "$report_bytes" --count "$frames" --tcp 1
}

if [[ $what == all || $what == codec ]]; then
  echo "== encode + decode one Frame (24 joints), cosim_bench_codec"
  "$bin/cosim_bench_codec" --benchmark_min_time=0.5 --benchmark_filter='BM_Frame' 2>/dev/null | grep BM_
fi

if [[ $what == all || $what == roundtrip ]]; then
  echo "== FIFO round trip Frame -> ProbeReport, recorder stub, lockstep, 20000 frames"
  run_pair rt --fps 500 --duration 40 --mode lockstep >/dev/null
  printf 'rtt_us p50 %s  p99 %s  max %s  (reports %s)\n' \
    "$(metric "$work/run-rt" rtt_us.p50)" "$(metric "$work/run-rt" rtt_us.p99)" \
    "$(metric "$work/run-rt" rtt_us.max)" "$(metric "$work/run-rt" reports)"
fi

if [[ $what == all || $what == channels ]]; then
  echo "== round trip Frame -> ProbeReport per channel, recorder stub, lockstep, 20000 frames; raw anchor in the same run"
  channel_round_trips idle
  echo "== the same beside two CPU-bound processes (a busy viewer, a parallel build)"
  for i in 1 2; do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  channel_round_trips loaded
  kill "${hogs[@]}"
  wait "${hogs[@]}" 2>/dev/null || true
  hogs=()
  echo "== the same with both sides and two CPU-bound processes pinned to one CPU (taskset -c 0): spinning cannot pay"
  for i in 1 2; do
    taskset -c 0 bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  pin="taskset -c 0"
  channel_round_trips one-core
  pin=""
  kill "${hogs[@]}"
  wait "${hogs[@]}" 2>/dev/null || true
  hogs=()
fi

if [[ $what == loaded ]]; then
  runs=${COSIM_BENCH_RUNS:-8}
  echo "== p50 round trip [us] beside two CPU-bound processes, $runs runs each, interleaved (20000 frames per run)"
  for i in 1 2; do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  declare -A p50s=()
  for run in $(seq "$runs"); do
    for kind in fifo fifo-stay tcp shm shm-stay; do
      case $kind in
        fifo*) channel="fifo:$work/$kind-loaded-$run" ;;
        tcp)  channel="tcp:127.0.0.1:$(python3 -c 'import random; print(random.randint(20000, 31999))')" ;;
        shm*) channel="shm:cosim-bench-$$-loaded-$run" ;;
      esac
      if [[ $kind == *-stay ]]; then export COSIM_MOVE=off; fi
      run_pair "loaded-$kind-$run" --fps 500 --duration 40 --mode lockstep >/dev/null
      unset COSIM_MOVE
      p50s[$kind]+=" $(metric "$work/run-loaded-$kind-$run" rtt_us.p50)"
    done
    p50s[raw-fifo]+=" $("$bin/cosim_bench_pingpong" --frame-bytes 239 --report-bytes 66 --count 20000 | sed 's/.*p50 \([0-9.]*\).*/\1/')"
    p50s[raw-tcp]+=" $("$bin/cosim_bench_pingpong" --frame-bytes 239 --report-bytes 66 --count 20000 --tcp 1 | sed 's/.*p50 \([0-9.]*\).*/\1/')"
    echo "  run $run of $runs done" >&2
  done
  unset channel
  kill "${hogs[@]}"
  wait "${hogs[@]}" 2>/dev/null || true
  hogs=()
  for kind in fifo fifo-stay tcp shm shm-stay raw-fifo raw-tcp; do
    python3 - "$kind" ${p50s[$kind]} <<'PY'
import statistics, sys
kind, values = sys.argv[1], [float(v) for v in sys.argv[2:]]
note = {"fifo-stay": "  (COSIM_MOVE=off: without the move off the peer's CPU)", "shm-stay": "  (COSIM_MOVE=off)",
        "raw-fifo": "  (blocking FIFO ping-pong, 239/66 bytes)", "raw-tcp": "  (blocking loopback TCP ping-pong)"}.get(kind, "")
print(f"{kind:9} median {statistics.median(values):6.1f}  runs: {' '.join(f'{v:.1f}' for v in values)}{note}")
PY
  done
fi

if [[ $what == all || $what == robotino ]]; then
  echo "== robotino backend, 50 s rose, output 0.02 s, rtol/atol 1e-6 (cosim_bench_robotino)"
  "$bin/cosim_bench_robotino" --benchmark_filter='BM_RobotinoRose50s(/|SeedLiteral|CurrentsTo1mA)' \
    --benchmark_min_time=2 2>/dev/null | grep BM_
  echo "== the same as a standalone run with its run folder: cosim-dynamics --backend robotino --channel none"
  start=$(date +%s.%N)
  "$bin/cosim-dynamics" --backend robotino --channel none --duration 50 --out "$work/run-robotino" -q
  end=$(date +%s.%N)
  python3 -c "print(f'standalone run incl. process start and CSV: {$end - $start:.3f} s')"
fi

if [[ $what == all || $what == mujoco ]]; then
  backends=$("$bin/cosim-dynamics" --list-backends)  # (grep -q on the pipe would cut it: SIGPIPE)
  if grep -q '^mujoco' <<< "$backends"; then
    model=$root/scenes/robotino/mujoco/robotino.xml
    h=$(grep -o 'timestep="[^"]*"' "$model" | head -1 | cut -d'"' -f2)
    echo "== mujoco backend, the Robotino MJCF (h = $h s), 10 s of the rose; 3 rounds, alternated, median"
    margs=(--param "model=$model" --scene "$root/scenes/robotino" --duration 10)
    for round in 1 2 3; do
      start=$(date +%s.%N)
      "$bin/cosim-dynamics" --backend mujoco "${margs[@]}" --channel none --out "$work/mj-alone-$round" -q
      end=$(date +%s.%N)
      echo "alone $(python3 -c "print($end - $start)")" >> "$work/mujoco.txt"
      echo "recorder $(backend=mujoco run_pair "mj-$round" "${margs[@]}" --fps 50)" >> "$work/mujoco.txt"
      start=$(date +%s.%N)
      "$bin/cosim-dynamics" --backend robotino --duration 10 --channel none --out "$work/rob-$round" -q
      end=$(date +%s.%N)
      echo "robotino $(python3 -c "print($end - $start)")" >> "$work/mujoco.txt"
    done
    python3 - "$work/mujoco.txt" "$h" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kind, wall = line.split()
    runs.setdefault(kind, []).append(float(wall))
h = float(sys.argv[2])
alone, rec, rob = (statistics.median(runs[k]) for k in ("alone", "recorder", "robotino"))
steps = 10.0 / h
print(f"MuJoCo alone:            {alone:.2f} s wall for {steps:.0f} steps: {steps / alone:.0f} steps/s, "
      f"{10.0 / alone:.2f}x real time (runs: {', '.join(f'{w:.2f}' for w in runs['alone'])})")
print(f"MuJoCo + recorder, 50 fps lockstep: {rec:.2f} s wall: overhead {100 * (rec / alone - 1):+.1f} % "
      f"(runs: {', '.join(f'{w:.2f}' for w in runs['recorder'])})")
print(f"robotino backend (IDA), same 10 s: {rob:.3f} s wall: MuJoCo costs {alone / rob:.0f}x the DAE")
PY
  else
    echo "== mujoco: this build has no mujoco backend (Debian: libmujoco-dev)"
  fi
fi

if [[ $what == all || $what == omniwheel ]]; then
  echo "== omniwheel backend, 10 s free motion, psi = 30 deg, output 5 ms, tolerances 1e-8 (cosim_bench_omniwheel)"
  "$bin/cosim_bench_omniwheel" --benchmark_min_time=2 2>/dev/null | grep BM_ | tee "$work/omniwheel.txt"
  awk '/Explicit/ {e = $2} /Implicit/ {i = $2} END {printf "implicit / explicit: %.2fx (seed 004: ~1.5x); explicit runs %.0fx faster than real time\n", i / e, 10000 / e}' \
    "$work/omniwheel.txt"
fi

if [[ $what == all || $what == mecanum4 ]]; then
  echo "== mecanum4 backend, seed 002's 10 s manoeuvre, output 10 ms, rtol 1e-6 (cosim_bench_mecanum4)"
  "$bin/cosim_bench_mecanum4" 2>/dev/null | grep BM_ | tee "$work/mecanum4.txt"
  # Google Benchmark prints the rollers run in s and the reduced one in ms.
  awk '/Rollers/ {f = $2} /Reduced/ {r = $2 / 1000} END {printf "rollers / reduced: %.0fx (seed 002: 10.5x); against Simscape: rollers %.0fx, reduced %.0fx faster\n", f / r, 3465 / f, 330 / r}' \
    "$work/mecanum4.txt"
fi

if [[ $what == all || $what == render ]]; then
  if [ -x "$bin/cosim-visual" ]; then
    "$root/bench/render/render_bench.sh" "$bin"
  else
    echo "== render: cosim-visual is not built (COSIM_BUILD_VISUAL=OFF)"
  fi
fi

if [[ $what == all || $what == memory ]]; then
  echo "== peak RSS (KiB): robotino + recorder 60 s vs 600 s at 20 fps; visual 20 s vs 200 s at 30 fps offscreen"
  for d in 60 600; do
    /usr/bin/time -f "dynamics $d s: %M" "$bin/cosim-dynamics" --channel "fifo:$work/memfifo$d" --out "$work/mem$d" \
      --duration "$d" --fps 20 --progress never -q &
    /usr/bin/time -f "recorder $d s: %M" "$bin/cosim-recorder" --channel "fifo:$work/memfifo$d" -q
    wait
  done
  if [ -x "$bin/cosim-visual" ]; then
    for d in 20 200; do
      "$bin/cosim-dynamics" --channel "fifo:$work/vmemfifo$d" --out "$work/vmem$d" --duration "$d" --fps 30 \
        --progress never -q &
      /usr/bin/time -f "visual $d s: %M" "$bin/cosim-visual" --channel "fifo:$work/vmemfifo$d" --out "$work/vmem$d" \
        --offscreen -q >/dev/null
      wait
    done
  fi
fi

if [[ $what == all || $what == loop ]]; then
  echo "== headless 50 s rose at 50 fps with the recorder stub (wall time incl. process start)"
  for backend in kinematic robotino; do
    for mode in lockstep free; do
      best=""
      for i in 1 2 3; do
        t=$(run_pair "loop-$backend-$mode-$i" --fps 50 --duration 50 --mode "$mode")
        if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then best=$t; fi
      done
      echo "$backend $mode: best of 3 = $best s"
    done
  done
fi

if [[ $what == all || $what == fmu ]]; then
  echo "== the exported Robotino FMU in the fmu backend against --backend robotino, 50 s, output 0.02 s; 5 rounds, median"
  start=$(date +%s.%N)
  "$bin/cosim-fmu" export --backend robotino -o "$work/robotino.fmu" 2>/dev/null
  end=$(date +%s.%N)
  echo "export $(python3 -c "print($end - $start)")" >> "$work/fmu.txt"
  "$bin/cosim-fmu" export --backend robotino --fmi 2 --no-reference -o "$work/robotino2.fmu" 2>/dev/null
  for round in 1 2 3 4 5; do
    for kind in direct fmi3 fmi2; do
      case $kind in
        direct) args=(--backend robotino) ;;
        fmi3) args=(--backend fmu --param "fmu=$work/robotino.fmu" --scene "$root/scenes/robotino") ;;
        fmi2) args=(--backend fmu --param "fmu=$work/robotino2.fmu" --scene "$root/scenes/robotino") ;;
      esac
      start=$(date +%s.%N)
      "$bin/cosim-dynamics" "${args[@]}" --duration 50 --channel none --out "$work/fmu-$kind-$round" -q 2>/dev/null
      end=$(date +%s.%N)
      echo "$kind $(python3 -c "print($end - $start)")" >> "$work/fmu.txt"
    done
    # Loading alone: unpack, read the model description, load the binary, build the model, one frame.
    start=$(date +%s.%N)
    "$bin/cosim-dynamics" --backend fmu --param "fmu=$work/robotino.fmu" --scene "$root/scenes/robotino" \
      --duration 0.05 --channel none --out "$work/fmu-load-$round" -q 2>/dev/null
    end=$(date +%s.%N)
    echo "load $(python3 -c "print($end - $start)")" >> "$work/fmu.txt"
    start=$(date +%s.%N)
    "$bin/cosim-dynamics" --backend robotino --duration 0.05 --channel none --out "$work/direct-load-$round" -q
    end=$(date +%s.%N)
    echo "directload $(python3 -c "print($end - $start)")" >> "$work/fmu.txt"
  done
  cmp -s "$work/fmu-direct-1/dynamics.csv" "$work/fmu-fmi3-1/dynamics.csv" && same="identical" || same="DIFFERENT"
  python3 - "$work/fmu.txt" "$same" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kind, wall = line.split()
    runs.setdefault(kind, []).append(float(wall))
m = {k: statistics.median(v) for k, v in runs.items()}
listing = lambda k: ", ".join(f"{w:.3f}" for w in runs[k])
print(f"--backend robotino:          {m['direct']:.3f} s (runs: {listing('direct')})")
print(f"fmu backend, FMI 3.0 FMU:    {m['fmi3']:.3f} s: {m['fmi3'] / m['direct']:.2f}x (target <= 1.5x) (runs: {listing('fmi3')})")
print(f"fmu backend, FMI 2.0 FMU:    {m['fmi2']:.3f} s: {m['fmi2'] / m['direct']:.2f}x (runs: {listing('fmi2')})")
print(f"dynamics.csv of the FMU run against the direct one: {sys.argv[2]}")
print(f"loading (a 0.05 s run, one frame): FMU {m['load']:.3f} s, direct {m['directload']:.3f} s: unpacking and loading "
      f"{1000 * (m['load'] - m['directload']):.0f} ms")
print(f"cosim-fmu export with the 50 s reference result: {m['export']:.3f} s")
PY
fi

if [[ $what == all || $what == sweep ]]; then
  echo "== cosim-sweep: 200 Robotino points of 2 s, --jobs 2 against --jobs 1 (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  cat > "$work/sweep.json" <<'JSON'
{"backend": "robotino", "duration_s": 2, "output_step_s": 0.05, "axes": [{"param": "mass_kg", "linspace": [9, 13, 200]}]}
JSON
  # The anchor: what running two at once gains on this machine at all, for the same runs
  # without cosim-sweep: 20 of the points one after another against two shells of 10 each.
  anchor_serial=() anchor_pooled=()
  anchor_points() {  # anchor_points FIRST COUNT TAG: that many points run alone, one after another
    for k in $(seq "$1" $(($1 + $2 - 1))); do
      "$bin/cosim-dynamics" --backend robotino --channel none --duration 2 --output-step 0.05 --quiet \
        --param "mass_kg=1$((k % 4)).5" --out "$work/anchor-$3-$k" >/dev/null
    done
  }
  serial=() pooled=()
  for i in 1 2 3; do  # interleaved: a neighbour's load falls on both alike
    start=$(date +%s.%N); anchor_points 0 20 "s$i"; end=$(date +%s.%N)
    anchor_serial+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
    start=$(date +%s.%N); anchor_points 0 10 "a$i" & anchor_points 10 10 "b$i"; wait; end=$(date +%s.%N)
    anchor_pooled+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
    for jobs in 1 2; do
      start=$(date +%s.%N)
      "$bin/cosim-sweep" "$work/sweep.json" -o "$work/sweep-$jobs-$i" --jobs "$jobs" >/dev/null
      end=$(date +%s.%N)
      t=$(python3 -c "print(f'{$end - $start:.2f}')")
      if [ "$jobs" = 1 ]; then serial+=("$t"); else pooled+=("$t"); fi
    done
  done
  python3 - "${serial[*]}" "${pooled[*]}" "${anchor_serial[*]}" "${anchor_pooled[*]}" <<'PY'
import statistics, sys
serial, pooled, a_serial, a_pooled = ([float(x) for x in arg.split()] for arg in sys.argv[1:5])
s, p = statistics.median(serial), statistics.median(pooled)
as_, ap = statistics.median(a_serial), statistics.median(a_pooled)
print(f"--jobs 1: median {s:.2f} s (runs {', '.join(f'{x:.2f}' for x in serial)})")
print(f"--jobs 2: median {p:.2f} s (runs {', '.join(f'{x:.2f}' for x in pooled)})")
print(f"speed-up {s / p:.2f} (target >= 1.8)")
print(f"anchor, 20 points by hand: one after another {as_:.2f} s, two shells at once {ap:.2f} s: "
      f"this machine gains {as_ / ap:.2f} from a second process; the pool reaches {s / p / (as_ / ap):.0%} of it")
PY

  # The Slurm executor's overhead: the same 200 points as one job array (2 CPUs a task, as the
  # local pool's 2 jobs) against local --jobs 2, three times interleaved.
  if [ -z "${SLURM_CONF:-}" ] && [ "$(id -u)" -eq 0 ]; then
    cluster="$work/slurm-cluster"
    SLURM_CONF=$("$root/scripts/slurm/cluster.sh" start "$cluster" | tail -n 1)
    export SLURM_CONF
  fi
  if [ -z "${SLURM_CONF:-}" ]; then
    echo "slurm: skipped (no SLURM_CONF, and not root to start a single-node cluster)"
  else
    echo "== cosim-sweep --executor slurm against local --jobs 2, the same 200 points (SLURM_CONF=$SLURM_CONF)"
    local2=() slurm=()
    for i in 1 2 3; do
      start=$(date +%s.%N)
      "$bin/cosim-sweep" "$work/sweep.json" -o "$work/sweep-local-$i" --jobs 2 >/dev/null
      end=$(date +%s.%N)
      local2+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
      start=$(date +%s.%N)
      "$bin/cosim-sweep" "$work/sweep.json" -o "$work/sweep-slurm-$i" --executor slurm --cpus-per-task 2 \
        >"$work/sweep-slurm-$i.out" 2>&1
      end=$(date +%s.%N)
      slurm+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
    done
    grep -h "^cosim-sweep: slurm:" "$work/sweep-slurm-1.out" || true
    python3 - "${local2[*]}" "${slurm[*]}" <<'PY'
import statistics, sys
local, slurm = ([float(x) for x in arg.split()] for arg in sys.argv[1:3])
l, s = statistics.median(local), statistics.median(slurm)
print(f"local --jobs 2: median {l:.2f} s (runs {', '.join(f'{x:.2f}' for x in local)})")
print(f"slurm, 2 CPUs a task: median {s:.2f} s (runs {', '.join(f'{x:.2f}' for x in slurm)})")
print(f"slurm / local {s / l:.2f} (target <= 1.3)")
PY
  fi
fi
