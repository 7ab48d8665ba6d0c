#!/usr/bin/env bash
# Find modes through MIOpenDriver, each run a separate process sharing one fresh user find-db:
#  1. the same command twice with MIOPEN_FIND_MODE=FAST: the second run times nothing (with no
#     record, FAST takes MIOpen's immediate-mode fallback and measures nothing either time);
#  2. HYBRID measures and records every direction; FAST afterwards uses the user record for
#     all three directions and times nothing; NORMAL measures again.
# Every run must still verify against the reference.
#   find_mode_fast.sh <MIOpenDriver>
set -u
driver=$1
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
fail=0
run() {
  MIOPEN_USER_DB_PATH=$db MIOPEN_FIND_MODE=$1 MIOPEN_LOG_LEVEL=6 \
    "$driver" conv -n 2 -c 8 -H 12 -W 12 -k 8 -y 3 -x 3 -p 1 -q 1 -F 0 -V 1 -i 1 2>&1
}
count() { grep -c -- "$2" <<<"$1" || true; }
check() {  # check <what> <actual> <expected>
  if [ "$2" != "$3" ]; then echo "FAIL: $1: got $2, expected $3"; fail=1; else echo "ok: $1 = $2"; fi
}
for mode in FAST FAST HYBRID FAST NORMAL; do
  out=$(run $mode)
  echo "== $mode"; echo "$out" | grep -E "no solver timed|ms, workspace|Verifies|FAILED"
  check "$mode verified directions" "$(count "$out" "Verifies OK")" 3
  timed=$(count "$out" " ms, workspace ")
  case $mode in
    FAST) check "FAST solvers timed" "$timed" 0
          check "FAST untimed Finds" "$(count "$out" "no solver timed")" 3 ;;
    *) [ "$timed" -gt 0 ] || { echo "FAIL: $mode timed nothing"; fail=1; } ;;
  esac
  [ "$mode" = HYBRID ] && seen_hybrid=1
  if [ "$mode" = FAST ] && [ "${seen_hybrid:-0}" = 1 ]; then
    check "FAST after HYBRID used the user record" \
      "$(count "$out" "using the user find-db record: no solver timed")" 3
  fi
done
exit $fail
