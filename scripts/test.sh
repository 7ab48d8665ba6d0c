#!/usr/bin/env bash
# Builds anydnn and runs the whole test suite (the README's test command; CI runs it too), the
# Python package's pytest suite included (ctest label python). The GPU suite (label gpu) runs
# only where nvidia-smi sees a GPU; scripts/gpu-check.sh runs it too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ANYDNN_PYTHON_DEPS=1 "$root/scripts/build.sh" "$@"
cd "${BUILD_DIR:-$root/build}"
# ctest -j N runs N test programs at once on N cores, each with OpenMP teams of N threads.
# libgomp's default wait policy spins at every barrier and idle wait, burning the core the
# other program needs: passive waiting took the CPU suite from 476 s to 173 s on 2 cores
# (docs/testing.md, "CI"). The caller's own setting wins.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
if nvidia-smi -L > /dev/null 2>&1; then
  ctest --output-on-failure -j "$(nproc)"
else
  ctest --output-on-failure -j "$(nproc)" -LE gpu
fi
