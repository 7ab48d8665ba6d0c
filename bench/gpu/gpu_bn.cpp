// Batch normalization, spatial: forward training then backward, anydnn vs cuDNN on the same
// tensors. cuDNN runs both of its spatial modes (SPATIAL and SPATIAL_PERSISTENT, through the
// *Ex calls frameworks use) and each direction keeps the faster one.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>

#include "bench_common.hpp"
#include "bn_spec.hpp"
#include "gpu_common.hpp"

namespace anydnn::gpubench {

// Spatial shapes of a bnorm shape file; "# name  xN" comment lines give the multiplicity (the
// batch-norm mode and the elementwise one read the same file: a ResNet's BN outputs are what its
// ReLUs and residual adds see).
std::vector<SpatialShape> load_bn_shapes(const std::string& file, const std::string& filter) {
  if (!std::ifstream(file)) throw Fatal("cannot open " + file);
  std::vector<SpatialShape> out;
  for (const bench::BnShape& b : bench::load_bnorm_shapes(file)) {
    if (b.spec.mode != miopenBNSpatial || b.spec.lens.size() != 4) continue;
    SpatialShape s;
    s.lens = b.spec.lens;
    s.count = b.count;
    s.name = "n" + std::to_string(s.lens[0]) + " c" + std::to_string(s.lens[1]) + " " +
             std::to_string(s.lens[2]) + "x" + std::to_string(s.lens[3]);
    if (s.name.find(filter) != std::string::npos) out.push_back(s);
  }
  return out;
}

namespace {

struct Precision {
  std::string group;
  DType type;
  bool nhwc;
  double tol;
};

Precision precision_of(const std::string& p) {
  if (p == "fp32") return {"bn-fp32-nchw", DType::F32, false, 1e-4};
  // Mixed: fp16 x / y / dy / dx, fp32 scale, bias and statistics (MIOpen's bnormfp16fp32).
  if (p == "fp16") return {"bn-fp16-nhwc", DType::F16, true, 1e-2};
  throw Fatal("bn: unknown precision '" + p + "' (fp32, fp16)");
}

struct Descs {
  miopenTensorDescriptor_t mx = nullptr, mp = nullptr;
  cudnnTensorDescriptor_t cx = nullptr, cp = nullptr;
  Descs() = default;
  Descs(const Descs&) = delete;
  Descs& operator=(const Descs&) = delete;
  ~Descs() {
    if (mx) miopenDestroyTensorDescriptor(mx);
    if (mp) miopenDestroyTensorDescriptor(mp);
    if (cx) cudnnDestroyTensorDescriptor(cx);
    if (cp) cudnnDestroyTensorDescriptor(cp);
  }
};

using Stats = BnStats;  // gpu_common.hpp

const char* mode_name(cudnnBatchNormMode_t m) {
  return m == CUDNN_BATCHNORM_SPATIAL_PERSISTENT ? "SPATIAL_PERSISTENT" : "SPATIAL";
}

}  // namespace

std::vector<Row> run_bn(const Options& o, const std::string& precision) {
  const Precision p = precision_of(precision);
  const std::string file = o.shapes.empty() ? ANYDNN_GPU_BN_SHAPES : o.shapes;
  const auto shapes = load_bn_shapes(file, o.filter);
  if (o.list) {
    for (const SpatialShape& s : shapes)
      std::printf("%s %-30s x%d\n", p.group.c_str(), s.name.c_str(), s.count);
    return {};
  }
  const Peers peers;
  cudaStream_t st = peers.stream();
  miopenHandle_t mh = peers.anydnn();
  cudnnHandle_t ch = peers.cudnn();

  char title[512];
  std::snprintf(title, sizeof title,
                "%s: %s, %zu spatial shapes, forward training + backward, eps 1e-5, %s, up to %d "
                "warm-up + %d timed steps (median), verify tol %.0e; rate = compulsory traffic "
                "(fwd x+y, bwd x+dy+dx)",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), shapes.size(),
                environment_line().c_str(), o.plan.warmup, o.plan.iters, p.tol);
  print_header(title);
  std::vector<Row> rows;
  auto emit = [&](const Row& r) {
    print_row(r);
    append_csv(o.csv, {r});
    rows.push_back(r);
  };
  const double eps = 1e-5, factor = 0.1;
  uint64_t seed = 100;
  for (const SpatialShape& s : shapes) {
    const auto& l = s.lens;
    const size_t n = static_cast<size_t>(l[0]) * l[1] * l[2] * l[3], c = l[1];
    const size_t es = dtype_size(p.type);
    Row fwd, bwd;
    fwd.group = bwd.group = p.group;
    fwd.shape = bwd.shape = s.name;
    fwd.count = bwd.count = s.count;
    fwd.unit = bwd.unit = "GB";
    fwd.dir = "fwd";
    bwd.dir = "bwd";
    fwd.work = 2.0 * n * es / 1e9;
    bwd.work = 3.0 * n * es / 1e9;
    fwd.any_solver = bwd.any_solver = "-";
    Descs d;
    DeviceMem x, dy, ya, yc, dxa, dxc, scale, bias;
    std::unique_ptr<Stats> sa, sc;
    try {
      check_miopen(miopenCreateTensorDescriptor(&d.mx), "miopenCreateTensorDescriptor");
      check_miopen(miopenCreateTensorDescriptor(&d.mp), "miopenCreateTensorDescriptor");
      check_miopen(
          miopenSetNdTensorDescriptorWithLayout(
              d.mx, miopen_type(p.type), p.nhwc ? miopenTensorNHWC : miopenTensorNCHW, l.data(), 4),
          "x desc");
      check_miopen(miopenDeriveBNTensorDescriptor(d.mp, d.mx, miopenBNSpatial),
                   "miopenDeriveBNTensorDescriptor");
      check_cudnn(cudnnCreateTensorDescriptor(&d.cx), "cudnnCreateTensorDescriptor");
      check_cudnn(cudnnCreateTensorDescriptor(&d.cp), "cudnnCreateTensorDescriptor");
      check_cudnn(cudnnSetTensor4dDescriptor(d.cx, p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             cudnn_type(p.type), l[0], l[1], l[2], l[3]),
                  "cudnn x desc");
      check_cudnn(cudnnDeriveBNTensorDescriptor(d.cp, d.cx, CUDNN_BATCHNORM_SPATIAL),
                  "cudnnDeriveBNTensorDescriptor");
      x = DeviceMem(n * es, "x");
      dy = DeviceMem(n * es, "dy");
      ya = DeviceMem(n * es, "y");
      yc = DeviceMem(n * es, "y");
      dxa = DeviceMem(n * es, "dx");
      dxc = DeviceMem(n * es, "dx");
      scale = DeviceMem(c * 4, "scale");
      bias = DeviceMem(c * 4, "bias");
      fill_uniform(x.get(), p.type, n, seed++, -1, 1, st);
      fill_uniform(dy.get(), p.type, n, seed++, -1, 1, st);
      fill_uniform(scale.get(), DType::F32, c, seed++, 0.5f, 1.5f, st);
      fill_uniform(bias.get(), DType::F32, c, seed++, -0.5f, 0.5f, st);
      sa = std::make_unique<Stats>(c, st);
      sc = std::make_unique<Stats>(c, st);
      check_context(st);
    } catch (const Failure& e) {
      fwd.note = bwd.note = std::string("setup: ") + e.what();
      emit(fwd);
      emit(bwd);
      continue;
    }

    // anydnn: one training step = forward (statistics saved) then backward from them.
    try {
      float one = 1.0f, zero = 0.0f;
      const auto t = time_stages(
          st, 2,
          [&](const std::function<void()>& mark) {
            check_miopen(miopenBatchNormalizationForwardTraining(
                             mh, miopenBNSpatial, &one, &zero, d.mx, x.get(), d.mx, ya.get(), d.mp,
                             scale.get(), bias.get(), factor, sa->rm.get(), sa->rv.get(), eps,
                             sa->sm.get(), sa->sv.get()),
                         "miopenBatchNormalizationForwardTraining");
            mark();
            check_miopen(miopenBatchNormalizationBackward(
                             mh, miopenBNSpatial, &one, &zero, &one, &zero, d.mx, x.get(), d.mx,
                             dy.get(), d.mx, dxa.get(), d.mp, scale.get(), sa->ds.get(),
                             sa->db.get(), eps, sa->sm.get(), sa->sv.get()),
                         "miopenBatchNormalizationBackward");
            mark();
          },
          o.plan);
      fwd.any_ms = t[0];
      bwd.any_ms = t[1];
    } catch (const Failure& e) {
      fwd.note = bwd.note = std::string("anydnn: ") + e.what() + " ";
    }

    // cuDNN: both spatial modes, the faster per direction.
    std::string cud_err;
    for (const cudnnBatchNormMode_t mode :
         {CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_SPATIAL_PERSISTENT}) {
      try {
        const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;
        size_t fws = 0, bws = 0, rs = 0;
        check_cudnn(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                        ch, mode, ops, d.cx, nullptr, d.cx, d.cp, nullptr, &fws),
                    "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
        check_cudnn(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
                        ch, mode, ops, d.cx, d.cx, d.cx, nullptr, d.cx, d.cp, nullptr, &bws),
                    "cudnnGetBatchNormalizationBackwardExWorkspaceSize");
        check_cudnn(
            cudnnGetBatchNormalizationTrainingExReserveSpaceSize(ch, mode, ops, nullptr, d.cx, &rs),
            "cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
        DeviceMem ws(std::max(fws, bws), "cudnn bn workspace"), reserve(rs, "cudnn bn reserve");
        const float one = 1.0f, zero = 0.0f;
        const auto t = time_stages(
            st, 2,
            [&](const std::function<void()>& mark) {
              check_cudnn(cudnnBatchNormalizationForwardTrainingEx(
                              ch, mode, ops, &one, &zero, d.cx, x.get(), nullptr, nullptr, d.cx,
                              yc.get(), d.cp, scale.get(), bias.get(), factor, sc->rm.get(),
                              sc->rv.get(), eps, sc->sm.get(), sc->sv.get(), nullptr, ws.get(),
                              ws.bytes(), reserve.get(), reserve.bytes()),
                          "cudnnBatchNormalizationForwardTrainingEx");
              mark();
              check_cudnn(
                  cudnnBatchNormalizationBackwardEx(
                      ch, mode, ops, &one, &zero, &one, &zero, d.cx, x.get(), d.cx, yc.get(), d.cx,
                      dy.get(), nullptr, nullptr, d.cx, dxc.get(), d.cp, scale.get(), bias.get(),
                      sc->ds.get(), sc->db.get(), eps, sc->sm.get(), sc->sv.get(), nullptr,
                      ws.get(), ws.bytes(), reserve.get(), reserve.bytes()),
                  "cudnnBatchNormalizationBackwardEx");
              mark();
            },
            o.plan);
        if (!(t[0] >= fwd.cud_ms)) fwd.cud_ms = t[0], fwd.cud_algo = mode_name(mode);
        if (!(t[1] >= bwd.cud_ms)) bwd.cud_ms = t[1], bwd.cud_algo = mode_name(mode);
      } catch (const Failure& e) {
        cud_err += std::string("cuDNN ") + mode_name(mode) + ": " + e.what() + " ";
      }
    }
    if (!std::isfinite(fwd.cud_ms)) {
      fwd.note += cud_err;
      bwd.note += cud_err;
    }

    if (o.verify && std::isfinite(fwd.any_ms) && std::isfinite(fwd.cud_ms)) {
      try {
        const Diff dfy = compare(ya.get(), yc.get(), p.type, n, st);
        fwd.rel_err = dfy.rel_l2;
        fwd.verify = !dfy.finite ? "NONFINITE" : dfy.rel_l2 <= p.tol ? "ok" : "MISMATCH";
        const Diff ddx = compare(dxa.get(), dxc.get(), p.type, n, st);
        const Diff dds = compare(sa->ds.get(), sc->ds.get(), DType::F32, c, st);
        const Diff ddb = compare(sa->db.get(), sc->db.get(), DType::F32, c, st);
        bwd.rel_err = std::max({ddx.rel_l2, dds.rel_l2, ddb.rel_l2});
        const bool finite = ddx.finite && dds.finite && ddb.finite;
        bwd.verify = !finite ? "NONFINITE" : bwd.rel_err <= p.tol ? "ok" : "MISMATCH";
      } catch (const Failure& e) {
        fwd.note += std::string("verify: ") + e.what();
      }
    }
    emit(fwd);
    emit(bwd);
  }
  print_summary(rows, p.group);
  return rows;
}

}  // namespace anydnn::gpubench
