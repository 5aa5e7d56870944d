#!/usr/bin/env bash
# Runs a co-simulation with one command: builds what is missing (scripts/setup.sh), then
# hands over to the cosim launcher (build/bin/cosim), which starts cosim-dynamics and the
# visual side on a private channel, passes Ctrl-C on to both, removes the channel, prints
# the run summary, writes the report and says where both are. The options are cosim's
# (`cosim --help`); this script adds only --no-build.
#   COSIM_BUILD_DIR   build folder (default: <repo>/build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COSIM_BUILD_DIR:-$root/build}
cosim="$build/bin/cosim"

usage() {
  cat <<USAGE
usage: scripts/cosim.sh [--no-build] [cosim options] [-- extra cosim-dynamics options]

  --no-build        do not run scripts/setup.sh (install what is missing, build) first
  everything else   the options of cosim (below); the run folder defaults to runs/ of the
                    current folder
USAGE
}

# --no-build is ours; everything else, in order, is cosim's. Only cosim's own options
# (before a "--") are looked at.
build_first=1 help=0 args=()
while (($#)); do
  case "$1" in
    --no-build) build_first=0 ;;
    -h|--help) help=1; args+=("$1") ;;
    --) args+=("$@"); break ;;
    *) args+=("$1") ;;
  esac
  shift
done

if ((help)); then
  usage
  if [ -x "$cosim" ]; then echo; exec "$cosim" --help; fi
  echo; echo "(cosim is not built yet: run scripts/setup.sh for its options)"
  exit 0
fi
if ((build_first)); then "$root/scripts/setup.sh" >&2; fi
if [ ! -x "$cosim" ]; then
  echo "cosim.sh: error: $cosim is not built (run without --no-build, or scripts/setup.sh)" >&2
  exit 2
fi
exec "$cosim" "${args[@]}"
