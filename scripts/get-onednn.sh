#!/usr/bin/env bash
# Fetches the newest oneDNN from PyPI (onednn + onednn-devel, with the Intel runtime they need)
# into third_party/onednn (a virtualenv, ignored by git), for the side-by-side benchmarks in
# bench/. Prints the root to pass as -DANYDNN_ONEDNN_ROOT=... (the default location).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${ONEDNN_ROOT:-$root/third_party/onednn}
if [ ! -f "$dest/lib/libdnnl.so" ]; then
  python3 -m venv "$dest"
  "$dest/bin/pip" install -q --upgrade pip > /dev/null
  "$dest/bin/pip" install -q onednn onednn-devel
fi
echo "$dest"
