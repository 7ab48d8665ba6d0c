#!/usr/bin/env bash
# Builds anydnn and runs the whole test suite (the README's test command; CI runs it too).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$@"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
