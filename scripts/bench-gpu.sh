#!/usr/bin/env bash
# The GPU side-by-side benchmark, in one call: builds bench/gpu/gpu_vs_cudnn (needs the CUDA
# backend and cuDNN), then
#   conv: ResNet-50 v1.5 convolutions at N=32 (fp32, TF32, fp16 NHWC, bf16 NHWC): anydnn's three
#         paths (immediate mode, default Find, exhaustive Find) against cuDNN's frontend graph API
#         (autotuned) in gpu_vs_cudnn, and against PyTorch (cudnn.benchmark) on the same shapes in
#         bench/gpu/torch_conv_peer.py, which also measures the GEMM limits; bench/gpu/
#         merge_conv.py joins them (times, ratios to the faster peer, fraction of the limit);
#   bn:   the batch-norm shapes (fp32 NCHW, fp16 NHWC) against cuDNN;
#   rnn:  the DeepBench RNN training set (fp32) against cuDNN;
#   eltwise: ReLU forward / backward and the residual add on the BN shapes against cuDNN (only
#         when named in MODES);
#   layers: pooling, softmax, LRN and reductions on network-sized shapes against cuDNN's legacy
#         calls, fp32 and fp16 (only when named in MODES);
#   fusion: conv + bias + ReLU on the ResNet-50 layers (fp32, TF32, fp16 NHWC) and BN + ReLU on
#         the BN shapes (fp32 NCHW, fp16 NHWC): anydnn's fusion plans against the unfused anydnn
#         calls, cuDNN's fused paths (gpu_vs_cudnn fusion) and PyTorch (bench/gpu/
#         torch_fusion_peer.py), merged by bench/gpu/merge_fusion.py into fusion-summary.txt;
# and writes per-shape tables, CSV files, summary.txt and a PNG plot of the ratios.
#
#   scripts/bench-gpu.sh [OUT_DIR] [--quick] [other gpu_vs_cudnn arguments, e.g. --iters 10]
#
# OUT_DIR defaults to build/bench-gpu. Files there: conv-P.txt/csv (gpu_vs_cudnn, P = fp32, tf32,
# fp16, bf16), torch-conv-P.txt/csv and torch-peaks.csv (PyTorch), conv-merged.csv and
# conv-summary.txt (the merge), bn.txt/csv, rnn.txt/csv, summary.txt, gpu_vs_cudnn.png.
# Environment:
#   MODES           modes to run (default "conv bn rnn fusion")
#   FUSION_PRECISION fusion groups (default fp32,tf32,fp16,bn-fp32,bn-fp16), one run each
#   CONV_PRECISION  conv precisions (default fp32,tf32,fp16,bf16). Each precision's files are
#                   rewritten by its own run and the merge takes every conv-P.csv present, so a
#                   run split over several calls (e.g. one precision per call, to fit a time
#                   limit) into one OUT_DIR merges them all: use a fresh OUT_DIR for a new run.
#   CONV_OWN        1 (default): each conv precision also runs with ANYDNN_CUDNN=0 (anydnn's
#                   own solvers only; group <group>-own in conv-P-own.csv and the merge)
#   TORCH_PYTHON    the python with CUDA PyTorch for the PyTorch peer (default python3);
#                   NO_TORCH=1 skips that peer (the merge then has cuDNN only)
#   BUILD_DIR       build folder (default build; an existing one is reused as configured, a new
#                   one is configured with -DANYDNN_WITH_CUDA=ON, CUDA_ARCH=90 for one
#                   architecture only)
#   MODE_TIMEOUT    bound of each gpu_vs_cudnn / PyTorch call, seconds (default 600)
# Of the extra arguments, --quick --batch --filter --warmup --iters --budget-ms and --shapes /
# --conv-shapes also go to the PyTorch peer.
# Without matplotlib the script tries pip --user (NO_PIP=1: not); failing that, the plot is
# skipped: make it elsewhere with
#   python3 scripts/plot-gpu-bench.py OUT.png OUT_DIR/conv-merged.csv OUT_DIR/bn.csv OUT_DIR/rnn.csv
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench-gpu
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  out=$1
  shift
fi
# Default build folder: the one OUT_DIR lies in when it is one (scripts/gpu-check.sh passes
# BUILD/bench-gpu), else build/.
if [ -z "${BUILD_DIR:-}" ] && [ -f "$(dirname "$out")/CMakeCache.txt" ]; then
  build=$(cd "$(dirname "$out")" && pwd)
else
  build=${BUILD_DIR:-$root/build}
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
modes=${MODES:-conv bn rnn fusion}
timeout_s=${MODE_TIMEOUT:-600}

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_WITH_CUDA=ON \
    ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH} > "$out/configure.log"
fi
if ! cmake --build "$build" --target gpu_vs_cudnn > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  echo "bench-gpu: building gpu_vs_cudnn failed (needs -DANYDNN_WITH_CUDA=ON and cuDNN): $out/build.log"
  exit 1
fi
bin=$build/bin/gpu_vs_cudnn
grep -q "ANYDNN_HAVE_CUDNN_FRONTEND" "$build/build.ninja" 2> /dev/null ||
  echo "bench-gpu: WARNING: gpu_vs_cudnn was built without the cuDNN frontend headers: the conv" \
    "peer is cuDNN's legacy Find API (pip install nvidia-cudnn-frontend, or" \
    "scripts/gpu-offline-deps.sh, then reconfigure)"

# The options the PyTorch peers share with gpu_vs_cudnn (the fusion peer reads both shape files).
torch_args=()
fusion_torch_args=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --quick)
      torch_args+=(--quick)
      fusion_torch_args+=(--quick)
      ;;
    --batch | --filter | --warmup | --iters | --budget-ms | --shapes | --conv-shapes)
      torch_args+=("${args[i]}" "${args[i + 1]:-}")
      [ "${args[i]}" = --shapes ] || fusion_torch_args+=("${args[i]}" "${args[i + 1]:-}")
      i=$((i + 1))
      ;;
    --bn-shapes)
      fusion_torch_args+=("${args[i]}" "${args[i + 1]:-}")
      i=$((i + 1))
      ;;
  esac
done
torch_py=""
if [ "${NO_TORCH:-0}" != 1 ]; then
  p=${TORCH_PYTHON:-python3}
  if "$p" -c "import sys, torch; sys.exit(not torch.cuda.is_available())" 2> /dev/null; then
    torch_py=$p
  else
    echo "bench-gpu: no CUDA PyTorch in $p (TORCH_PYTHON): the PyTorch peer is skipped"
  fi
fi

# Each mode (and each conv precision) in its own run; one failing does not stop the others.
# A hung kernel must not eat the GPU session: timeout stops the whole process group.
status=0
run() { # LOG CMD...: runs CMD under the timeout, output to the terminal and LOG
  local log=$1
  shift
  if timeout -k 10 "$timeout_s" "$@" 2>&1 | tee "$log"; then :; else status=1; fi
}
for mode in $modes; do
  case $mode in
    conv)
      if [ -n "$torch_py" ]; then
        echo "=== conv: GEMM limits (PyTorch)"
        run "$out/torch-peaks.txt" "$torch_py" "$root/bench/gpu/torch_conv_peer.py" --peaks-only \
          --csv "$out/torch-peaks.csv"
      fi
      IFS=, read -r -a precisions <<< "${CONV_PRECISION:-fp32,tf32,fp16,bf16}"
      for p in "${precisions[@]}"; do
        echo "=== conv $p: anydnn vs cuDNN"
        rm -f "$out/conv-$p.csv" "$out/torch-conv-$p.csv"
        run "$out/conv-$p.txt" "$bin" conv --precision "$p" --csv "$out/conv-$p.csv" "$@"
        # anydnn's own solvers only (cuDNN's engines off): the second anydnn column.
        if [ "${CONV_OWN:-1}" = 1 ]; then
          echo "=== conv $p: anydnn's own solvers only (ANYDNN_CUDNN=0) vs cuDNN"
          rm -f "$out/conv-$p-own.csv"
          ANYDNN_CUDNN=0 run "$out/conv-$p-own.txt" "$bin" conv --precision "$p" \
            --csv "$out/conv-$p-own.csv" "$@"
        fi
        if [ -n "$torch_py" ]; then
          echo "=== conv $p: PyTorch"
          run "$out/torch-conv-$p.txt" "$torch_py" "$root/bench/gpu/torch_conv_peer.py" \
            --groups "$p" --csv "$out/torch-conv-$p.csv" "${torch_args[@]}"
        fi
      done
      ;;
    fusion)
      # One gpu_vs_cudnn run per group (TF32 is read once per process), then the PyTorch peer,
      # and the GEMM limits unless the conv mode measured them already.
      IFS=, read -r -a fprec <<< "${FUSION_PRECISION:-fp32,tf32,fp16,bn-fp32,bn-fp16}"
      for p in "${fprec[@]}"; do
        echo "=== fusion $p: anydnn fused / unfused vs cuDNN"
        rm -f "$out/fusion-$p.csv"
        run "$out/fusion-$p.txt" "$bin" fusion --precision "$p" --csv "$out/fusion-$p.csv" "$@"
      done
      if [ -n "$torch_py" ]; then
        echo "=== fusion: PyTorch"
        rm -f "$out/torch-fusion.csv"
        run "$out/torch-fusion.txt" "$torch_py" "$root/bench/gpu/torch_fusion_peer.py" \
          --groups "${FUSION_PRECISION:-fp32,tf32,fp16,bn-fp32,bn-fp16}" \
          --csv "$out/torch-fusion.csv" "${fusion_torch_args[@]}"
        if [ ! -s "$out/torch-peaks.csv" ]; then
          run "$out/torch-peaks.txt" "$torch_py" "$root/bench/gpu/torch_conv_peer.py" \
            --peaks-only --csv "$out/torch-peaks.csv"
        fi
      fi
      ;;
    bn | rnn | eltwise | layers)
      echo "=== $mode"
      rm -f "$out/$mode.csv"
      run "$out/$mode.txt" "$bin" "$mode" --csv "$out/$mode.csv" "$@"
      ;;
    *)
      echo "bench-gpu: unknown mode $mode (conv, bn, rnn, eltwise, layers, fusion)"
      status=1
      ;;
  esac
done

# Merge every conv precision present (also from earlier calls into this OUT_DIR).
conv_inputs=()
for p in fp32 tf32 fp16 bf16; do
  for f in "$out/conv-$p.csv" "$out/conv-$p-own.csv" "$out/torch-conv-$p.csv"; do
    [ -s "$f" ] && conv_inputs+=("$f")
  done
done
[ -s "$out/torch-peaks.csv" ] && conv_inputs+=("$out/torch-peaks.csv")
rm -f "$out/conv-merged.csv" "$out/conv-summary.txt"
if [ ${#conv_inputs[@]} -gt 0 ]; then
  echo "=== conv: merged"
  python3 "$root/bench/gpu/merge_conv.py" --summary "$out/conv-summary.txt" \
    --merged-csv "$out/conv-merged.csv" "${conv_inputs[@]}" || status=1
fi
# The fusion rows have their own columns and their own merge (fusion-summary.txt).
fusion_inputs=()
for f in "$out"/fusion-*.csv "$out/torch-fusion.csv" "$out/torch-peaks.csv"; do
  [ -s "$f" ] && fusion_inputs+=("$f")
done
rm -f "$out/fusion-summary.txt"
if ls "$out"/fusion-*.csv > /dev/null 2>&1; then
  echo "=== fusion: merged"
  python3 "$root/bench/gpu/merge_fusion.py" --summary "$out/fusion-summary.txt" \
    "${fusion_inputs[@]}" > /dev/null || status=1
  sed -n '/^# summary/,$p' "$out/fusion-summary.txt" 2> /dev/null || true
fi
csvs=()
for f in "$out/conv-merged.csv" "$out/bn.csv" "$out/rnn.csv" "$out/eltwise.csv" "$out/layers.csv"; do
  [ -s "$f" ] && csvs+=("$f")
done
if [ ${#csvs[@]} -eq 0 ]; then
  # Only the fusion mode ran (or nothing did).
  [ -s "$out/fusion-summary.txt" ] && cp "$out/fusion-summary.txt" "$out/summary.txt" &&
    echo "summary: $out/summary.txt" && echo "results: $out" && exit $status
  exit 1
fi

py=""
for p in python3 /usr/bin/python3; do
  if "$p" -c "import matplotlib" 2> /dev/null; then py=$p && break; fi
done
if [ -z "$py" ] && [ "${NO_PIP:-0}" != 1 ] && command -v python3 > /dev/null; then
  # The GPU machine may have no network: a failed install only skips the plot.
  echo "bench-gpu: installing matplotlib for the plot (pip --user)"
  pip_opts=(install --user --quiet --timeout 5 --retries 0 matplotlib)
  python3 -m pip "${pip_opts[@]}" > /dev/null 2>&1 ||
    python3 -m pip "${pip_opts[@]}" --break-system-packages > /dev/null 2>&1 || true
  python3 -c "import matplotlib" 2> /dev/null && py=python3
fi
rm -f "$out/gpu_vs_cudnn.png"
# summary.txt: the conv merge's report, then the geometric means of every group (the plot
# script prints them; with --no-plot when matplotlib is missing).
{
  [ -s "$out/conv-summary.txt" ] && cat "$out/conv-summary.txt" && echo
  [ -s "$out/fusion-summary.txt" ] && cat "$out/fusion-summary.txt" && echo
  if [ -n "$py" ]; then
    "$py" "$root/scripts/plot-gpu-bench.py" "$out/gpu_vs_cudnn.png" "${csvs[@]}" ||
      echo "bench-gpu: the plot failed (the CSV files are complete)"
  else
    python3 "$root/scripts/plot-gpu-bench.py" --no-plot "${csvs[@]}" || true
  fi
} > "$out/summary.txt"
sed -n '/^group /,$p' "$out/summary.txt"
if [ -s "$out/gpu_vs_cudnn.png" ]; then
  echo "plot: $out/gpu_vs_cudnn.png"
else
  echo "no plot (no matplotlib: python3 scripts/plot-gpu-bench.py OUT.png ${csvs[*]})"
fi
echo "summary: $out/summary.txt"
echo "results: $out"
exit $status
