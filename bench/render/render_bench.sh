#!/usr/bin/env bash
# Render benchmark figures (DESIGN.md "Numbers to reach"):
#  1. Robotino scene offscreen at 1280x720: frames per second (target >= 50).
#  2. Coupled run: the 50 s rose at 30 fps, robotino backend, lockstep, rendered offscreen
#     into an H.264 video (target <= 30 s wall).
#  3. A robot of 1.5 million triangles (big_robot.py) offscreen at 1280x720, every triangle
#     drawn (--triangle-budget 0) beside the default budget (target >= 20 fps, issue 28).
# Usage: bench/render/render_bench.sh [BIN_DIR]   (default: build/bin)
# cosim-visual re-runs itself under xvfb-run when DISPLAY is unset.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:-$root/build/bin}
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim-render-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The machine is shared: the load average says how much of it the figures below had.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1. Robotino offscreen 1280x720, 600 frames, follow camera with its top-view inset (render only, then"
echo "      with readback + H.264 video), and without the inset: what the inset costs"
"$bin/cosim-visual" --bench-frames 600 --size 1280x720
"$bin/cosim-visual" --bench-frames 600 --size 1280x720 --video "$work/bench.mp4"
"$bin/cosim-visual" --bench-frames 600 --size 1280x720 --inset off

echo "== 2. Coupled run: rose 50 s at 30 fps, lockstep, offscreen 1280x720 with video"
# CPU seconds (user+sys, children included: ffmpeg, Xvfb) tell what an idle machine would need.
start=$(date +%s.%N)
/usr/bin/time -f '%U %S' -o "$work/dynamics.cpu" "$bin/cosim-dynamics" --backend robotino --duration 50 --fps 30 \
  --mode lockstep --channel "fifo:$work/fifo" --out "$work/run" --progress never -q &
dynamics=$!
/usr/bin/time -f '%U %S' -o "$work/visual.cpu" \
  "$bin/cosim-visual" --channel "fifo:$work/fifo" --out "$work/run" --offscreen --size 1280x720 -q
wait "$dynamics"
end=$(date +%s.%N)
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
  -of default=nw=1:nk=1 "$work/run/video.mp4")
cpu() { awk '{ printf "%.1f", $1 + $2 }' "$1"; }
printf 'coupled run: %.1f s wall for 50 s simulated, %s video frames; CPU: visual %s s, dynamics %s s (%s)\n' \
  "$(echo "$end - $start" | bc)" "$frames" "$(cpu "$work/visual.cpu")" "$(cpu "$work/dynamics.cpu")" \
  "$(grep -o 'done: .*' "$work/run/visual.log")"
echo "== 3. A robot of 1.5 million triangles (six 250 000-triangle STL links), 1280x720, 200 frames: every"
echo "      triangle drawn, then the default --triangle-budget (meshes decimated at load)"
python3 "$root/bench/render/big_robot.py" "$work/big"
for budget in 0 default; do
  args=()
  [ "$budget" = default ] || args=(--triangle-budget "$budget")
  start=$(date +%s.%N)
  "$bin/cosim-visual" --scene "$work/big/big.urdf" --bench-frames 200 --size 1280x720 "${args[@]}" | grep -v '^readback'
  printf 'budget %s: %.1f s from start to end, load and decimation included\n' "$budget" "$(echo "$(date +%s.%N) - $start" | bc)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
