# Sourced by the build and test scripts. `stage NAME CMD...` runs CMD and, when
# COSIM_STAGE_TIMES names a file (.ci/run sets it), appends "NAME<TAB>SECONDS<TAB>EXIT" to it,
# so CI prints where its time went. Returns CMD's exit status.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  if [ -n "${COSIM_STAGE_TIMES:-}" ]; then
    printf '%s\t%d\t%d\n' "$name" $((SECONDS - start)) "$rc" >>"$COSIM_STAGE_TIMES"
  fi
  return "$rc"
}
