#!/usr/bin/env bash
# The GPU check, in one call on a machine with an NVIDIA GPU (Hopper: sm_90 by default):
#   scripts/gpu-check.sh [OPTIONS] [CMAKE_ARGS...]
# Full mode (no mode option):
#   1. builds anydnn with the CUDA backend (no apt-get: GPU machines may be offline),
#   2. runs the GPU suite (CTest label gpu): every CUDA solver and kernel against the double
#      references on device memory, and MIOpen's driver dev cases on the CUDA backend with -V 1,
#   3. runs MIOpenDriver on a ResNet-50 layer on CUDA (-V 1 -t 1),
#   4. builds the Python package with the CUDA backend (`pip install .`, offline from the wheels
#      of scripts/gpu-offline-deps.sh when there is no index), runs its pytest suite and
#      bench/python/modules_vs_torch.py --device cuda, unless SKIP_PYTHON=1,
#   5. runs the GPU benchmark against cuDNN (scripts/bench-gpu.sh), unless SKIP_BENCH=1,
#   6. with CASES=1, MIOpen's cases and the shape sets at full size (scripts/run-cases.sh).
# --quick: one solver's work in one device call (docs/testing.md, "The GPU check"): builds only
#      libMIOpen, anydnn_gpu_tests, gpu_vs_cudnn and MIOpenDriver, then runs
#        the GPU test program on --tests FILTER (a gtest filter, default every test),
#        MIOpenDriver on a ResNet-50 layer on CUDA,
#        the benchmark on the rows whose layer name holds --bench TEXT (only when given; BENCH_MODES,
#        default "conv", and CONV_PRECISION, default fp32, choose what runs; PyTorch included),
#        and with --python step 4 above.
# --sanitize: instead, the GPU test program under compute-sanitizer's memcheck, racecheck,
#      synccheck and initcheck, one tool at a time (SANITIZE_FILTER: a gtest filter, default every
#      test but the ConvHeuristic timing comparisons, whose 1.2x bounds cannot hold under a tool's
#      slowdown; SANITIZE_TOOLS: a subset); each tool's summary line is printed and any error
#      fails the run.
# Every mode ends with a table of its steps' wall times. Compilers go through ccache where there
# is one (scripts/ccache-env.sh; the offline bundle carries one).
# BUILD_DIR (default build-gpu), ANYDNN_CUDA_ARCH (default 90), CTEST_ARGS (extra ctest flags),
# ANYDNN_WHEELS (the wheels `pip install .` builds with offline; default .deps/wheels, as
# scripts/gpu-offline-deps.sh fetch leaves them). Exit status: non-zero when a step fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=full
tests_filter="*"
bench_filter=""
bench_given=0
python_step=1
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) mode=sanitize ;;
    --quick)
      mode=quick
      python_step=0
      ;;
    --python) python_step=2 ;;
    --tests)
      tests_filter=$2
      shift
      ;;
    --bench)
      bench_filter=$2
      bench_given=1
      shift
      ;;
    *) break ;;
  esac
  shift
done
[ "$python_step" = 2 ] && python_step=1
[ "${SKIP_PYTHON:-0}" = 1 ] && python_step=0
cmake_args=("$@")
build=${BUILD_DIR:-$root/build-gpu}
arch=${ANYDNN_CUDA_ARCH:-90}

# The offline bundle's ccache (scripts/gpu-offline-deps.sh unpack) where none is installed.
if ! command -v ccache > /dev/null 2>&1 && [ -x /tmp/anydnn-deps/bin/ccache ]; then
  export PATH=/tmp/anydnn-deps/bin:$PATH
fi
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
TITLE="gpu-check ($mode) step times"
# shellcheck source=scripts/step-times.sh
. "$root/scripts/step-times.sh"
nvidia-smi -L
configure() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" "${cmake_args[@]}" > "$build.configure.log" ||
    { cat "$build.configure.log" && return 1; }
  grep -E "anydnn (CUDA|CUTLASS|cuDNN)|gpu_vs_cudnn" "$build.configure.log" || true
}
build_targets() { cmake --build "$build" -j "$(nproc)" "$@"; }
gpu_suite() {
  cd "$build"
  # shellcheck disable=SC2086
  ctest -L gpu --output-on-failure -j 4 ${CTEST_ARGS:-}
}
driver_check() {
  (cd "$build" && MIOPEN_BACKEND=cuda MIOPEN_USER_DB_PATH="$build/gpu-check-db" ./bin/MIOpenDriver conv \
    -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 0 -V 1 -t 1)
}

# The Python package with the CUDA backend, built by pip as a user would (in the build folder
# beside the others: build-python-<tag>/, so ccache hits the library objects compiled above), then
# its pytest suite and the modules' benchmark against PyTorch on the GPU, from the installed copy.
python_package() {
  local target=$build/python-pkg wheels=${ANYDNN_WHEELS:-$root/.deps/wheels}
  local pip_args=(install --no-deps --no-compile --quiet --upgrade --target "$target"
    -Ccmake.define.ANYDNN_WITH_CUDA=ON -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="$arch")
  # The image's own scikit-build-core and nanobind where it has them (no isolated environment:
  # nothing to fetch, its cmake and ninja used as they are); otherwise the build requirements come
  # from the fetched wheels (offline: --no-index) into pip's isolated build environment, or from
  # the index where there is no wheels folder.
  if python3 -c "import scikit_build_core, nanobind" 2> /dev/null; then
    pip_args+=(--no-build-isolation)
  fi
  [ -d "$wheels" ] && pip_args+=(--no-index --find-links "$wheels")
  rm -rf "$target"
  (cd "$root" && CMAKE_ARGS="${cmake_args[*]}" PIP_ROOT_USER_ACTION=ignore \
    PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip "${pip_args[@]}" .)
  (cd "$root" && PYTHONPATH=$target MIOPEN_USER_DB_PATH="$build/python-db" \
    python3 -m pytest -q -p no:cacheprovider python/tests)
}
python_bench() {
  (cd "$root" && PYTHONPATH=$build/python-pkg MIOPEN_USER_DB_PATH="$build/python-db" \
    python3 bench/python/modules_vs_torch.py --device cuda)
}

case $mode in
  sanitize)
    step "configure" configure
    step "build" build_targets --target anydnn_gpu_tests
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    export MIOPEN_BACKEND=cuda MIOPEN_USER_DB_PATH="$build/gpu-sanitize-db"
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
      extra=()
      [ "$tool" = memcheck ] && extra=(--leak-check full)
      # cuBLAS and CUTLASS kernels are checked too; the report's last line is the summary.
      soft "compute-sanitizer --tool $tool" "$san" --tool "$tool" "${extra[@]}" --error-exitcode 3 \
        --print-limit 50 "$build/bin/anydnn_gpu_tests" \
        --gtest_filter="${SANITIZE_FILTER:--*ConvHeuristic*}" --gtest_brief=1 \
        > "$build/sanitize-$tool.log" 2>&1
      grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|tests? (passed|failed)|FAILED" \
        "$build/sanitize-$tool.log" | tail -5
    done
    ;;
  quick)
    step "configure" configure
    step "build (MIOpen anydnn_gpu_tests gpu_vs_cudnn MIOpenDriver)" build_targets \
      --target MIOpen anydnn_gpu_tests gpu_vs_cudnn MIOpenDriver
    soft "GPU tests ($tests_filter)" env MIOPEN_BACKEND=cuda \
      MIOPEN_USER_DB_PATH="$build/gpu-quick-db" "$build/bin/anydnn_gpu_tests" \
      --gtest_filter="$tests_filter" --gtest_brief=1
    soft "MIOpenDriver on CUDA (-V 1)" driver_check
    if [ "$bench_given" = 1 ]; then
      bench_args=()
      [ -n "$bench_filter" ] && bench_args=(--filter "$bench_filter")
      soft "benchmark (${BENCH_MODES:-conv} ${CONV_PRECISION:-fp32}, '$bench_filter')" \
        env MODES="${BENCH_MODES:-conv}" CONV_PRECISION="${CONV_PRECISION:-fp32}" \
        "$root/scripts/bench-gpu.sh" "$build/bench-gpu" "${bench_args[@]}"
    fi
    if [ "$python_step" = 1 ]; then
      soft "Python package (pip install ., CUDA) + pytest" python_package
      soft "modules_vs_torch.py --device cuda" python_bench
    fi
    ;;
  full)
    step "configure" configure
    step "build (every target)" build_targets
    soft "GPU suite (ctest -L gpu)" gpu_suite
    soft "MIOpenDriver on CUDA (-V 1)" driver_check
    if [ "$python_step" = 1 ]; then
      soft "Python package (pip install ., CUDA) + pytest" python_package
      soft "modules_vs_torch.py --device cuda" python_bench
    fi
    if [ "${CASES:-0}" = 1 ]; then
      soft "full-size cases on CUDA (scripts/run-cases.sh)" "$root/scripts/run-cases.sh" \
        "$build/bin/MIOpenDriver" "$build/cases"
    fi
    if [ "${SKIP_BENCH:-0}" != 1 ]; then
      soft "GPU benchmark vs cuDNN (scripts/bench-gpu.sh)" "$root/scripts/bench-gpu.sh" \
        "$build/bench-gpu"
    fi
    ;;
esac
exit $steps_failed
