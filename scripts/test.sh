#!/usr/bin/env bash
# Builds anydnn and runs the whole test suite (the README's test command; CI runs it too), the
# Python package's pytest suite included (ctest label python). The GPU suite (label gpu) runs
# only where nvidia-smi sees a GPU; scripts/gpu-check.sh runs it too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ANYDNN_PYTHON_DEPS=1 "$root/scripts/build.sh" "$@"
cd "${BUILD_DIR:-$root/build}"
if nvidia-smi -L > /dev/null 2>&1; then
  ctest --output-on-failure -j "$(nproc)"
else
  ctest --output-on-failure -j "$(nproc)" -LE gpu
fi
