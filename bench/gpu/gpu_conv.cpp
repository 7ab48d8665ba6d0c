// Convolution: anydnn (Find, exhaustive, then the winner's run call) vs cuDNN (FindEx with the
// same workspace, then the winner), on the same input buffers and the same stream.
#include <miopen/anydnn.h>
#include <stdlib.h>

#include <array>
#include <cstdio>

#include "bench_common.hpp"
#include "gpu_common.hpp"

namespace anydnn::gpubench {

namespace {

struct Precision {
  std::string group;
  DType type;
  bool nhwc;
  bool tf32;
  cudnnMathType_t math;  // what cuDNN's Find may use
  double tol;            // relative L2 difference still counted as a match
};

Precision precision_of(const std::string& p) {
  // Strict fp32: cuDNN restricted to FMA math (no TF32), anydnn without ANYDNN_CONV_ALLOW_TF32.
  if (p == "fp32") return {"conv-fp32", DType::F32, false, false, CUDNN_FMA_MATH, 1e-4};
  // TF32: cuDNN's default math (tensor cores with TF32 allowed), anydnn with the env var set.
  if (p == "tf32") return {"conv-tf32", DType::F32, false, true, CUDNN_DEFAULT_MATH, 5e-3};
  // fp16 storage, fp32 accumulation, NHWC on both sides (the tensor-core layout).
  if (p == "fp16") return {"conv-fp16-nhwc", DType::F16, true, false, CUDNN_TENSOR_OP_MATH, 1e-2};
  throw Fatal("conv: unknown precision '" + p + "' (fp32, tf32, fp16)");
}

const char* kDirs[3] = {"fwd", "bwdd", "bwdw"};

std::string math_suffix(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_TENSOR_OP_MATH:
      return "/TC";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "/TC-conv";
    case CUDNN_FMA_MATH:
      return "/FMA";
    default:
      return "";
  }
}

std::string fwd_algo_name(cudnnConvolutionFwdAlgo_t a) {
  static const char* n[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 8 ? n[i] : "fwd-algo-" + std::to_string(i);
}
std::string bwdd_algo_name(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* n[] = {"ALGO_0",     "ALGO_1",   "FFT",
                            "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 6 ? n[i] : "bwdd-algo-" + std::to_string(i);
}
std::string bwdw_algo_name(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* n[] = {"ALGO_0",    "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                            "FFT_TILING"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 7 ? n[i] : "bwdw-algo-" + std::to_string(i);
}

// Descriptors of one layer on both libraries.
struct Layer {
  miopenTensorDescriptor_t mx = nullptr, mw = nullptr, my = nullptr;
  miopenConvolutionDescriptor_t mc = nullptr;
  cudnnTensorDescriptor_t cx = nullptr, cy = nullptr;
  cudnnFilterDescriptor_t cw = nullptr;
  cudnnConvolutionDescriptor_t cc = nullptr;
  size_t nx = 0, nw = 0, ny = 0;

  Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;
  ~Layer() {
    if (mx) miopenDestroyTensorDescriptor(mx);
    if (mw) miopenDestroyTensorDescriptor(mw);
    if (my) miopenDestroyTensorDescriptor(my);
    if (mc) miopenDestroyConvolutionDescriptor(mc);
    if (cx) cudnnDestroyTensorDescriptor(cx);
    if (cy) cudnnDestroyTensorDescriptor(cy);
    if (cw) cudnnDestroyFilterDescriptor(cw);
    if (cc) cudnnDestroyConvolutionDescriptor(cc);
  }

  void init(const driver::ConvSpec& s, const Precision& p) {
    if (s.spatial_dims != 2 || s.transpose) throw Failure("only 2-D forward convolutions");
    const miopenDataType_t mt = miopen_type(p.type);
    const miopenTensorLayout_t ml = p.nhwc ? miopenTensorNHWC : miopenTensorNCHW;
    check_miopen(miopenCreateTensorDescriptor(&mx), "miopenCreateTensorDescriptor");
    check_miopen(miopenCreateTensorDescriptor(&mw), "miopenCreateTensorDescriptor");
    check_miopen(miopenCreateTensorDescriptor(&my), "miopenCreateTensorDescriptor");
    check_miopen(miopenCreateConvolutionDescriptor(&mc), "miopenCreateConvolutionDescriptor");
    check_miopen(miopenSetNdTensorDescriptorWithLayout(mx, mt, ml, s.in_lens.data(), 4), "x desc");
    check_miopen(miopenSetNdTensorDescriptorWithLayout(mw, mt, ml, s.wei_lens.data(), 4), "w desc");
    check_miopen(miopenInitConvolutionNdDescriptor(mc, 2, s.pads.data(), s.strides.data(),
                                                   s.dilations.data(), miopenConvolution),
                 "miopenInitConvolutionNdDescriptor");
    check_miopen(miopenSetConvolutionGroupCount(mc, s.groups), "miopenSetConvolutionGroupCount");
    int nd = 0;
    std::array<int, 4> yl{};
    check_miopen(miopenGetConvolutionNdForwardOutputDim(mc, mx, mw, &nd, yl.data()),
                 "miopenGetConvolutionNdForwardOutputDim");
    check_miopen(miopenSetNdTensorDescriptorWithLayout(my, mt, ml, yl.data(), 4), "y desc");

    const cudnnDataType_t ct = cudnn_type(p.type);
    const cudnnTensorFormat_t cf = p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    check_cudnn(cudnnCreateTensorDescriptor(&cx), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&cy), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&cw), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&cc), "cudnnCreateConvolutionDescriptor");
    const auto& i = s.in_lens;
    const auto& w = s.wei_lens;
    check_cudnn(cudnnSetTensor4dDescriptor(cx, cf, ct, i[0], i[1], i[2], i[3]), "cudnn x desc");
    check_cudnn(cudnnSetFilter4dDescriptor(cw, ct, cf, w[0], w[1], w[2], w[3]), "cudnn w desc");
    // fp32 accumulation for fp16 too (what MIOpen's half convolutions do).
    check_cudnn(cudnnSetConvolution2dDescriptor(cc, s.pads[0], s.pads[1], s.strides[0],
                                                s.strides[1], s.dilations[0], s.dilations[1],
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(cc, s.groups), "cudnnSetConvolutionGroupCount");
    int n = 0, k = 0, ho = 0, wo = 0;
    check_cudnn(cudnnGetConvolution2dForwardOutputDim(cc, cx, cw, &n, &k, &ho, &wo),
                "cudnnGetConvolution2dForwardOutputDim");
    if (n != yl[0] || k != yl[1] || ho != yl[2] || wo != yl[3])
      throw Failure("output sizes differ between anydnn and cuDNN");
    check_cudnn(cudnnSetTensor4dDescriptor(cy, cf, ct, n, k, ho, wo), "cudnn y desc");
    nx = static_cast<size_t>(i[0]) * i[1] * i[2] * i[3];
    nw = static_cast<size_t>(w[0]) * w[1] * w[2] * w[3];
    ny = static_cast<size_t>(n) * k * ho * wo;
  }
};

struct Buffers {
  DeviceMem x, w, dy;                    // inputs, shared by both libraries
  DeviceMem ya, yc, dxa, dxc, dwa, dwc;  // outputs: a = anydnn, c = cuDNN
};

// anydnn: Find (exhaustive) ranks the solvers; the first one's algorithm is timed.
double time_anydnn(miopenHandle_t h, cudaStream_t st, const Layer& l, Buffers& b,
                   const DeviceMem& ws, int dir, const TimingPlan& plan, std::string* solver) {
  miopenConvAlgoPerf_t perf[8];
  int found = 0;
  void* w = ws.get();
  const size_t wb = ws.bytes();
  if (dir == 0)
    check_miopen(
        miopenFindConvolutionForwardAlgorithm(h, l.mx, b.x.get(), l.mw, b.w.get(), l.mc, l.my,
                                              b.ya.get(), 8, &found, perf, w, wb, true),
        "miopenFindConvolutionForwardAlgorithm");
  else if (dir == 1)
    check_miopen(
        miopenFindConvolutionBackwardDataAlgorithm(h, l.my, b.dy.get(), l.mw, b.w.get(), l.mc, l.mx,
                                                   b.dxa.get(), 8, &found, perf, w, wb, true),
        "miopenFindConvolutionBackwardDataAlgorithm");
  else
    check_miopen(miopenFindConvolutionBackwardWeightsAlgorithm(h, l.my, b.dy.get(), l.mx, b.x.get(),
                                                               l.mc, l.mw, b.dwa.get(), 8, &found,
                                                               perf, w, wb, true),
                 "miopenFindConvolutionBackwardWeightsAlgorithm");
  check_context(st);
  if (found < 1) throw Failure("anydnn Find returned no algorithm");

  // The solver behind the first algorithm: the first solution Find recorded.
  miopenConvSolution_t sol{};
  size_t count = 0;
  miopenStatus_t rc = miopenStatusSuccess;
  if (dir == 0)
    rc = miopenConvolutionForwardGetSolution(h, l.mw, l.mx, l.mc, l.my, 1, &count, &sol);
  else if (dir == 1)
    rc = miopenConvolutionBackwardDataGetSolution(h, l.my, l.mw, l.mc, l.mx, 1, &count, &sol);
  else
    rc = miopenConvolutionBackwardWeightsGetSolution(h, l.my, l.mx, l.mc, l.mw, 1, &count, &sol);
  const char* name = nullptr;
  const bool named = rc == miopenStatusSuccess && count >= 1 &&
                     anydnnGetConvSolverName(h, sol.solution_id, &name) == miopenStatusSuccess &&
                     name != nullptr;
  solver->assign(named ? name : "?");

  const float alpha = 1.0f, beta = 0.0f;
  const miopenConvAlgoPerf_t best = perf[0];
  return time_call(
      st,
      [&] {
        if (dir == 0)
          check_miopen(miopenConvolutionForward(h, &alpha, l.mx, b.x.get(), l.mw, b.w.get(), l.mc,
                                                best.fwd_algo, &beta, l.my, b.ya.get(), w, wb),
                       "miopenConvolutionForward");
        else if (dir == 1)
          check_miopen(
              miopenConvolutionBackwardData(h, &alpha, l.my, b.dy.get(), l.mw, b.w.get(), l.mc,
                                            best.bwd_data_algo, &beta, l.mx, b.dxa.get(), w, wb),
              "miopenConvolutionBackwardData");
        else
          check_miopen(miopenConvolutionBackwardWeights(h, &alpha, l.my, b.dy.get(), l.mx,
                                                        b.x.get(), l.mc, best.bwd_weights_algo,
                                                        &beta, l.mw, b.dwa.get(), w, wb),
                       "miopenConvolutionBackwardWeights");
      },
      plan);
}

// cuDNN: FindEx over every algorithm with the same workspace; the fastest that ran is timed
// with the math type it was measured with.
double time_cudnn(cudnnHandle_t h, cudaStream_t st, const Layer& l, Buffers& b, const DeviceMem& ws,
                  int dir, const Precision& p, const TimingPlan& plan, std::string* algo_name) {
  void* w = ws.get();
  const size_t wb = ws.bytes();
  check_cudnn(cudnnSetConvolutionMathType(l.cc, p.math), "cudnnSetConvolutionMathType");
  const float alpha = 1.0f, beta = 0.0f;
  std::function<void()> call;
  if (dir == 0) {
    int max = 0, got = 0;
    check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max), "MaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
    check_cudnn(
        cudnnFindConvolutionForwardAlgorithmEx(h, l.cx, b.x.get(), l.cw, b.w.get(), l.cc, l.cy,
                                               b.yc.get(), max, &got, perf.data(), w, wb),
        "cudnnFindConvolutionForwardAlgorithmEx");
    const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
    for (int i = 0; i < got && !best; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
    if (!best) throw Failure("cuDNN FindEx: no forward algorithm ran");
    const cudnnConvolutionFwdAlgo_t a = best->algo;
    check_cudnn(cudnnSetConvolutionMathType(l.cc, best->mathType), "cudnnSetConvolutionMathType");
    *algo_name = fwd_algo_name(a) + math_suffix(best->mathType);
    call = [&, a] {
      check_cudnn(cudnnConvolutionForward(h, &alpha, l.cx, b.x.get(), l.cw, b.w.get(), l.cc, a, w,
                                          wb, &beta, l.cy, b.yc.get()),
                  "cudnnConvolutionForward");
    };
  } else if (dir == 1) {
    int max = 0, got = 0;
    check_cudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max), "MaxCount");
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
    check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(h, l.cw, b.w.get(), l.cy, b.dy.get(),
                                                            l.cc, l.cx, b.dxc.get(), max, &got,
                                                            perf.data(), w, wb),
                "cudnnFindConvolutionBackwardDataAlgorithmEx");
    const cudnnConvolutionBwdDataAlgoPerf_t* best = nullptr;
    for (int i = 0; i < got && !best; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
    if (!best) throw Failure("cuDNN FindEx: no backward-data algorithm ran");
    const cudnnConvolutionBwdDataAlgo_t a = best->algo;
    check_cudnn(cudnnSetConvolutionMathType(l.cc, best->mathType), "cudnnSetConvolutionMathType");
    *algo_name = bwdd_algo_name(a) + math_suffix(best->mathType);
    call = [&, a] {
      check_cudnn(cudnnConvolutionBackwardData(h, &alpha, l.cw, b.w.get(), l.cy, b.dy.get(), l.cc,
                                               a, w, wb, &beta, l.cx, b.dxc.get()),
                  "cudnnConvolutionBackwardData");
    };
  } else {
    int max = 0, got = 0;
    check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max), "MaxCount");
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
    check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, l.cx, b.x.get(), l.cy, b.dy.get(),
                                                              l.cc, l.cw, b.dwc.get(), max, &got,
                                                              perf.data(), w, wb),
                "cudnnFindConvolutionBackwardFilterAlgorithmEx");
    const cudnnConvolutionBwdFilterAlgoPerf_t* best = nullptr;
    for (int i = 0; i < got && !best; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
    if (!best) throw Failure("cuDNN FindEx: no backward-filter algorithm ran");
    const cudnnConvolutionBwdFilterAlgo_t a = best->algo;
    check_cudnn(cudnnSetConvolutionMathType(l.cc, best->mathType), "cudnnSetConvolutionMathType");
    *algo_name = bwdw_algo_name(a) + math_suffix(best->mathType);
    call = [&, a] {
      check_cudnn(cudnnConvolutionBackwardFilter(h, &alpha, l.cx, b.x.get(), l.cy, b.dy.get(), l.cc,
                                                 a, w, wb, &beta, l.cw, b.dwc.get()),
                  "cudnnConvolutionBackwardFilter");
    };
  }
  check_context(st);
  return time_call(st, call, plan);
}

// A workspace as large as asked, or the largest power-of-two fraction that fits.
DeviceMem workspace(size_t mb) {
  for (size_t bytes = mb << 20; bytes >= (size_t{1} << 20); bytes /= 2) {
    try {
      return DeviceMem(bytes, "workspace");
    } catch (const Failure&) {
    }
  }
  return DeviceMem();
}

}  // namespace

std::vector<Row> run_conv(const Options& o, const std::string& precision) {
  const Precision p = precision_of(precision);
  // Read by anydnn when its first handle is created (the configuration is read once per
  // process), hence one process per precision.
  setenv("ANYDNN_CONV_ALLOW_TF32", p.tf32 ? "1" : "0", 1);
  const std::string file = o.shapes.empty() ? ANYDNN_GPU_CONV_SHAPES : o.shapes;
  auto layers = bench::load_layers(file, o.batch);
  std::erase_if(layers, [&](const bench::Layer& l) {
    return bench::layer_name(l.spec).find(o.filter) == std::string::npos;
  });
  if (o.list) {
    for (const auto& [spec, count] : layers)
      std::printf("%s %-30s x%d %8.2f GFLOP\n", p.group.c_str(), bench::layer_name(spec).c_str(),
                  count, bench::layer_flops(spec) / 1e9);
    return {};
  }

  cudaStream_t st = nullptr;
  check_cuda(cudaStreamCreate(&st), "cudaStreamCreate");
  miopenHandle_t mh = make_anydnn_handle(st);
  cudnnHandle_t ch = nullptr;
  check_cudnn(cudnnCreate(&ch), "cudnnCreate");
  check_cudnn(cudnnSetStream(ch, st), "cudnnSetStream");
  const DeviceMem ws = workspace(o.workspace_mb);

  char title[512];
  std::snprintf(title, sizeof title,
                "%s: %s, %zu layers at N=%d, workspace %zu MiB for both, %s, up to %d warm-up + "
                "%d timed calls (median), verify tol %.0e",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), layers.size(),
                o.batch, ws.bytes() >> 20, environment_line().c_str(), o.plan.warmup, o.plan.iters,
                p.tol);
  print_header(title);

  std::vector<Row> rows;
  auto emit = [&](const Row& r) {
    print_row(r);
    append_csv(o.csv, {r});
    rows.push_back(r);
  };
  uint64_t seed = 1;
  for (const auto& [spec, count] : layers) {
    Row base;
    base.group = p.group;
    base.shape = bench::layer_name(spec);
    base.count = count;
    base.work = bench::layer_flops(spec) / 1e9;
    base.unit = "GFLOP";
    Layer l;
    Buffers b;
    try {
      l.init(spec, p);
      const size_t es = dtype_size(p.type);
      b.x = DeviceMem(l.nx * es, "x");
      b.w = DeviceMem(l.nw * es, "w");
      b.dy = DeviceMem(l.ny * es, "dy");
      b.ya = DeviceMem(l.ny * es, "y");
      b.yc = DeviceMem(l.ny * es, "y");
      b.dxa = DeviceMem(l.nx * es, "dx");
      b.dxc = DeviceMem(l.nx * es, "dx");
      b.dwa = DeviceMem(l.nw * es, "dw");
      b.dwc = DeviceMem(l.nw * es, "dw");
      fill_uniform(b.x.get(), p.type, l.nx, seed++, -1, 1, st);
      fill_uniform(b.w.get(), p.type, l.nw, seed++, -1, 1, st);
      fill_uniform(b.dy.get(), p.type, l.ny, seed++, -1, 1, st);
      check_context(st);
    } catch (const Failure& e) {
      for (const char* d : kDirs) {
        Row r = base;
        r.dir = d;
        r.note = std::string("setup: ") + e.what();
        emit(r);
      }
      continue;
    }
    for (int dir = 0; dir < 3; ++dir) {
      Row r = base;
      r.dir = kDirs[dir];
      try {
        r.any_ms = time_anydnn(mh, st, l, b, ws, dir, o.plan, &r.any_solver);
      } catch (const Failure& e) {
        r.note += std::string("anydnn: ") + e.what() + " ";
      }
      try {
        r.cud_ms = time_cudnn(ch, st, l, b, ws, dir, p, o.plan, &r.cud_algo);
      } catch (const Failure& e) {
        r.note += std::string("cuDNN: ") + e.what();
      }
      if (o.verify && std::isfinite(r.any_ms) && std::isfinite(r.cud_ms)) {
        const DeviceMem& a = dir == 0 ? b.ya : dir == 1 ? b.dxa : b.dwa;
        const DeviceMem& c = dir == 0 ? b.yc : dir == 1 ? b.dxc : b.dwc;
        const size_t n = dir == 0 ? l.ny : dir == 1 ? l.nx : l.nw;
        try {
          const Diff d = compare(a.get(), c.get(), p.type, n, st);
          r.rel_err = d.rel_l2;
          r.verify = !d.finite ? "NONFINITE" : d.rel_l2 <= p.tol ? "ok" : "MISMATCH";
        } catch (const Failure& e) {
          r.note += std::string("verify: ") + e.what();
        }
      }
      emit(r);
    }
  }
  print_summary(rows, p.group);
  cudnnDestroy(ch);
  miopenDestroy(mh);
  cudaStreamDestroy(st);
  return rows;
}

}  // namespace anydnn::gpubench
