#!/usr/bin/env bash
# Installs the build into a fresh prefix, builds tests/install/consumer against it with
# find_package(cosim), and runs it on the installed Robotino scene; also runs the installed
# cosim-dynamics, which must find its scene in <prefix>/share/cosim/scenes by itself.
#   check_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/share/cosim/scenes/robotino/projects/Robotino.xml"
cmake -S "$source/tests/install/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer" "$work/prefix/share/cosim/scenes/robotino"
# No COSIM_SCENES_DIR: the installed program must find its installed scenes.
env -u COSIM_SCENES_DIR "$work/prefix/bin/cosim-dynamics" --backend kinematic --channel none --duration 1 \
  --out "$work/run" --quiet
grep -q '"status": "ok"' "$work/run/run.json"
grep -q "\"scene\": \"$work/prefix/bin/../share/cosim/scenes/robotino\"\|\"scene\": \"$work/prefix/share/cosim/scenes/robotino\"" \
  "$work/run/run.json"
echo "install check: ok"
