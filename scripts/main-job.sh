#!/usr/bin/env bash
# The main job: builds anydnn, then runs MIOpenDriver on a ResNet-50 layer (N=4, 64->64, 3x3,
# 56x56) with verification against the CPU reference and timing, then the GEMM-vs-SGEMM
# benchmark of the same layer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
./bin/MIOpenDriver conv -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -V 1 -t 1
./bin/conv_bench --algo gemm --reps 7
