// Fusion plans and miopenConvolutionBiasActivationForward through the public C API: every chain
// the plan compiles against the same primitives called one by one (bit-identical where the fused
// kernel does the same arithmetic in the same order, within tolerance where it folds BN into the
// convolution's epilogue) and against a double reference; which fusion solver runs (the log);
// MIOpen's rejections (chains it does not fuse, horizontal fusion, running before compiling,
// descriptors that are not the plan's, arguments missing or of another operator) with their
// status and one-line reason.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

struct Plan {
  miopenFusionPlanDescriptor_t p = nullptr;
  Plan(miopenTensorDescriptor_t in, miopenFusionDirection_t dir = miopenVerticalFusion) {
    EXPECT_EQ(miopenCreateFusionPlan(&p, dir, in), miopenStatusSuccess);
  }
  ~Plan() { miopenDestroyFusionPlan(p); }
  operator miopenFusionPlanDescriptor_t() const { return p; }
};

struct Args {
  miopenOperatorArgs_t a = nullptr;
  Args() { EXPECT_EQ(miopenCreateOperatorArgs(&a), miopenStatusSuccess); }
  ~Args() { miopenDestroyOperatorArgs(a); }
  operator miopenOperatorArgs_t() const { return a; }
};

// The activations the tests use, in double (MIOpen's formulas).
double act(miopenActivationMode_t m, double x, double a) {
  switch (m) {
    case miopenActivationRELU:
      return x > 0 ? x : 0;
    case miopenActivationLEAKYRELU:
      return x > 0 ? x : a * x;
    case miopenActivationLOGISTIC:
      return 1 / (1 + std::exp(-x));
    default:
      return x;
  }
}

// Direct convolution, NCHW, no groups, square padding / stride.
std::vector<double> conv_ref(const std::vector<float>& x, const std::vector<float>& w, int n, int c,
                             int h, int wd, int k, int r, int pad, int stride, int& oh, int& ow) {
  oh = (h + 2 * pad - r) / stride + 1;
  ow = (wd + 2 * pad - r) / stride + 1;
  std::vector<double> y(static_cast<size_t>(n) * k * oh * ow, 0.0);
  for (int in = 0; in < n; ++in)
    for (int ik = 0; ik < k; ++ik)
      for (int i = 0; i < oh; ++i)
        for (int j = 0; j < ow; ++j) {
          double s = 0;
          for (int ic = 0; ic < c; ++ic)
            for (int u = 0; u < r; ++u)
              for (int v = 0; v < r; ++v) {
                const int hi = i * stride - pad + u, wi = j * stride - pad + v;
                if (hi < 0 || hi >= h || wi < 0 || wi >= wd) continue;
                s += static_cast<double>(x[((in * c + ic) * h + hi) * wd + wi]) *
                     w[((ik * c + ic) * r + u) * r + v];
              }
          y[((in * k + ik) * oh + i) * ow + j] = s;
        }
  return y;
}

void expect_near_rel(const std::vector<float>& got, const std::vector<double>& want, double tol,
                     const std::string& what) {
  EXPECT_LE(ref::max_relative_error(want, got), tol) << what;
}

struct ConvCase {
  int n, c, h, w, k, r, pad, stride;
};

class FusionConv : public testing::TestWithParam<ConvCase> {};

// Every convolution chain (MIOpenDriver CBAInfer's cbna, cna, cba, ca, cb, cn, and cbn): the plan
// against the separate calls and against the double reference. Without BN the fused epilogue
// adds the bias and applies the activation to the convolution's fp32 result exactly as the
// separate calls do, so the bits must agree; with BN it folds bias and BN into one scale and
// shift per channel (a different rounding), so the agreement is the reference tolerance.
TEST_P(FusionConv, ChainsEqualTheSeparateCallsAndTheReference) {
  const ConvCase cc = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  Tensor x(miopenFloat, {cc.n, cc.c, cc.h, cc.w}), w(miopenFloat, {cc.k, cc.c, cc.r, cc.r});
  Conv conv(cc.pad, cc.stride);
  int oh = 0, ow = 0;
  const auto xv = random_floats(rng, static_cast<size_t>(cc.n) * cc.c * cc.h * cc.w, -1, 1);
  const auto wv = random_floats(rng, static_cast<size_t>(cc.k) * cc.c * cc.r * cc.r, -1, 1);
  const auto conv_d =
      conv_ref(xv, wv, cc.n, cc.c, cc.h, cc.w, cc.k, cc.r, cc.pad, cc.stride, oh, ow);
  Tensor y(miopenFloat, {cc.n, cc.k, oh, ow}), pdesc(miopenFloat, {1, cc.k, 1, 1});
  const auto bias = random_floats(rng, cc.k, -1, 1), scale = random_floats(rng, cc.k, 0.5f, 1.5f);
  const auto shift = random_floats(rng, cc.k, -1, 1), mean = random_floats(rng, cc.k, -1, 1);
  const auto var = random_floats(rng, cc.k, 0.5f, 2.0f);
  const double eps = 1e-5, leak = 0.1;
  const int per_k = oh * ow;

  for (int with_bias = 0; with_bias < 2; ++with_bias)
    for (int with_bn = 0; with_bn < 2; ++with_bn)
      for (int with_act = 0; with_act < 2; ++with_act) {
        if (!with_bias && !with_bn && !with_act) continue;  // a convolution alone is no chain
        SCOPED_TRACE(testing::Message()
                     << "bias " << with_bias << " bn " << with_bn << " act " << with_act);
        const miopenActivationMode_t mode =
            with_bn ? miopenActivationLEAKYRELU : miopenActivationRELU;
        Plan plan(x);
        Args args;
        miopenFusionOpDescriptor_t cop, bop, nop, aop;
        ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
        if (with_bias) ASSERT_EQ(miopenCreateOpBiasForward(plan, &bop, pdesc), miopenStatusSuccess);
        if (with_bn)
          ASSERT_EQ(miopenCreateOpBatchNormInference(plan, &nop, miopenBNSpatial, pdesc),
                    miopenStatusSuccess);
        if (with_act)
          ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, mode), miopenStatusSuccess);
        ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
        ASSERT_EQ(miopenSetOpArgsConvForward(args, cop, nullptr, nullptr, wv.data()),
                  miopenStatusSuccess);
        if (with_bias)
          ASSERT_EQ(miopenSetOpArgsBiasForward(args, bop, nullptr, nullptr, bias.data()),
                    miopenStatusSuccess);
        if (with_bn)
          ASSERT_EQ(miopenSetOpArgsBatchNormInference(args, nop, nullptr, nullptr, scale.data(),
                                                      shift.data(), mean.data(), var.data(), eps),
                    miopenStatusSuccess);
        if (with_act)
          ASSERT_EQ(miopenSetOpArgsActivForward(args, aop, nullptr, nullptr, leak, 0, 0),
                    miopenStatusSuccess);
        std::vector<float> fused(conv_d.size(), kPoison);
        ASSERT_EQ(miopenExecuteFusionPlan(h, plan, x, xv.data(), y, fused.data(), args),
                  miopenStatusSuccess);

        // The separate calls: the first immediate-mode solution, bias, BN inference, activation.
        size_t count = 0;
        miopenConvSolution_t sol;
        ASSERT_EQ(miopenConvolutionForwardGetSolution(h, w, x, conv, y, 1, &count, &sol),
                  miopenStatusSuccess);
        ASSERT_EQ(count, 1u);
        std::vector<char> ws(sol.workspace_size + 1);
        std::vector<float> seq(conv_d.size(), kPoison), tmp(conv_d.size(), kPoison);
        float* c_out = with_bn ? tmp.data() : seq.data();
        ASSERT_EQ(miopenConvolutionForwardImmediate(h, w, wv.data(), x, xv.data(), conv, y, c_out,
                                                    ws.data(), sol.workspace_size, sol.solution_id),
                  miopenStatusSuccess);
        const float one = 1, zero = 0;
        if (with_bias)
          ASSERT_EQ(miopenConvolutionForwardBias(h, &one, pdesc, bias.data(), &zero, y, c_out),
                    miopenStatusSuccess);
        if (with_bn)
          ASSERT_EQ(miopenBatchNormalizationForwardInference(
                        h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), y,
                        c_out, y, seq.data(), pdesc, const_cast<float*>(scale.data()),
                        const_cast<float*>(shift.data()), const_cast<float*>(mean.data()),
                        const_cast<float*>(var.data()), eps),
                    miopenStatusSuccess);
        Activ ad(mode, leak, 0, 0);
        if (with_act)
          ASSERT_EQ(miopenActivationForward(h, ad, &one, y, seq.data(), &zero, y, seq.data()),
                    miopenStatusSuccess);
        if (with_bn)
          expect_near_rel(fused, std::vector<double>(seq.begin(), seq.end()), 1e-5,
                          "against the separate calls (BN folded into the epilogue)");
        else
          EXPECT_EQ(0, std::memcmp(fused.data(), seq.data(), fused.size() * sizeof(float)));

        std::vector<double> ref(conv_d.size());
        for (size_t i = 0; i < ref.size(); ++i) {
          const size_t kk = (i / per_k) % cc.k;
          double v = conv_d[i] + (with_bias ? bias[kk] : 0.0);
          if (with_bn) v = scale[kk] * (v - mean[kk]) / std::sqrt(var[kk] + eps) + shift[kk];
          ref[i] = with_act ? act(mode, v, leak) : v;
        }
        expect_near_rel(fused, ref, 1e-5, "against the double reference");
      }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FusionConv,
                         testing::Values(ConvCase{2, 3, 9, 7, 4, 3, 1, 1},
                                         ConvCase{1, 8, 6, 6, 5, 1, 0, 2},
                                         ConvCase{3, 4, 11, 10, 6, 5, 2, 2}));

// BN inference + activation and BN training + activation against the separate calls.
TEST(FusionApi, BatchNormForwardChainsEqualTheSeparateCalls) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  const int n = 3, c = 5, hh = 4, ww = 6;
  Tensor x(miopenFloat, {n, c, hh, ww}), pdesc(miopenFloat, {1, c, 1, 1});
  const auto xv = random_floats(rng, static_cast<size_t>(n) * c * hh * ww, -2, 2);
  const auto scale = random_floats(rng, c, 0.5f, 1.5f), shift = random_floats(rng, c, -1, 1);
  const auto mean = random_floats(rng, c, -1, 1), var = random_floats(rng, c, 0.5f, 2.0f);
  const float one = 1, zero = 0;
  Activ ad(miopenActivationLOGISTIC, 0, 0, 0);
  for (int training = 0; training < 2; ++training) {
    SCOPED_TRACE(training ? "training" : "inference");
    Plan plan(x);
    Args args;
    miopenFusionOpDescriptor_t nop, aop;
    if (training)
      ASSERT_EQ(miopenCreateOpBatchNormForward(plan, &nop, miopenBNSpatial, true),
                miopenStatusSuccess);
    else
      ASSERT_EQ(miopenCreateOpBatchNormInference(plan, &nop, miopenBNSpatial, pdesc),
                miopenStatusSuccess);
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationLOGISTIC),
              miopenStatusSuccess);
    ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
    std::vector<float> fused(xv.size(), kPoison), seq(xv.size(), kPoison);
    std::vector<float> fm(c, kPoison), fi(c, kPoison), sm(c, kPoison), si(c, kPoison);
    std::vector<float> frm = mean, frv = var, srm = mean, srv = var;
    if (training)
      ASSERT_EQ(
          miopenSetOpArgsBatchNormForward(args, nop, nullptr, nullptr, scale.data(), shift.data(),
                                          fm.data(), fi.data(), frm.data(), frv.data(), 0.1, 1e-5),
          miopenStatusSuccess);
    else
      ASSERT_EQ(miopenSetOpArgsBatchNormInference(args, nop, nullptr, nullptr, scale.data(),
                                                  shift.data(), mean.data(), var.data(), 1e-5),
                miopenStatusSuccess);
    ASSERT_EQ(miopenSetOpArgsActivForward(args, aop, nullptr, nullptr, 0, 0, 0),
              miopenStatusSuccess);
    ASSERT_EQ(miopenExecuteFusionPlan(h, plan, x, xv.data(), x, fused.data(), args),
              miopenStatusSuccess);
    auto* s = const_cast<float*>(scale.data());
    auto* b = const_cast<float*>(shift.data());
    if (training)
      ASSERT_EQ(
          miopenBatchNormalizationForwardTraining(
              h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), x, xv.data(),
              x, seq.data(), pdesc, s, b, 0.1, srm.data(), srv.data(), 1e-5, sm.data(), si.data()),
          miopenStatusSuccess);
    else
      ASSERT_EQ(miopenBatchNormalizationForwardInference(
                    h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), x,
                    xv.data(), x, seq.data(), pdesc, s, b, const_cast<float*>(mean.data()),
                    const_cast<float*>(var.data()), 1e-5),
                miopenStatusSuccess);
    ASSERT_EQ(miopenActivationForward(h, ad, &one, x, seq.data(), &zero, x, seq.data()),
              miopenStatusSuccess);
    EXPECT_EQ(fused, seq);
    if (training) {
      EXPECT_EQ(fm, sm);
      EXPECT_EQ(fi, si);
      EXPECT_EQ(frm, srm);
      EXPECT_EQ(frv, srv);
    }
  }
}

// BN backward + activation backward: MIOpen's fused kernel recomputes the activation's input
// from x and the saved statistics; checked against that computation in double.
TEST(FusionApi, BatchNormBackwardActivationMatchesTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  const int n = 4, c = 3, hh = 5, ww = 5, m = n * hh * ww;
  Tensor x(miopenFloat, {n, c, hh, ww});
  const auto xv = random_floats(rng, static_cast<size_t>(n) * c * hh * ww, -2, 2);
  const auto dy = random_floats(rng, xv.size(), -1, 1);
  const auto scale = random_floats(rng, c, 0.5f, 1.5f), shift = random_floats(rng, c, -1, 1);
  // The saved statistics of x, as forward training writes them.
  std::vector<float> smean(c), sinv(c);
  for (int k = 0; k < c; ++k) {
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < hh * ww; ++j) {
        const double v = xv[(i * c + k) * hh * ww + j];
        s += v;
        s2 += v * v;
      }
    smean[k] = static_cast<float>(s / m);
    sinv[k] = static_cast<float>(1 / std::sqrt(s2 / m - (s / m) * (s / m) + 1e-5));
  }
  Plan plan(x);
  Args args;
  miopenFusionOpDescriptor_t nop, aop;
  ASSERT_EQ(miopenCreateOpBatchNormBackward(plan, &nop, miopenBNSpatial), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateOpActivationBackward(plan, &aop, miopenActivationLOGISTIC),
            miopenStatusSuccess);
  ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
  std::vector<float> dx(xv.size(), kPoison), dscale(c, kPoison), dbias(c, kPoison);
  ASSERT_EQ(miopenSetOpArgsBatchNormBackward(args, nop, nullptr, nullptr, xv.data(), scale.data(),
                                             shift.data(), dscale.data(), dbias.data(),
                                             smean.data(), sinv.data()),
            miopenStatusSuccess);
  ASSERT_EQ(miopenSetOpArgsActivBackward(args, aop, nullptr, nullptr, nullptr, nullptr, 0, 0, 0),
            miopenStatusSuccess);
  ASSERT_EQ(miopenExecuteFusionPlan(h, plan, x, dy.data(), x, dx.data(), args),
            miopenStatusSuccess);

  std::vector<double> rdx(xv.size()), rds(c), rdb(c);
  for (int k = 0; k < c; ++k) {
    std::vector<double> xhat(m), g(m);
    double sg = 0, sgx = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < hh * ww; ++j) {
        const size_t at = (i * c + k) * hh * ww + j;
        const int q = i * hh * ww + j;
        xhat[q] = (xv[at] - smean[k]) * sinv[k];
        const double yv = act(miopenActivationLOGISTIC, scale[k] * xhat[q] + shift[k], 0);
        g[q] = dy[at] * yv * (1 - yv);  // the activation's derivative at bn(x)
        sg += g[q];
        sgx += g[q] * xhat[q];
      }
    rdb[k] = sg;
    rds[k] = sgx;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < hh * ww; ++j) {
        const int q = i * hh * ww + j;
        rdx[(i * c + k) * hh * ww + j] = scale[k] * sinv[k] * (g[q] - sg / m - xhat[q] * sgx / m);
      }
  }
  expect_near_rel(dx, rdx, 1e-4, "dx");
  expect_near_rel(dscale, rds, 1e-4, "dscale");
  expect_near_rel(dbias, rdb, 1e-4, "dbias");
}

// The one-call API: against the separate calls with MIOpen's factors (1, no z), and against the
// reference with other factors and a z.
TEST(FusionApi, ConvolutionBiasActivationForward) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  const int n = 2, c = 3, hh = 8, ww = 8, k = 4;
  Tensor x(miopenFloat, {n, c, hh, ww}), w(miopenFloat, {k, c, 3, 3});
  Tensor y(miopenFloat, {n, k, hh, ww}), b(miopenFloat, {1, k, 1, 1});
  Conv conv(1, 1);
  Activ ad(miopenActivationRELU, 0, 0, 0);
  const auto xv = random_floats(rng, static_cast<size_t>(n) * c * hh * ww, -1, 1);
  const auto wv = random_floats(rng, static_cast<size_t>(k) * c * 9, -1, 1);
  const auto bias = random_floats(rng, k, -1, 1);
  const auto zv = random_floats(rng, static_cast<size_t>(n) * k * hh * ww, -1, 1);
  int oh, ow;
  const auto conv_d = conv_ref(xv, wv, n, c, hh, ww, k, 3, 1, 1, oh, ow);

  std::vector<float> fused(conv_d.size(), kPoison);
  ASSERT_EQ(miopenConvolutionBiasActivationForward(
                h, nullptr, x, xv.data(), w, wv.data(), conv, miopenConvolutionFwdAlgoDirect,
                nullptr, 0, nullptr, nullptr, nullptr, b, bias.data(), ad, y, fused.data()),
            miopenStatusSuccess);
  std::vector<double> ref(conv_d.size());
  for (size_t i = 0; i < ref.size(); ++i)
    ref[i] = act(miopenActivationRELU, conv_d[i] + bias[(i / (hh * ww)) % k], 0);
  expect_near_rel(fused, ref, 1e-5, "alpha1 = alpha2 = 1, no z");

  const float a1 = 0.5f, a2 = 2.0f;
  std::fill(fused.begin(), fused.end(), kPoison);
  ASSERT_EQ(miopenConvolutionBiasActivationForward(h, &a1, x, xv.data(), w, wv.data(), conv,
                                                   miopenConvolutionFwdAlgoGEMM, nullptr, 0, &a2, y,
                                                   zv.data(), b, bias.data(), ad, y, fused.data()),
            miopenStatusSuccess);
  for (size_t i = 0; i < ref.size(); ++i)
    ref[i] = act(miopenActivationRELU, a1 * conv_d[i] + a2 * zv[i] + bias[(i / (hh * ww)) % k], 0);
  expect_near_rel(fused, ref, 1e-5, "alpha1 0.5, alpha2 2, z");

  expect_failure(miopenStatusBadParm, "miopenConvolutionBiasActivationForward",
                 "bias is a null pointer", [&] {
                   return miopenConvolutionBiasActivationForward(
                       h, nullptr, x, xv.data(), w, wv.data(), conv, miopenConvolutionFwdAlgoDirect,
                       nullptr, 0, nullptr, nullptr, nullptr, b, nullptr, ad, y, fused.data());
                 });
  expect_failure(miopenStatusBadParm, "miopenConvolutionBiasActivationForward",
                 "is not a miopenConvFwdAlgorithm_t", [&] {
                   return miopenConvolutionBiasActivationForward(
                       h, nullptr, x, xv.data(), w, wv.data(), conv,
                       static_cast<miopenConvFwdAlgorithm_t>(4), nullptr, 0, nullptr, nullptr,
                       nullptr, b, bias.data(), ad, y, fused.data());
                 });
}

TEST(FusionApi, PlanQueriesAndAlgorithms) {
  Handle h;
  Tensor x(miopenFloat, {1, 4, 6, 6}), w(miopenFloat, {2, 4, 3, 3});
  Conv conv(1, 1);
  Plan plan(x);
  int count = -1;
  miopenConvFwdAlgorithm_t algos[8];
  expect_failure(miopenStatusBadParm, "miopenFusionPlanConvolutionGetAlgo",
                 "no convolution operator",
                 [&] { return miopenFusionPlanConvolutionGetAlgo(plan, 8, &count, algos); });
  miopenFusionOpDescriptor_t cop, aop, got;
  ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU), miopenStatusSuccess);
  ASSERT_EQ(miopenFusionPlanConvolutionGetAlgo(plan, 8, &count, algos), miopenStatusSuccess);
  EXPECT_EQ(count, 5);
  ASSERT_EQ(miopenFusionPlanConvolutionGetAlgo(plan, 2, &count, algos), miopenStatusSuccess);
  EXPECT_EQ(count, 2);
  ASSERT_EQ(miopenFusionPlanGetOp(plan, 1, &got), miopenStatusSuccess);
  EXPECT_EQ(got, aop);
  expect_failure(miopenStatusBadParm, "miopenFusionPlanGetOp", "Operator index out of bounds",
                 [&] { return miopenFusionPlanGetOp(plan, 2, &got); });
  // The workspace the chosen fusion solver needs: before compiling, what compiling would choose;
  // after, the same. The algorithm argument is ignored, as in MIOpen. (That it is the solver's
  // own need is checked white-box in tests/unit/fusion_solvers_test.cpp.)
  size_t ws = 1, ws_compiled = 2;
  ASSERT_EQ(miopenFusionPlanGetWorkSpaceSize(h, plan, &ws, miopenConvolutionFwdAlgoDirect),
            miopenStatusSuccess);
  ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
  ASSERT_EQ(miopenFusionPlanGetWorkSpaceSize(h, plan, &ws_compiled, miopenConvolutionFwdAlgoFFT),
            miopenStatusSuccess);
  EXPECT_EQ(ws, ws_compiled);
  ASSERT_EQ(miopenFusionPlanConvolutionSetAlgo(plan, miopenConvolutionFwdAlgoGEMM),
            miopenStatusSuccess);
  EXPECT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenFusionPlanConvolutionSetAlgo",
                 "is not a miopenConvFwdAlgorithm_t", [&] {
                   return miopenFusionPlanConvolutionSetAlgo(
                       plan, static_cast<miopenConvFwdAlgorithm_t>(7));
                 });
}

TEST(FusionApi, BadPlansAndCallsAreRejectedWithAReason) {
  Handle h;
  Tensor x(miopenFloat, {1, 4, 6, 6}), w(miopenFloat, {2, 4, 3, 3}),
      wbad(miopenFloat, {2, 5, 3, 3});
  Tensor y(miopenFloat, {1, 2, 6, 6}), ybad(miopenFloat, {1, 2, 5, 5}),
      b(miopenFloat, {1, 2, 1, 1});
  Conv conv(1, 1);
  std::vector<float> xv(4 * 36, 0.5f), wv(2 * 4 * 9, 0.1f), out(2 * 36, kPoison);
  miopenFusionOpDescriptor_t cop, bop, aop, nop;
  {  // an activation before the convolution: no such chain in MIOpen
    Plan plan(x);
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU),
              miopenStatusSuccess);
    ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
    expect_failure(miopenStatusUnsupportedOp, "miopenCompileFusionPlan",
                   "ActivForward+ConvForward is not a chain MIOpen fuses",
                   [&] { return miopenCompileFusionPlan(h, plan); });
  }
  {  // an activation alone
    Plan plan(x);
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU),
              miopenStatusSuccess);
    expect_failure(miopenStatusUnsupportedOp, "miopenCompileFusionPlan",
                   "is not a chain MIOpen fuses", [&] { return miopenCompileFusionPlan(h, plan); });
  }
  {  // horizontal fusion
    Plan plan(x, miopenHorizontalFusion);
    ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU),
              miopenStatusSuccess);
    expect_failure(miopenStatusNotImplemented, "miopenCompileFusionPlan", "horizontal fusion",
                   [&] { return miopenCompileFusionPlan(h, plan); });
  }
  {  // shapes that do not chain, bad enums, operators of the wrong kind, missing arguments
    Plan plan(x);
    expect_failure(miopenStatusBadParm, "miopenCreateOpConvForward", "channels",
                   [&] { return miopenCreateOpConvForward(plan, &cop, conv, wbad); });
    expect_failure(miopenStatusBadParm, "miopenCreateOpActivationForward",
                   "invalid activation mode", [&] {
                     return miopenCreateOpActivationForward(
                         plan, &aop, static_cast<miopenActivationMode_t>(11));
                   });
    expect_failure(miopenStatusBadParm, "miopenCreateOpBatchNormInference",
                   "is not a miopenBatchNormMode_t", [&] {
                     return miopenCreateOpBatchNormInference(
                         plan, &nop, static_cast<miopenBatchNormMode_t>(2), b);
                   });
    ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
    Tensor bwrong(miopenFloat, {1, 3, 1, 1});
    expect_failure(miopenStatusBadParm, "miopenCreateOpBiasForward", "bDesc must be 1 x 2",
                   [&] { return miopenCreateOpBiasForward(plan, &bop, bwrong); });
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU),
              miopenStatusSuccess);
    Args args;
    expect_failure(miopenStatusBadParm, "miopenExecuteFusionPlan", "has not been compiled", [&] {
      return miopenExecuteFusionPlan(h, plan, x, xv.data(), y, out.data(), args);
    });
    ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
    expect_failure(miopenStatusBadParm, "miopenSetOpArgsConvForward",
                   "is a ActivForward operator, not ConvForward", [&] {
                     return miopenSetOpArgsConvForward(args, aop, nullptr, nullptr, wv.data());
                   });
    expect_failure(miopenStatusBadParm, "miopenExecuteFusionPlan",
                   "arguments of fusion operator 0 (ConvForward) have not been set", [&] {
                     return miopenExecuteFusionPlan(h, plan, x, xv.data(), y, out.data(), args);
                   });
    ASSERT_EQ(miopenSetOpArgsConvForward(args, cop, nullptr, nullptr, wv.data()),
              miopenStatusSuccess);
    ASSERT_EQ(miopenSetOpArgsActivForward(args, aop, nullptr, nullptr, 0, 0, 0),
              miopenStatusSuccess);
    expect_failure(
        miopenStatusBadParm, "miopenExecuteFusionPlan", "output descriptors dont match",
        [&] { return miopenExecuteFusionPlan(h, plan, x, xv.data(), ybad, out.data(), args); });
    EXPECT_TRUE(std::isnan(out[0]));  // nothing written by the failed calls
    ASSERT_EQ(miopenExecuteFusionPlan(h, plan, x, xv.data(), y, out.data(), args),
              miopenStatusSuccess);
    EXPECT_FALSE(std::isnan(out[0]));
  }
  {  // a bad epsilon fails before the convolution writes the output
    Plan plan(x);
    Args args;
    ASSERT_EQ(miopenCreateOpConvForward(plan, &cop, conv, w), miopenStatusSuccess);
    ASSERT_EQ(miopenCreateOpBatchNormInference(plan, &nop, miopenBNSpatial, b),
              miopenStatusSuccess);
    ASSERT_EQ(miopenCreateOpActivationForward(plan, &aop, miopenActivationRELU),
              miopenStatusSuccess);
    ASSERT_EQ(miopenCompileFusionPlan(h, plan), miopenStatusSuccess);
    const std::vector<float> p2{1.0f, 1.0f};
    ASSERT_EQ(miopenSetOpArgsConvForward(args, cop, nullptr, nullptr, wv.data()),
              miopenStatusSuccess);
    ASSERT_EQ(miopenSetOpArgsBatchNormInference(args, nop, nullptr, nullptr, p2.data(), p2.data(),
                                                p2.data(), p2.data(), -1.0),
              miopenStatusSuccess);
    ASSERT_EQ(miopenSetOpArgsActivForward(args, aop, nullptr, nullptr, 0, 0, 0),
              miopenStatusSuccess);
    std::vector<float> o2(2 * 36, kPoison);
    expect_failure(miopenStatusBadParm, "miopenExecuteFusionPlan", "epsilon", [&] {
      return miopenExecuteFusionPlan(h, plan, x, xv.data(), y, o2.data(), args);
    });
    for (float v : o2)
      ASSERT_TRUE(std::isnan(v));
  }
  expect_failure(miopenStatusBadParm, "miopenCreateFusionPlan", "is not a miopenFusionDirection_t",
                 [&] {
                   miopenFusionPlanDescriptor_t p;
                   return miopenCreateFusionPlan(&p, static_cast<miopenFusionDirection_t>(2), x);
                 });
  expect_failure(miopenStatusBadParm, "miopenCreateOperatorArgs", "null pointer",
                 [&] { return miopenCreateOperatorArgs(nullptr); });
}

}  // namespace
}  // namespace anydnn::test
