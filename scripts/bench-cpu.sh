#!/usr/bin/env bash
# The CPU side-by-side benchmark, in one call: fetches oneDNN (scripts/get-onednn.sh), builds
# bench/conv_vs_onednn, runs ResNet-50 v1.5 at N=4 and the DeepBench training set, writes CSV
# files and a PNG plot into bench-results/ (or $OUT_DIR). Run it on an otherwise idle machine.
#
#   scripts/bench-cpu.sh [resnet50|deepbench|bn|rnn|all] [extra arguments for the benchmark]
# (bn: batch normalization, bench/bn_vs_onednn on bench/shapes/bnorm.txt, NCHW then NHWC;
#  rnn: bench/rnn_vs_onednn on the DeepBench RNN training set; neither is part of "all".)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-all}
shift || true
out=${OUT_DIR:-$root/bench-results}
build=${BUILD_DIR:-$root/build}
mkdir -p "$out"
onednn=$("$root/scripts/get-onednn.sh")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_ONEDNN_ROOT="$onednn" \
  > /dev/null
ninja -C "$build" conv_vs_onednn bn_vs_onednn rnn_vs_onednn > /dev/null
bench="$build/bin/conv_vs_onednn"
csvs=()
if [ "$which" = all ] || [ "$which" = resnet50 ]; then
  "$bench" --shapes "$root/bench/shapes/resnet50_v15.txt" --batch 4 --skip-input-bwdd \
    --label resnet50_v15_n4 --csv "$out/resnet50_n4.csv" "$@" | tee "$out/resnet50_n4.txt"
  csvs+=("$out/resnet50_n4.csv")
fi
if [ "$which" = all ] || [ "$which" = deepbench ]; then
  # DeepBench at its own batch sizes (4 to 32), unscaled.
  "$bench" --shapes "$root/bench/shapes/deepbench_conv_training.txt" --skip-input-bwdd \
    --reps 3 --label deepbench_training --csv "$out/deepbench.csv" "$@" |
    tee "$out/deepbench.txt"
  csvs+=("$out/deepbench.csv")
fi
if [ "$which" = rnn ]; then
  "$build/bin/rnn_vs_onednn" --csv "$out/rnn.csv" "$@" | tee "$out/rnn.txt"
  exit 0
fi
if [ "$which" = bn ]; then
  "$build/bin/bn_vs_onednn" --csv "$out/bn_nchw.csv" "$@" | tee "$out/bn_nchw.txt"
  "$build/bin/bn_vs_onednn" --layout NHWC --csv "$out/bn_nhwc.csv" "$@" | tee "$out/bn_nhwc.txt"
  [ "$which" = bn ] && exit 0
fi
py=""
for p in python3 /usr/bin/python3; do
  if "$p" -c "import matplotlib" 2> /dev/null; then py=$p && break; fi
done
if [ -n "$py" ]; then
  "$py" "$root/scripts/plot-bench.py" "$out/conv_vs_onednn.png" "${csvs[@]}"
  echo "plot: $out/conv_vs_onednn.png"
else
  echo "no matplotlib (apt-get install python3-matplotlib): plot skipped"
fi
