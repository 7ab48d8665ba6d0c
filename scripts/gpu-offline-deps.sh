#!/usr/bin/env bash
# GPU machines without network access (our lent H100/H200s) lack some build dependencies:
# SQLite's headers and library, the CUTLASS headers (PyPI nvidia-cutlass), the cuDNN frontend
# headers (PyPI nvidia-cudnn-frontend: the GPU benchmark's cuDNN peer), for scripts/gpu-fuzz.sh
# LLVM's FuzzedDataProvider.h, the wheels that `pip install .` builds the Python package with
# (scikit-build-core, nanobind and their requirements: the isolated build environment cannot
# reach an index there), and ccache (scripts/ccache-env.sh: the Python package's build then
# reuses the library objects of the check's own build). This script
#   fetch   (on a machine with network): downloads them into .deps/ (git-ignored; wheels in
#           .deps/wheels, what scripts/gpu-check.sh installs from with --no-index);
#   unpack  (on the GPU machine): unpacks .deps/ under /tmp/anydnn-deps and prints the cmake
#           arguments that point the build at them (LD_LIBRARY_PATH must include the printed
#           library folder when running); ccache lands in /tmp/anydnn-deps/bin, where
#           scripts/gpu-check.sh looks for it.
# Usage there: scripts/gpu-check.sh [--quick ...] $(scripts/gpu-offline-deps.sh unpack)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps
case "${1:-}" in
  fetch)
    mkdir -p "$deps"
    (cd "$deps" && apt-get download libsqlite3-0 libsqlite3-dev)
    # ccache and the one library of it a GPU machine's image may lack (the binary is Debian 12's,
    # glibc 2.36: it runs on any newer one).
    mkdir -p "$deps/ccache"
    (cd "$deps/ccache" && apt-get download ccache libhiredis0.14)
    # The Python package's build requirements (pyproject.toml) and theirs, pure-Python wheels.
    rm -rf "$deps/wheels"
    python3 -m pip download --quiet --only-binary=:all: -d "$deps/wheels" \
      "scikit-build-core>=0.10" "nanobind>=2.0"
    python3 -m pip download --no-deps -d "$deps" nvidia-cutlass
    # Only its include/ folder is used, so the wheel's Python tag does not matter.
    python3 -m pip download --no-deps -d "$deps" "nvidia-cudnn-frontend>=1.32,<2"
    # LLVM's FuzzedDataProvider.h (one header, Apache-2.0 WITH LLVM-exception) from the local
    # clang, for scripts/gpu-fuzz.sh (the GPU machine has no clang).
    provider=$(find /usr/lib/llvm-*/lib/clang/*/include/fuzzer -name FuzzedDataProvider.h \
      2>/dev/null | sort -V | tail -1)
    if [ -n "$provider" ]; then
      mkdir -p "$deps/fuzzer" && cp "$provider" "$deps/fuzzer/"
    else
      echo "gpu-offline-deps: no clang FuzzedDataProvider.h here (scripts/gpu-fuzz.sh needs it)" >&2
    fi
    ;;
  unpack)
    out=/tmp/anydnn-deps
    mkdir -p "$out/cutlass" "$out/cudnn-frontend"
    for f in "$deps"/*.deb; do dpkg -x "$f" "$out/sqlite"; done
    # A wheel is a zip file; python3 unpacks it where unzip is missing.
    python3 - "$out/cutlass" "$deps"/nvidia_cutlass-*.whl << 'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2]) as z:
    # include/, and tools/util/include/ (cutlass/util/packed_stride.hpp: the sm90 convolutions'
    # collectives include it).
    z.extractall(sys.argv[1], [n for n in z.namelist() if n.startswith(
        ("cutlass_library/source/include/", "cutlass_library/source/tools/util/include/"))])
PY
    # The newest cuDNN frontend wheel fetched, if any (older .deps/ folders have none).
    fe_args=""
    fe_whl=$(find "$deps" -maxdepth 1 -name 'nvidia_cudnn_frontend-*.whl' | sort -V | tail -1)
    if [ -n "$fe_whl" ]; then
      python3 - "$out/cudnn-frontend" "$fe_whl" << 'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2]) as z:
    z.extractall(sys.argv[1], [n for n in z.namelist() if n.startswith("include/")])
PY
      fe_args="-DANYDNN_CUDNN_FRONTEND_INCLUDE_DIR=$out/cudnn-frontend/include"
    else
      echo "gpu-offline-deps: no nvidia_cudnn_frontend wheel in $deps (run fetch again):" \
        "gpu_vs_cudnn will use cuDNN's legacy API" >&2
    fi
    if [ -f "$deps/fuzzer/FuzzedDataProvider.h" ]; then
      mkdir -p "$out/fuzz-include/fuzzer" && cp "$deps/fuzzer/FuzzedDataProvider.h" "$out/fuzz-include/fuzzer/"
      fe_args="$fe_args -DANYDNN_FUZZ_PROVIDER_INCLUDE_DIR=$out/fuzz-include"
    fi
    # ccache behind a wrapper that finds its hiredis (scripts/gpu-check.sh puts bin/ on PATH).
    if ls "$deps"/ccache/ccache_*.deb > /dev/null 2>&1; then
      for f in "$deps"/ccache/*.deb; do dpkg -x "$f" "$out/ccache"; done
      mkdir -p "$out/bin"
      printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' \
        "$out/ccache/usr/lib/x86_64-linux-gnu" "$out/ccache/usr/bin/ccache" > "$out/bin/ccache"
      chmod +x "$out/bin/ccache"
    fi
    lib=$out/sqlite/usr/lib/x86_64-linux-gnu
    echo "-DSQLite3_INCLUDE_DIR=$out/sqlite/usr/include -DSQLite3_LIBRARY=$lib/libsqlite3.so" \
      "-DANYDNN_CUTLASS_INCLUDE_DIR=$out/cutlass/cutlass_library/source/include" \
      $fe_args "-DCMAKE_BUILD_RPATH=$lib"
    ;;
  *)
    echo "usage: $0 fetch|unpack" >&2
    exit 2
    ;;
esac
