#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/<name>/ from real inputs: the golden wire
# frames, the repository's scenes, a short co-simulation recorded with the real programs
# (cosim-dynamics + cosim-recorder over a FIFO: frames.cosimlog, recorder.cosimlog,
# dynamics.csv, probes.csv) and parameter files as a user writes them. Review the diff and
# commit it; scripts/fuzz.sh only ever reads these folders.
#   fuzz/make_corpus.sh [BIN_DIR]   BIN_DIR holds cosim-dynamics and cosim-recorder
#                                   (default: <repo>/build/bin; scripts/setup.sh builds it)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build/bin}
corpus=$root/fuzz/corpus
scenes=$root/tests/data/scenes
for exe in cosim-dynamics cosim-recorder; do
  [ -x "$bin/$exe" ] || { echo "make_corpus: no $bin/$exe (build first or pass BIN_DIR)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cosim-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rm -rf "$corpus"
mkdir -p "$corpus"/{framing,scene,cosimlog,params,csv,runjson}

# A real session: kinematic backend, 0.3 s at 10 fps, lockstep, with the recorder stub.
run=$tmp/run
"$bin/cosim-dynamics" --backend kinematic --fps 10 --duration 0.3 --channel "fifo:$tmp/fifo" --out "$run" \
  >"$tmp/dynamics.out" 2>&1 &
dyn=$!
"$bin/cosim-recorder" --channel "fifo:$tmp/fifo" --out "$run" --quiet >"$tmp/recorder.out" 2>&1 ||
  { cat "$tmp/recorder.out" >&2; exit 1; }
wait "$dyn" || { cat "$tmp/dynamics.out" >&2; exit 1; }

# framing: each golden frame, the whole session as a reader sees it, the recorded stream.
for f in "$root"/tests/golden/*.bin; do cp "$f" "$corpus/framing/golden_$(basename "$f")"; done
cat "$root"/tests/golden/{hello,welcome,frame,probe_report,bye}.bin >"$corpus/framing/golden_session.bin"
# The frames of frames.cosimlog without the log's header line and record prefixes.
python3 - "$run/frames.cosimlog" "$corpus/framing/recorded_session.bin" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
at = data.index(b'\n') + 1
out = bytearray()
while at < len(data):
    n = struct.unpack_from('<I', data, at + 9 + 4)[0]
    out += data[at + 9: at + 9 + 8 + n]
    at += 9 + 8 + n
open(sys.argv[2], 'wb').write(out)
EOF

# cosimlog: the recordings of both sides, and a log with only its header.
cp "$run/frames.cosimlog" "$corpus/cosimlog/frames.cosimlog"
cp "$run/recorder.cosimlog" "$corpus/cosimlog/recorder.cosimlog"
# runjson: the run's records, as the dynamics and the recorder wrote them.
cp "$run/run.json" "$corpus/runjson/run.json"
cp "$run/recorder.json" "$corpus/runjson/recorder.json"
head -n 1 "$run/frames.cosimlog" >"$corpus/cosimlog/header_only.cosimlog"

# csv: the run's tables, cut to their header and first rows (the reader's paths are per row),
# and a table whose last row was torn by a killed writer.
head -n 4 "$run/dynamics.csv" >"$corpus/csv/dynamics.csv"
head -n 4 "$run/probes.csv" >"$corpus/csv/probes.csv"
{ head -n 3 "$run/dynamics.csv"; sed -n 4p "$run/dynamics.csv" | head -c 40; } >"$corpus/csv/dynamics_torn.csv"

# scene: robot files the fuzz target loads as robots/TwoLink.xml of its scratch scene, so each
# is renamed to TwoLink; the rest of the scratch scene is described in scene_fuzz.cpp.
rename() { sed -E "0,/<robot name=\"[^\"]*\"/s//<robot name=\"TwoLink\"/" "$1" >"$2"; }
cp "$scenes/two_link/robots/TwoLink.xml" "$corpus/scene/two_link.xml"
rename "$scenes/arm2/robots/Arm2.xml" "$corpus/scene/arm2.xml"
rename "$root/scenes/robotino/robots/Robotino.xml" "$corpus/scene/robotino.xml"
for f in "$scenes"/bad_*/robots/R.xml; do
  rename "$f" "$corpus/scene/$(basename "$(dirname "$(dirname "$f")")").xml"
done
# URDF robots, marked by the first line "URDF" (scene_fuzz.cpp loads the rest as a URDF beside
# the meshes and packages of tests/data/scenes/urdf): every joint type (joints.urdf), a mesh of
# each format and path kind (meshes.urdf), a cycle, two parents, a missing package, a mesh
# outside the folder, an unknown joint type, and the smallest robot. Then what urdfdom's TinyXML
# and pugixml read differently (found by the fuzzer, refused by the reader): a link name with an
# unknown entity (TinyXML drops the '&'), a processing instruction hiding a link from pugixml.
for f in joints meshes bad_cycle bad_two_parents bad_missing_package bad_mesh_outside bad_joint_type; do
  { echo URDF; cat "$scenes/urdf/$f.urdf"; } >"$corpus/scene/urdf_$f.urdf"
done
printf 'URDF\n<robot name="one"><link name="base"/></robot>\n' >"$corpus/scene/urdf_one_link.urdf"
printf 'URDF\n<robot name="bad">\n  <link name="u&pper"/>\n</robot>\n' >"$corpus/scene/urdf_bad_entity_name.urdf"
printf 'URDF\n<robot name="r">\n  <link name="y"/>\n  <?a ><link name="x"/><joint name="j" type="fixed"><parent link="y"/><child link="x"/></joint><? ?>\n</robot>\n' \
  >"$corpus/scene/urdf_bad_processing_instruction.urdf"

# Deep inputs: nesting past the readers' depth limits (XML 256 levels, JSON kMaxJsonDepth),
# where a recursive third-party parser (urdfdom, nlohmann-json) would overflow its stack if our
# checks did not come first; scripts/fuzz.sh lets these targets grow inputs to 64 KiB.
python3 - "$corpus" <<'EOF'
import sys
corpus = sys.argv[1]
def write(name, text):
    open(f"{corpus}/{name}", "w").write(text)
write("scene/deep_nesting.xml", '<robot name="TwoLink">\n' + "<assembly>" * 300 + "</assembly>" * 300 + "\n</robot>\n")
write("scene/urdf_deep_nesting.urdf", 'URDF\n<robot name="r"><link name="base">' + "<visual>" * 300 +
      "</visual>" * 300 + "</link></robot>\n")
write("runjson/deep_arrays.json", '{"schema_version": 1, "command": ' + "[" * 3000 + "]" * 3000 + "}\n")
write("runjson/deep_objects.json", '{"schema_version": 1, "peer": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}\n")
# A number beyond a double: nlohmann's out_of_range, not a parse_error (a crash it found).
write("runjson/number_overflow.json", '{"fps": 33E333}')
EOF

# params: files as users write them (every key of both backends at its default, the
# documented syntax: comments, blanks, '+', exponents), and common mistakes.
"$bin/cosim-dynamics" --list-backends | awk '
  /^[a-z]/ { backend = $1; next }
  $2 == "default" { print $1 " = " $3 > ("'"$corpus"'/params/" backend "_defaults.params") }'
cat >"$corpus/params/syntax.params" <<'EOF'
# Robotino 2 with larger wheels
wheel_radius_m = 0.05      # Rw

	rose_petals=+4e0
rose_phase_rad = -0.5
EOF
cat >"$corpus/params/mistakes.params" <<'EOF'
wheel_radius_m = 0.04 m
wheel_distance_m 0.132
rose_amplitude_m = 2
rose_amplitude_m = 3
wheel_radius = 1
mass_kg = nan
EOF
printf 'solver_rtol = 1e-8\r\nsolver_atol = 1e-9' >"$corpus/params/crlf_no_final_newline.params"

for d in "$corpus"/*/; do echo "make_corpus: $(ls "$d" | wc -l) seeds in ${d#$root/}"; done
