#!/usr/bin/env bash
# The GPU side-by-side benchmark, in one call: builds bench/gpu/gpu_vs_cudnn (needs the CUDA
# backend and cuDNN), runs anydnn's CUDA backend against cuDNN on ResNet-50 v1.5 convolutions at
# N=32 (fp32, TF32, fp16 NHWC), the batch-norm shapes (fp32 NCHW, fp16 NHWC) and the DeepBench
# RNN training set (fp32), and writes per-shape tables, CSV files and a PNG plot of the ratios.
# About 3-4 minutes on an H100 (--quick: about one).
#
#   scripts/bench-gpu.sh [OUT_DIR] [--quick] [other gpu_vs_cudnn arguments, e.g. --iters 10]
#
# OUT_DIR defaults to build/bench-gpu. BUILD_DIR (default build) is the build folder; an
# existing one is reused as configured, a new one is configured with -DANYDNN_WITH_CUDA=ON
# (CUDA_ARCH=90 to build for one architecture only). MODE_TIMEOUT (600 s) bounds each mode.
# Without matplotlib the script tries pip --user (NO_PIP=1: not); failing that, the plot is
# skipped: make it elsewhere with
#   python3 scripts/plot-gpu-bench.py OUT.png OUT_DIR/conv.csv OUT_DIR/bn.csv OUT_DIR/rnn.csv
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench-gpu
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  out=$1
  shift
fi
# Default build folder: the one OUT_DIR lies in when it is one (scripts/gpu-check.sh passes
# BUILD/bench-gpu), else build/.
if [ -z "${BUILD_DIR:-}" ] && [ -f "$(dirname "$out")/CMakeCache.txt" ]; then
  build=$(cd "$(dirname "$out")" && pwd)
else
  build=${BUILD_DIR:-$root/build}
fi
mkdir -p "$out"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_WITH_CUDA=ON \
    ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH} > "$out/configure.log"
fi
if ! cmake --build "$build" --target gpu_vs_cudnn > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  echo "bench-gpu: building gpu_vs_cudnn failed (needs -DANYDNN_WITH_CUDA=ON and cuDNN): $out/build.log"
  exit 1
fi
bin=$build/bin/gpu_vs_cudnn

# Each mode in its own run (each spawns one process per precision); one failing mode does not
# stop the others.
status=0
csvs=()
for mode in conv bn rnn; do
  echo "=== $mode"
  rm -f "$out/$mode.csv"
  # A hung kernel must not eat the GPU session: the whole process group is stopped.
  if timeout -k 10 "${MODE_TIMEOUT:-600}" "$bin" "$mode" --csv "$out/$mode.csv" "$@" 2>&1 |
    tee "$out/$mode.txt"; then :; else
    status=1
  fi
  [ -s "$out/$mode.csv" ] && csvs+=("$out/$mode.csv")
done
[ ${#csvs[@]} -gt 0 ] || exit 1

py=""
for p in python3 /usr/bin/python3; do
  if "$p" -c "import matplotlib" 2> /dev/null; then py=$p && break; fi
done
if [ -z "$py" ] && [ "${NO_PIP:-0}" != 1 ] && command -v python3 > /dev/null; then
  # The GPU machine may have no network: a failed install only skips the plot.
  echo "bench-gpu: installing matplotlib for the plot (pip --user)"
  pip_opts=(install --user --quiet --timeout 5 --retries 0 matplotlib)
  python3 -m pip "${pip_opts[@]}" > /dev/null 2>&1 ||
    python3 -m pip "${pip_opts[@]}" --break-system-packages > /dev/null 2>&1 || true
  python3 -c "import matplotlib" 2> /dev/null && py=python3
fi
if [ -n "$py" ]; then
  if "$py" "$root/scripts/plot-gpu-bench.py" "$out/gpu_vs_cudnn.png" "${csvs[@]}" |
    tee "$out/summary.txt"; then
    echo "plot: $out/gpu_vs_cudnn.png"
  else
    echo "bench-gpu: the plot failed (the CSV files are complete)"
  fi
else
  echo "no matplotlib: plot skipped (python3 scripts/plot-gpu-bench.py OUT.png ${csvs[*]})"
fi
echo "results: $out"
exit $status
