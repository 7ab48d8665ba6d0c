// BN + ReLU of fusion_vs_onednn on bench/shapes/bnorm.txt (NCHW fp32), in the three directions
// MIOpen fuses, three ways each:
//  - fused:   anydnn's fusion plan: BN inference / forward training (running statistics
//             updated, mean and inverse std saved) + ReLU, or BN backward + ReLU backward (dy ->
//             dx with dscale / dbias; the ReLU's derivative at bn(x) recomputed from the saved
//             statistics, as MIOpen's fused kernel does);
//  - unfused: anydnn's BN call then miopenActivationForward in place; backward: the ReLU's
//             backward on the saved bn(x) and relu(bn(x)) of the forward (what an unfused
//             training graph keeps), then miopenBatchNormalizationBackward;
//  - oneDNN:  batch_normalization with fuse_norm_relu (its fused BN + ReLU), on the same NCHW
//             tensors; inference with use_global_stats; backward on the forward's workspace.
//             Per-activation shapes run as the equivalent spatial problem on N x (C*H*W) x 1 x 1
//             (oneDNN has no per-activation mode), as bn_vs_onednn does.
#include <miopen/miopen.h>

#include <cctype>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bn_spec.hpp"
#include "fusion/fusion_bench.hpp"

namespace anydnn::bench {

namespace {

void check(miopenStatus_t s, const char* what) {
  if (s != miopenStatusSuccess)
    throw std::runtime_error(std::string(what) + ": " + miopenGetErrorString(s));
}

std::vector<float> random_vec(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& e : v)
    e = u(rng);
  return v;
}

using Shape = BnShape;  // bench_common.hpp

enum class BnDir { Inference, Training, Backward };
const char* chain_name(BnDir d) {
  return d == BnDir::Inference  ? "bn_inf+relu"
         : d == BnDir::Training ? "bn_train+relu"
                                : "bn_bwd+relu_bwd";
}

struct Data {
  std::vector<float> x, dy, y, y1, dx, g, scale, bias, mean, var, rm, rv, sm, sv, ds, db;
  Data(size_t count, size_t groups)
      : x(random_vec(count, -1, 1, 1)),
        dy(random_vec(count, -1, 1, 2)),
        y(count),
        y1(count),
        dx(count),
        g(count),
        scale(random_vec(groups, 0.5f, 1.5f, 3)),
        bias(random_vec(groups, -0.5f, 0.5f, 4)),
        mean(random_vec(groups, -0.2f, 0.2f, 5)),
        var(random_vec(groups, 0.5f, 1.5f, 6)),
        rm(groups, 0.0f),
        rv(groups, 1.0f),
        sm(groups),
        sv(groups),
        ds(groups),
        db(groups) {}
};

// anydnn, fused and unfused, for one shape and direction.
void anydnn_ms(const Shape& s, BnDir dir, Data& d, int reps, double& fused, double& unfused) {
  const auto& l = s.spec.lens;
  const miopenBatchNormMode_t mode = s.spec.mode;
  miopenHandle_t h;
  check(miopenCreate(&h), "handle");
  miopenTensorDescriptor_t xd, pd;
  miopenActivationDescriptor_t ad;
  check(miopenCreateTensorDescriptor(&xd), "x");
  check(miopenCreateTensorDescriptor(&pd), "p");
  check(miopenCreateActivationDescriptor(&ad), "activ");
  check(miopenSetActivationDescriptor(ad, miopenActivationRELU, 0, 0, 0), "relu");
  check(miopenSetTensorDescriptor(xd, miopenFloat, 4, l.data(), nullptr), "x");
  check(miopenDeriveBNTensorDescriptor(pd, xd, mode), "derive");
  const float one = 1.0f, zero = 0.0f;
  const double eps = 1e-5;
  auto train = [&](float* out) {
    check(miopenBatchNormalizationForwardTraining(
              h, mode, const_cast<float*>(&one), const_cast<float*>(&zero), xd, d.x.data(), xd, out,
              pd, d.scale.data(), d.bias.data(), 0.1, d.rm.data(), d.rv.data(), eps, d.sm.data(),
              d.sv.data()),
          "train");
  };
  // The forward the backward needs: saved statistics, bn(x) and relu(bn(x)).
  train(d.y1.data());
  check(miopenActivationForward(h, ad, &one, xd, d.y1.data(), &zero, xd, d.y.data()), "relu");
  unfused = median_ms(
      [&] {
        switch (dir) {
          case BnDir::Inference:
            check(miopenBatchNormalizationForwardInference(
                      h, mode, const_cast<float*>(&one), const_cast<float*>(&zero), xd, d.x.data(),
                      xd, d.g.data(), pd, d.scale.data(), d.bias.data(), d.mean.data(),
                      d.var.data(), eps),
                  "inference");
            check(miopenActivationForward(h, ad, &one, xd, d.g.data(), &zero, xd, d.g.data()),
                  "relu");
            break;
          case BnDir::Training:
            train(d.g.data());
            check(miopenActivationForward(h, ad, &one, xd, d.g.data(), &zero, xd, d.g.data()),
                  "relu");
            break;
          case BnDir::Backward:
            check(miopenActivationBackward(h, ad, &one, xd, d.y.data(), xd, d.dy.data(), xd,
                                           d.y1.data(), &zero, xd, d.g.data()),
                  "relu bwd");
            check(miopenBatchNormalizationBackward(h, mode, &one, &zero, &one, &zero, xd,
                                                   d.x.data(), xd, d.g.data(), xd, d.dx.data(), pd,
                                                   d.scale.data(), d.ds.data(), d.db.data(), eps,
                                                   d.sm.data(), d.sv.data()),
                  "bn bwd");
            break;
        }
      },
      reps);

  miopenFusionPlanDescriptor_t plan;
  miopenOperatorArgs_t args;
  miopenFusionOpDescriptor_t nop, aop;
  check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, xd), "plan");
  check(miopenCreateOperatorArgs(&args), "args");
  switch (dir) {
    case BnDir::Inference:
      check(miopenCreateOpBatchNormInference(plan, &nop, mode, pd), "bn op");
      check(miopenSetOpArgsBatchNormInference(args, nop, &one, &zero, d.scale.data(), d.bias.data(),
                                              d.mean.data(), d.var.data(), eps),
            "bn args");
      break;
    case BnDir::Training:
      check(miopenCreateOpBatchNormForward(plan, &nop, mode, true), "bn op");
      check(miopenSetOpArgsBatchNormForward(args, nop, &one, &zero, d.scale.data(), d.bias.data(),
                                            d.sm.data(), d.sv.data(), d.rm.data(), d.rv.data(), 0.1,
                                            eps),
            "bn args");
      break;
    case BnDir::Backward:
      check(miopenCreateOpBatchNormBackward(plan, &nop, mode), "bn op");
      check(miopenSetOpArgsBatchNormBackward(args, nop, &one, &zero, d.x.data(), d.scale.data(),
                                             d.bias.data(), d.ds.data(), d.db.data(), d.sm.data(),
                                             d.sv.data()),
            "bn args");
      break;
  }
  if (dir == BnDir::Backward) {
    check(miopenCreateOpActivationBackward(plan, &aop, miopenActivationRELU), "relu op");
    check(miopenSetOpArgsActivBackward(args, aop, &one, &zero, nullptr, nullptr, 0, 0, 0),
          "relu args");
  } else {
    check(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU), "relu op");
    check(miopenSetOpArgsActivForward(args, aop, &one, &zero, 0, 0, 0), "relu args");
  }
  check(miopenCompileFusionPlan(h, plan), "compile");
  const void* in = dir == BnDir::Backward ? d.dy.data() : d.x.data();
  float* out = dir == BnDir::Backward ? d.dx.data() : d.g.data();
  fused = median_ms(
      [&] { check(miopenExecuteFusionPlan(h, plan, xd, in, xd, out, args), "execute"); }, reps);
  miopenDestroyOperatorArgs(args);
  miopenDestroyFusionPlan(plan);
  miopenDestroyActivationDescriptor(ad);
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(pd);
  miopenDestroy(h);
}

// oneDNN's fused BN + ReLU (fuse_norm_relu). Spatial BN runs in oneDNN's blocked layout
// (nChw16c) when `blocked`, its fastest (its plain-NCHW training and backward kernels are an
// order of magnitude slower); the inputs are reordered into it once, untimed.
double onednn_ms(const Shape& s, BnDir dir, Data& d, size_t groups, dnnl::engine& eng, int reps,
                 bool blocked) {
  using dnnl::memory;
  using tag = memory::format_tag;
  using flags = dnnl::normalization_flags;
  const auto& l = s.spec.lens;
  memory::dims dims = {l[0], l[1], l[2], l[3]};
  if (s.spec.mode == miopenBNPerActivation) dims = {l[0], static_cast<long>(groups), 1, 1};
  blocked = blocked && s.spec.mode == miopenBNSpatial;
  const memory::desc user_md(dims, memory::data_type::f32, tag::nchw);
  const memory::desc md(dims, memory::data_type::f32, blocked ? tag::nChw16c : tag::nchw);
  const memory::desc vd({static_cast<long>(groups)}, memory::data_type::f32, tag::a);
  dnnl::stream st(eng);
  // A tensor in md: the user's buffer itself (plain), or a copy reordered from it (blocked).
  const auto tensor = [&](float* p) {
    memory user(user_md, eng, p);
    if (!blocked) return user;
    memory m(md, eng);
    dnnl::reorder(user, m).execute(st, user, m);
    st.wait();
    return m;
  };
  const float eps = 1e-5f;
  const auto f = flags::use_scale | flags::use_shift | flags::fuse_norm_relu;
  const bool inference = dir == BnDir::Inference;
  dnnl::batch_normalization_forward::primitive_desc fpd(
      eng, inference ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training, md,
      md, eps, inference ? f | flags::use_global_stats : f);
  memory src = tensor(d.x.data()), dst = tensor(d.g.data()), sc(vd, eng, d.scale.data()),
         sh(vd, eng, d.bias.data()), mean(vd, eng, inference ? d.mean.data() : d.sm.data()),
         var(vd, eng, inference ? d.var.data() : d.sv.data());
  std::unordered_map<int, memory> fargs = {{DNNL_ARG_SRC, src},   {DNNL_ARG_DST, dst},
                                           {DNNL_ARG_SCALE, sc},  {DNNL_ARG_SHIFT, sh},
                                           {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}};
  if (fpd.workspace_desc().get_size() > 0)
    fargs.insert({DNNL_ARG_WORKSPACE, memory(fpd.workspace_desc(), eng)});
  dnnl::batch_normalization_forward fprim(fpd);
  auto forward = [&] {
    fprim.execute(st, fargs);
    st.wait();
  };
  if (dir != BnDir::Backward) return median_ms(forward, reps);
  forward();  // the statistics and the ReLU mask (workspace) backward reads
  dnnl::batch_normalization_backward::primitive_desc bpd(eng, dnnl::prop_kind::backward, md, md, md,
                                                         eps, f, fpd);
  memory ddst = tensor(d.dy.data()), dsrc = tensor(d.dx.data()), dsc(vd, eng, d.ds.data()),
         dsh(vd, eng, d.db.data());
  std::unordered_map<int, memory> bargs = {{DNNL_ARG_SRC, src},        {DNNL_ARG_MEAN, mean},
                                           {DNNL_ARG_VARIANCE, var},   {DNNL_ARG_DIFF_DST, ddst},
                                           {DNNL_ARG_SCALE, sc},       {DNNL_ARG_DIFF_SRC, dsrc},
                                           {DNNL_ARG_DIFF_SCALE, dsc}, {DNNL_ARG_DIFF_SHIFT, dsh}};
  if (bpd.workspace_desc().get_size() > 0)
    bargs.insert({DNNL_ARG_WORKSPACE, fargs.at(DNNL_ARG_WORKSPACE)});
  dnnl::batch_normalization_backward bprim(bpd);
  return median_ms(
      [&] {
        bprim.execute(st, bargs);
        st.wait();
      },
      reps);
}

}  // namespace

std::vector<FusionRow> run_bn_chains(const std::string& shape_file, dnnl::engine& eng,
                                     const FusionOptions& o) {
  std::vector<FusionRow> rows;
  for (const Shape& s : load_bnorm_shapes(shape_file)) {
    if (!o.filter.empty() && s.name.find(o.filter) == std::string::npos) continue;
    const auto& l = s.spec.lens;
    const size_t count = static_cast<size_t>(l[0]) * l[1] * l[2] * l[3];
    const size_t groups = s.spec.mode == miopenBNSpatial ? static_cast<size_t>(l[1])
                                                         : count / static_cast<size_t>(l[0]);
    Data d(count, groups);
    for (const BnDir dir : {BnDir::Inference, BnDir::Training, BnDir::Backward}) {
      FusionRow r;
      r.set = s.spec.mode == miopenBNSpatial ? "bn" : "bn_per_activation";
      r.name = s.name;
      r.chain = chain_name(dir);
      r.count = s.count;
      anydnn_ms(s, dir, d, o.reps, r.fused, r.unfused);
      r.peer = onednn_ms(s, dir, d, groups, eng, o.reps, o.onednn_blocked);
      rows.push_back(r);
      std::printf("%-34s %-15s %9.3f %9.3f %9.3f %7.2f %7.2f\n", r.name.c_str(), r.chain.c_str(),
                  r.fused, r.unfused, r.peer, r.fused / r.unfused, r.fused / r.peer);
      std::fflush(stdout);
    }
  }
  return rows;
}

}  // namespace anydnn::bench
