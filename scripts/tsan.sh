#!/usr/bin/env bash
# ThreadSanitizer (docs/reliability.md): builds the concurrency tests (16 threads with a handle
# each, one handle used by threads in turn, the find-db under concurrent and killed writers) and
# MIOpenDriver with clang -fsanitize=thread into ${BUILD_DIR:-build-tsan}, and runs them. The
# build takes the portable CPU kernels only (ANYDNN_PORTABLE_KERNELS): the AVX2 / AVX-512 copies
# run inside the same parallel loops, and instrumented they took minutes to compile.
# OpenMP: the build uses LLVM's libomp, and its Archer tool (libarcher.so, from libomp-dev) is
# loaded through OMP_TOOL_LIBRARIES, so TSan sees OpenMP's own synchronisation (barriers, the end
# of a parallel region) and checks what the threads of our parallel loops touch; no
# suppressions. Exit status non-zero on any report (halt_on_error) or failed test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-tsan}
"$root/scripts/install-deps.sh"
# After install-deps: it installs ccache.
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
start=$(date +%s)
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DANYDNN_TSAN=ON -DANYDNN_PORTABLE_KERNELS=ON -DANYDNN_WITH_CUDA=OFF -DANYDNN_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target anydnn_concurrency_tests MIOpenDriver
echo "tsan build: $(($(date +%s) - start)) s"

archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -1)
if [ -z "$archer" ]; then
  echo "tsan.sh: libarcher.so not found (apt-get install libomp-dev)" >&2
  exit 1
fi
export OMP_TOOL_LIBRARIES=$archer
# ignore_noninstrumented_modules: what Archer asks for (libomp itself is not instrumented).
# log_path=stdout: the threads test captures stderr (the log lines it checks), reports must not
# vanish into that file.
export TSAN_OPTIONS="halt_on_error=1 abort_on_error=1 second_deadlock_stack=1 history_size=4 ignore_noninstrumented_modules=1 log_path=stdout"
# Two OpenMP threads per handle, whatever the machine: the parallel loops run as teams.
export ANYDNN_NUM_THREADS=2 MIOPEN_BACKEND=cpu
cd "$build"
# Archer must have attached to libomp (it does only under TSan), or OpenMP goes unchecked.
probe=$(OMP_TOOL_VERBOSE_INIT=stdout ./bin/anydnn_concurrency_tests \
  --gtest_filter='Concurrency.OneHandleUsedByThreadsInTurn' 2>&1 || true)
if ! grep -q "Tool was started" <<< "$probe"; then
  echo "tsan.sh: libomp did not start the Archer tool ($archer)" >&2
  exit 1
fi
echo "Archer attached to libomp ($archer)"
ctest -L concurrency --no-tests=error --output-on-failure -j 1 "$@"
echo "tsan total: $(($(date +%s) - start)) s"
