// Fusion mode: what fusing saves on the GPU and where it stands against cuDNN's fused paths.
// Per ResNet-50 v1.5 layer (conv + bias + ReLU; fp32 without TF32, TF32, fp16 NHWC) and per
// batch-norm shape (BN + ReLU: forward training, backward, inference; fp32 NCHW, fp16 NHWC):
//   fused    anydnn's fusion plan (miopenCompileFusionPlan once, miopenExecuteFusionPlan timed);
//   unfused  the anydnn calls a user makes without fusion, timed as one sequence: the
//            convolution (Find's exhaustive best), miopenConvolutionForwardBias and
//            miopenActivationForward in place; or the BN call and the activation call
//            (backward: miopenActivationBackward, then miopenBatchNormalizationBackward);
//   cuDNN    conv: the frontend graph conv -> add -> ReLU, autotuned (gpu_fusion_cudnn.cpp);
//            BN: the *Ex calls with CUDNN_BATCHNORM_OPS_BN_ACTIVATION (cuDNN's fused BN + ReLU)
//            where cuDNN takes them, else the BN call then the activation call, the faster of
//            SPATIAL and SPATIAL_PERSISTENT; inference has no fused legacy call (BN, then ReLU).
// The unfused Find runs first, so the fused plan (immediate mode's choice among the solvers
// that take the epilogue, find-db record first) uses the same convolution solver whenever that
// one takes the epilogue: the fused / unfused ratio then measures the fusion alone. Outputs:
// fused against unfused (for fp32, equal bits prove the same solver) and against cuDNN.
// The PyTorch peer and the fraction of the hardware limit come from bench/gpu/
// torch_fusion_peer.py and merge_fusion.py (scripts/bench-gpu.sh, MODES=fusion).
#include "gpu_fusion.hpp"

#include <miopen/anydnn.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "bench_common.hpp"

namespace anydnn::gpubench {

FusionPrecision fusion_precision_of(const std::string& p) {
  if (p == "fp32") return {"cbr-fp32", DType::F32, false, false, false, 1e-4};
  if (p == "tf32") return {"cbr-tf32", DType::F32, false, true, false, 5e-3};
  if (p == "fp16") return {"cbr-fp16-nhwc", DType::F16, true, false, false, 1e-2};
  // BN: fp32 NCHW; fp16 NHWC data with fp32 scale, bias and statistics (bnormfp16fp32).
  if (p == "bn-fp32") return {"bnrelu-fp32-nchw", DType::F32, false, false, true, 1e-4};
  if (p == "bn-fp16") return {"bnrelu-fp16-nhwc", DType::F16, true, false, true, 1e-2};
  throw Fatal("fusion: unknown precision '" + p + "' (fp32, tf32, fp16, bn-fp32, bn-fp16)");
}

namespace {

std::string clean(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

}  // namespace

void write_fusion_csv_header(const std::string& path) {
  if (path.empty()) return;
  std::ofstream f(path, std::ios::trunc);
  f << "kind,group,shape,count,dir,work,unit,extra_gb,fused_ms,unfused_ms,cudnn_ms,unfused_path,"
       "cudnn_path,verify,err_unfused,err_cudnn,bits_equal,copy_gbs,note\n";
}

void append_fusion_row(const std::string& path, const FusionRow& r) {
  if (path.empty()) return;
  std::ofstream f(path, std::ios::app);
  f << "fusion," << r.group << "," << clean(r.shape) << "," << r.count << "," << r.dir << ","
    << r.work << "," << r.unit << "," << r.extra_gb << "," << r.fused_ms << "," << r.unfused_ms
    << "," << r.cudnn_ms << "," << clean(r.unfused_path) << "," << clean(r.cudnn_path) << ","
    << r.verify << "," << r.err_unfused << "," << r.err_cudnn << "," << (r.bits_equal ? 1 : 0)
    << "," << r.copy_gbs << "," << clean(r.note) << "\n";
}

void print_fusion_title(const std::string& title) {
  std::printf("\n# %s\n", title.c_str());
  std::printf("%-30s %-5s %9s %9s %9s %6s %6s %11s %-9s %s\n", "shape", "dir", "fused", "unfused",
              "cuDNN", "f/u", "f/c", "fused rate", "verify", "unfused path ; cuDNN path");
}

void print_fusion_row(const FusionRow& r) {
  char rate[40] = "-";
  if (std::isfinite(r.fused_ms) && r.fused_ms > 0) {
    if (r.unit == "GB")
      std::snprintf(rate, sizeof rate, "%.0f GB/s", r.work / r.fused_ms * 1e3);
    else
      std::snprintf(rate, sizeof rate, "%.1f TF/s", r.work / r.fused_ms);
  }
  const char* sep = r.note.empty() ? "" : "  # ";
  std::printf("%-30s %-5s %9.4f %9.4f %9.4f %6.2f %6.2f %11s %-9s %s ; %s%s%s\n", r.shape.c_str(),
              r.dir.c_str(), r.fused_ms, r.unfused_ms, r.cudnn_ms, r.fused_ms / r.unfused_ms,
              r.fused_ms / r.cudnn_ms, rate, r.verify.c_str(), r.unfused_path.c_str(),
              r.cudnn_path.c_str(), sep, r.note.c_str());
  std::fflush(stdout);
}

void print_fusion_totals(const std::vector<FusionRow>& rows, const std::string& group) {
  std::vector<std::string> dirs;
  for (const auto& r : rows)
    if (std::find(dirs.begin(), dirs.end(), r.dir) == dirs.end()) dirs.push_back(r.dir);
  for (const auto& d : dirs) {
    double f = 0, u = 0, c = 0, lf = 0, lc = 0;
    int n = 0, nc = 0;
    for (const auto& r : rows) {
      if (r.dir != d || !std::isfinite(r.fused_ms) || !std::isfinite(r.unfused_ms)) continue;
      f += r.count * r.fused_ms;
      u += r.count * r.unfused_ms;
      lf += std::log(r.fused_ms / r.unfused_ms);
      ++n;
      if (std::isfinite(r.cudnn_ms)) {
        c += r.count * r.cudnn_ms;
        lc += std::log(r.fused_ms / r.cudnn_ms);
        ++nc;
      }
    }
    if (n == 0) continue;
    std::printf(
        "TOTAL %-18s %-5s fused %.3f ms, unfused %.3f ms: fused/unfused %.3f (geomean "
        "%.3f, %d rows)",
        group.c_str(), d.c_str(), f, u, f / u, std::exp(lf / n), n);
    if (nc > 0)
      std::printf("; fused/cuDNN geomean %.3f (%d rows, cuDNN sum %.3f ms)", std::exp(lc / nc), nc,
                  c);
    std::printf("\n");
  }
}

void fusion_check(FusionRow& r, const void* got, const void* want, DType t, size_t n, double tol,
                  cudaStream_t st, double* err, const char* what) {
  const Diff d = compare(got, want, t, n, st);
  *err = d.rel_l2;
  const std::string v = !d.finite ? "NONFINITE" : d.rel_l2 <= tol ? "ok" : "MISMATCH";
  if (v != "ok") r.note += std::string(what) + ": " + v + " ";
  if (r.verify == "-" || r.verify == "ok") r.verify = v;
}

bool same_bits(const void* a, const void* b, size_t bytes) {
  std::vector<unsigned char> ha(bytes), hb(bytes);
  check_cuda(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return std::memcmp(ha.data(), hb.data(), bytes) == 0;
}

MiopenObjects::~MiopenObjects() {
  for (auto a : args_)
    miopenDestroyOperatorArgs(a);
  for (auto p : plans_)
    miopenDestroyFusionPlan(p);
  for (auto t : tensors_)
    miopenDestroyTensorDescriptor(t);
  if (conv) miopenDestroyConvolutionDescriptor(conv);
  if (act_) miopenDestroyActivationDescriptor(act_);
}

miopenTensorDescriptor_t MiopenObjects::tensor(DType t, const std::array<int, 4>& lens, bool nhwc) {
  miopenTensorDescriptor_t d = nullptr;
  check_miopen(miopenCreateTensorDescriptor(&d), "miopenCreateTensorDescriptor");
  tensors_.push_back(d);
  std::array<int, 4> l = lens;
  check_miopen(miopenSetNdTensorDescriptorWithLayout(
                   d, miopen_type(t), nhwc ? miopenTensorNHWC : miopenTensorNCHW, l.data(), 4),
               "tensor descriptor");
  return d;
}

miopenActivationDescriptor_t MiopenObjects::relu() {
  if (!act_) {
    check_miopen(miopenCreateActivationDescriptor(&act_), "miopenCreateActivationDescriptor");
    check_miopen(miopenSetActivationDescriptor(act_, miopenActivationRELU, 0, 0, 0),
                 "miopenSetActivationDescriptor");
  }
  return act_;
}

miopenFusionPlanDescriptor_t MiopenObjects::plan(miopenTensorDescriptor_t input) {
  miopenFusionPlanDescriptor_t p = nullptr;
  check_miopen(miopenCreateFusionPlan(&p, miopenVerticalFusion, input), "miopenCreateFusionPlan");
  plans_.push_back(p);
  return p;
}

miopenOperatorArgs_t MiopenObjects::op_args() {
  miopenOperatorArgs_t a = nullptr;
  check_miopen(miopenCreateOperatorArgs(&a), "miopenCreateOperatorArgs");
  args_.push_back(a);
  return a;
}

namespace {

std::string solver_name(miopenHandle_t h, uint64_t id) {
  const char* name = nullptr;
  if (anydnnGetConvSolverName(h, id, &name) == miopenStatusSuccess && name != nullptr) return name;
  return "id " + std::to_string(id);
}

// --- conv + bias + ReLU ------------------------------------------------------------------------

void run_cbr_layer(const Options& o, const FusionPrecision& p, const Peers& peers,
                   const DeviceMem& ws, const bench::Layer& layer, uint64_t& seed, FusionRow& r) {
  cudaStream_t st = peers.stream();
  miopenHandle_t mh = peers.anydnn();
  const driver::ConvSpec& s = layer.spec;
  if (s.spatial_dims != 2 || s.transpose) throw Failure("only 2-D forward convolutions");
  MiopenObjects m;
  CbrProblem cp;
  cp.type = p.type;
  cp.nhwc = p.nhwc;
  cp.strict_fp32 = p.type == DType::F32 && !p.tf32;
  ConvGeometry& g = cp.g;
  for (int i = 0; i < 4; ++i)
    g.x[i] = s.in_lens[i], g.w[i] = s.wei_lens[i];
  for (int i = 0; i < 2; ++i)
    g.pad[i] = s.pads[i], g.stride[i] = s.strides[i], g.dilation[i] = s.dilations[i];
  g.groups = s.groups;
  auto mx = m.tensor(p.type, g.x, p.nhwc), mw = m.tensor(p.type, g.w, p.nhwc);
  check_miopen(miopenCreateConvolutionDescriptor(&m.conv), "miopenCreateConvolutionDescriptor");
  check_miopen(miopenInitConvolutionNdDescriptor(m.conv, 2, s.pads.data(), s.strides.data(),
                                                 s.dilations.data(), miopenConvolution),
               "miopenInitConvolutionNdDescriptor");
  check_miopen(miopenSetConvolutionGroupCount(m.conv, s.groups), "miopenSetConvolutionGroupCount");
  int nd = 0;
  check_miopen(miopenGetConvolutionNdForwardOutputDim(m.conv, mx, mw, &nd, g.y.data()),
               "miopenGetConvolutionNdForwardOutputDim");
  auto my = m.tensor(p.type, g.y, p.nhwc);
  auto mb = m.tensor(p.type, {1, g.y[1], 1, 1}, p.nhwc);
  const size_t es = dtype_size(p.type);
  const size_t nx = static_cast<size_t>(g.x[0]) * g.x[1] * g.x[2] * g.x[3];
  const size_t nw = static_cast<size_t>(g.w[0]) * g.w[1] * g.w[2] * g.w[3];
  const size_t ny = static_cast<size_t>(g.y[0]) * g.y[1] * g.y[2] * g.y[3];
  const size_t k = static_cast<size_t>(g.y[1]);
  r.extra_gb = 4.0 * static_cast<double>(ny * es) / 1e9;  // bias and ReLU: y read and written
  DeviceMem x(nx * es, "x"), w(nw * es, "w"), b(k * es, "bias");
  DeviceMem y_unfused(ny * es, "y"), y_fused(ny * es, "y"), y_cudnn(ny * es, "y");
  fill_uniform(x.get(), p.type, nx, seed++, -1, 1, st);
  fill_uniform(w.get(), p.type, nw, seed++, -1, 1, st);
  fill_uniform(b.get(), p.type, k, seed++, -1, 1, st);
  check_context(st);

  // Unfused: Find's exhaustive best, then conv + bias + ReLU as three calls.
  const float one = 1.0f, zero = 0.0f;
  try {
    miopenConvAlgoPerf_t perf[8];
    int found = 0;
    check_miopen(miopenFindConvolutionForwardAlgorithm(mh, mx, x.get(), mw, w.get(), m.conv, my,
                                                       y_unfused.get(), 8, &found, perf, ws.get(),
                                                       ws.bytes(), true),
                 "miopenFindConvolutionForwardAlgorithm");
    if (found < 1) throw Failure("Find returned no algorithm");
    const miopenConvFwdAlgorithm_t algo = perf[0].fwd_algo;
    size_t n_sol = 0;
    miopenConvSolution_t sol{};
    if (miopenConvolutionForwardGetSolutionCount(mh, mw, mx, m.conv, my, &n_sol) ==
            miopenStatusSuccess &&
        n_sol > 0 &&
        miopenConvolutionForwardGetSolution(mh, mw, mx, m.conv, my, 1, &n_sol, &sol) ==
            miopenStatusSuccess)
      r.unfused_path = solver_name(mh, sol.solution_id) + " + bias + ReLU";
    r.unfused_ms = time_call(
        st,
        [&] {
          check_miopen(miopenConvolutionForward(mh, &one, mx, x.get(), mw, w.get(), m.conv, algo,
                                                &zero, my, y_unfused.get(), ws.get(), ws.bytes()),
                       "miopenConvolutionForward");
          check_miopen(
              miopenConvolutionForwardBias(mh, &one, mb, b.get(), &zero, my, y_unfused.get()),
              "miopenConvolutionForwardBias");
          check_miopen(miopenActivationForward(mh, m.relu(), &one, my, y_unfused.get(), &zero, my,
                                               y_unfused.get()),
                       "miopenActivationForward");
        },
        o.plan);
  } catch (const Failure& e) {
    r.note += std::string("anydnn unfused: ") + e.what() + " ";
  }

  // Fused: the plan conv -> bias -> ReLU, compiled once.
  try {
    auto plan = m.plan(mx);
    miopenFusionOpDescriptor_t co, bo, ao;
    check_miopen(miopenCreateOpConvForward(plan, &co, m.conv, mw), "miopenCreateOpConvForward");
    check_miopen(miopenCreateOpBiasForward(plan, &bo, mb), "miopenCreateOpBiasForward");
    check_miopen(miopenCreateOpActivationForward(plan, &ao, miopenActivationRELU),
                 "miopenCreateOpActivationForward");
    check_miopen(miopenCompileFusionPlan(mh, plan), "miopenCompileFusionPlan");
    auto args = m.op_args();
    check_miopen(miopenSetOpArgsConvForward(args, co, &one, &zero, w.get()),
                 "miopenSetOpArgsConvForward");
    check_miopen(miopenSetOpArgsBiasForward(args, bo, &one, &zero, b.get()),
                 "miopenSetOpArgsBiasForward");
    check_miopen(miopenSetOpArgsActivForward(args, ao, &one, &zero, 0, 0, 0),
                 "miopenSetOpArgsActivForward");
    r.fused_ms = time_call(
        st,
        [&] {
          check_miopen(miopenExecuteFusionPlan(mh, plan, mx, x.get(), my, y_fused.get(), args),
                       "miopenExecuteFusionPlan");
        },
        o.plan);
  } catch (const Failure& e) {
    r.note += std::string("anydnn fused: ") + e.what() + " ";
  }

  // cuDNN's fused graph.
  try {
    r.cudnn_ms = cudnn_fused_conv_bias_relu(peers.cudnn(), st, cp, x.get(), w.get(), b.get(),
                                            y_cudnn.get(), ws, o.plan, &r.cudnn_path);
  } catch (const Failure& e) {
    r.note += std::string("cuDNN: ") + e.what() + " ";
  }

  if (!o.verify || !std::isfinite(r.fused_ms)) return;
  if (std::isfinite(r.unfused_ms)) {
    fusion_check(r, y_fused.get(), y_unfused.get(), p.type, ny, p.tol, st, &r.err_unfused,
                 "vs unfused");
    r.bits_equal = same_bits(y_fused.get(), y_unfused.get(), ny * es);
    if (r.bits_equal) r.note += "fused bits = unfused bits ";
  }
  if (std::isfinite(r.cudnn_ms))
    fusion_check(r, y_fused.get(), y_cudnn.get(), p.type, ny, p.tol, st, &r.err_cudnn, "vs cuDNN");
}

std::vector<FusionRow> run_cbr(const Options& o, const FusionPrecision& p) {
  setenv("ANYDNN_CONV_ALLOW_TF32", p.tf32 ? "1" : "0", 1);  // read by the first handle
  const std::string file = o.shapes.empty() ? ANYDNN_GPU_CONV_SHAPES : o.shapes;
  auto layers = bench::load_layers(file, o.batch);
  std::erase_if(layers, [&](const bench::Layer& l) {
    return bench::layer_name(l.spec).find(o.filter) == std::string::npos;
  });
  if (o.list) {
    for (const auto& l : layers)
      std::printf("%s %-30s x%d\n", p.group.c_str(), bench::layer_name(l.spec).c_str(), l.count);
    return {};
  }
  const Peers peers;
  DeviceMem ws;
  for (size_t bytes = o.workspace_mb << 20; bytes >= (size_t{1} << 20) && !ws.get(); bytes /= 2) {
    try {
      ws = DeviceMem(bytes, "workspace");
    } catch (const Failure&) {
    }
  }
  char title[1024];
  std::snprintf(title, sizeof title,
                "%s: conv + bias + ReLU, %s, %zu layers at N=%d, %s, workspace %zu MiB, up to %d "
                "warm-up + %d timed calls (median), verify tol %.0e; fused: anydnn's fusion plan; "
                "unfused: Find's best conv + miopenConvolutionForwardBias + "
                "miopenActivationForward; cuDNN: frontend graph conv -> add -> ReLU, autotuned%s",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), layers.size(),
                o.batch, environment_line().c_str(), ws.bytes() >> 20, o.plan.warmup, o.plan.iters,
                p.tol, have_cudnn_frontend() ? "" : " (NOT BUILT: no frontend)");
  print_fusion_title(title);
  std::vector<FusionRow> rows;
  uint64_t seed = 1;
  for (const auto& l : layers) {
    FusionRow r;
    r.group = p.group;
    r.shape = bench::layer_name(l.spec);
    r.count = l.count;
    r.dir = "fwd";
    r.work = bench::layer_flops(l.spec) / 1e9;
    r.unit = "GFLOP";
    try {
      run_cbr_layer(o, p, peers, ws, l, seed, r);
    } catch (const Failure& e) {
      r.note += std::string("setup: ") + e.what();
    }
    print_fusion_row(r);
    append_fusion_row(o.csv, r);
    rows.push_back(r);
  }
  print_fusion_totals(rows, p.group);
  return rows;
}

}  // namespace

void run_fusion(const Options& o, const std::string& precision) {
  const FusionPrecision p = fusion_precision_of(precision);
  if (p.bn)
    run_bn_relu(o, p);
  else
    run_cbr(o, p);
}

}  // namespace anydnn::gpubench
