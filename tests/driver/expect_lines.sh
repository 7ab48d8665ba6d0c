#!/usr/bin/env bash
# Runs a command and checks its exit code and output:
#   expect_lines.sh <expected-exit-code> <command...> -- <regex> [<regex>...]
# Every regex must match some line of the combined stdout+stderr (grep -E).
set -u
expected=$1; shift
cmd=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmd+=("$1"); shift; done
[ $# -gt 0 ] && shift
out=$("${cmd[@]}" 2>&1); rc=$?
echo "$out"
status=0
if [ "$expected" = "nonzero" ]; then
  [ $rc -ne 0 ] || { echo "FAIL: expected a non-zero exit code, got 0"; status=1; }
elif [ $rc -ne "$expected" ]; then
  echo "FAIL: exit code $rc, expected $expected"; status=1
fi
for re in "$@"; do
  echo "$out" | grep -Eq -- "$re" || { echo "FAIL: no line matches /$re/"; status=1; }
done
exit $status
