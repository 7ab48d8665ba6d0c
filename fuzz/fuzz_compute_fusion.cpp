// fuzz_compute's fusion family: plans of one to four operators of any kind in any order on a
// fuzzed 4-D input (convolutions with fuzzed descriptors and filters, bias and BN parameter
// descriptors of the channels the chain has there or of others), compiled, given arguments (each
// buffer as large as the descriptor it stands for, some null) and run with the plan's own output
// descriptor or another; and the one-call miopenConvolutionBiasActivationForward with an
// optional z, fuzzed factors and algorithm, and a workspace whose claimed size comes from the
// bytes.
#include <array>
#include <memory>
#include <vector>

#include "fuzz_compute_common.hpp"

namespace anydnn::fuzz::compute {

namespace {

struct FConv {
  miopenConvolutionDescriptor_t desc = nullptr;
  FConv() { miopenCreateConvolutionDescriptor(&desc); }
  ~FConv() { miopenDestroyConvolutionDescriptor(desc); }
  void set(FuzzedDataProvider& fdp) {
    const int pad = fdp.ConsumeIntegralInRange(0, 2), stride = fdp.ConsumeIntegralInRange(1, 2);
    miopenInitConvolutionDescriptor(desc, miopenConvolution, pad, pad, stride, stride, 1, 1);
  }
};

std::array<int, 4> lens_of(const Tensor& t) {
  std::array<int, 4> l{1, 1, 1, 1};
  int n = 0;
  miopenDataType_t type;
  std::array<int, 8> dims{}, strides{};
  if (miopenGetTensorDescriptorSize(t.desc, &n) != miopenStatusSuccess || n != 4) return l;
  if (miopenGetTensorDescriptor(t.desc, &type, dims.data(), strides.data()) == miopenStatusSuccess)
    for (int i = 0; i < 4; ++i)
      l[i] = dims[i];
  return l;
}

// A 1 x c x 1 x 1 parameter tensor (c fuzzed now and then) with its buffer.
std::unique_ptr<Tensor> param_tensor(FuzzedDataProvider& fdp, miopenDataType_t type, int c) {
  auto t = std::make_unique<Tensor>();
  const int ch = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(1, 8) : c;
  const std::array<int, 4> l{1, ch, 1, 1};
  miopenSetTensorDescriptor(t->desc, type, 4, l.data(), nullptr);
  if (!t->alloc(fdp)) return nullptr;
  return t;
}

// `to` described exactly as `from` (lengths and strides), for a second buffer of its size.
void copy_desc(const Tensor& from, Tensor& to) {
  int n = 0;
  miopenDataType_t type;
  std::array<int, 8> dims{}, strides{};
  if (miopenGetTensorDescriptorSize(from.desc, &n) != miopenStatusSuccess || n < 1 || n > 8 ||
      miopenGetTensorDescriptor(from.desc, &type, dims.data(), strides.data()) !=
          miopenStatusSuccess)
    return;
  miopenSetTensorDescriptor(to.desc, type, n, dims.data(), strides.data());
}

void* maybe_null(FuzzedDataProvider& fdp, Tensor* t) {
  if (t == nullptr || fdp.ConsumeIntegralInRange(0, 15) == 0) return nullptr;
  return t->data();
}

void one_call(FuzzedDataProvider& fdp, miopenHandle_t h, miopenDataType_t type, Tensor& x) {
  FConv conv;
  conv.set(fdp);
  const auto xl = lens_of(x);
  Tensor w, y, b, z;
  const int r = fdp.ConsumeIntegralInRange(1, 3), k = fdp.ConsumeIntegralInRange(1, 8);
  const std::array<int, 4> wl{k, fdp.ConsumeIntegralInRange(0, 7) == 0 ? 1 : xl[1], r, r};
  miopenSetTensorDescriptor(w.desc, type, 4, wl.data(), nullptr);
  std::array<int, 8> yl{};
  int nd = 0;
  if (miopenGetConvolutionNdForwardOutputDim(conv.desc, x.desc, w.desc, &nd, yl.data()) !=
          miopenStatusSuccess ||
      nd != 4)
    set_tensor(fdp, y, type, 4);
  else
    miopenSetTensorDescriptor(y.desc, type, 4, yl.data(), nullptr);
  const std::array<int, 4> bl{1, k, 1, 1};
  miopenSetTensorDescriptor(b.desc, type, 4, bl.data(), nullptr);
  const bool with_z = fdp.ConsumeBool();
  if (with_z) miopenSetTensorDescriptor(z.desc, type, 4, lens_of(y).data(), nullptr);
  if (!w.alloc(fdp) || !y.alloc(fdp) || !b.alloc(fdp) || (with_z && !z.alloc(fdp))) return;
  miopenActivationDescriptor_t act = nullptr;
  if (miopenCreateActivationDescriptor(&act) != miopenStatusSuccess) return;
  miopenSetActivationDescriptor(
      act, enum_value<miopenActivationMode_t>(fdp, 9), fdp.ConsumeFloatingPoint<double>(),
      fdp.ConsumeFloatingPoint<double>(), fdp.ConsumeFloatingPoint<double>());
  const float a1 = fdp.ConsumeBool() ? 1.0f : fdp.ConsumeFloatingPoint<float>();
  const float a2 = fdp.ConsumeBool() ? 1.0f : fdp.ConsumeFloatingPoint<float>();
  Bytes ws = workspace(fdp, fdp.ConsumeIntegralInRange<size_t>(0, 1 << 12));
  miopenConvolutionBiasActivationForward(
      h, fdp.ConsumeBool() ? &a1 : nullptr, x.desc, x.data(), w.desc, w.data(), conv.desc,
      enum_value<miopenConvFwdAlgorithm_t>(fdp, 5), ws_ptr(fdp, ws), ws.size(),
      fdp.ConsumeBool() ? &a2 : nullptr, with_z ? z.desc : nullptr, with_z ? z.data() : nullptr,
      b.desc, maybe_null(fdp, &b), act, y.desc, y.data());
  miopenDestroyActivationDescriptor(act);
}

}  // namespace

void fusion(FuzzedDataProvider& fdp, miopenHandle_t h) {
  const miopenDataType_t type = compute_type(fdp);
  Tensor x, dx;
  set_tensor(fdp, x, type, 4);
  if (!x.alloc(fdp)) return;
  if (fdp.ConsumeIntegralInRange(0, 3) == 0) return one_call(fdp, h, type, x);

  miopenFusionPlanDescriptor_t plan = nullptr;
  const auto dir =
      fdp.ConsumeIntegralInRange(0, 15) == 0 ? miopenHorizontalFusion : miopenVerticalFusion;
  if (miopenCreateFusionPlan(&plan, dir, x.desc) != miopenStatusSuccess) return;
  struct Op {
    int kind;
    miopenFusionOpDescriptor_t op;
  };
  std::vector<Op> ops;
  std::vector<std::unique_ptr<Tensor>> tensors;  // descriptors and buffers the ops refer to
  std::vector<std::unique_ptr<FConv>> convs;
  Tensor* weights = nullptr;
  std::array<Tensor*, 4> bn{};  // scale, bias, mean, variance (or saved mean / inverse std)
  Tensor* bias = nullptr;
  int channels = lens_of(x)[1];
  bool first_conv_out = false;  // the plan's output is the first operator's, a convolution
  const int count = fdp.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < count; ++i) {
    const int kind = fdp.ConsumeIntegralInRange(0, 6);  // MIOpen's miopenFusionOp_t order
    miopenFusionOpDescriptor_t op = nullptr;
    miopenStatus_t st = miopenStatusBadParm;
    const auto mode = enum_value<miopenBatchNormMode_t>(fdp, 1);
    if (kind == 0) {
      convs.push_back(std::make_unique<FConv>());
      convs.back()->set(fdp);
      auto w = std::make_unique<Tensor>();
      const int k = fdp.ConsumeIntegralInRange(1, 8), r = fdp.ConsumeIntegralInRange(1, 3);
      const std::array<int, 4> wl{k, fdp.ConsumeIntegralInRange(0, 7) == 0 ? 2 : channels, r, r};
      miopenSetTensorDescriptor(w->desc, type, 4, wl.data(), nullptr);
      if (!w->alloc(fdp)) break;
      st = miopenCreateOpConvForward(plan, &op, convs.back()->desc, w->desc);
      if (st == miopenStatusSuccess) {
        channels = k;
        first_conv_out = i == 0;
        weights = w.get();
      }
      tensors.push_back(std::move(w));
    } else if (kind == 1 || kind == 6) {
      const auto m = enum_value<miopenActivationMode_t>(fdp, 9);
      st = kind == 1 ? miopenCreateOpActivationForward(plan, &op, m)
                     : miopenCreateOpActivationBackward(plan, &op, m);
    } else if (kind == 3) {
      auto b = param_tensor(fdp, type, channels);
      if (!b) break;
      st = miopenCreateOpBiasForward(plan, &op, b->desc);
      bias = b.get();
      tensors.push_back(std::move(b));
    } else {
      // BN: inference takes the parameter descriptor; training and backward derive it from the
      // operator's input, which the harness knows for the first operator (the only place MIOpen's
      // chains put them), so their buffers are sized from x there.
      auto p = std::make_unique<Tensor>();
      if (kind == 2) {
        p = param_tensor(fdp, type, channels);
        if (!p) break;
        st = miopenCreateOpBatchNormInference(plan, &op, mode, p->desc);
      } else {
        if (miopenDeriveBNTensorDescriptor(p->desc, x.desc, mode) != miopenStatusSuccess ||
            !p->alloc(fdp))
          break;
        st = kind == 4 ? miopenCreateOpBatchNormForward(plan, &op, mode, fdp.ConsumeBool())
                       : miopenCreateOpBatchNormBackward(plan, &op, mode);
      }
      // Scale, bias, mean and variance: buffers of the operator's parameter descriptor.
      bn = {};
      for (auto& slot : bn) {
        auto t = std::make_unique<Tensor>();
        copy_desc(*p, *t);
        if (!t->alloc(fdp)) break;
        slot = t.get();
        tensors.push_back(std::move(t));
      }
      tensors.push_back(std::move(p));
    }
    if (st == miopenStatusSuccess) ops.push_back({kind, op});
  }
  miopenCompileFusionPlan(h, plan);
  miopenOperatorArgs_t args = nullptr;
  if (miopenCreateOperatorArgs(&args) == miopenStatusSuccess) {
    const float one = 1.0f, zero = 0.0f;
    const double eps = fdp.ConsumeBool() ? 1e-5 : fdp.ConsumeFloatingPoint<double>();
    copy_desc(x, dx);
    dx.alloc(fdp);
    for (const Op& o : ops) {
      if (fdp.ConsumeIntegralInRange(0, 15) == 0) continue;  // arguments left unset
      const double aa = fdp.ConsumeFloatingPoint<double>();
      switch (o.kind) {
        case 0:
          miopenSetOpArgsConvForward(args, o.op, &one, &zero, maybe_null(fdp, weights));
          break;
        case 1:
          miopenSetOpArgsActivForward(args, o.op, &one, &zero, aa, 1.0, 1.0);
          break;
        case 6:
          miopenSetOpArgsActivBackward(args, o.op, &one, &zero, nullptr, nullptr, aa, 1.0, 1.0);
          break;
        case 3:
          miopenSetOpArgsBiasForward(args, o.op, &one, &zero, maybe_null(fdp, bias));
          break;
        case 2:
          miopenSetOpArgsBatchNormInference(args, o.op, &one, &zero, maybe_null(fdp, bn[0]),
                                            maybe_null(fdp, bn[1]), maybe_null(fdp, bn[2]),
                                            maybe_null(fdp, bn[3]), eps);
          break;
        case 4:
          miopenSetOpArgsBatchNormForward(
              args, o.op, &one, &zero, maybe_null(fdp, bn[0]), maybe_null(fdp, bn[1]),
              maybe_null(fdp, bn[2]), maybe_null(fdp, bn[3]), maybe_null(fdp, bn[2]),
              maybe_null(fdp, bn[3]), fdp.ConsumeFloatingPoint<double>(), eps);
          break;
        case 5:
          // x: a second x-sized buffer (the plan's input is dy).
          miopenSetOpArgsBatchNormBackward(args, o.op, &one, &zero, maybe_null(fdp, &dx),
                                           maybe_null(fdp, bn[0]), maybe_null(fdp, bn[1]),
                                           maybe_null(fdp, bn[2]), maybe_null(fdp, bn[3]),
                                           maybe_null(fdp, bn[2]), maybe_null(fdp, bn[3]));
          break;
      }
    }
    // The output: the convolution's output lengths (when the chain starts with one), x's, or
    // any descriptor; the library runs only when it is the plan's.
    Tensor y;
    std::array<int, 8> yl{};
    int nd = 0;
    if (first_conv_out && fdp.ConsumeBool() &&
        miopenGetConvolutionNdForwardOutputDim(convs.front()->desc, x.desc, weights->desc, &nd,
                                               yl.data()) == miopenStatusSuccess &&
        nd == 4)
      miopenSetTensorDescriptor(y.desc, type, 4, yl.data(), nullptr);
    else if (fdp.ConsumeBool())
      miopenSetTensorDescriptor(y.desc, type, 4, lens_of(x).data(), nullptr);
    else
      set_tensor(fdp, y, type, 4);
    if (y.alloc(fdp)) miopenExecuteFusionPlan(h, plan, x.desc, x.data(), y.desc, y.data(), args);
    miopenDestroyOperatorArgs(args);
  }
  int idx = fdp.ConsumeIntegralInRange(-1, 4);
  miopenFusionOpDescriptor_t got = nullptr;
  miopenFusionPlanGetOp(plan, idx, &got);
  miopenDestroyFusionPlan(plan);
}

}  // namespace anydnn::fuzz::compute
