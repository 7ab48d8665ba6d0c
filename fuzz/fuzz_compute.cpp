// Compute calls with descriptors built from the fuzzer's bytes: convolution (immediate mode with
// a solution id from the bytes, Find + run with a workspace whose claimed size comes from the
// bytes, bias), batch norm (training, inference, backward, V1 and V2), RNN (legacy and sequence
// API with workspace / reserve sizes from the bytes), dropout and the tensor ops (OpTensor with
// a B of fuzzed lengths, SetTensor, ScaleTensor, TransformTensor between fuzzed descriptors),
// LRN forward / backward, miopenReduceTensor (C's lengths A's with fuzzed dims set to 1, or
// anything; a fuzzed reduce descriptor; workspace and indices buffers sized from the sizes the
// API returns, the claims sometimes short) and pooling (forward with or without indices,
// backward, on a fuzzed descriptor and tensors) and fusion plans (fuzz_compute_fusion.cpp).
// Shapes stay small (every dim <= 8, at most 4096 elements per tensor); whether the descriptors
// agree is up to the fuzzer.
//
// Every tensor buffer is allocated at the size its own descriptor needs
// (miopenGetTensorNumBytes); size arguments (workspace, reserve, states, weight space) are
// honest about the buffer passed with them but may be smaller than the call needs. So any
// access out of bounds is the library's: it received enough information to refuse the call.
#include <miopen/miopen.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "fuzz_compute_common.hpp"

using namespace anydnn::fuzz::compute;

namespace {

struct Conv {
  miopenConvolutionDescriptor_t desc = nullptr;
  Conv() { miopenCreateConvolutionDescriptor(&desc); }
  ~Conv() { miopenDestroyConvolutionDescriptor(desc); }
};

void convolution(FuzzedDataProvider& fdp, miopenHandle_t h) {
  const miopenDataType_t type = compute_type(fdp);
  const int nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? 5 : 4;
  const int sp = nd - 2;
  Conv conv;
  std::array<int, 3> pads{}, strides{}, dils{};
  for (int i = 0; i < sp; ++i) {
    pads[i] = fdp.ConsumeIntegralInRange(0, 3);
    strides[i] = fdp.ConsumeIntegralInRange(1, 3);
    dils[i] = fdp.ConsumeIntegralInRange(1, 3);
  }
  const auto mode = fdp.ConsumeIntegralInRange(0, 5) == 0 ? miopenTranspose : miopenConvolution;
  miopenInitConvolutionNdDescriptor(conv.desc, sp, pads.data(), strides.data(), dils.data(), mode);
  if (fdp.ConsumeBool())
    miopenSetConvolutionGroupCount(conv.desc, fdp.ConsumeIntegralInRange(1, 4));
  if (mode == miopenTranspose && fdp.ConsumeBool()) {
    std::array<int, 3> adj{};
    for (int i = 0; i < sp; ++i)
      adj[i] = fdp.ConsumeIntegralInRange(0, 2);
    miopenSetTransposeConvNdOutputPadding(conv.desc, sp, adj.data());
  }
  Tensor x, w, y;
  set_tensor(fdp, x, type, fdp.ConsumeIntegralInRange(0, 15) == 0 ? 0 : nd);
  set_tensor(fdp, w, type, fdp.ConsumeIntegralInRange(0, 15) == 0 ? 0 : nd);
  // The output: usually what the library derives, sometimes whatever the bytes say.
  std::array<int, 8> out{};
  int out_nd = 0;
  if (fdp.ConsumeIntegralInRange(0, 3) != 0 &&
      miopenGetConvolutionNdForwardOutputDim(conv.desc, x.desc, w.desc, &out_nd, out.data()) ==
          miopenStatusSuccess) {
    size_t total = 1;
    for (int i = 0; i < out_nd; ++i)
      total *= static_cast<size_t>(out[i]);
    if (total > kMaxElems) return;
    miopenSetTensorDescriptor(y.desc, type == miopenInt8 ? miopenInt32 : type, out_nd, out.data(),
                              nullptr);
  } else {
    set_tensor(fdp, y, type, nd);
  }
  if (!x.alloc(fdp) || !w.alloc(fdp) || !y.alloc(fdp)) return;

  const int dir = fdp.ConsumeIntegralInRange(0, 2);  // forward, backward data, backward weights
  // The immediate-mode and Find calls name their tensors in different orders per direction.
  const float alpha = 1.0f, beta = fdp.ConsumeBool() ? 0.0f : 0.5f;
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0:
    case 1: {
      // Immediate mode: solutions, a solution id (listed or any), its workspace, compile, run.
      std::array<miopenConvSolution_t, 32> sols{};
      size_t count = 0, n = 0;
      const size_t max = fdp.ConsumeIntegralInRange<size_t>(0, sols.size());
      miopenStatus_t rc;
      if (dir == 0) {
        miopenConvolutionForwardGetSolutionCount(h, w.desc, x.desc, conv.desc, y.desc, &count);
        rc = miopenConvolutionForwardGetSolution(h, w.desc, x.desc, conv.desc, y.desc, max, &n,
                                                 sols.data());
      } else if (dir == 1) {
        miopenConvolutionBackwardDataGetSolutionCount(h, y.desc, w.desc, conv.desc, x.desc, &count);
        rc = miopenConvolutionBackwardDataGetSolution(h, y.desc, w.desc, conv.desc, x.desc, max, &n,
                                                      sols.data());
      } else {
        miopenConvolutionBackwardWeightsGetSolutionCount(h, y.desc, x.desc, conv.desc, w.desc,
                                                         &count);
        rc = miopenConvolutionBackwardWeightsGetSolution(h, y.desc, x.desc, conv.desc, w.desc, max,
                                                         &n, sols.data());
      }
      uint64_t id = fdp.ConsumeIntegral<uint64_t>() % 64;
      if (rc == miopenStatusSuccess && n > 0 && n <= max && fdp.ConsumeIntegralInRange(0, 3) != 0)
        id = sols[fdp.ConsumeIntegralInRange<size_t>(0, n - 1)].solution_id;
      size_t need = 0;
      if (dir == 0)
        miopenConvolutionForwardGetSolutionWorkspaceSize(h, w.desc, x.desc, conv.desc, y.desc, id,
                                                         &need);
      else if (dir == 1)
        miopenConvolutionBackwardDataGetSolutionWorkspaceSize(h, y.desc, w.desc, conv.desc, x.desc,
                                                              id, &need);
      else
        miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(h, y.desc, x.desc, conv.desc,
                                                                 w.desc, id, &need);
      auto ws = workspace(fdp, need);
      const bool compile = fdp.ConsumeBool();
      if (dir == 0) {
        if (compile)
          miopenConvolutionForwardCompileSolution(h, w.desc, x.desc, conv.desc, y.desc, id);
        miopenConvolutionForwardImmediate(h, w.desc, w.data(), x.desc, x.data(), conv.desc, y.desc,
                                          y.data(), ws_ptr(fdp, ws), ws.size(), id);
      } else if (dir == 1) {
        if (compile)
          miopenConvolutionBackwardDataCompileSolution(h, y.desc, w.desc, conv.desc, x.desc, id);
        miopenConvolutionBackwardDataImmediate(h, y.desc, y.data(), w.desc, w.data(), conv.desc,
                                               x.desc, x.data(), ws_ptr(fdp, ws), ws.size(), id);
      } else {
        if (compile)
          miopenConvolutionBackwardWeightsCompileSolution(h, y.desc, x.desc, conv.desc, w.desc, id);
        miopenConvolutionBackwardWeightsImmediate(h, y.desc, y.data(), x.desc, x.data(), conv.desc,
                                                  w.desc, w.data(), ws_ptr(fdp, ws), ws.size(), id);
      }
      break;
    }
    case 2: {
      // Find with a workspace of the bytes' size, then the legacy call with an algorithm from
      // the bytes (found or not) and a possibly different workspace.
      size_t need = 0;
      if (dir == 0)
        miopenConvolutionForwardGetWorkSpaceSize(h, w.desc, x.desc, conv.desc, y.desc, &need);
      else if (dir == 1)
        miopenConvolutionBackwardDataGetWorkSpaceSize(h, y.desc, w.desc, conv.desc, x.desc, &need);
      else
        miopenConvolutionBackwardWeightsGetWorkSpaceSize(h, y.desc, x.desc, conv.desc, w.desc,
                                                         &need);
      auto ws = workspace(fdp, need);
      std::array<miopenConvAlgoPerf_t, 8> perf{};
      const int request = fdp.ConsumeIntegralInRange(-1, 8);  // perf holds 8
      int returned = 0;
      const bool exhaustive = fdp.ConsumeBool();
      if (dir == 0)
        miopenFindConvolutionForwardAlgorithm(h, x.desc, x.data(), w.desc, w.data(), conv.desc,
                                              y.desc, y.data(), request, &returned, perf.data(),
                                              ws_ptr(fdp, ws), ws.size(), exhaustive);
      else if (dir == 1)
        miopenFindConvolutionBackwardDataAlgorithm(
            h, y.desc, y.data(), w.desc, w.data(), conv.desc, x.desc, x.data(), request, &returned,
            perf.data(), ws_ptr(fdp, ws), ws.size(), exhaustive);
      else
        miopenFindConvolutionBackwardWeightsAlgorithm(
            h, y.desc, y.data(), x.desc, x.data(), conv.desc, w.desc, w.data(), request, &returned,
            perf.data(), ws_ptr(fdp, ws), ws.size(), exhaustive);
      auto ws2 = fdp.ConsumeBool() ? ws : workspace(fdp, need);
      const int algo = returned > 0 && returned <= 8 && fdp.ConsumeBool()
                           ? static_cast<int>(perf[0].fwd_algo)
                           : enum_value<int>(fdp, 5);
      if (dir == 0)
        miopenConvolutionForward(h, &alpha, x.desc, x.data(), w.desc, w.data(), conv.desc,
                                 static_cast<miopenConvFwdAlgorithm_t>(algo), &beta, y.desc,
                                 y.data(), ws_ptr(fdp, ws2), ws2.size());
      else if (dir == 1)
        miopenConvolutionBackwardData(h, &alpha, y.desc, y.data(), w.desc, w.data(), conv.desc,
                                      static_cast<miopenConvBwdDataAlgorithm_t>(algo), &beta,
                                      x.desc, x.data(), ws_ptr(fdp, ws2), ws2.size());
      else
        miopenConvolutionBackwardWeights(h, &alpha, y.desc, y.data(), x.desc, x.data(), conv.desc,
                                         static_cast<miopenConvBwdWeightsAlgorithm_t>(algo), &beta,
                                         w.desc, w.data(), ws_ptr(fdp, ws2), ws2.size());
      break;
    }
    case 3: {
      // Bias: a 1xKx1x1 (or anything) bias tensor against the output.
      Tensor b;
      set_tensor(fdp, b, type);
      if (!b.alloc(fdp)) return;
      if (fdp.ConsumeBool())
        miopenConvolutionForwardBias(h, &alpha, b.desc, b.data(), &beta, y.desc, y.data());
      else
        miopenConvolutionBackwardBias(h, &alpha, y.desc, y.data(), &beta, b.desc, b.data());
      break;
    }
  }
}

void batch_norm(FuzzedDataProvider& fdp, miopenHandle_t h) {
  const miopenDataType_t type = compute_type(fdp);
  const auto mode = enum_value<miopenBatchNormMode_t>(fdp, 1);
  Tensor x, y, dx, s, b, m, v;
  set_tensor(fdp, x, type);
  // y / dx: usually x's shape, sometimes their own.
  for (Tensor* t : {&y, &dx}) {
    if (fdp.ConsumeIntegralInRange(0, 7) != 0) {
      int n = 0;
      std::array<int, 8> lens{}, strides{};
      miopenDataType_t dt;
      if (miopenGetTensorDescriptorSize(x.desc, &n) == miopenStatusSuccess && n >= 1 && n <= 8 &&
          miopenGetTensorDescriptor(x.desc, &dt, lens.data(), strides.data()) ==
              miopenStatusSuccess)
        miopenSetTensorDescriptor(t->desc, dt, n, lens.data(), strides.data());
    } else {
      set_tensor(fdp, *t, type);
    }
  }
  // The parameter descriptors: derived from x (in the mode, or the other one), or from bytes.
  const bool derived = fdp.ConsumeIntegralInRange(0, 7) != 0;
  if (derived) {
    const auto dmode = fdp.ConsumeIntegralInRange(0, 7) == 0
                           ? (mode == miopenBNSpatial ? miopenBNPerActivation : miopenBNSpatial)
                           : mode;
    for (Tensor* t : {&s, &b, &m, &v})
      miopenDeriveBNTensorDescriptor(t->desc, x.desc, dmode);
  } else {
    for (Tensor* t : {&s, &b, &m, &v})
      set_tensor(fdp, *t, fdp.ConsumeBool() ? miopenFloat : type);
  }
  if (!x.alloc(fdp) || !y.alloc(fdp) || !dx.alloc(fdp) || !s.alloc(fdp) || !b.alloc(fdp) ||
      !m.alloc(fdp) || !v.alloc(fdp))
    return;
  // The V1 calls size every parameter by the one scale descriptor: all parameter buffers get the
  // largest of the four sizes, so that neither call family can be handed a short buffer.
  const size_t pbytes = std::max({s.buf.size(), b.buf.size(), m.buf.size(), v.buf.size()});
  for (Tensor* t : {&s, &b, &m, &v})
    t->buf.resize(pbytes);
  Bytes rm(pbytes), rv(pbytes), sm(pbytes), sv(pbytes);
  auto opt = [&](Bytes& buf) -> void* { return fdp.ConsumeBool() ? buf.data() : nullptr; };
  float alpha = 1.0f, beta = fdp.ConsumeBool() ? 0.0f : 0.5f;
  const double eps = fdp.ConsumeBool() ? 1e-5 : fdp.ConsumeFloatingPoint<double>();
  const double factor = fdp.ConsumeBool() ? 0.1 : fdp.ConsumeFloatingPoint<double>();
  const bool v2 = fdp.ConsumeBool();
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
      if (v2)
        miopenBatchNormalizationForwardTraining_V2(
            h, mode, &alpha, &beta, x.desc, x.data(), y.desc, y.data(), s.desc, b.desc, m.desc,
            v.desc, s.data(), b.data(), factor, opt(rm), opt(rv), eps, opt(sm), opt(sv));
      else
        miopenBatchNormalizationForwardTraining(h, mode, &alpha, &beta, x.desc, x.data(), y.desc,
                                                y.data(), s.desc, s.data(), b.data(), factor,
                                                opt(rm), opt(rv), eps, opt(sm), opt(sv));
      break;
    case 1:
      if (v2)
        miopenBatchNormalizationForwardInference_V2(
            h, mode, &alpha, &beta, x.desc, x.data(), y.desc, y.data(), s.desc, b.desc, m.desc,
            v.desc, s.data(), b.data(), opt(rm), opt(rv), eps);
      else
        miopenBatchNormalizationForwardInference(h, mode, &alpha, &beta, x.desc, x.data(), y.desc,
                                                 y.data(), s.desc, s.data(), b.data(), opt(rm),
                                                 opt(rv), eps);
      break;
    case 2: {
      // dy lives in y's buffer; dscale / dbias in buffers of the scale / bias size.
      Bytes ds(s.buf), db(b.buf);
      if (v2)
        miopenBatchNormalizationBackward_V2(h, mode, &alpha, &beta, &alpha, &beta, x.desc, x.data(),
                                            y.desc, y.data(), dx.desc, dx.data(), s.desc, b.desc,
                                            m.desc, v.desc, s.data(), ds.data(), db.data(), eps,
                                            opt(sm), opt(sv));
      else
        miopenBatchNormalizationBackward(h, mode, &alpha, &beta, &alpha, &beta, x.desc, x.data(),
                                         y.desc, y.data(), dx.desc, dx.data(), s.desc, s.data(),
                                         ds.data(), db.data(), eps, opt(sm), opt(sv));
      break;
    }
  }
}

struct Dropout {
  miopenDropoutDescriptor_t desc = nullptr;
  Bytes states;
  Dropout() { miopenCreateDropoutDescriptor(&desc); }
  ~Dropout() { miopenDestroyDropoutDescriptor(desc); }
  void set(FuzzedDataProvider& fdp, miopenHandle_t h) {
    size_t need = 0;
    miopenDropoutGetStatesSize(h, &need);
    states = workspace(fdp, need);
    const float rate = fdp.ConsumeIntegralInRange(0, 7) == 0
                           ? fdp.ConsumeFloatingPoint<float>()
                           : fdp.ConsumeFloatingPointInRange(0.0f, 0.99f);
    miopenSetDropoutDescriptor(desc, h, rate, states.empty() ? nullptr : states.data(),
                               states.size(), fdp.ConsumeIntegral<uint32_t>(), fdp.ConsumeBool(),
                               fdp.ConsumeBool(), MIOPEN_RNG_PSEUDO_XORWOW);
  }
};

void dropout(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Dropout d;
  d.set(fdp, h);
  const miopenDataType_t type = compute_type(fdp);
  Tensor noise, x, y;
  set_tensor(fdp, x, type);
  set_tensor(fdp, y, type);
  set_tensor(fdp, noise, type);
  if (!x.alloc(fdp) || !y.alloc(fdp) || !noise.alloc(fdp)) return;
  size_t need = 0;
  miopenDropoutGetReserveSpaceSize(x.desc, &need);
  auto reserve = workspace(fdp, need);
  if (fdp.ConsumeBool())
    miopenDropoutForward(h, d.desc, noise.desc, x.desc, x.data(), y.desc, y.data(),
                         ws_ptr(fdp, reserve), reserve.size());
  else
    miopenDropoutBackward(h, d.desc, noise.desc, x.desc, x.data(), y.desc, y.data(),
                          ws_ptr(fdp, reserve), reserve.size());
}

struct Rnn {
  miopenRNNDescriptor_t desc = nullptr;
  Rnn() { miopenCreateRNNDescriptor(&desc); }
  ~Rnn() { miopenDestroyRNNDescriptor(desc); }
};

void rnn(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Rnn r;
  Dropout drop;
  const miopenDataType_t type = fdp.ConsumeIntegralInRange(0, 7) == 0 ? miopenHalf : miopenFloat;
  const int hidden = fdp.ConsumeIntegralInRange(1, 8), layers = fdp.ConsumeIntegralInRange(1, 2);
  const auto in_mode = enum_value<miopenRNNInputMode_t>(fdp, 1);
  const auto dir = enum_value<miopenRNNDirectionMode_t>(fdp, 1);
  const auto mode = enum_value<miopenRNNMode_t>(fdp, 3);
  const auto bias = enum_value<miopenRNNBiasMode_t>(fdp, 1);
  if (fdp.ConsumeBool()) {
    drop.set(fdp, h);
    miopenSetRNNDescriptor_V2(r.desc, hidden, layers, drop.desc, in_mode, dir, mode, bias,
                              miopenRNNdefault, type);
  } else {
    miopenSetRNNDescriptor(r.desc, hidden, layers, in_mode, dir, mode, bias, miopenRNNdefault,
                           type);
  }
  const int D = dir == miopenRNNbidirection ? 2 : 1;
  const int seq = fdp.ConsumeIntegralInRange(1, 4);
  // Inputs per step: batch sizes (usually non-increasing) and input width, from the bytes.
  int input = fdp.ConsumeIntegralInRange(1, 8);
  if (in_mode == miopenRNNskip && fdp.ConsumeBool()) input = hidden;
  int batch = fdp.ConsumeIntegralInRange(1, 8);
  std::vector<std::unique_ptr<Tensor>> xs, ys;
  std::vector<miopenTensorDescriptor_t> xd, yd;
  size_t xbytes = 0, ybytes = 0;
  for (int t = 0; t < seq; ++t) {
    if (t > 0 && fdp.ConsumeBool()) batch = fdp.ConsumeIntegralInRange(0, 8);
    const int xw =
        fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange(0, 9) : input;
    const int yw =
        fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange(0, 17) : D * hidden;
    xs.push_back(std::make_unique<Tensor>());
    ys.push_back(std::make_unique<Tensor>());
    const std::array<int, 2> xl = {batch, xw}, yl = {batch, yw};
    miopenSetTensorDescriptor(xs.back()->desc, type, 2, xl.data(), nullptr);
    miopenSetTensorDescriptor(ys.back()->desc, type, 2, yl.data(), nullptr);
    size_t b = 0;
    if (miopenGetTensorNumBytes(xs.back()->desc, &b) == miopenStatusSuccess) xbytes += b;
    if (miopenGetTensorNumBytes(ys.back()->desc, &b) == miopenStatusSuccess) ybytes += b;
    xd.push_back(xs.back()->desc);
    yd.push_back(ys.back()->desc);
  }
  Tensor hx, cx, hy, cy, w;
  {
    const int b0 = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(0, 9)
                   : xs.empty()                          ? 1
                                                         : batch;
    const std::array<int, 3> hl = {layers * D, b0,
                                   fdp.ConsumeIntegralInRange(0, 15) == 0 ? 3 : hidden};
    for (Tensor* t : {&hx, &cx, &hy, &cy})
      miopenSetTensorDescriptor(t->desc, type, 3, hl.data(), nullptr);
  }
  if (fdp.ConsumeIntegralInRange(0, 7) != 0)
    miopenGetRNNParamsDescriptor(h, r.desc, xd[0], w.desc, type);
  else
    set_tensor(fdp, w, type, 1);
  if (!hx.alloc(fdp) || !cx.alloc(fdp) || !hy.alloc(fdp) || !cy.alloc(fdp) || !w.alloc(fdp)) return;
  if (xbytes > kMaxElems * 8 || ybytes > kMaxElems * 8) return;
  Bytes x(xbytes + 1), y(ybytes + 1), dx(xbytes + 1), dy(ybytes + 1);
  Bytes dw(w.buf.size());
  size_t need_ws = 0, need_rs = 0;
  miopenGetRNNWorkspaceSize(h, r.desc, seq, xd.data(), &need_ws);
  miopenGetRNNTrainingReserveSize(h, r.desc, seq, xd.data(), &need_rs);
  auto ws = workspace(fdp, need_ws), rs = workspace(fdp, need_rs);
  auto opt = [&](Tensor& t) -> void* {
    return fdp.ConsumeIntegralInRange(0, 3) == 0 ? nullptr : t.data();
  };
  switch (fdp.ConsumeIntegralInRange(0, 4)) {
    case 0:
      miopenRNNForwardInference(h, r.desc, seq, xd.data(), x.data(), hx.desc, opt(hx), cx.desc,
                                opt(cx), w.desc, w.data(), yd.data(), y.data(), hy.desc, opt(hy),
                                cy.desc, opt(cy), ws_ptr(fdp, ws), ws.size());
      break;
    default: {
      const miopenStatus_t rc = miopenRNNForwardTraining(
          h, r.desc, seq, xd.data(), x.data(), hx.desc, opt(hx), cx.desc, opt(cx), w.desc, w.data(),
          yd.data(), y.data(), hy.desc, opt(hy), cy.desc, opt(cy), ws_ptr(fdp, ws), ws.size(),
          ws_ptr(fdp, rs), rs.size());
      if (rc != miopenStatusSuccess && fdp.ConsumeBool()) break;
      // Backward over whatever the reserve now holds (possibly nothing meaningful).
      if (fdp.ConsumeBool())
        miopenRNNBackwardData(h, r.desc, seq, yd.data(), y.data(), yd.data(), dy.data(), hy.desc,
                              opt(hy), cy.desc, opt(cy), w.desc, w.data(), hx.desc, opt(hx),
                              cx.desc, opt(cx), xd.data(), dx.data(), hx.desc, opt(hx), cx.desc,
                              opt(cx), ws_ptr(fdp, ws), ws.size(), ws_ptr(fdp, rs), rs.size());
      else
        miopenRNNBackwardWeights(h, r.desc, seq, xd.data(), x.data(), hx.desc, opt(hx), yd.data(),
                                 y.data(), w.desc, dw.data(), ws_ptr(fdp, ws), ws.size(),
                                 ws_ptr(fdp, rs), rs.size());
      break;
    }
  }
}

// The sequence API: one descriptor for x and y, lengths from the bytes, sizes from the bytes.
struct Seq {
  miopenSeqTensorDescriptor_t desc = nullptr;
  Seq() { miopenCreateSeqTensorDescriptor(&desc); }
  ~Seq() { miopenDestroySeqTensorDescriptor(desc); }
};

void rnn_seq(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Rnn r;
  const int hidden = fdp.ConsumeIntegralInRange(1, 8), layers = fdp.ConsumeIntegralInRange(1, 2);
  const auto dir = enum_value<miopenRNNDirectionMode_t>(fdp, 1);
  const auto mode = enum_value<miopenRNNMode_t>(fdp, 3);
  const auto in_mode = enum_value<miopenRNNInputMode_t>(fdp, 1);
  miopenSetRNNDescriptor(r.desc, hidden, layers, in_mode, dir, mode, miopenRNNwithBias,
                         miopenRNNdefault, miopenFloat);
  const int D = dir == miopenRNNbidirection ? 2 : 1;
  const int max_len = fdp.ConsumeIntegralInRange(1, 4), batch = fdp.ConsumeIntegralInRange(1, 4);
  const int input = fdp.ConsumeBool() ? hidden : fdp.ConsumeIntegralInRange(1, 8);
  std::vector<int> lens(static_cast<size_t>(batch));
  for (int& l : lens)
    l = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 7) == 0 ? -1 : 0,
                                   max_len + (fdp.ConsumeIntegralInRange(0, 7) == 0));
  const auto layout = enum_value<miopenRNNBaseLayout_t>(fdp, 3);
  float pad = 0.0f;
  Seq xs, ys;
  miopenSetRNNDataSeqTensorDescriptor(xs.desc, miopenFloat, layout, max_len, batch, input,
                                      lens.data(), &pad);
  miopenSetRNNDataSeqTensorDescriptor(ys.desc, miopenFloat, layout, max_len, batch,
                                      fdp.ConsumeIntegralInRange(0, 7) == 0 ? hidden : D * hidden,
                                      lens.data(), &pad);
  // x and y buffers: max_len * batch * width floats (every layout's padded size).
  Buffer<float> x(static_cast<size_t>(max_len * batch * input) + 1),
      y(static_cast<size_t>(max_len * batch * D * hidden) + 1);
  Tensor hd, cd;
  const std::array<int, 3> hl = {layers * D, fdp.ConsumeIntegralInRange(0, 7) == 0 ? 1 : batch,
                                 hidden};
  miopenSetTensorDescriptor(hd.desc, miopenFloat, 3, hl.data(), nullptr);
  miopenSetTensorDescriptor(cd.desc, miopenFloat, 3, hl.data(), nullptr);
  if (!hd.alloc(fdp) || !cd.alloc(fdp)) return;
  Bytes hy(hd.buf.size()), cy(cd.buf.size());
  // The weight space: its size from the params query, or claimed by the bytes.
  size_t wneed = 0;
  Tensor x0;
  const std::array<int, 2> x0l = {batch, input};
  miopenSetTensorDescriptor(x0.desc, miopenFloat, 2, x0l.data(), nullptr);
  miopenGetRNNParamsSize(h, r.desc, x0.desc, &wneed, miopenFloat);
  auto wspace = workspace(fdp, wneed);
  size_t need_ws = 0, need_rs = 0;
  const auto fwd = enum_value<miopenRNNFWDMode_t>(fdp, 1);
  miopenGetRNNTempSpaceSizes(h, r.desc, xs.desc, fwd, &need_ws, &need_rs);
  auto ws = workspace(fdp, need_ws), rs = workspace(fdp, need_rs);
  const miopenStatus_t rc =
      miopenRNNForward(h, r.desc, fwd, xs.desc, x.data(), hd.desc, hd.data(), hy.data(), cd.desc,
                       cd.data(), cy.data(), ys.desc, y.data(), ws_ptr(fdp, wspace), wspace.size(),
                       ws_ptr(fdp, ws), ws.size(), ws_ptr(fdp, rs), rs.size());
  if (rc != miopenStatusSuccess || !fdp.ConsumeBool()) return;
  Buffer<float> dx(x.size()), dy(y.size());
  Bytes dw(wspace.size());
  if (fdp.ConsumeBool())
    miopenRNNBackwardSeqData(h, r.desc, ys.desc, y.data(), dy.data(), hd.desc, hd.data(), hy.data(),
                             hy.data(), cd.desc, cd.data(), cy.data(), cy.data(), xs.desc,
                             dx.data(), wspace.data(), wspace.size(), ws_ptr(fdp, ws), ws.size(),
                             ws_ptr(fdp, rs), rs.size());
  else
    miopenRNNBackwardWeightsSeqTensor(h, r.desc, xs.desc, x.data(), hd.desc, hd.data(), ys.desc,
                                      y.data(), dw.data(), dw.size(), ws_ptr(fdp, ws), ws.size(),
                                      ws_ptr(fdp, rs), rs.size());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/false);
  // Records must not carry over from one input to the next (reproducibility); fuzz_find_db
  // covers the database.
  setenv("MIOPEN_DEBUG_DISABLE_FIND_DB", "1", 1);
#if defined(ANYDNN_FUZZ_CUDA)
  setenv("MIOPEN_BACKEND", "cuda", 1);
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  miopenHandle_t h = nullptr;
  if (miopenCreate(&h) != miopenStatusSuccess) return 0;
  for (int step = 0; step < 3 && fdp.remaining_bytes() > 0; ++step) {
    switch (fdp.ConsumeIntegralInRange(0, 9)) {
      case 0:
        convolution(fdp, h);
        break;
      case 1:
        batch_norm(fdp, h);
        break;
      case 2:
        rnn(fdp, h);
        break;
      case 3:
        rnn_seq(fdp, h);
        break;
      case 4:
        dropout(fdp, h);
        break;
      case 5:
        tensor_ops(fdp, h);
        break;
      case 6:
        lrn(fdp, h);
        break;
      case 7:
        reduction(fdp, h);
        break;
      case 8:
        pooling(fdp, h);
        break;
      case 9:
        fusion(fdp, h);
        break;
    }
  }
  check_device();
  miopenDestroy(h);
  return 0;
}
