// BN + ReLU half of the fusion mode (gpu_fusion.hpp): per spatial shape of bench/shapes/
// bnorm.txt (a ResNet-50's BN outputs are what its ReLUs see), a training step (forward
// training, then backward from its saved statistics) and an inference pass, three ways:
//   fused    anydnn's fusion plans BN forward + activation, BN backward + activation backward,
//            BN inference + activation (one BN pass each, the activation in it);
//   unfused  miopenBatchNormalizationForwardTraining then miopenActivationForward in place;
//            miopenActivationBackward then miopenBatchNormalizationBackward; inference: the BN
//            call then the activation call (what a framework does without fusion);
//   cuDNN    the *Ex calls with CUDNN_BATCHNORM_OPS_BN_ACTIVATION (cuDNN's fused BN + ReLU,
//            which it takes for some layouts and types only), else with CUDNN_BATCHNORM_OPS_BN
//            and cudnnActivationForward / Backward around them; SPATIAL and SPATIAL_PERSISTENT;
//            the fastest per direction, named in the row. Inference: the BN call then ReLU.
// Rates: the compulsory traffic of the fused op (training forward x + y, backward x + dy + dx,
// inference x + y) over the time, against the device's copy rate (the limit).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "gpu_fusion.hpp"

namespace anydnn::gpubench {

namespace {

using Stats = BnStats;  // gpu_common.hpp

// One path's outputs: training y, dx, inference y, and its statistics.
struct Outputs {
  DeviceMem y, dx, yi, tmp;  // tmp: the unfused activation backward's dy'
  std::unique_ptr<Stats> s;
  Outputs(size_t bytes, size_t c, cudaStream_t st)
      : y(bytes, "y"),
        dx(bytes, "dx"),
        yi(bytes, "inference y"),
        tmp(bytes, "dy'"),
        s(std::make_unique<Stats>(c, st)) {}
};

struct CudnnDescs {
  cudnnTensorDescriptor_t x = nullptr, p = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  CudnnDescs() = default;
  CudnnDescs(const CudnnDescs&) = delete;
  CudnnDescs& operator=(const CudnnDescs&) = delete;
  ~CudnnDescs() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (p) cudnnDestroyTensorDescriptor(p);
    if (relu) cudnnDestroyActivationDescriptor(relu);
  }
};

const char* mode_name(cudnnBatchNormMode_t m) {
  return m == CUDNN_BATCHNORM_SPATIAL_PERSISTENT ? "PERSISTENT" : "SPATIAL";
}

constexpr double kEps = 1e-5, kFactor = 0.1;

}  // namespace

std::vector<FusionRow> run_bn_relu(const Options& o, const FusionPrecision& p) {
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
  const double copy_gbs = copy_rate_gbs(size_t{256} << 20, st, o.plan);
  char title[1024];
  std::snprintf(title, sizeof title,
                "%s: BN + ReLU (spatial), %s, %zu shapes, %s, eps 1e-5, up to %d warm-up + %d "
                "timed steps (median), verify tol %.0e; train = forward training, bwd = backward "
                "from its saved statistics, infer = inference with estimates; rate = compulsory "
                "traffic of the fused op; copy rate %.0f GB/s (the limit)",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), shapes.size(),
                environment_line().c_str(), o.plan.warmup, o.plan.iters, p.tol, copy_gbs);
  print_fusion_title(title);
  std::vector<FusionRow> rows;
  uint64_t seed = 200;
  float one = 1.0f, zero = 0.0f;
  for (const SpatialShape& shape : shapes) {
    const auto& l = shape.lens;
    const size_t n = static_cast<size_t>(l[0]) * l[1] * l[2] * l[3], c = l[1];
    const size_t es = dtype_size(p.type), bytes = n * es;
    const double t_gb = static_cast<double>(bytes) / 1e9;
    FusionRow base;
    base.group = p.group;
    base.shape = shape.name;
    base.count = shape.count;
    base.unit = "GB";
    base.copy_gbs = copy_gbs;
    FusionRow train = base, bwd = base, infer = base;
    train.dir = "train";
    train.work = 2 * t_gb;
    train.extra_gb = 2 * t_gb;  // the activation pass: y read and written
    bwd.dir = "bwd";
    bwd.work = 3 * t_gb;
    bwd.extra_gb = 3 * t_gb;  // the activation backward: dy and y read, dy' written
    infer.dir = "infer";
    infer.work = 2 * t_gb;
    infer.extra_gb = 2 * t_gb;
    const auto emit_all = [&] {
      for (FusionRow* r : {&train, &bwd, &infer}) {
        print_fusion_row(*r);
        append_fusion_row(o.csv, *r);
        rows.push_back(*r);
      }
    };
    MiopenObjects m;
    CudnnDescs cd;
    std::unique_ptr<Outputs> fused, unfused, cudnn;
    DeviceMem x, dy, scale, bias, est_mean, est_var;
    miopenTensorDescriptor_t mx = nullptr, mp = nullptr;
    try {
      mx = m.tensor(p.type, {l[0], l[1], l[2], l[3]}, p.nhwc);
      mp = m.tensor(DType::F32, {1, l[1], 1, 1}, false);
      check_miopen(miopenDeriveBNTensorDescriptor(mp, mx, miopenBNSpatial),
                   "miopenDeriveBNTensorDescriptor");
      check_cudnn(cudnnCreateTensorDescriptor(&cd.x), "cudnnCreateTensorDescriptor");
      check_cudnn(cudnnCreateTensorDescriptor(&cd.p), "cudnnCreateTensorDescriptor");
      check_cudnn(cudnnSetTensor4dDescriptor(cd.x, p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             cudnn_type(p.type), l[0], l[1], l[2], l[3]),
                  "cudnn x desc");
      check_cudnn(cudnnDeriveBNTensorDescriptor(cd.p, cd.x, CUDNN_BATCHNORM_SPATIAL),
                  "cudnnDeriveBNTensorDescriptor");
      check_cudnn(cudnnCreateActivationDescriptor(&cd.relu), "cudnnCreateActivationDescriptor");
      check_cudnn(cudnnSetActivationDescriptor(cd.relu, CUDNN_ACTIVATION_RELU,
                                               CUDNN_NOT_PROPAGATE_NAN, 0.0),
                  "cudnnSetActivationDescriptor");
      x = DeviceMem(bytes, "x");
      dy = DeviceMem(bytes, "dy");
      scale = DeviceMem(c * 4, "scale");
      bias = DeviceMem(c * 4, "bias");
      est_mean = DeviceMem(c * 4, "estimated mean");
      est_var = DeviceMem(c * 4, "estimated variance");
      fill_uniform(x.get(), p.type, n, seed++, -1, 1, st);
      fill_uniform(dy.get(), p.type, n, seed++, -1, 1, st);
      fill_uniform(scale.get(), DType::F32, c, seed++, 0.5f, 1.5f, st);
      fill_uniform(bias.get(), DType::F32, c, seed++, -0.5f, 0.5f, st);
      fill_uniform(est_mean.get(), DType::F32, c, seed++, -0.1f, 0.1f, st);
      fill_uniform(est_var.get(), DType::F32, c, seed++, 0.5f, 1.5f, st);
      fused = std::make_unique<Outputs>(bytes, c, st);
      unfused = std::make_unique<Outputs>(bytes, c, st);
      cudnn = std::make_unique<Outputs>(bytes, c, st);
      check_context(st);
    } catch (const Failure& e) {
      for (FusionRow* r : {&train, &bwd, &infer})
        r->note = std::string("setup: ") + e.what();
      emit_all();
      continue;
    }

    // Fused: three plans, compiled once.
    try {
      Stats& s = *fused->s;
      auto fwd_plan = m.plan(mx), bwd_plan = m.plan(mx), inf_plan = m.plan(mx);
      miopenFusionOpDescriptor_t bn_f, act_f, bn_b, act_b, bn_i, act_i;
      check_miopen(miopenCreateOpBatchNormForward(fwd_plan, &bn_f, miopenBNSpatial, true),
                   "miopenCreateOpBatchNormForward");
      check_miopen(miopenCreateOpActivationForward(fwd_plan, &act_f, miopenActivationRELU),
                   "miopenCreateOpActivationForward");
      check_miopen(miopenCreateOpBatchNormBackward(bwd_plan, &bn_b, miopenBNSpatial),
                   "miopenCreateOpBatchNormBackward");
      check_miopen(miopenCreateOpActivationBackward(bwd_plan, &act_b, miopenActivationRELU),
                   "miopenCreateOpActivationBackward");
      check_miopen(miopenCreateOpBatchNormInference(inf_plan, &bn_i, miopenBNSpatial, mp),
                   "miopenCreateOpBatchNormInference");
      check_miopen(miopenCreateOpActivationForward(inf_plan, &act_i, miopenActivationRELU),
                   "miopenCreateOpActivationForward");
      for (auto plan : {fwd_plan, bwd_plan, inf_plan})
        check_miopen(miopenCompileFusionPlan(mh, plan), "miopenCompileFusionPlan");
      auto fa = m.op_args(), ba = m.op_args(), ia = m.op_args();
      check_miopen(miopenSetOpArgsBatchNormForward(fa, bn_f, &one, &zero, scale.get(), bias.get(),
                                                   s.sm.get(), s.sv.get(), s.rm.get(), s.rv.get(),
                                                   kFactor, kEps),
                   "miopenSetOpArgsBatchNormForward");
      check_miopen(miopenSetOpArgsActivForward(fa, act_f, &one, &zero, 0, 0, 0),
                   "miopenSetOpArgsActivForward");
      check_miopen(
          miopenSetOpArgsBatchNormBackward(ba, bn_b, &one, &zero, x.get(), scale.get(), bias.get(),
                                           s.ds.get(), s.db.get(), s.sm.get(), s.sv.get()),
          "miopenSetOpArgsBatchNormBackward");
      check_miopen(
          miopenSetOpArgsActivBackward(ba, act_b, &one, &zero, fused->y.get(), nullptr, 0, 0, 0),
          "miopenSetOpArgsActivBackward");
      check_miopen(miopenSetOpArgsBatchNormInference(ia, bn_i, &one, &zero, scale.get(), bias.get(),
                                                     est_mean.get(), est_var.get(), kEps),
                   "miopenSetOpArgsBatchNormInference");
      check_miopen(miopenSetOpArgsActivForward(ia, act_i, &one, &zero, 0, 0, 0),
                   "miopenSetOpArgsActivForward");
      const auto t = time_stages(
          st, 2,
          [&](const std::function<void()>& mark) {
            check_miopen(miopenExecuteFusionPlan(mh, fwd_plan, mx, x.get(), mx, fused->y.get(), fa),
                         "miopenExecuteFusionPlan (BN forward + ReLU)");
            mark();
            check_miopen(
                miopenExecuteFusionPlan(mh, bwd_plan, mx, dy.get(), mx, fused->dx.get(), ba),
                "miopenExecuteFusionPlan (BN backward + ReLU backward)");
            mark();
          },
          o.plan);
      train.fused_ms = t[0];
      bwd.fused_ms = t[1];
      infer.fused_ms = time_call(
          st,
          [&] {
            check_miopen(
                miopenExecuteFusionPlan(mh, inf_plan, mx, x.get(), mx, fused->yi.get(), ia),
                "miopenExecuteFusionPlan (BN inference + ReLU)");
          },
          o.plan);
    } catch (const Failure& e) {
      for (FusionRow* r : {&train, &bwd, &infer})
        r->note += std::string("anydnn fused: ") + e.what() + " ";
    }

    // Unfused: the separate calls, the activation in place.
    try {
      Stats& s = *unfused->s;
      void* y = unfused->y.get();
      const auto t = time_stages(
          st, 2,
          [&](const std::function<void()>& mark) {
            check_miopen(
                miopenBatchNormalizationForwardTraining(
                    mh, miopenBNSpatial, &one, &zero, mx, x.get(), mx, y, mp, scale.get(),
                    bias.get(), kFactor, s.rm.get(), s.rv.get(), kEps, s.sm.get(), s.sv.get()),
                "miopenBatchNormalizationForwardTraining");
            check_miopen(miopenActivationForward(mh, m.relu(), &one, mx, y, &zero, mx, y),
                         "miopenActivationForward");
            mark();
            // ReLU's derivative from its output (x > 0 exactly where y > 0): in place is fine.
            check_miopen(miopenActivationBackward(mh, m.relu(), &one, mx, y, mx, dy.get(), mx, y,
                                                  &zero, mx, unfused->tmp.get()),
                         "miopenActivationBackward");
            check_miopen(miopenBatchNormalizationBackward(
                             mh, miopenBNSpatial, &one, &zero, &one, &zero, mx, x.get(), mx,
                             unfused->tmp.get(), mx, unfused->dx.get(), mp, scale.get(), s.ds.get(),
                             s.db.get(), kEps, s.sm.get(), s.sv.get()),
                         "miopenBatchNormalizationBackward");
            mark();
          },
          o.plan);
      train.unfused_ms = t[0];
      bwd.unfused_ms = t[1];
      train.unfused_path = "BN forward training + activation";
      bwd.unfused_path = "activation backward + BN backward";
      infer.unfused_path = "BN inference + activation";
      infer.unfused_ms = time_call(
          st,
          [&] {
            check_miopen(miopenBatchNormalizationForwardInference(
                             mh, miopenBNSpatial, &one, &zero, mx, x.get(), mx, unfused->yi.get(),
                             mp, scale.get(), bias.get(), est_mean.get(), est_var.get(), kEps),
                         "miopenBatchNormalizationForwardInference");
            check_miopen(miopenActivationForward(mh, m.relu(), &one, mx, unfused->yi.get(), &zero,
                                                 mx, unfused->yi.get()),
                         "miopenActivationForward");
          },
          o.plan);
    } catch (const Failure& e) {
      for (FusionRow* r : {&train, &bwd, &infer})
        r->note += std::string("anydnn unfused: ") + e.what() + " ";
    }

    // cuDNN: (mode, fused or not); the fastest per direction.
    std::string cud_err;
    for (const cudnnBatchNormMode_t mode :
         {CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_SPATIAL_PERSISTENT}) {
      for (const bool fuse : {true, false}) {
        try {
          const cudnnBatchNormOps_t ops =
              fuse ? CUDNN_BATCHNORM_OPS_BN_ACTIVATION : CUDNN_BATCHNORM_OPS_BN;
          cudnnActivationDescriptor_t act = fuse ? cd.relu : nullptr;
          size_t fws = 0, bws = 0, rs = 0;
          check_cudnn(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                          ch, mode, ops, cd.x, nullptr, cd.x, cd.p, act, &fws),
                      "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
          check_cudnn(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
                          ch, mode, ops, cd.x, cd.x, cd.x, nullptr, cd.x, cd.p, act, &bws),
                      "cudnnGetBatchNormalizationBackwardExWorkspaceSize");
          check_cudnn(
              cudnnGetBatchNormalizationTrainingExReserveSpaceSize(ch, mode, ops, act, cd.x, &rs),
              "cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
          DeviceMem ws(std::max<size_t>(std::max(fws, bws), 1), "cudnn bn workspace");
          DeviceMem reserve(std::max<size_t>(rs, 1), "cudnn bn reserve");
          Stats& s = *cudnn->s;
          void* y = cudnn->y.get();
          const auto t = time_stages(
              st, 2,
              [&](const std::function<void()>& mark) {
                check_cudnn(
                    cudnnBatchNormalizationForwardTrainingEx(
                        ch, mode, ops, &one, &zero, cd.x, x.get(), nullptr, nullptr, cd.x, y, cd.p,
                        scale.get(), bias.get(), kFactor, s.rm.get(), s.rv.get(), kEps, s.sm.get(),
                        s.sv.get(), act, ws.get(), ws.bytes(), reserve.get(), rs),
                    "cudnnBatchNormalizationForwardTrainingEx");
                if (!fuse)
                  check_cudnn(cudnnActivationForward(ch, cd.relu, &one, cd.x, y, &zero, cd.x, y),
                              "cudnnActivationForward");
                mark();
                const void* g = dy.get();
                if (!fuse) {
                  check_cudnn(cudnnActivationBackward(ch, cd.relu, &one, cd.x, y, cd.x, dy.get(),
                                                      cd.x, y, &zero, cd.x, cudnn->tmp.get()),
                              "cudnnActivationBackward");
                  g = cudnn->tmp.get();
                }
                check_cudnn(cudnnBatchNormalizationBackwardEx(
                                ch, mode, ops, &one, &zero, &one, &zero, cd.x, x.get(), cd.x, y,
                                cd.x, g, nullptr, nullptr, cd.x, cudnn->dx.get(), cd.p, scale.get(),
                                bias.get(), s.ds.get(), s.db.get(), kEps, s.sm.get(), s.sv.get(),
                                act, ws.get(), ws.bytes(), reserve.get(), rs),
                            "cudnnBatchNormalizationBackwardEx");
                mark();
              },
              o.plan);
          const std::string name =
              std::string(mode_name(mode)) + (fuse ? " BN_ACTIVATION (fused)" : " BN + ReLU");
          if (!(t[0] >= train.cudnn_ms)) train.cudnn_ms = t[0], train.cudnn_path = name;
          if (!(t[1] >= bwd.cudnn_ms)) bwd.cudnn_ms = t[1], bwd.cudnn_path = name;
        } catch (const Failure& e) {
          cud_err += std::string(mode_name(mode)) + (fuse ? " fused: " : ": ") + e.what() + " ";
          cudaGetLastError();
        }
      }
    }
    if (!std::isfinite(train.cudnn_ms)) train.note += "cuDNN: " + cud_err;
    if (!std::isfinite(bwd.cudnn_ms)) bwd.note += "cuDNN: " + cud_err;
    try {
      infer.cudnn_ms = time_call(
          st,
          [&] {
            check_cudnn(
                cudnnBatchNormalizationForwardInference(
                    ch, CUDNN_BATCHNORM_SPATIAL, &one, &zero, cd.x, x.get(), cd.x, cudnn->yi.get(),
                    cd.p, scale.get(), bias.get(), est_mean.get(), est_var.get(), kEps),
                "cudnnBatchNormalizationForwardInference");
            check_cudnn(cudnnActivationForward(ch, cd.relu, &one, cd.x, cudnn->yi.get(), &zero,
                                               cd.x, cudnn->yi.get()),
                        "cudnnActivationForward");
          },
          o.plan);
      infer.cudnn_path = "BN inference + ReLU (no fused call)";
    } catch (const Failure& e) {
      infer.note += std::string("cuDNN: ") + e.what() + " ";
    }

    if (o.verify) {
      try {
        const auto verify = [&](FusionRow& r, const void* f, const void* u, const void* cu, DType t,
                                size_t count) {
          if (!std::isfinite(r.fused_ms)) return;
          if (std::isfinite(r.unfused_ms))
            fusion_check(r, f, u, t, count, p.tol, st, &r.err_unfused, "vs unfused");
          if (std::isfinite(r.cudnn_ms))
            fusion_check(r, f, cu, t, count, p.tol, st, &r.err_cudnn, "vs cuDNN");
        };
        verify(train, fused->y.get(), unfused->y.get(), cudnn->y.get(), p.type, n);
        verify(bwd, fused->dx.get(), unfused->dx.get(), cudnn->dx.get(), p.type, n);
        verify(bwd, fused->s->ds.get(), unfused->s->ds.get(), cudnn->s->ds.get(), DType::F32, c);
        verify(bwd, fused->s->db.get(), unfused->s->db.get(), cudnn->s->db.get(), DType::F32, c);
        verify(infer, fused->yi.get(), unfused->yi.get(), cudnn->yi.get(), p.type, n);
      } catch (const Failure& e) {
        train.note += std::string("verify: ") + e.what();
      }
    }
    emit_all();
  }
  print_fusion_totals(rows, p.group);
  return rows;
}

}  // namespace anydnn::gpubench
