#!/usr/bin/env bash
# Every applicable CUDA convolution solver, alone, on the ResNet-50 and DeepBench layers in all
# three directions and the precisions where more than one solver competes (fp32, TF32, fp16 and
# bf16 NCHW; NHWC has the tensor-core solver only): the data that fits and validates the
# solvers' cost models (docs/find-and-heuristics.md). Appends to OUT_DIR/sweep.csv:
#   group,"driver line",dir,solver,median_ms,min_ms,estimated_ms,flops,count
#   scripts/solver-sweep.sh SOLVER_BENCH OUT_DIR [extra solver_bench args]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:?usage: $0 SOLVER_BENCH OUT_DIR}
out=${2:?usage: $0 SOLVER_BENCH OUT_DIR}
shift 2
mkdir -p "$out"
csv=$out/sweep.csv
for shapes in resnet50_v15 deepbench_conv_training; do
  for group in fp32 tf32 fp16-nchw bf16-nchw; do
    case $group in
      fp32) args=(--type fp32 --layout NCHW) ;;
      tf32) args=(--type fp32 --layout NCHW --tf32) ;;
      fp16-nchw) args=(--type fp16 --layout NCHW) ;;
      bf16-nchw) args=(--type bf16 --layout NCHW) ;;
    esac
    "$bench" --backend cuda --shapes "$root/bench/shapes/$shapes.txt" "${args[@]}" \
      --csv "$csv" --tag "$group" --reps 5 "$@" > "$out/sweep-$shapes-$group.txt"
  done
done
echo "sweep: $(wc -l < "$csv") rows in $csv"
