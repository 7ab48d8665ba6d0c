#!/usr/bin/env bash
# The main job: builds what it runs (libMIOpen, MIOpenDriver and the conv_bench benchmark; no
# tests, and the CUDA backend only where nvidia-smi sees a GPU), then runs MIOpenDriver on a
# ResNet-50 layer (N=4, 64->64, 3x3, 56x56) with verification against the reference and timing,
# then the GEMM-vs-SGEMM benchmark of the same layer. BUILD_DIR (default build-main, apart from
# the test build's folder so that neither reconfigures the other); extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-main}
"$root/scripts/install-deps.sh"
cuda=OFF
if nvidia-smi -L > /dev/null 2>&1; then cuda=AUTO; fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_BUILD_TESTS=OFF \
  -DANYDNN_WITH_CUDA="$cuda" "$@"
cmake --build "$build" -j "$(nproc)" --target MIOpenDriver conv_bench
cd "$build"
./bin/MIOpenDriver conv -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -V 1 -t 1
./bin/conv_bench --algo gemm --reps 7
