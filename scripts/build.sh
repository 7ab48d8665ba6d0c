#!/usr/bin/env bash
# Configures and builds anydnn into ${BUILD_DIR:-build} (Release). Extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
# After install-deps: it installs ccache.
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
# The Python package (python/) joins the build where nanobind is installed, unless the caller
# decides, or builds with a sanitizer (an instrumented extension cannot load into python3).
python=()
case " $* " in
  *ANYDNN_BUILD_PYTHON*|*ANYDNN_SANITIZE=ON*|*ANYDNN_TSAN=ON*|*ANYDNN_FUZZ=ON*) ;;
  *) python3 -c "import nanobind" 2>/dev/null && python=(-DANYDNN_BUILD_PYTHON=ON) ;;
esac
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${python[@]}" "$@"
cmake --build "$build" -j "$(nproc)"
