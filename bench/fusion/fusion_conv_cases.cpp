// The convolution chains of fusion_vs_onednn: conv + bias + ReLU and conv + BN inference + ReLU
// (spatial) on each layer, three ways:
//  - fused:   anydnn's fusion plan (compiled once, then miopenExecuteFusionPlan timed), which runs
//             the chain as one convolution with the bias / BN / ReLU in its epilogue;
//  - unfused: the same operators one by one through anydnn's API: the convolution with the
//             algorithm Find ranked first (MIOPEN_FIND_MODE=NORMAL, as conv_vs_onednn), then
//             miopenConvolutionForwardBias or miopenBatchNormalizationForwardInference, then
//             miopenActivationForward in place;
//  - oneDNN:  one convolution_forward primitive (convolution_auto, format_tag::any) with the
//             chain as its own fusion: the bias in the primitive and an eltwise ReLU post-op;
//             BN inference as per-channel binary multiply and add post-ops (oneDNN has no BN
//             post-op; this is BN applied at run time, as the fused plan does). Blocked layouts,
//             reorders not timed (oneDNN's best case, conv_vs_onednn's default), or NCHW with the
//             reorders timed (--onednn-layout nchw).
#include <miopen/miopen.h>

#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fusion/fusion_bench.hpp"

namespace anydnn::bench {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

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

memory::dims dims(const std::vector<int>& v) {
  return memory::dims(v.begin(), v.end());
}

void fill(memory& m) {
  float* p = static_cast<float*>(m.get_data_handle());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < m.get_desc().get_size() / sizeof(float); ++i)
    p[i] = u(rng);
}

// oneDNN's fused convolution: conv + bias + ReLU (bn = false) or conv + per-channel scale and
// shift + ReLU (bn = true).
double onednn_ms(dnnl::engine& eng, const driver::ConvSpec& s, const std::vector<int>& ylens,
                 bool bn, const FusionOptions& o) {
  const auto f32 = memory::data_type::f32;
  memory::dims strides, dil, pads;
  for (size_t i = 0; i < s.pads.size(); ++i) {
    strides.push_back(s.strides[i]);
    dil.push_back(s.dilations[i] - 1);
    pads.push_back(s.pads[i]);
  }
  const memory::dims src = dims(s.in_lens), wei = dims(s.wei_lens), dst = dims(ylens);
  const memory::dims chan = {1, ylens[1], 1, 1};
  const memory::desc src_any(src, f32, tag::any), wei_any(wei, f32, tag::any),
      dst_any(dst, f32, tag::any), bias_d({ylens[1]}, f32, tag::a), chan_d(chan, f32, tag::nchw);
  dnnl::post_ops ops;
  if (bn) {
    ops.append_binary(dnnl::algorithm::binary_mul, chan_d);
    ops.append_binary(dnnl::algorithm::binary_add, chan_d);
  }
  ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const auto pd =
      bn ? dnnl::convolution_forward::primitive_desc(
               eng, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto, src_any,
               wei_any, dst_any, strides, dil, pads, pads, attr)
         : dnnl::convolution_forward::primitive_desc(
               eng, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto, src_any,
               wei_any, bias_d, dst_any, strides, dil, pads, pads, attr);
  dnnl::convolution_forward prim(pd);
  dnnl::stream st(eng);
  memory src_m(pd.src_desc(), eng), wei_m(pd.weights_desc(), eng), dst_m(pd.dst_desc(), eng),
      bias_m(bias_d, eng), scale_m(chan_d, eng), shift_m(chan_d, eng);
  for (memory* m : {&src_m, &wei_m, &bias_m, &scale_m, &shift_m})
    fill(*m);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}};
  if (bn) {
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, scale_m});
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, shift_m});
  } else {
    args.insert({DNNL_ARG_BIAS, bias_m});
  }
  if (o.onednn_blocked)
    return median_ms(
        [&] {
          prim.execute(st, args);
          st.wait();
        },
        o.reps);
  // The user's NCHW tensors: reorders into and out of oneDNN's layouts are part of the time
  // (the weights are reordered once, as a framework would cache them).
  const memory::desc src_plain(src, f32, tag::nchw), dst_plain(dst, f32, tag::nchw);
  memory us(src_plain, eng), ud(dst_plain, eng);
  fill(us);
  std::optional<dnnl::reorder> rs, rd;
  if (pd.src_desc() != src_plain) rs.emplace(us, src_m);
  if (pd.dst_desc() != dst_plain) rd.emplace(dst_m, ud);
  if (!rs) args[DNNL_ARG_SRC] = us;
  if (!rd) args[DNNL_ARG_DST] = ud;
  return median_ms(
      [&] {
        if (rs) rs->execute(st, us, src_m);
        prim.execute(st, args);
        if (rd) rd->execute(st, dst_m, ud);
        st.wait();
      },
      o.reps);
}

// anydnn's side of one layer: descriptors, data, Find's algorithm, the two fusion plans.
struct AnydnnLayer {
  miopenHandle_t h = nullptr;
  miopenTensorDescriptor_t xd, wd, yd, bd, nd;
  miopenConvolutionDescriptor_t cd;
  miopenActivationDescriptor_t ad;
  std::vector<int> ylens;
  std::vector<float> x, w, y, y2, bias, scale, shift, mean, var;
  std::vector<uint8_t> ws;
  miopenConvFwdAlgorithm_t algo = miopenConvolutionFwdAlgoGEMM;

  explicit AnydnnLayer(const driver::ConvSpec& s) {
    check(miopenCreate(&h), "handle");
    for (auto* t : {&xd, &wd, &yd, &bd, &nd})
      check(miopenCreateTensorDescriptor(t), "tensor");
    check(miopenCreateConvolutionDescriptor(&cd), "conv");
    check(miopenCreateActivationDescriptor(&ad), "activ");
    check(miopenSetActivationDescriptor(ad, miopenActivationRELU, 0, 0, 0), "relu");
    check(miopenSetTensorDescriptor(xd, miopenFloat, 4, s.in_lens.data(), nullptr), "x");
    check(miopenSetTensorDescriptor(wd, miopenFloat, 4, s.wei_lens.data(), nullptr), "w");
    check(miopenInitConvolutionNdDescriptor(cd, 2, s.pads.data(), s.strides.data(),
                                            s.dilations.data(), miopenConvolution),
          "conv");
    check(miopenSetConvolutionGroupCount(cd, s.groups), "groups");
    int ndims = 0;
    ylens.resize(4);
    check(miopenGetConvolutionNdForwardOutputDim(cd, xd, wd, &ndims, ylens.data()), "y dims");
    check(miopenSetTensorDescriptor(yd, miopenFloat, 4, ylens.data(), nullptr), "y");
    const int blens[4] = {1, ylens[1], 1, 1};
    check(miopenSetTensorDescriptor(bd, miopenFloat, 4, blens, nullptr), "bias");
    check(miopenDeriveBNTensorDescriptor(nd, yd, miopenBNSpatial), "bn");
    const size_t xn =
        static_cast<size_t>(s.in_lens[0]) * s.in_lens[1] * s.in_lens[2] * s.in_lens[3];
    const size_t wn =
        static_cast<size_t>(s.wei_lens[0]) * s.wei_lens[1] * s.wei_lens[2] * s.wei_lens[3];
    const size_t yn = static_cast<size_t>(ylens[0]) * ylens[1] * ylens[2] * ylens[3];
    const size_t k = static_cast<size_t>(ylens[1]);
    x = random_vec(xn, -1, 1, 1);
    w = random_vec(wn, -0.1f, 0.1f, 2);
    y.assign(yn, 0.0f);
    y2.assign(yn, 0.0f);
    bias = random_vec(k, -0.5f, 0.5f, 3);
    scale = random_vec(k, 0.5f, 1.5f, 4);
    shift = random_vec(k, -0.5f, 0.5f, 5);
    mean = random_vec(k, -0.2f, 0.2f, 6);
    var = random_vec(k, 0.5f, 1.5f, 7);
    size_t wsz = 0;
    check(miopenConvolutionForwardGetWorkSpaceSize(h, wd, xd, cd, yd, &wsz), "ws");
    ws.assign(wsz, 0);
    miopenConvAlgoPerf_t perf[5];
    int found = 0;
    check(miopenFindConvolutionForwardAlgorithm(h, xd, x.data(), wd, w.data(), cd, yd, y.data(), 5,
                                                &found, perf, ws.data(), ws.size(), false),
          "find");
    algo = perf[0].fwd_algo;
  }
  ~AnydnnLayer() {
    for (auto t : {xd, wd, yd, bd, nd})
      miopenDestroyTensorDescriptor(t);
    miopenDestroyConvolutionDescriptor(cd);
    miopenDestroyActivationDescriptor(ad);
    miopenDestroy(h);
  }

  double unfused_ms(bool bn, int reps) {
    const float one = 1.0f, zero = 0.0f;
    return median_ms(
        [&] {
          check(miopenConvolutionForward(h, &one, xd, x.data(), wd, w.data(), cd, algo, &zero, yd,
                                         y.data(), ws.data(), ws.size()),
                "conv");
          float* out = y.data();
          if (bn) {
            check(miopenBatchNormalizationForwardInference(
                      h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), yd,
                      y.data(), yd, y2.data(), nd, scale.data(), shift.data(), mean.data(),
                      var.data(), 1e-5),
                  "bn");
            out = y2.data();
          } else {
            check(miopenConvolutionForwardBias(h, &one, bd, bias.data(), &zero, yd, y.data()),
                  "bias");
          }
          check(miopenActivationForward(h, ad, &one, yd, out, &zero, yd, out), "relu");
        },
        reps);
  }

  double fused_ms(bool bn, int reps) {
    miopenFusionPlanDescriptor_t plan;
    miopenOperatorArgs_t args;
    miopenFusionOpDescriptor_t cop, bop, nop, aop;
    check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, xd), "plan");
    check(miopenCreateOperatorArgs(&args), "args");
    check(miopenCreateOpConvForward(plan, &cop, cd, wd), "conv op");
    if (bn)
      check(miopenCreateOpBatchNormInference(plan, &nop, miopenBNSpatial, nd), "bn op");
    else
      check(miopenCreateOpBiasForward(plan, &bop, bd), "bias op");
    check(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU), "relu op");
    check(miopenCompileFusionPlan(h, plan), "compile");
    const float one = 1.0f, zero = 0.0f;
    check(miopenSetOpArgsConvForward(args, cop, &one, &zero, w.data()), "conv args");
    if (bn)
      check(miopenSetOpArgsBatchNormInference(args, nop, &one, &zero, scale.data(), shift.data(),
                                              mean.data(), var.data(), 1e-5),
            "bn args");
    else
      check(miopenSetOpArgsBiasForward(args, bop, &one, &zero, bias.data()), "bias args");
    check(miopenSetOpArgsActivForward(args, aop, &one, &zero, 0, 0, 0), "relu args");
    const double ms = median_ms(
        [&] {
          check(miopenExecuteFusionPlan(h, plan, xd, x.data(), yd, y.data(), args), "execute");
        },
        reps);
    miopenDestroyOperatorArgs(args);
    miopenDestroyFusionPlan(plan);
    return ms;
  }
};

}  // namespace

std::vector<FusionRow> run_conv_chains(const std::vector<Layer>& layers, dnnl::engine& eng,
                                       const FusionOptions& o) {
  std::vector<FusionRow> rows;
  for (const Layer& l : layers) {
    const std::string name = layer_name(l.spec);
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
    AnydnnLayer a(l.spec);
    for (const bool bn : {false, true}) {
      FusionRow r;
      r.set = "conv";
      r.name = name;
      r.chain = bn ? "conv+bn+relu" : "conv+bias+relu";
      r.count = l.count;
      // Interleaved, so that a drift of the machine hits all three alike.
      r.unfused = a.unfused_ms(bn, o.reps);
      r.fused = a.fused_ms(bn, o.reps);
      r.peer = onednn_ms(eng, l.spec, a.ylens, bn, o);
      rows.push_back(r);
      std::printf("%-34s %-15s %9.3f %9.3f %9.3f %7.2f %7.2f\n", r.name.c_str(), r.chain.c_str(),
                  r.fused, r.unfused, r.peer, r.fused / r.unfused, r.fused / r.peer);
      std::fflush(stdout);
    }
  }
  return rows;
}

}  // namespace anydnn::bench
