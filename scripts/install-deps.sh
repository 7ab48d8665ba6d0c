#!/usr/bin/env bash
# Installs what anydnn builds with, from Debian packages. Safe to run again; does nothing when
# everything is present. CUDA is optional: the CUDA backend is built when nvcc is on PATH.
set -euo pipefail
packages=(cmake ninja-build g++ libopenblas-openmp-dev libfftw3-dev libsqlite3-dev libgtest-dev clang-format)
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
