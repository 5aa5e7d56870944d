#!/usr/bin/env bash
# Regenerates the screenshots in docs/: the Robotino on the seed-000 rose (robotino backend)
# at t = 0, 15 and 30 s, and the overview with the probe trail at 30 s, a 20 s video of the
# follow camera (docs/video/robotino_rose.mp4), plus the report
# plots of the same run; the omni wheel of seed 004 on its bench (omniwheel backend) at 2 and
# 4.5 s, with the report plots of its contact and of the two trackers' difference.
# The Mecanum platforms: seed 003's three-wheel robot on its figure-eight (mecanum3vw) and seed
# 002's four-wheel platform on its manoeuvre (mecanum4, reduced and roller-level wheels), with the
# speed plot of the manoeuvre. The Robotino in MuJoCo (mujoco backend, scenes/robotino/mujoco/)
# at t = 2 s, and its deviation from the rose beside the robotino backend's over 50 s.
#   scripts/docs_screenshots.sh [robotino|omniwheel|mecanum|mujoco|all] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
what=${1:-all}
bin=${2:-$root/build}/bin
docs="$root/docs"
work=$(mktemp -d -t cosim-docs.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$docs/screenshots" "$docs/report"

if [[ $what == all || $what == robotino ]]; then
  run() {  # run NAME CAMERA: 31 s of the rose at 20 fps, screenshots every 300 frames (15 s)
  "$bin/cosim-dynamics" --backend robotino --duration 31 --fps 20 --channel "fifo:$work/fifo-$1" \
    --out "$work/$1" --progress never -q &
  "$bin/cosim-visual" --channel "fifo:$work/fifo-$1" --out "$work/$1" --offscreen --size 1280x720 \
    --camera "$2" --screenshot-every 300 -q
  wait
}
run follow follow
run overview overview
# A short video of the follow camera with its top-view inset: the first 20 s of the rose,
# 640x360, for the README and docs (a few hundred KB).
mkdir -p "$docs/video"
"$bin/cosim-dynamics" --backend robotino --duration 20 --fps 20 --channel "fifo:$work/fifo-video" \
  --out "$work/video" --progress never -q &
"$bin/cosim-visual" --channel "fifo:$work/fifo-video" --out "$work/video" --offscreen --size 640x360 \
  --video "$work/video/rose.mp4" -q
wait
# cosim-visual encodes for quality (7.7 MB); the docs' copy is squeezed to ~0.7 MB.
ffmpeg -v error -y -i "$work/video/rose.mp4" -c:v libx264 -crf 30 -preset slow -pix_fmt yuv420p -an \
  "$docs/video/robotino_rose.mp4"
cp "$work/follow/screenshots/frame_000300.png" "$docs/screenshots/robotino_t15s.png"
cp "$work/follow/screenshots/frame_000600.png" "$docs/screenshots/robotino_t30s.png"
cp "$work/overview/screenshots/frame_000600.png" "$docs/screenshots/overview_t30s.png"

# t = 0: the first row of dynamics.csv as a pose (column "Robotino/x_m" -> joint "Robotino/x").
awk -F, 'NR == 1 { for (i = 2; i <= NF; ++i) name[i] = $i; next }
         NR == 2 { for (i = 2; i <= NF; ++i) if (name[i] ~ /^Robotino\/.*_(m|rad)$/ && name[i] !~ /chassis_bottom/) {
                     n = name[i]; sub(/_(m|rad)$/, "", n); print n " = " $i } ; exit }' \
  "$work/follow/dynamics.csv" > "$work/t0.pose"
"$bin/cosim-visual" --pose "$work/t0.pose" --screenshot "$docs/screenshots/robotino_t00s.png" --size 1280x720 \
  --camera follow --contact -q

# The report of a full 50 s run with the recorder stub, converged (tolerances 1e-10: the
# deviation is then the model's, not the solver's), with the seed-literal configuration
# (scenes/robotino/params/seed000.params, same tolerances) beside it in the deviation plot.
converged=(--param solver_rtol=1e-10 --param solver_atol=1e-10)
"$bin/cosim-dynamics" --backend robotino --channel "fifo:$work/fifo-r" --out "$work/ours-feed-forward" --progress never -q \
  "${converged[@]}" &
"$bin/cosim-recorder" --channel "fifo:$work/fifo-r" -q
wait
"$bin/cosim-dynamics" --backend robotino --channel none --out "$work/seed-literal-plain-PID" --progress never -q \
  --params "$root/scenes/robotino/params/seed000.params" "${converged[@]}"
"$bin/cosim-report" "$work/ours-feed-forward" --compare "$work/seed-literal-plain-PID" >/dev/null
cp "$work/ours-feed-forward/plots/"*.png "$docs/report/"
fi

if [[ $what == all || $what == omniwheel ]]; then
  # 10 s of seed 004's free motion at psi = 30 deg, 30 fps; screenshots at 2 s and 4.5 s.
  "$bin/cosim-dynamics" --backend omniwheel --duration 10 --fps 30 --channel "fifo:$work/fifo-o" \
    --out "$work/omni-explicit" --output-step 0.005 --progress never -q &
  "$bin/cosim-visual" --channel "fifo:$work/fifo-o" --out "$work/omni-explicit" --offscreen --size 1280x720 \
    --camera follow --screenshot-every 15 -q
  wait
  cp "$work/omni-explicit/screenshots/frame_000060.png" "$docs/screenshots/omniwheel_t02s.png"
  cp "$work/omni-explicit/screenshots/frame_000135.png" "$docs/screenshots/omniwheel_t04.5s.png"
  "$bin/cosim-dynamics" --backend omniwheel --duration 10 --channel none --out "$work/omni-implicit" \
    --output-step 0.005 --param contact_tracking=implicit --progress never -q
  "$bin/cosim-report" "$work/omni-explicit" --compare "$work/omni-implicit" >/dev/null
  for plot in contact_trail contact contact_forces difference; do
    cp "$work/omni-explicit/plots/$plot.png" "$docs/report/omniwheel_$plot.png"
  done
fi
if [[ $what == all || $what == mecanum ]]; then
  shot() {  # shot NAME BACKEND DURATION FPS EVERY PARAM...: a run with the viewer, screenshots every EVERY frames
    local name=$1 backend=$2 duration=$3 fps=$4 every=$5
    shift 5
    local params=()
    for p in "$@"; do params+=(--param "$p"); done
    "$bin/cosim-dynamics" --backend "$backend" --duration "$duration" --fps "$fps" --channel "fifo:$work/fifo-$name" \
      --out "$work/$name" --progress never -q "${params[@]}" &
    "$bin/cosim-visual" --channel "fifo:$work/fifo-$name" --out "$work/$name" --offscreen --size 1280x720 \
      --camera follow --screenshot-every "$every" -q
    wait
  }
  shot mecanum3 mecanum3vw 8 20 40 path=eight
  cp "$work/mecanum3/screenshots/frame_000080.png" "$docs/screenshots/mecanum3vw_eight_t04s.png"
  shot mecanum4-reduced mecanum4 10 20 20 wheel_model=reduced
  cp "$work/mecanum4-reduced/screenshots/frame_000080.png" "$docs/screenshots/mecanum4_reduced_t04s.png"
  shot mecanum4-rollers mecanum4 2 50 25 wheel_model=rollers
  cp "$work/mecanum4-rollers/screenshots/frame_000050.png" "$docs/screenshots/mecanum4_rollers_t01s.png"
  "$bin/cosim-report" "$work/mecanum4-reduced" >/dev/null
  cp "$work/mecanum4-reduced/plots/speeds.png" "$docs/report/mecanum4_speeds.png"
fi

echo "docs/screenshots and docs/report regenerated"

if [[ $what == all || $what == mujoco ]]; then
  model=(--backend mujoco --param model=robotino/mujoco/robotino.xml --scene "$root/scenes/robotino")
  "$bin/cosim-dynamics" "${model[@]}" --duration 4 --fps 25 --channel "fifo:$work/fifo-mj" --out "$work/mj-view" \
    --progress never -q &
  "$bin/cosim-visual" --channel "fifo:$work/fifo-mj" --out "$work/mj-view" --offscreen --size 640x360 \
    --screenshot-every 50 -q
  wait
  cp "$work/mj-view/screenshots/frame_000050.png" "$docs/screenshots/robotino_mujoco.png"
  "$bin/cosim-dynamics" "${model[@]}" --channel none --out "$work/mujoco" --progress never -q
  "$bin/cosim-dynamics" --backend robotino --channel none --out "$work/robotino" --progress never -q
  "$bin/cosim-report" "$work/mujoco" --compare "$work/robotino" >/dev/null
  cp "$work/mujoco/plots/deviation.png" "$docs/report/mujoco_vs_robotino.png"
fi
