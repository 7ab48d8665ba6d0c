#!/usr/bin/env bash
# Fuzzes the compute calls on the CUDA backend, on a machine with an NVIDIA GPU (docs/fuzzing.md):
#   1. builds fuzz_compute_cuda_standalone (GCC; the library and harness with ASan + UBSan on the
#      host side, the kernels as always) in ${BUILD_DIR:-build-gpu-fuzz};
#   2. runs it for SECONDS (default 180) on fuzz/corpus/fuzz_compute: every input, then random
#      mutations; each input's buffers are CUDA managed memory and every input ends with a device
#      synchronisation, so a kernel fault aborts with the input in <build>/crash-input;
#   3. with SANITIZER_SECONDS > 0 (default 60), runs it again under compute-sanitizer memcheck
#      (device-side out-of-bounds accesses; another seed).
# Extra arguments go to cmake (e.g. $(scripts/gpu-offline-deps.sh unpack) on the offline GPU
# machine). Exit status: non-zero when a run crashed or the sanitizer reported an error.
#   scripts/gpu-fuzz.sh [SECONDS] [cmake arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu-fuzz}
secs=180
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  secs=$1
  shift
fi
san_secs=${SANITIZER_SECONDS:-60}
start=$(date +%s)
# UBSan's enum check stays on (GCC would re-enable it after a -fno-sanitize=enum here anyway:
# ANYDNN_SANITIZE's -fsanitize=undefined comes later on the command line), so the CUDA harness
# passes valid enum values only (fuzz_common.hpp); the CPU harnesses cover hostile ones.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g1 \
  -DANYDNN_SANITIZE=ON \
  -DANYDNN_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${ANYDNN_CUDA_ARCH:-90}" \
  -DANYDNN_BUILD_TESTS=OFF -DANYDNN_BUILD_BENCH=OFF "$@" > "$build.configure.log" 2>&1 ||
  { tail -20 "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target fuzz_compute_cuda_standalone > "$build.build.log" 2>&1 ||
  { grep -m5 -A10 error "$build.build.log"; exit 1; }
echo "gpu-fuzz: build $(($(date +%s) - start)) s"
harness=$build/bin/fuzz_compute_cuda_standalone
corpus=$root/fuzz/corpus/fuzz_compute
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be. Leaks are
# left to compute-sanitizer's and the CPU harnesses' checks (the driver keeps allocations).
# verify_asan_link_order=0: compute-sanitizer preloads its own library ahead of libasan.
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1
export OMP_NUM_THREADS=1 MIOPEN_LOG_LEVEL=1  # the rejected calls' error lines would flood the log
status=0
"$harness" -seconds="$secs" -seed="${SEED:-$(date +%s)}" -artifact="$build/crash-input" "$corpus" ||
  { status=1; echo "gpu-fuzz: crash; reproducer $build/crash-input"; }
if [ "$status" = 0 ] && [ "$san_secs" -gt 0 ]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  "$san" --tool memcheck --error-exitcode 3 --print-limit 20 "$harness" -seconds="$san_secs" \
    -seed="${SEED:-1}" -artifact="$build/crash-input-memcheck" "$corpus" \
    > "$build/memcheck.log" 2>&1 || { status=1; echo "gpu-fuzz: memcheck found errors"; }
  grep -E "ERROR SUMMARY|standalone fuzz: done" "$build/memcheck.log" | tail -2
fi
exit $status
