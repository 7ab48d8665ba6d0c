#!/usr/bin/env bash
# MIOpen's own test cases and the shape sets of ../shared/cases at FULL size (no CI scaling)
# through MIOpenDriver with -V 1, on the backend MIOPEN_BACKEND names (default cuda): what
# scripts/gpu-check.sh runs on a GPU machine (CASES=1) and what docs/testing.md quotes.
#   scripts/run-cases.sh DRIVER [OUT_DIR]
# Case lists (repository copies of ../shared/cases): tests/problems/miopen_dev_cases_{conv,
# bnorm,rnn}.txt (every line; RNN lines again as rnnfp16 / rnn_seqfp16), bench/shapes/
# resnet50_v15.txt and deepbench_conv_training.txt (conv, all three directions),
# deepbench_rnn_training.txt (forward and backward), bnorm.txt (training forward + backward,
# and inference). JOBS cases run at once (default 4), each with OMP_NUM_THREADS = cores / JOBS
# for its CPU reference; CASE_TIMEOUT seconds each (default 600). CASE_SETS picks lists (default
# all: dev-conv dev-bnorm dev-rnn dev-rnnfp16 resnet50 deepbench-conv deepbench-rnn bnorm). Prints one line per case
# (PASS/FAIL, seconds, the command) and a summary; writes cases.log with every output.
# Exit status: non-zero when a case fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
driver=${1:?usage: $0 DRIVER [OUT_DIR]}
out=${2:-$PWD/cases-out}
mkdir -p "$out"
jobs=${JOBS:-4}
export MIOPEN_BACKEND=${MIOPEN_BACKEND:-cuda}
export MIOPEN_USER_DB_PATH=${MIOPEN_USER_DB_PATH:-$out/db}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 ))}
list=$out/cases.txt
: > "$list"
lines() { grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$'; }
# -F / --forw given last wins in the driver's flag parser.
sets=${CASE_SETS:-dev-conv dev-bnorm dev-rnn dev-rnnfp16 resnet50 deepbench-conv deepbench-rnn bnorm}
for set in $sets; do
  case $set in
    dev-conv) lines "$root/tests/problems/miopen_dev_cases_conv.txt" | sed 's/$/ -F 0 -V 1 -i 1/' ;;
    dev-bnorm) lines "$root/tests/problems/miopen_dev_cases_bnorm.txt" | sed 's/$/ -V 1 -i 1/' ;;
    dev-rnn) lines "$root/tests/problems/miopen_dev_cases_rnn.txt" | sed 's/$/ -V 1 -i 1/' ;;
    dev-rnnfp16)
      lines "$root/tests/problems/miopen_dev_cases_rnn.txt" |
        sed -e 's/^rnn_seq /rnn_seqfp16 /' -e 's/^rnn /rnnfp16 /' -e 's/$/ -V 1 -i 1/' ;;
    resnet50) lines "$root/bench/shapes/resnet50_v15.txt" | sed 's/$/ -F 0 -V 1 -i 1/' ;;
    deepbench-conv)
      lines "$root/bench/shapes/deepbench_conv_training.txt" | sed 's/$/ -F 0 -V 1 -i 1/' ;;
    deepbench-rnn)
      lines "$root/bench/shapes/deepbench_rnn_training.txt" | sed 's/$/ -F 0 -V 1 -i 1/' ;;
    bnorm)
      lines "$root/bench/shapes/bnorm.txt" | grep '^bnorm' | sed 's/$/ -F 1 -b 1 -s 1 -r 1 -V 1 -i 1/'
      lines "$root/bench/shapes/bnorm.txt" | grep '^bnorm' | sed 's/$/ -F 2 -b 0 -V 1 -i 1/' ;;
    *) echo "run-cases: unknown set $set" >&2; exit 2 ;;
  esac
done >> "$list"
echo "$(wc -l < "$list") cases, $jobs at a time, OMP_NUM_THREADS=$OMP_NUM_THREADS, backend $MIOPEN_BACKEND"

run_one() {
  local line=$1 start end status verdict
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086
  output=$(timeout "${CASE_TIMEOUT:-600}" "$DRIVER" $line 2>&1)
  status=$?
  end=$EPOCHREALTIME
  verdict=PASS
  if [ $status -ne 0 ] || grep -q "FAILED" <<< "$output" || ! grep -q "Verif" <<< "$output"; then
    verdict=FAIL
  fi
  printf '%s %7.1fs %s\n' "$verdict" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$line"
  { echo "### $verdict (status $status): $line"; echo "$output"; } >> "$LOG"
}
export -f run_one
export DRIVER=$driver LOG=$out/cases.log
: > "$LOG"
tr '\n' '\0' < "$list" | xargs -0 -P "$jobs" -I{} bash -c 'run_one "$1"' _ {} | tee "$out/results.txt"
pass=$(grep -c '^PASS' "$out/results.txt")
fail=$(grep -c '^FAIL' "$out/results.txt")
echo "== full-size cases on $MIOPEN_BACKEND: $pass passed, $fail failed"
grep '^FAIL' "$out/results.txt" || true
[ "$fail" -eq 0 ]
