#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, docs/fuzzing.md) with clang into
# ${BUILD_DIR:-build-fuzz} and runs each for SECONDS (default 60) on a scratch corpus seeded
# from fuzz/corpus/<harness> (the checked-in corpus is read, never grown). Two harnesses at a
# time (FUZZ_JOBS). Exits non-zero when any harness reports a crash, leak, timeout or sanitizer
# error; its reproducer is left in <build>/fuzz-artifacts.
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     exploratory: fresh random seeds (by hand)
#   scripts/fuzz.sh --ci [HARNESS...]          CI's deterministic step (below)
# --ci: first replays every checked-in input of fuzz/corpus/<harness> once (each a regression
# input or a seed), then runs each harness with a fixed seed (FUZZ_SEED, default 1) for a fixed
# number of executions (-runs, the table ci_runs below; FUZZ_RUNS=N overrides), on a fresh
# scratch corpus. The harnesses are deterministic for a given input (one thread, fixed buffers),
# so the same tree gives the same executions, coverage and result on every run: CI cannot fail
# by a lucky seed. A finding of exploratory fuzzing becomes a corpus input (and a regression
# test), which the replay then runs on every CI run.
# FUZZ_CORPUS=DIR keeps each harness's grown corpus in DIR/<harness> between runs (default: a
# scratch directory removed at exit). FUZZ_WORKERS=N runs each harness as N libFuzzer processes
# for SECONDS each (-jobs=N -workers=N), sharing its corpus directory; executions are summed
# over their logs. (-fork=N, which restarts short jobs that each re-run the whole corpus, ran a
# third as many executions on 16 cores.) FUZZ_NO_BUILD=1 runs
# the binaries already in the build directory (e.g. ones built here and carried elsewhere).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
ci=0
if [ "${1:-}" = --ci ]; then
  ci=1
  shift
  secs=0
else
  secs=${1:-60}
  [ $# -gt 0 ] && shift
fi
# --ci: executions per harness, about 15-25 s each on CI's 2-core machine (two at a time).
declare -A ci_runs=([fuzz_descriptors]=6000 [fuzz_compute]=5000 [fuzz_driver_args]=40000
  [fuzz_log_decoder]=20000 [fuzz_find_db]=2000 [fuzz_activation]=8000 [fuzz_ctc]=12000
  [fuzz_find2]=2500)
all=(fuzz_descriptors fuzz_compute fuzz_driver_args fuzz_log_decoder fuzz_find_db fuzz_activation fuzz_ctc
  fuzz_find2)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
jobs=${FUZZ_JOBS:-2}

workers=${FUZZ_WORKERS:-0}

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  "$root/scripts/install-deps.sh"
  # After install-deps: it installs ccache.
  # shellcheck source=scripts/ccache-env.sh
  . "$root/scripts/ccache-env.sh"
  start=$(date +%s)
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DANYDNN_FUZZ=ON -DANYDNN_WITH_CUDA=OFF -DANYDNN_BUILD_TESTS=OFF -DANYDNN_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}"
  echo "fuzz build: $(($(date +%s) - start)) s"
fi

# --ci: the same executions must give the same coverage on every run. Address-space layout
# randomisation breaks that (code paths that depend on pointer values, e.g. alignment checks,
# differ from process to process, and so does libFuzzer's corpus), so the seeded runs go
# without it where the kernel lets setarch turn it off (Docker's default seccomp profile does
# not); -reload=0 keeps libFuzzer from re-reading its corpus on a timer.
fixed_layout=()
if [ "$ci" = 1 ]; then
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    fixed_layout=(setarch "$(uname -m)" -R)
  else
    echo "fuzz.sh: address randomisation stays on (setarch -R refused): the executions and results" \
      "are fixed, the coverage counts may differ between runs" >&2
  fi
fi

# One thread: threads slow fuzzing down and confuse leak checks.
export OMP_NUM_THREADS=1 ANYDNN_NUM_THREADS=1 MIOPEN_BACKEND=cpu
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ -n "${FUZZ_CORPUS:-}" ]; then
  scratch=$FUZZ_CORPUS
  mkdir -p "$scratch"
else
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
fi
logs=$build/fuzz-logs artifacts=$build/fuzz-artifacts
mkdir -p "$logs" "$artifacts"

run_one() {
  local h=$1
  mkdir -p "$scratch/$h"
  if [ "$workers" -gt 0 ]; then
    # Each worker writes fuzz-<i>.log into the current directory.
    rm -rf "$logs/$h.jobs"
    mkdir -p "$logs/$h.jobs"
    (cd "$logs/$h.jobs" && "$build/bin/$h" -max_total_time="$secs" -timeout=60 -rss_limit_mb=4096 \
      -detect_leaks=1 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$artifacts/$h-" \
      -jobs="$workers" -workers="$workers" "$scratch/$h" "$root/fuzz/corpus/$h") \
      >"$logs/$h.log" 2>&1
    # The parent does not report a worker's crash in its status: the workers' logs do.
    ! grep -a -l -E 'ERROR: |runtime error|Test unit written' "$logs/$h.jobs"/fuzz-*.log
    return
  fi
  if [ "$ci" = 1 ]; then
    # Replay: every checked-in input once (file arguments run each and exit), then the fixed
    # seed for a fixed number of executions. -max_total_time only bounds a run gone slow: one
    # that stops before its executions fails (summarise), it never passes with fewer.
    local inputs=("$root/fuzz/corpus/$h"/*)
    "$build/bin/$h" -timeout=60 -rss_limit_mb=4096 -detect_leaks=1 -close_fd_mask=3 \
      -artifact_prefix="$artifacts/$h-replay-" "${inputs[@]}" >"$logs/$h.replay.log" 2>&1 || return
    "${fixed_layout[@]}" "$build/bin/$h" -seed="${FUZZ_SEED:-1}" \
      -runs="${FUZZ_RUNS:-${ci_runs[$h]}}" -reload=0 \
      -max_total_time=900 -timeout=60 -rss_limit_mb=4096 -detect_leaks=1 -close_fd_mask=3 \
      -print_final_stats=1 -artifact_prefix="$artifacts/$h-" \
      "$scratch/$h" "$root/fuzz/corpus/$h" >"$logs/$h.log" 2>&1
    return
  fi
  # The scratch directory comes first: libFuzzer writes new inputs there only. Stdout and
  # stderr of the library (logging, the RNN driver's prints) are closed; libFuzzer's own
  # output and sanitizer reports still reach the log.
  "$build/bin/$h" -max_total_time="$secs" -timeout=60 -rss_limit_mb=4096 -detect_leaks=1 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$artifacts/$h-" \
    "$scratch/$h" "$root/fuzz/corpus/$h" >"$logs/$h.log" 2>&1
}

declare -A pid_of
status=0
summarise() {
  local h=$1 rc=$2
  local execs cov
  local log=$logs/$h.log
  if [ "$workers" -gt 0 ]; then
    execs=$(cat "$logs/$h.jobs"/fuzz-*.log | grep -a 'stat::number_of_executed_units' |
      awk '{n += $2} END {print n}')
    # The first worker's coverage (they share the corpus, so they end close).
    log=$(ls "$logs/$h.jobs"/fuzz-*.log | head -1)
  else
    execs=$(grep -a -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  fi
  cov=$(grep -a -E '^#[0-9]+' "$log" | tail -1 | grep -aoE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
  if [ "$ci" = 1 ]; then
    local replayed want=${FUZZ_RUNS:-${ci_runs[$h]}}
    replayed=$(grep -a -c '^Executed ' "$logs/$h.replay.log" 2>/dev/null || true)
    # Fewer executions than asked: the time bound stopped it (or it died before its stats).
    if [ "$rc" -eq 0 ] && [ "${execs:-0}" -lt "$want" ]; then
      echo "$h: $execs of $want executions before the time bound" >> "$log"
      rc=124
    fi
    if [ "$rc" -eq 0 ]; then
      printf '%-18s ok     replayed %-3s seed %s  execs %-7s %s\n' "$h" "$replayed" \
        "${FUZZ_SEED:-1}" "$execs" "$cov"
      return
    fi
    printf '%-18s FAILED (rc %s) replayed %s execs %s %s; logs %s %s\n' "$h" "$rc" "$replayed" \
      "${execs:-?}" "$cov" "$logs/$h.replay.log" "$log"
    grep -a -h -E 'ERROR: |runtime error|SUMMARY|Test unit written|before the time bound' \
      "$logs/$h.replay.log" "$log" 2>/dev/null | head -5 || true
    status=1
    return
  fi
  if [ "$rc" -eq 0 ]; then
    printf '%-18s ok     %ss  execs %-9s %s\n' "$h" "$secs" "${execs:-?}" "$cov"
  else
    printf '%-18s FAILED (rc %s) execs %s %s; log %s\n' "$h" "$rc" "${execs:-?}" "$cov" \
      "$logs/$h.log"
    if [ "$workers" -gt 0 ]; then
      cat "$logs/$h.jobs"/fuzz-*.log | grep -a -E 'ERROR: |runtime error|SUMMARY|Test unit written' |
        head -5 || true
    else
      grep -a -E 'ERROR: |runtime error|SUMMARY|Test unit written' "$log" | head -5 || true
    fi
    status=1
  fi
}
running=()
for h in "${harnesses[@]}"; do
  run_one "$h" &
  pid_of[$h]=$!
  running+=("$h")
  if [ ${#running[@]} -ge "$jobs" ]; then
    first=${running[0]}
    rc=0
    wait "${pid_of[$first]}" || rc=$?
    summarise "$first" "$rc"
    running=("${running[@]:1}")
  fi
done
for h in "${running[@]}"; do
  rc=0
  wait "${pid_of[$h]}" || rc=$?
  summarise "$h" "$rc"
done
exit $status
