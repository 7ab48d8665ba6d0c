#!/usr/bin/env bash
# Installs what anydnn builds with, from Debian packages (plus the CUTLASS headers from PyPI, for
# the CUDA backend, below). Safe to run again; does nothing when everything is present. CUDA is
# optional: the CUDA backend is built when nvcc is on PATH.
set -euo pipefail
packages=(cmake ninja-build g++ libopenblas-openmp-dev libfftw3-dev libsqlite3-dev libgtest-dev clang-format
  clang libclang-rt-dev libomp-dev)  # the last three: scripts/fuzz.sh (libFuzzer, OpenMP for clang)
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

# CUTLASS headers for the CUDA backend's tensor-core convolution solvers: the PyPI package
# nvidia-cutlass ships them under cutlass_library/source/include. Headers only, so no
# dependencies (--no-deps skips numpy, scipy, cuda-python). A user install needs no root; on a
# Python that PEP 668 marks externally managed, --user additionally needs
# --break-system-packages (it still only writes under ~/.local).
if command -v python3 >/dev/null 2>&1; then
  if ! python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('cutlass_library') is None)" 2>/dev/null; then
    if python3 -m pip --version >/dev/null 2>&1; then
      pip_args=(install --quiet --user --no-deps "nvidia-cutlass>=4.2,<5")
      [ -n "${VIRTUAL_ENV:-}" ] && pip_args=(install --quiet --no-deps "nvidia-cutlass>=4.2,<5")
      export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
      python3 -m pip "${pip_args[@]}" || python3 -m pip "${pip_args[@]}" --break-system-packages ||
        echo "install-deps: could not install nvidia-cutlass; the CUDA tensor-core solvers will be left out" >&2
    else
      echo "install-deps: no pip; nvidia-cutlass not installed (CUDA tensor-core solvers left out)" >&2
    fi
  fi
  # cuDNN frontend headers (PyPI nvidia-cudnn-frontend, under include/ beside its cudnn package)
  # for the GPU benchmark's cuDNN peer (bench/gpu/gpu_cudnn_fe.cpp); the library does not use
  # them. Headers only are needed, so no dependencies; 1.32 is the version the code is built and
  # checked with (older 1.x releases are untested).
  if ! python3 -c "import importlib.metadata as m; m.distribution('nvidia-cudnn-frontend')" 2>/dev/null; then
    if python3 -m pip --version >/dev/null 2>&1; then
      pip_args=(install --quiet --user --no-deps "nvidia-cudnn-frontend>=1.32,<2")
      [ -n "${VIRTUAL_ENV:-}" ] && pip_args=(install --quiet --no-deps "nvidia-cudnn-frontend>=1.32,<2")
      export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
      python3 -m pip "${pip_args[@]}" || python3 -m pip "${pip_args[@]}" --break-system-packages ||
        echo "install-deps: could not install nvidia-cudnn-frontend; gpu_vs_cudnn will use cuDNN's legacy API" >&2
    fi
  fi
fi
