#!/usr/bin/env bash
# Installs what anydnn builds with, from Debian packages (plus the CUTLASS headers from PyPI, for
# the CUDA backend, below). Safe to run again; does nothing when everything is present. CUDA is
# optional: the CUDA backend is built when nvcc is on PATH.
set -euo pipefail
packages=(cmake ninja-build g++ libopenblas-openmp-dev libfftw3-dev libsqlite3-dev libgtest-dev clang-format
  clang libclang-rt-dev libomp-dev  # scripts/fuzz.sh (libFuzzer, OpenMP for clang)
  ccache)                            # every build the scripts make (scripts/ccache-env.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Header-only PyPI packages: pip_headers PACKAGE SPEC PRESENT_CHECK WHAT_IS_LEFT_OUT installs SPEC
# with --no-deps (only the headers are needed) unless python3 -c PRESENT_CHECK succeeds. A user
# install needs no root; on a Python that PEP 668 marks externally managed, --user additionally
# needs --break-system-packages (it still only writes under ~/.local).
pip_headers() {
  local package=$1 spec=$2 check=$3 missing=$4
  python3 -c "$check" 2>/dev/null && return 0
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "install-deps: no pip; $package not installed ($missing)" >&2
    return 0
  fi
  local pip_args=(install --quiet --user --no-deps "$spec")
  [ -n "${VIRTUAL_ENV:-}" ] && pip_args=(install --quiet --no-deps "$spec")
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip "${pip_args[@]}" || python3 -m pip "${pip_args[@]}" --break-system-packages ||
    echo "install-deps: could not install $package ($missing)" >&2
}

if command -v python3 >/dev/null 2>&1; then
  # CUTLASS headers for the CUDA backend's tensor-core convolution solvers (nvidia-cutlass ships
  # them under cutlass_library/source/include).
  pip_headers nvidia-cutlass "nvidia-cutlass>=4.2,<5" \
    "import importlib.util, sys; sys.exit(importlib.util.find_spec('cutlass_library') is None)" \
    "the CUDA tensor-core solvers are left out"
  # cuDNN frontend headers (under include/ beside its cudnn package) for the GPU benchmark's
  # cuDNN peer (bench/gpu/gpu_cudnn_fe.cpp); the library does not use them. 1.32 is the version
  # the code is built and checked with (older 1.x releases are untested).
  pip_headers nvidia-cudnn-frontend "nvidia-cudnn-frontend>=1.32,<2" \
    "import importlib.metadata as m; m.distribution('nvidia-cudnn-frontend')" \
    "gpu_vs_cudnn uses cuDNN's legacy API"
fi

# The Python package and its tests (python/, docs/python.md): nanobind and scikit-build-core
# build it, pytest / PyTorch / tqdm test it. Only for ANYDNN_PYTHON_DEPS=1 (scripts/test.sh sets
# it; the main job and the sanitizer builds need none of it), and only what is missing: PyTorch
# is large (CUDA wheels from PyPI).
if [ "${ANYDNN_PYTHON_DEPS:-0}" = 1 ] && command -v python3 >/dev/null 2>&1 &&
  python3 -m pip --version >/dev/null 2>&1; then
  if ! python3 -c "import numpy, pytest, tqdm, nanobind, scikit_build_core, torch" 2>/dev/null; then
    export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
    py_args=(install --quiet)
    [ -z "${VIRTUAL_ENV:-}" ] && py_args+=(--user)
    py_pkgs=("numpy" "pytest" "tqdm" "nanobind>=2.0" "scikit-build-core>=0.10" "torch")
    python3 -m pip "${py_args[@]}" "${py_pkgs[@]}" ||
      python3 -m pip "${py_args[@]}" --break-system-packages "${py_pkgs[@]}" ||
      echo "install-deps: could not install the Python packages (the python tests are left out)" >&2
  fi
fi
