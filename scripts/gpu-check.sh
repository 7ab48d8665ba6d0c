#!/usr/bin/env bash
# The GPU check, in one call on a machine with an NVIDIA GPU (Hopper: sm_90 by default):
#   1. builds anydnn with the CUDA backend (no apt-get: GPU machines may be offline),
#   2. runs the GPU suite (CTest label gpu): every CUDA solver and kernel against the double
#      references on device memory, and MIOpen's driver dev cases on the CUDA backend with -V 1,
#   3. runs MIOpenDriver on a ResNet-50 layer on CUDA (-V 1 -t 1),
#   4. runs the GPU benchmark against cuDNN (scripts/bench-gpu.sh), unless SKIP_BENCH=1,
#   5. with CASES=1, MIOpen's cases and the shape sets at full size (scripts/run-cases.sh).
#   --sanitize (first argument): instead of steps 2-5, the GPU test program under
#      compute-sanitizer's memcheck, racecheck, synccheck and initcheck, one tool at a time
#      (SANITIZE_FILTER: a gtest filter, default every test but the ConvHeuristic timing
#      comparisons, whose 1.2x bounds cannot hold under a tool's slowdown; SANITIZE_TOOLS: a
#      subset); each tool's summary line is printed and any error fails the run.
# BUILD_DIR (default build-gpu), ANYDNN_CUDA_ARCH (default 90), CTEST_ARGS (extra ctest flags).
# Extra arguments go to cmake. Exit status: non-zero when a step fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=0
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=1
  shift
fi
build=${BUILD_DIR:-$root/build-gpu}
nvidia-smi -L
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${ANYDNN_CUDA_ARCH:-90}" "$@"
cmake --build "$build" -j "$(nproc)"
cd "$build"
status=0
if [ "$sanitize" = 1 ]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  export MIOPEN_BACKEND=cuda MIOPEN_USER_DB_PATH="$build/gpu-sanitize-db"
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    echo "== compute-sanitizer --tool $tool"
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    # cuBLAS and CUTLASS kernels are checked too; the report's last line is the summary.
    "$san" --tool "$tool" "${extra[@]}" --error-exitcode 3 --print-limit 50 \
      ./bin/anydnn_gpu_tests --gtest_filter="${SANITIZE_FILTER:--*ConvHeuristic*}" --gtest_brief=1 \
      > "$build/sanitize-$tool.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|tests? (passed|failed)|FAILED" \
      "$build/sanitize-$tool.log" | tail -5
  done
  exit $status
fi
echo "== GPU suite (ctest -L gpu)"
# shellcheck disable=SC2086
ctest -L gpu --output-on-failure -j 4 ${CTEST_ARGS:-} || status=1
echo "== MIOpenDriver on CUDA"
MIOPEN_BACKEND=cuda MIOPEN_USER_DB_PATH="$build/gpu-check-db" ./bin/MIOpenDriver conv -n 32 \
  -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 0 -V 1 -t 1 || status=1
if [ "${CASES:-0}" = 1 ]; then
  echo "== full-size cases on CUDA (scripts/run-cases.sh)"
  "$root/scripts/run-cases.sh" "$build/bin/MIOpenDriver" "$build/cases" || status=1
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== GPU benchmark vs cuDNN"
  "$root/scripts/bench-gpu.sh" "$build/bench-gpu" || status=1
fi
exit $status
