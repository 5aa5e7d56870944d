# Sourced by the build and test scripts: the one list of the Debian packages cosim needs, and
# `ensure_packages [--no-recommends] GROUP...`, which installs those of the groups that are missing (one
# apt-get update and one apt-get install, only when something is missing).
#   linux    building cosim on Linux with every part and running all its suites (scripts/setup.sh)
#   clang    the sanitizer and fuzz builds (scripts/sanitize.sh, scripts/fuzz.sh)
#   windows  the mingw-w64 cross build and Wine (scripts/windows/build.sh)
#   slurm    a single-node Slurm for the sweep tests (scripts/slurm/cluster.sh)

cosim_packages_linux=(
  cmake ninja-build g++ pkg-config
  libboost-dev libeigen3-dev libprotobuf-dev protobuf-compiler  # Boost: headers only (Asio, Interprocess, property_tree)
  libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev libsundials-dev libcli11-dev
  nlohmann-json3-dev  # cosim::run reads run.json and visual.json strictly
  libvtk9-dev xvfb xauth ffmpeg gnuplot-nox bc time
  xdotool  # the window test presses keys in cosim-visual
  liburdfdom-dev libassimp-dev  # URDF scenes; their COLLADA (.dae), OBJ and PLY meshes
  libmujoco-dev  # the mujoco backend
  python3  # scripts/robotino_study.py, scripts/bench.sh
)
cosim_packages_clang=(
  clang libclang-rt-dev llvm  # clang, its sanitizer and libFuzzer runtimes, llvm-symbolizer
)
cosim_packages_slurm=(
  slurm-wlm munge  # slurmctld, slurmd, sbatch, squeue, scancel; munged (its key made by the package)
)
cosim_packages_windows=(
  g++-mingw-w64-x86-64-posix wine64 dpkg-dev cmake ninja-build
  protobuf-compiler  # the host's protoc generates the code; same version as the sysroot's
  libboost-dev libeigen3-dev libcli11-dev nlohmann-json3-dev  # header-only, used as they are
  libprotobuf-dev libpugixml-dev libsundials-dev googletest  # their versions pick the sources
  libz-mingw-w64-dev  # zlib for mingw (cosim::fmi inflates FMUs), a Debian binary package
)

ensure_packages() {
  local group p
  local -a missing=() apt_options=()
  # --no-recommends: only what the packages need (slurm-wlm recommends every Slurm plugin:
  # databases, InfluxDB, IPMI... a single-node test cluster uses none of them).
  if [ "${1:-}" = --no-recommends ]; then
    apt_options=(--no-install-recommends)
    shift
  fi
  for group in "$@"; do
    local -n list="cosim_packages_$group"
    for p in "${list[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    unset -n list
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  # --force-unsafe-io: dpkg unpacks without an fsync per file (a fresh machine installs about
  # 500 packages); a crash mid-install is repaired by running this again.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o Dpkg::Options::=--force-unsafe-io \
    "${apt_options[@]}" "${missing[@]}" >/dev/null
}
