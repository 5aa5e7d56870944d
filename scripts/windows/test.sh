#!/usr/bin/env bash
# The Windows build's tests, under Wine (this machine cannot run Windows):
#   1. cross-builds (scripts/windows/build.sh) and the Linux build (scripts/setup.sh);
#   2. the Windows unit suites, the channel conformance suite over pipe: among them, run by
#      CTest through wine64 (label unit);
#   3. the Linux-side suite that drives the Windows programs under Wine (label wine): the
#      robotino co-simulation over a named pipe against the Linux run, the pipe's refusals,
#      the launcher.
#   scripts/windows/test.sh [extra ctest arguments for step 2, e.g. -R Pipe]
# Wine state lives in a private prefix (build-windows/wineprefix) with one wineserver for the
# whole run, stopped at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${COSIM_WINDOWS_BUILD_DIR:-$root/build-windows}
linux_build=${COSIM_BUILD_DIR:-$root/build}
. "$root/scripts/lib/stage.sh"

"$root/scripts/windows/build.sh"
"$root/scripts/setup.sh" >&2

export WINEPREFIX=${COSIM_WINEPREFIX:-$build/wineprefix}
export WINEDEBUG=-all
export LANG=C.UTF-8  # Wine reads Unix arguments and file names in the locale's encoding
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono / Gecko installer prompts
export PATH="/usr/lib/wine:$PATH"  # wine64 and wineserver
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "windows/test: creating the Wine prefix $WINEPREFIX" >&2
  wine64 wineboot -i >/dev/null 2>&1
fi
# One persistent server, and Wine's own services started once with no pipe attached: a
# service started by a test program would inherit CTest's output pipe and keep CTest
# waiting until its timeout.
wineserver -k 2>/dev/null || true  # one left by wineboot or an earlier run: -p would refuse to start
wineserver -w 2>/dev/null || true
wineserver -p </dev/null >/dev/null 2>&1
trap 'wineserver -k 2>/dev/null || true' EXIT
wine64 cmd /c exit </dev/null >/dev/null 2>&1

status=0
echo "windows/test: unit suites under wine64" >&2
# A test that fails is run once more, under Wine only: Wine has ended three different tests
# within 0.03 s without a line of output (a program start it lost), each passing alone and on
# every rerun. A test failing twice fails the stage; one passing on its second run is listed in
# the log as "Failed" and then "Passed" (docs/testing.md, "Wine").
(cd "$build" && stage "tests ${build##*/} unit (wine)" ctest --output-on-failure --timeout 600 -j2 -L unit \
  --repeat until-pass:2 "$@") || status=1
echo "windows/test: the Windows programs under Wine, driven from Linux" >&2
(cd "$linux_build" && COSIM_WINDOWS_BIN="$build/bin" stage "tests wine suite" ctest -V --timeout 900 -L wine) || status=1  # -V: the suite prints the Wine figures
exit "$status"
