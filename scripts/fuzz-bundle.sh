#!/usr/bin/env bash
# Packs libFuzzer harnesses built here (scripts/fuzz.sh's build-fuzz) for a machine without
# clang, e.g. the GPU machine's 16 cores (docs/fuzzing.md, "Fuzzing on another machine"):
# the binaries (debug info stripped, symbols kept for stack traces), the shared libraries they
# load other than glibc's, and each harness's grown corpus from FUZZ_CORPUS if set.
#   scripts/fuzz-bundle.sh OUT.tar.xz HARNESS...
# There:  mkdir -p /tmp/f && tar xJf OUT.tar.xz -C /tmp/f
#         LD_LIBRARY_PATH=/tmp/f/lib FUZZ_NO_BUILD=1 BUILD_DIR=/tmp/f FUZZ_CORPUS=/tmp/f/corpus \
#           FUZZ_WORKERS=$(nproc) FUZZ_JOBS=1 scripts/fuzz.sh SECONDS HARNESS...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
out=$(realpath -m "$1")
shift
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/corpus"
for h in "$@"; do
  strip --strip-debug -o "$stage/bin/$h" "$build/bin/$h"
  # glibc's own libraries stay: the other machine's loader must match them.
  ldd "$build/bin/$h" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  if [ -n "${FUZZ_CORPUS:-}" ] && [ -d "$FUZZ_CORPUS/$h" ]; then
    cp -r "$FUZZ_CORPUS/$h" "$stage/corpus/"
  else
    mkdir -p "$stage/corpus/$h"
  fi
done
mkdir -p "$(dirname "$out")"
tar cJf "$out" -C "$stage" bin lib corpus
echo "$out: $(du -h "$out" | cut -f1) ($*)"
