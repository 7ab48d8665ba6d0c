#!/usr/bin/env bash
# Two checks on the public API:
#   docs   - every function the headers declare has a row in docs/api-status.md;
#   export - libMIOpen exports exactly the functions the headers declare.
#   check-api-docs.sh docs|export [path/to/libMIOpen.so]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
declared=$("$root/scripts/list-api.sh")
case "$1" in
  docs)
    missing=0
    for f in $declared; do
      grep -q "| \`$f\` |" "$root/docs/api-status.md" || { echo "missing in docs/api-status.md: $f"; missing=1; }
    done
    exit $missing ;;
  export)
    exported=$(nm -D --defined-only "$2" | awk '$2=="T"{print $3}' | sort -u)
    diff <(echo "$declared") <(echo "$exported") && echo "all $(echo "$declared" | wc -l) declared functions are exported, nothing else" ;;
  *) echo "usage: $0 docs|export [lib]"; exit 2 ;;
esac
