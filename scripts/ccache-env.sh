# Sourced by the build scripts (scripts/build.sh, tsan.sh, fuzz.sh, gpu-check.sh, .ci/run before
# `pip install .`): routes the C, C++ and CUDA compilers of every CMake build they configure
# through ccache, when ccache is on PATH (scripts/install-deps.sh installs it). CMake reads these
# launcher variables from the environment when a build folder is first configured, so
# scikit-build-core's build of the Python package gets them too. Absent or cold, the cache only
# costs time; ANYDNN_CCACHE=0 turns it off.
#   CCACHE_BASEDIR: paths under the checkout are hashed relative to it, so a second clone (CI's
#     clean clone, a worktree) or another build folder hits the same entries;
#   CCACHE_NOHASHDIR: the -g builds (TSan, fuzz) would otherwise hash the working directory;
#   CCACHE_MAXSIZE: room for every build folder CI makes (Release with CUDA, the Python package,
#     ASan, TSan, fuzz) with space to spare.
# The caller sets `root` (the checkout) before sourcing.
if [ "${ANYDNN_CCACHE:-1}" != 0 ] && command -v ccache > /dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
fi
