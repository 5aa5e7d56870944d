# Sourced by the build and test scripts. `stage NAME CMD...` runs CMD and, when
# COSIM_STAGE_TIMES names a file (.ci/run sets it), appends "NAME<TAB>SECONDS<TAB>EXIT" to it,
# so CI prints where its time went (COSIM_STAGE_PREFIX, if set, before NAME: "background: ").
# Returns CMD's exit status.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  # A stage with nothing to do (packages all there, a build up to date) is not listed.
  if [ -n "${COSIM_STAGE_TIMES:-}" ] && { [ $((SECONDS - start)) -gt 0 ] || [ "$rc" -ne 0 ]; }; then
    printf '%s%s\t%d\t%d\n' "${COSIM_STAGE_PREFIX:-}" "$name" $((SECONDS - start)) "$rc" >>"$COSIM_STAGE_TIMES"
  fi
  return "$rc"
}
