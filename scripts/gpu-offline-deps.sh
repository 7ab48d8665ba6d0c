#!/usr/bin/env bash
# GPU machines without network access (our lent H100/H200s) lack two build dependencies:
# SQLite's headers and library, and the CUTLASS headers (PyPI nvidia-cutlass). This script
#   fetch   (on a machine with network): downloads them into .deps/ (git-ignored);
#   unpack  (on the GPU machine): unpacks .deps/ under /tmp/anydnn-deps and prints the cmake
#           arguments that point the build at them (LD_LIBRARY_PATH must include the printed
#           library folder when running).
# Usage there: scripts/gpu-check.sh $(scripts/gpu-offline-deps.sh unpack)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps
case "${1:-}" in
  fetch)
    mkdir -p "$deps"
    (cd "$deps" && apt-get download libsqlite3-0 libsqlite3-dev)
    python3 -m pip download --no-deps -d "$deps" nvidia-cutlass
    ;;
  unpack)
    out=/tmp/anydnn-deps
    mkdir -p "$out/cutlass"
    for f in "$deps"/*.deb; do dpkg -x "$f" "$out/sqlite"; done
    # A wheel is a zip file; python3 unpacks it where unzip is missing.
    python3 - "$out/cutlass" "$deps"/nvidia_cutlass-*.whl << 'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2]) as z:
    z.extractall(sys.argv[1], [n for n in z.namelist() if n.startswith("cutlass_library/source/include/")])
PY
    lib=$out/sqlite/usr/lib/x86_64-linux-gnu
    echo "-DSQLite3_INCLUDE_DIR=$out/sqlite/usr/include -DSQLite3_LIBRARY=$lib/libsqlite3.so" \
      "-DANYDNN_CUTLASS_INCLUDE_DIR=$out/cutlass/cutlass_library/source/include" \
      "-DCMAKE_BUILD_RPATH=$lib"
    ;;
  *)
    echo "usage: $0 fetch|unpack" >&2
    exit 2
    ;;
esac
