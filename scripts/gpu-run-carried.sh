#!/bin/bash
# One GPU-machine call on binaries built on the development machine and carried in
# build-carry/bin.tar.xz (docs/testing.md, "The GPU check": how to build and pack them); builds
# MIOpen, the GPU tests, gpu_vs_cudnn and solver_bench there instead when they are missing or do
# not load. Run from the checkout's root on the GPU machine, results under $OUT:
#   STEPS="tests sweep bench nsys"  what to run, in order (default: tests)
#   TESTS=FILTER                    gtest filter of the GPU test program (default *Wgmma*)
#   TEST_TIMEOUT=S                  its time limit (default 300)
#   PREC="fp16 fp32"                gpu_vs_cudnn conv precision groups (bench)
#   BENCH_ARGS=--quick BENCH_TIMEOUT=S TORCH=1 (PyTorch peer and the merged summary)
#   OWN=1                           also the bench with ANYDNN_CUDNN=0 (anydnn's own solvers)
#   SWEEP_TYPE=fp16                 solver_bench type for the per-solver sweep of the CUTLASS kernels
#   NSYS_FILTER=TEXT                the layer nsys profiles (kernel and API summaries)
set -u
root=$PWD
out=${OUT:-/tmp/out}
mkdir -p "$out"
args=$(scripts/gpu-offline-deps.sh unpack)
lib=/tmp/anydnn-deps/sqlite/usr/lib/x86_64-linux-gnu
B=$root/build-gpu
export LD_LIBRARY_PATH=$lib:$B/lib:${LD_LIBRARY_PATH:-}
# The test program reads its problem lists from the absolute path it was built with.
if [ ! -e /work/main/tests ]; then
  mkdir -p /work/main && ln -s "$root/tests" /work/main/tests
fi
nvidia-smi -L
head -2 /etc/os-release; ldd --version | head -1
if [ -f build-carry/bin.tar.xz ] && [ ! -d build-gpu ]; then
  SECONDS=0; tar -xJf build-carry/bin.tar.xz; echo "unpacked carried binaries ($SECONDS s)"
fi
need_build=0
for b in anydnn_gpu_tests gpu_vs_cudnn solver_bench; do
  [ -x "$B/bin/$b" ] || need_build=1
  [ -x "$B/bin/$b" ] && ldd "$B/bin/$b" | grep "not found" && need_build=1
done
if [ $need_build = 1 ]; then
  echo "=== building on the device"
  export PATH=/tmp/anydnn-deps/bin:$PATH
  # shellcheck source=scripts/ccache-env.sh
  . scripts/ccache-env.sh
  B=/tmp/bg
  export LD_LIBRARY_PATH=$lib:$B/lib:${LD_LIBRARY_PATH:-}
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYDNN_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 $args > $out/cfg.log 2>&1 || { tail -30 $out/cfg.log; exit 1; }
  grep "anydnn" $out/cfg.log
  SECONDS=0
  cmake --build $B -j16 --target MIOpen anydnn_gpu_tests gpu_vs_cudnn solver_bench > $out/build.log 2>&1 || { grep -B2 -A10 "error" $out/build.log | head -60; exit 1; }
  echo "build: $SECONDS s"
fi
export MIOPEN_BACKEND=cuda
for step in ${STEPS:-tests}; do
  SECONDS=0
  case $step in
    tests)
      MIOPEN_USER_DB_PATH=/tmp/db-tests timeout ${TEST_TIMEOUT:-300} $B/bin/anydnn_gpu_tests --gtest_filter="${TESTS:-*Wgmma*}" --gtest_brief=1 > $out/tests.txt 2>&1
      echo "tests rc=$? ($SECONDS s)"; grep -E "FAILED|PASSED|Failure|error" $out/tests.txt | head -40 ;;
    sweep)
      for d in fwd bwdd bwdw; do
        case $d in fwd) s=ImplicitGemmTensorCoreFwd,ImplicitGemmWgmmaFwd128x128,ImplicitGemmWgmmaFwd128x128c2,ImplicitGemmWgmmaFwd128x64,ImplicitGemmWgmmaFwd64x128 ;;
          bwdd) s=ImplicitGemmTensorCoreBwdS1,ImplicitGemmTensorCoreBwd,ImplicitGemmWgmmaBwd128x128,ImplicitGemmWgmmaBwd128x64,ImplicitGemmWgmmaBwd64x128 ;;
          bwdw) s=ImplicitGemmTensorCoreWrw,ImplicitGemmTensorCoreWrwSerial,ImplicitGemmWgmmaWrw128x128,ImplicitGemmWgmmaWrw64x128,ImplicitGemmWgmmaWrw128x64 ;; esac
        timeout 200 $B/bin/solver_bench --backend cuda --shapes bench/shapes/resnet50_v15.txt --batch 32 --type ${SWEEP_TYPE:-fp16} --layout NHWC --dirs $d --solvers $s --csv $out/sweep.csv --tag ${SWEEP_TYPE:-fp16} > $out/sweep-$d.txt 2>&1
        echo "sweep $d rc=$?"
      done; echo "sweep ($SECONDS s)" ;;
    bench)
      for p in ${PREC:-fp16}; do
        SECONDS=0
        MIOPEN_USER_DB_PATH=/tmp/db-bench-$p timeout ${BENCH_TIMEOUT:-300} $B/bin/gpu_vs_cudnn conv --precision $p --csv $out/conv-$p.csv ${BENCH_ARGS:-} > $out/conv-$p.txt 2>&1 &
        wait $!
        echo "bench $p rc=$? ($SECONDS s)"; grep "GEOMEAN" $out/conv-$p.txt
        if [ "${OWN:-0}" = 1 ]; then  # anydnn's own solvers only (cuDNN's engines off)
          SECONDS=0
          ANYDNN_CUDNN=0 MIOPEN_USER_DB_PATH=/tmp/db-bench-$p-own timeout ${BENCH_TIMEOUT:-300} $B/bin/gpu_vs_cudnn conv --precision $p --csv $out/conv-$p-own.csv ${BENCH_ARGS:-} > $out/conv-$p-own.txt 2>&1
          echo "bench $p own rc=$? ($SECONDS s)"; grep "GEOMEAN" $out/conv-$p-own.txt
        fi
        if [ "${TORCH:-0}" = 1 ]; then
          SECONDS=0
          timeout 150 python3 bench/gpu/torch_conv_peer.py --groups $p --csv $out/torch-conv-$p.csv ${BENCH_ARGS:-} > $out/torch-conv-$p.txt 2>&1
          echo "torch $p rc=$? ($SECONDS s)"
        fi
      done
      if [ "${TORCH:-0}" = 1 ]; then
        timeout 60 python3 bench/gpu/torch_conv_peer.py --peaks-only --csv $out/torch-peaks.csv > $out/torch-peaks.txt 2>&1
        ins=(); for p in fp32 tf32 fp16 bf16; do for f in $out/conv-$p.csv $out/conv-$p-own.csv $out/torch-conv-$p.csv; do [ -s "$f" ] && ins+=("$f"); done; done
        [ -s "$out/torch-peaks.csv" ] && ins+=("$out/torch-peaks.csv")
        python3 bench/gpu/merge_conv.py --summary $out/conv-summary.txt --merged-csv $out/conv-merged.csv "${ins[@]}" > /dev/null 2>&1
        sed -n '/summary/,$p' $out/conv-summary.txt | head -40
      fi ;;
    nsys)
      MIOPEN_USER_DB_PATH=/tmp/db-nsys nsys profile -t cuda -o /tmp/prof --force-overwrite true $B/bin/gpu_vs_cudnn conv --precision fp16 --filter "${NSYS_FILTER:-c2048 7x7 k512}" --quick > $out/nsys-run.txt 2>&1
      nsys stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv -o $out/nsys /tmp/prof.nsys-rep > /dev/null 2>&1
      echo "nsys ($SECONDS s)"; ls "$out"/nsys* ;;
  esac
done
