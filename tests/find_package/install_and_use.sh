#!/usr/bin/env bash
# Installs the built library into a scratch prefix and builds and runs tests/find_package
# against it with find_package(miopen): its main client and its Find 2.0 client.
set -eu
build=$1; src=$2; scratch=$3
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
cmake -S "$src" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/build" > /dev/null
"$scratch/build/uses_miopen"
"$scratch/build/uses_miopen_find2"
