// Convolution: anydnn's three ways of running a layer (immediate mode with its first solution,
// the default Find, the exhaustive Find) against cuDNN (the frontend graph API, autotuned, or the
// legacy FindEx: gpu_conv.hpp), on the same input buffers and the same stream.
//
// Order per (layer, direction), on a find-db that is fresh per process: immediate mode first
// (GetSolution ranks recorded solvers first, so it must not see a Find record of the layer),
// then the default Find (it would reuse a record), then the exhaustive Find (it always
// measures), then cuDNN. Each anydnn path writes its own output, and each one is compared with
// cuDNN's.
#include <miopen/anydnn.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench_common.hpp"
#include "gpu_conv.hpp"

namespace anydnn::gpubench {

ConvPrecision conv_precision_of(const std::string& p) {
  // Strict fp32: no TF32 on either side (anydnn without ANYDNN_CONV_ALLOW_TF32).
  if (p == "fp32") return {"conv-fp32", DType::F32, false, false, 1e-4};
  // TF32 allowed on both sides (anydnn with ANYDNN_CONV_ALLOW_TF32=1).
  if (p == "tf32") return {"conv-tf32", DType::F32, false, true, 5e-3};
  // fp16 / bf16 storage, fp32 accumulation, NHWC on both sides (the tensor-core layout).
  if (p == "fp16") return {"conv-fp16-nhwc", DType::F16, true, false, 1e-2};
  if (p == "bf16") return {"conv-bf16-nhwc", DType::BF16, true, false, 2e-2};
  throw Fatal("conv: unknown precision '" + p + "' (fp32, tf32, fp16, bf16)");
}

namespace {

const char* kDirs[3] = {"fwd", "bwdd", "bwdw"};

// anydnn's descriptors of one layer.
struct Layer {
  miopenTensorDescriptor_t mx = nullptr, mw = nullptr, my = nullptr;
  miopenConvolutionDescriptor_t mc = nullptr;
  ConvGeometry g;
  size_t nx = 0, nw = 0, ny = 0;

  Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;
  ~Layer() {
    if (mx) miopenDestroyTensorDescriptor(mx);
    if (mw) miopenDestroyTensorDescriptor(mw);
    if (my) miopenDestroyTensorDescriptor(my);
    if (mc) miopenDestroyConvolutionDescriptor(mc);
  }

  void init(const driver::ConvSpec& s, const ConvPrecision& p) {
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
    check_miopen(miopenGetConvolutionNdForwardOutputDim(mc, mx, mw, &nd, g.y.data()),
                 "miopenGetConvolutionNdForwardOutputDim");
    check_miopen(miopenSetNdTensorDescriptorWithLayout(my, mt, ml, g.y.data(), 4), "y desc");
    for (int i = 0; i < 4; ++i)
      g.x[i] = s.in_lens[i], g.w[i] = s.wei_lens[i];
    for (int i = 0; i < 2; ++i)
      g.pad[i] = s.pads[i], g.stride[i] = s.strides[i], g.dilation[i] = s.dilations[i];
    g.groups = s.groups;
    nx = static_cast<size_t>(g.x[0]) * g.x[1] * g.x[2] * g.x[3];
    nw = static_cast<size_t>(g.w[0]) * g.w[1] * g.w[2] * g.w[3];
    ny = static_cast<size_t>(g.y[0]) * g.y[1] * g.y[2] * g.y[3];
  }
  size_t out_elems(int dir) const { return dir == kFwd ? ny : dir == kBwdData ? nx : nw; }
};

std::string solver_name(miopenHandle_t h, uint64_t id) {
  const char* name = nullptr;
  if (anydnnGetConvSolverName(h, id, &name) == miopenStatusSuccess && name != nullptr) return name;
  return "id " + std::to_string(id);
}

// The applicable solutions of `dir` in anydnn's order (records first, fastest first, then the
// registry order).
std::vector<miopenConvSolution_t> solutions(miopenHandle_t h, const Layer& l, int dir) {
  size_t n = 0;
  if (dir == kFwd)
    check_miopen(miopenConvolutionForwardGetSolutionCount(h, l.mw, l.mx, l.mc, l.my, &n),
                 "miopenConvolutionForwardGetSolutionCount");
  else if (dir == kBwdData)
    check_miopen(miopenConvolutionBackwardDataGetSolutionCount(h, l.my, l.mw, l.mc, l.mx, &n),
                 "miopenConvolutionBackwardDataGetSolutionCount");
  else
    check_miopen(miopenConvolutionBackwardWeightsGetSolutionCount(h, l.my, l.mx, l.mc, l.mw, &n),
                 "miopenConvolutionBackwardWeightsGetSolutionCount");
  std::vector<miopenConvSolution_t> s(std::max<size_t>(n, 1));
  size_t got = 0;
  if (dir == kFwd)
    check_miopen(
        miopenConvolutionForwardGetSolution(h, l.mw, l.mx, l.mc, l.my, s.size(), &got, s.data()),
        "miopenConvolutionForwardGetSolution");
  else if (dir == kBwdData)
    check_miopen(miopenConvolutionBackwardDataGetSolution(h, l.my, l.mw, l.mc, l.mx, s.size(), &got,
                                                          s.data()),
                 "miopenConvolutionBackwardDataGetSolution");
  else
    check_miopen(miopenConvolutionBackwardWeightsGetSolution(h, l.my, l.mx, l.mc, l.mw, s.size(),
                                                             &got, s.data()),
                 "miopenConvolutionBackwardWeightsGetSolution");
  s.resize(std::min(got, s.size()));
  return s;
}

// (a) Immediate mode: the first solution whose workspace fits, compiled, then its *Immediate
// call timed.
double time_immediate(miopenHandle_t h, cudaStream_t st, const Layer& l, const ConvIo& io,
                      void* out, const DeviceMem& ws, int dir, const TimingPlan& plan,
                      std::string* solver) {
  const auto sols = solutions(h, l, dir);
  if (sols.empty()) throw Failure("immediate mode: no solution");
  size_t rank = 0, need = 0;
  for (; rank < sols.size(); ++rank) {
    const uint64_t id = sols[rank].solution_id;
    if (dir == kFwd)
      check_miopen(
          miopenConvolutionForwardGetSolutionWorkspaceSize(h, l.mw, l.mx, l.mc, l.my, id, &need),
          "miopenConvolutionForwardGetSolutionWorkspaceSize");
    else if (dir == kBwdData)
      check_miopen(miopenConvolutionBackwardDataGetSolutionWorkspaceSize(h, l.my, l.mw, l.mc, l.mx,
                                                                         id, &need),
                   "miopenConvolutionBackwardDataGetSolutionWorkspaceSize");
    else
      check_miopen(miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(h, l.my, l.mx, l.mc,
                                                                            l.mw, id, &need),
                   "miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize");
    if (need <= ws.bytes()) break;
  }
  if (rank == sols.size()) throw Failure("immediate mode: no solution fits the workspace");
  const uint64_t id = sols[rank].solution_id;
  *solver = solver_name(h, id) + (rank > 0 ? " (#" + std::to_string(rank + 1) + ")" : "");
  if (dir == kFwd)
    check_miopen(miopenConvolutionForwardCompileSolution(h, l.mw, l.mx, l.mc, l.my, id),
                 "miopenConvolutionForwardCompileSolution");
  else if (dir == kBwdData)
    check_miopen(miopenConvolutionBackwardDataCompileSolution(h, l.my, l.mw, l.mc, l.mx, id),
                 "miopenConvolutionBackwardDataCompileSolution");
  else
    check_miopen(miopenConvolutionBackwardWeightsCompileSolution(h, l.my, l.mx, l.mc, l.mw, id),
                 "miopenConvolutionBackwardWeightsCompileSolution");
  check_context(st);
  void* w = need > 0 ? ws.get() : nullptr;
  return time_call(
      st,
      [&] {
        if (dir == kFwd)
          check_miopen(miopenConvolutionForwardImmediate(h, l.mw, io.w, l.mx, io.x, l.mc, l.my, out,
                                                         w, need, id),
                       "miopenConvolutionForwardImmediate");
        else if (dir == kBwdData)
          check_miopen(miopenConvolutionBackwardDataImmediate(h, l.my, io.dy, l.mw, io.w, l.mc,
                                                              l.mx, out, w, need, id),
                       "miopenConvolutionBackwardDataImmediate");
        else
          check_miopen(miopenConvolutionBackwardWeightsImmediate(h, l.my, io.dy, l.mx, io.x, l.mc,
                                                                 l.mw, out, w, need, id),
                       "miopenConvolutionBackwardWeightsImmediate");
      },
      plan);
}

// (b), (c) Find (default or exhaustive) ranks the solvers; the first algorithm's run call is
// timed. The solver behind it: the first solution (Find's fastest record).
double time_find(miopenHandle_t h, cudaStream_t st, const Layer& l, const ConvIo& io, void* out,
                 const DeviceMem& ws, int dir, bool exhaustive, const TimingPlan& plan,
                 std::string* solver, double* find_wall_ms) {
  miopenConvAlgoPerf_t perf[8];
  int found = 0;
  void* w = ws.get();
  const size_t wb = ws.bytes();
  const auto find_start = std::chrono::steady_clock::now();
  if (dir == kFwd)
    check_miopen(miopenFindConvolutionForwardAlgorithm(h, l.mx, io.x, l.mw, io.w, l.mc, l.my, out,
                                                       8, &found, perf, w, wb, exhaustive),
                 "miopenFindConvolutionForwardAlgorithm");
  else if (dir == kBwdData)
    check_miopen(
        miopenFindConvolutionBackwardDataAlgorithm(h, l.my, io.dy, l.mw, io.w, l.mc, l.mx, out, 8,
                                                   &found, perf, w, wb, exhaustive),
        "miopenFindConvolutionBackwardDataAlgorithm");
  else
    check_miopen(
        miopenFindConvolutionBackwardWeightsAlgorithm(h, l.my, io.dy, l.mx, io.x, l.mc, l.mw, out,
                                                      8, &found, perf, w, wb, exhaustive),
        "miopenFindConvolutionBackwardWeightsAlgorithm");
  check_context(st);
  *find_wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - find_start)
          .count();
  if (found < 1) throw Failure("anydnn Find returned no algorithm");
  try {
    const auto sols = solutions(h, l, dir);
    solver->assign(sols.empty() ? "?" : solver_name(h, sols[0].solution_id));
  } catch (const Failure&) {
    solver->assign("?");
  }

  const float alpha = 1.0f, beta = 0.0f;
  const miopenConvAlgoPerf_t best = perf[0];
  return time_call(
      st,
      [&] {
        if (dir == kFwd)
          check_miopen(miopenConvolutionForward(h, &alpha, l.mx, io.x, l.mw, io.w, l.mc,
                                                best.fwd_algo, &beta, l.my, out, w, wb),
                       "miopenConvolutionForward");
        else if (dir == kBwdData)
          check_miopen(miopenConvolutionBackwardData(h, &alpha, l.my, io.dy, l.mw, io.w, l.mc,
                                                     best.bwd_data_algo, &beta, l.mx, out, w, wb),
                       "miopenConvolutionBackwardData");
        else
          check_miopen(
              miopenConvolutionBackwardWeights(h, &alpha, l.my, io.dy, l.mx, io.x, l.mc,
                                               best.bwd_weights_algo, &beta, l.mw, out, w, wb),
              "miopenConvolutionBackwardWeights");
      },
      plan);
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

// The three anydnn paths and the peer for one (layer, direction).
// Wall time of Find's own work (graph builds, searches, timing), first call per (layer, dir).
struct FindTimes {
  std::vector<double> def_ms, exh_ms;
};

void run_direction(miopenHandle_t mh, cudaStream_t st, CudnnConvPeer& peer, const Layer& l,
                   const ConvIo& in, const DeviceMem& ws, int dir, const ConvPrecision& p,
                   const Options& o, Row& r, FindTimes& ft) {
  const size_t n = l.out_elems(dir);
  const size_t bytes = n * dtype_size(p.type);
  // Outputs: anydnn immediate, default, exhaustive, then cuDNN.
  std::array<DeviceMem, 4> out;
  for (auto& m : out)
    m = DeviceMem(bytes, "output");
  const char* path[3] = {"immediate", "default Find", "exhaustive Find"};
  std::array<double*, 3> ms = {&r.imm_ms, &r.def_ms, &r.any_ms};
  std::array<std::string*, 3> solver = {&r.imm_solver, &r.def_solver, &r.any_solver};
  for (int i = 0; i < 3; ++i) {
    try {
      double find_ms = NAN;
      *ms[i] = i == 0 ? time_immediate(mh, st, l, in, out[i].get(), ws, dir, o.plan, solver[i])
                      : time_find(mh, st, l, in, out[i].get(), ws, dir, i == 2, o.plan, solver[i],
                                  &find_ms);
      if (i > 0 && std::isfinite(find_ms)) (i == 1 ? ft.def_ms : ft.exh_ms).push_back(find_ms);
    } catch (const Failure& e) {
      r.note += std::string("anydnn ") + path[i] + ": " + e.what() + " ";
    }
  }
  try {
    ConvIo io = in;
    io.out = out[3].get();
    r.cud_ms = peer.run(l.g, static_cast<ConvDir>(dir), io, o.plan, &r.cud_algo);
  } catch (const Failure& e) {
    r.note += std::string("cuDNN: ") + e.what();
  }
  if (!o.verify || !std::isfinite(r.cud_ms)) return;
  // The worst of the anydnn paths that ran.
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(*ms[i])) continue;
    try {
      const Diff d = compare(out[i].get(), out[3].get(), p.type, n, st);
      const std::string v = !d.finite ? "NONFINITE" : d.rel_l2 <= p.tol ? "ok" : "MISMATCH";
      if (v != "ok") r.note += std::string(path[i]) + ": " + v + " ";
      if (!(r.rel_err >= d.rel_l2)) r.rel_err = d.rel_l2;  // NaN-safe maximum
      if (r.verify == "-" || r.verify == "ok") r.verify = v;
    } catch (const Failure& e) {
      r.note += std::string("verify: ") + e.what();
    }
  }
}

}  // namespace

std::vector<Row> run_conv(const Options& o, const std::string& precision) {
  ConvPrecision p = conv_precision_of(precision);
  // anydnn with its own solvers only (ANYDNN_CUDNN=0: cuDNN's engines are not Find candidates)
  // is its own group, so one report holds both anydnn columns (scripts/bench-gpu.sh runs both).
  if (const char* c = std::getenv("ANYDNN_CUDNN"); c != nullptr && std::string(c) == "0")
    p.group += "-own";
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

  const Peers peers;
  cudaStream_t st = peers.stream();
  miopenHandle_t mh = peers.anydnn();
  cudnnHandle_t ch = peers.cudnn();
  const DeviceMem ws = workspace(o.workspace_mb);
  std::unique_ptr<CudnnConvPeer> peer;
  std::string why_legacy;
  if (o.cudnn_api != "legacy") {
    peer = make_frontend_cudnn_peer(ch, st, p, ws);
    if (!peer) {
      if (o.cudnn_api == "frontend") throw Fatal("--cudnn-api frontend: built without its headers");
      why_legacy = " [LEGACY PEER: built without the cuDNN frontend headers]";
    }
  }
  if (!peer) peer = make_legacy_cudnn_peer(ch, st, p, ws);

  const char* find_mode = std::getenv("MIOPEN_FIND_MODE");
  char title[2048];
  std::snprintf(title, sizeof title,
                "%s: %s, %zu layers at N=%d, workspace %zu MiB for both, %s, up to %d warm-up + "
                "%d timed calls (median), verify tol %.0e; anydnn: immediate (first solution), "
                "default Find (find mode %s), exhaustive Find; peer: %s%s",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), layers.size(),
                o.batch, ws.bytes() >> 20, environment_line().c_str(), o.plan.warmup, o.plan.iters,
                p.tol, find_mode ? find_mode : "library default", peer->description().c_str(),
                why_legacy.c_str());
  print_header(title, true);
  if (!why_legacy.empty())
    std::fprintf(stderr, "gpu_vs_cudnn conv: the peer is cuDNN's LEGACY API (no frontend)\n");

  std::vector<Row> rows;
  auto emit = [&](const Row& r) {
    print_row(r);
    append_csv(o.csv, {r});
    rows.push_back(r);
  };
  uint64_t seed = 1;
  FindTimes find_times;
  for (const auto& [spec, count] : layers) {
    Row base;
    base.group = p.group;
    base.shape = bench::layer_name(spec);
    base.count = count;
    base.work = bench::layer_flops(spec) / 1e9;
    base.unit = "GFLOP";
    base.cud_api = peer->api();
    Layer l;
    DeviceMem x, w, dy;
    try {
      l.init(spec, p);
      const size_t es = dtype_size(p.type);
      x = DeviceMem(l.nx * es, "x");
      w = DeviceMem(l.nw * es, "w");
      dy = DeviceMem(l.ny * es, "dy");
      fill_uniform(x.get(), p.type, l.nx, seed++, -1, 1, st);
      fill_uniform(w.get(), p.type, l.nw, seed++, -1, 1, st);
      fill_uniform(dy.get(), p.type, l.ny, seed++, -1, 1, st);
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
    const ConvIo in{x.get(), w.get(), dy.get(), nullptr};
    for (int dir = 0; dir < 3; ++dir) {
      Row r = base;
      r.dir = kDirs[dir];
      try {
        run_direction(mh, st, *peer, l, in, ws, dir, p, o, r, find_times);
      } catch (const Failure& e) {  // output buffers
        r.note += std::string("setup: ") + e.what();
      }
      emit(r);
    }
  }
  print_summary(rows, p.group);
  // What Find itself costs, per (layer, direction), first call (a record makes later calls of
  // the default Find free; an exhaustive one measures again every time).
  const auto describe = [](std::vector<double> v) {
    if (v.empty()) return std::string("n/a");
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v)
      sum += x;
    char b[160];
    std::snprintf(b, sizeof b, "median %.1f ms, max %.1f ms, sum %.2f s over %zu", v[v.size() / 2],
                  v.back(), sum / 1e3, v.size());
    return std::string(b);
  };
  std::printf("%s find wall time: default Find %s; exhaustive Find %s\n", p.group.c_str(),
              describe(find_times.def_ms).c_str(), describe(find_times.exh_ms).c_str());
  peer.reset();
  return rows;
}

}  // namespace anydnn::gpubench
