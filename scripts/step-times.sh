# Sourced by .ci/run and scripts/gpu-check.sh (which set -e). `step NAME CMD...` runs CMD as one
# timed step in a subshell with set -e in force (also inside shell functions), and a failure
# ends the script; `soft NAME CMD...` records a failure (steps_failed=1) and goes on. At exit a
# table of every step's wall time is printed, failed steps marked, then the total and ccache's
# hit counts. TITLE names the table.
step_names=()
step_secs=()
steps_start=$(date +%s)
steps_failed=0
step_current=""
step_current_start=0
step_times_print() {
  local rc=$? i total
  # Interrupted inside a step (a signal): it is the last row.
  if [ -n "$step_current" ]; then
    step_names+=("$step_current (interrupted)")
    step_secs+=($(($(date +%s) - step_current_start)))
  fi
  echo
  echo "== ${TITLE:-step times} (wall)"
  for i in "${!step_names[@]}"; do
    printf '  %-58s %5d s  %5.1f min\n' "${step_names[$i]}" "${step_secs[$i]}" \
      "$(awk "BEGIN {print ${step_secs[$i]} / 60}")"
  done
  total=$(($(date +%s) - steps_start))
  printf '  %-58s %5d s  %5.1f min\n' "total" "$total" "$(awk "BEGIN {print $total / 60}")"
  if command -v ccache > /dev/null 2>&1; then
    ccache --show-stats 2> /dev/null | grep -E -i '^ *(hits|misses|cacheable calls|direct|preprocessed)' |
      sed 's/^/  ccache: /' || true
  fi
  exit "$rc"
}
trap step_times_print EXIT
step_run() { # SOFT NAME CMD...
  local soft=$1 name=$2 rc
  shift 2
  echo "== $name"
  step_current=$name
  step_current_start=$(date +%s)
  # Not `"$@" || rc=$?`: bash ignores set -e inside anything run on the left of ||, so a
  # function's failed first command would not stop it. The subshell turns set -e back on.
  set +e
  (
    set -e
    "$@"
  )
  rc=$?
  set -e
  step_current=""
  if [ "$rc" -eq 0 ]; then
    step_names+=("$name")
  else
    step_names+=("$name (FAILED, rc $rc)")
  fi
  step_secs+=($(($(date +%s) - step_current_start)))
  [ "$rc" -eq 0 ] && return 0
  steps_failed=1
  [ "$soft" = 1 ] && return 0
  return "$rc"
}
step() { step_run 0 "$@"; }
soft() { step_run 1 "$@"; }
