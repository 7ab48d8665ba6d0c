#!/usr/bin/env bash
# Lists every function the public headers export (one name per line, sorted).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cat "$root"/include/miopen/*.h | tr '\n' ' ' |
  grep -oE 'MIOPEN_EXPORT [A-Za-z_ *]*\b(miopen|anydnn)[A-Za-z0-9_]*\(' |
  sed -E 's/.*\b((miopen|anydnn)[A-Za-z0-9_]*)\($/\1/' | sort -u
