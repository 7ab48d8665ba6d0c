#!/usr/bin/env bash
# Fails when any C/C++/CUDA source differs from clang-format's output (.clang-format).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
files=$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
bad=0
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" > /dev/null 2>&1; then
    echo "needs clang-format: $f"
    bad=1
  fi
done
exit $bad
