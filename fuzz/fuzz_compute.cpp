// Compute calls with descriptors built from the fuzzer's bytes: convolution (immediate mode with
// a solution id from the bytes, Find + run with a workspace whose claimed size comes from the
// bytes, bias), batch norm (training, inference, backward, V1 and V2), RNN (legacy and sequence
// API with workspace / reserve sizes from the bytes), dropout and the tensor ops (OpTensor with
// a B of fuzzed lengths, SetTensor, ScaleTensor, TransformTensor between fuzzed descriptors),
// LRN forward / backward, miopenReduceTensor (C's lengths A's with fuzzed dims set to 1, or
// anything; a fuzzed reduce descriptor; workspace and indices buffers sized from the sizes the
// API returns, the claims sometimes short) and pooling (forward with or without indices,
// backward, on a fuzzed descriptor and tensors). Shapes stay small (every dim <= 8, at most 4096
// elements per tensor); whether the descriptors agree is up to the fuzzer.
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

#include "fuzz_common.hpp"

using anydnn::fuzz::enum_value;

namespace {

constexpr size_t kMaxElems = 4096;

struct Tensor {
  miopenTensorDescriptor_t desc = nullptr;
  std::vector<uint8_t> buf;  // at least the descriptor's byte size, when it has one
  Tensor() { miopenCreateTensorDescriptor(&desc); }
  ~Tensor() { miopenDestroyTensorDescriptor(desc); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  void* data() { return buf.empty() ? nullptr : buf.data(); }
  // Sizes the buffer to the descriptor; false when it is unset or too large for the harness
  // (the call is then skipped: the harness never hands over a short buffer).
  bool alloc(FuzzedDataProvider& fdp) {
    size_t bytes = 0;
    if (miopenGetTensorNumBytes(desc, &bytes) != miopenStatusSuccess) return false;
    if (bytes > kMaxElems * 8) return false;
    buf.assign(bytes + 1, 0);
    // Small finite floats in most elements: the bytes' values rarely matter, NaN/Inf sometimes.
    const uint8_t pattern = fdp.ConsumeIntegral<uint8_t>();
    float* f = reinterpret_cast<float*>(buf.data());
    for (size_t i = 0; i < bytes / sizeof(float); ++i)
      f[i] = pattern == 255 ? __builtin_nanf("") : static_cast<float>((i * 7 + pattern) % 17) - 8;
    return true;
  }
};

miopenDataType_t compute_type(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return miopenHalf;
    case 1:
      return miopenBFloat16;
    case 2:
      return miopenInt8;
    case 3:
      return enum_value<miopenDataType_t>(fdp, 9);
    default:
      return miopenFloat;
  }
}

int dim(FuzzedDataProvider& fdp) {
  return fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? 0 : 1, 8);
}

// A descriptor of 3-5 dims, packed, with a layout, or strided (small strides from the bytes).
void set_tensor(FuzzedDataProvider& fdp, Tensor& t, miopenDataType_t type, int nd = 0) {
  if (nd == 0) nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(1, 5) : 4;
  std::array<int, 5> lens{}, strides{};
  size_t total = 1;
  for (int i = 0; i < nd; ++i) {
    lens[i] = dim(fdp);
    total *= static_cast<size_t>(std::max(lens[i], 1));
  }
  // Keep within kMaxElems by shrinking the last dims.
  for (int i = nd - 1; i >= 0 && total > kMaxElems; --i) {
    total /= static_cast<size_t>(std::max(lens[i], 1));
    lens[i] = 1;
  }
  switch (fdp.ConsumeIntegralInRange(0, 5)) {
    case 0: {
      for (int i = 0; i < nd; ++i)
        strides[i] = fdp.ConsumeIntegralInRange(0, 64);
      miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), strides.data());
      break;
    }
    case 1: {
      const miopenTensorLayout_t layout =
          nd == 5 ? (fdp.ConsumeBool() ? miopenTensorNCDHW : miopenTensorNDHWC)
                  : (fdp.ConsumeBool() ? miopenTensorNCHW : miopenTensorNHWC);
      miopenSetNdTensorDescriptorWithLayout(t.desc, type, layout, lens.data(), nd);
      break;
    }
    default:
      miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), nullptr);
      break;
  }
}

// A workspace whose claimed size is the one needed, a little less, zero, or any small size.
std::vector<uint8_t> workspace(FuzzedDataProvider& fdp, size_t need) {
  size_t claim = need;
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0:
      claim = need > 0 ? need - fdp.ConsumeIntegralInRange<size_t>(1, need) : 0;
      break;
    case 1:
      claim = fdp.ConsumeIntegralInRange<size_t>(0, 1 << 16);
      break;
    default:
      break;
  }
  return std::vector<uint8_t>(std::min(claim, size_t{1} << 24));
}

void* ws_ptr(FuzzedDataProvider& fdp, std::vector<uint8_t>& ws) {
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) return nullptr;  // a null buffer with its size
  return ws.empty() ? nullptr : ws.data();
}

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
  std::vector<uint8_t> rm(pbytes), rv(pbytes), sm(pbytes), sv(pbytes);
  auto opt = [&](std::vector<uint8_t>& buf) -> void* {
    return fdp.ConsumeBool() ? buf.data() : nullptr;
  };
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
      std::vector<uint8_t> ds(s.buf), db(b.buf);
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
  std::vector<uint8_t> states;
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
  std::vector<uint8_t> x(xbytes + 1), y(ybytes + 1), dx(xbytes + 1), dy(ybytes + 1);
  std::vector<uint8_t> dw(w.buf.size());
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
  std::vector<float> x(static_cast<size_t>(max_len * batch * input) + 1),
      y(static_cast<size_t>(max_len * batch * D * hidden) + 1);
  Tensor hd, cd;
  const std::array<int, 3> hl = {layers * D, fdp.ConsumeIntegralInRange(0, 7) == 0 ? 1 : batch,
                                 hidden};
  miopenSetTensorDescriptor(hd.desc, miopenFloat, 3, hl.data(), nullptr);
  miopenSetTensorDescriptor(cd.desc, miopenFloat, 3, hl.data(), nullptr);
  if (!hd.alloc(fdp) || !cd.alloc(fdp)) return;
  std::vector<uint8_t> hy(hd.buf.size()), cy(cd.buf.size());
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
  std::vector<float> dx(x.size()), dy(y.size());
  std::vector<uint8_t> dw(wspace.size());
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

// Scalars are eight bytes, so a read in any data type (or MIOpen's float read of a 2-byte
// value) stays in the buffer.
void tensor_ops(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Tensor a, b, c;
  const miopenDataType_t type = compute_type(fdp);
  // 1-5 dims, or 0: set_tensor picks (its descriptors hold at most 5).
  const int pick = fdp.ConsumeIntegralInRange(1, 6);
  const int nd = pick == 6 ? 0 : pick;
  set_tensor(fdp, c, type, nd);
  const int call = fdp.ConsumeIntegralInRange(0, 3);
  if (call == 0 || call == 3) {
    // A and B: C's shape, or other fuzzed descriptors (B's 1s broadcast), maybe another type.
    const miopenDataType_t other = fdp.ConsumeIntegralInRange(0, 7) == 0 ? compute_type(fdp) : type;
    set_tensor(fdp, a, other, fdp.ConsumeBool() ? nd : 0);
    set_tensor(fdp, b, type, fdp.ConsumeBool() ? nd : 0);
  }
  if (!c.alloc(fdp)) return;
  if ((call == 0 || call == 3) && !a.alloc(fdp)) return;
  if (call == 0 && !b.alloc(fdp)) return;
  uint64_t s1 = fdp.ConsumeIntegral<uint64_t>(), s2 = fdp.ConsumeIntegral<uint64_t>(),
           s3 = fdp.ConsumeIntegral<uint64_t>();
  if (fdp.ConsumeBool()) {  // ordinary values: 1.0f, 2.0f, 0.0f
    s1 = 0x3f800000u;
    s2 = 0x40000000u;
    s3 = fdp.ConsumeBool() ? 0 : 0x3f000000u;
  }
  switch (call) {
    case 0:
      miopenOpTensor(h, enum_value<miopenTensorOp_t>(fdp, 3), &s1, a.desc, a.data(), &s2, b.desc,
                     b.data(), &s3, c.desc, c.data());
      break;
    case 1:
      miopenSetTensor(h, c.desc, c.data(), &s1);
      break;
    case 2:
      miopenScaleTensor(h, c.desc, c.data(), &s1);
      break;
    case 3:
      miopenTransformTensor(h, &s1, a.desc, a.data(), &s3, c.desc, c.data());
      break;
  }
}

// LRN forward (with or without keeping the scale) and backward: the descriptor's parameters from
// the bytes (lrnN mostly small, sometimes hostile; any alpha / beta / K), x, y, dy, dx 4-D of one
// shape, each packed, NHWC or with fuzzed strides, sometimes of another shape or type. The API
// takes no workspace size: the workspace is miopenLRNGetWorkSpaceSize(yDesc) bytes, or null.
void lrn(FuzzedDataProvider& fdp, miopenHandle_t h) {
  struct Desc {
    miopenLRNDescriptor_t d = nullptr;
    Desc() { miopenCreateLRNDescriptor(&d); }
    ~Desc() { miopenDestroyLRNDescriptor(d); }
  } desc;
  const unsigned n = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<unsigned>(0, 9)
                                       : static_cast<unsigned>(anydnn::fuzz::hostile_int(fdp));
  miopenSetLRNDescriptor(desc.d, enum_value<miopenLRNMode_t>(fdp, 1), n,
                         fdp.ConsumeFloatingPoint<double>(), fdp.ConsumeFloatingPoint<double>(),
                         fdp.ConsumeBool() ? 1.0 : fdp.ConsumeFloatingPoint<double>());
  const miopenDataType_t type = compute_type(fdp);
  std::array<int, 4> lens{};
  size_t total = 1;
  for (int& l : lens) {
    l = std::max(dim(fdp), 1);
    total *= static_cast<size_t>(l);
  }
  if (total > kMaxElems) lens[3] = 1;
  Tensor x, y, dy, dx;
  for (Tensor* t : {&x, &y, &dy, &dx}) {
    switch (fdp.ConsumeIntegralInRange(0, 7)) {
      case 0:
        set_tensor(fdp, *t, fdp.ConsumeBool() ? type : compute_type(fdp));
        break;
      case 1: {
        std::array<int, 4> strides{};
        for (int& s : strides)
          s = fdp.ConsumeIntegralInRange(0, 64);
        miopenSetTensorDescriptor(t->desc, type, 4, lens.data(), strides.data());
        break;
      }
      case 2:
        miopenSetNdTensorDescriptorWithLayout(t->desc, type, miopenTensorNHWC, lens.data(), 4);
        break;
      default:
        miopenSetTensorDescriptor(t->desc, type, 4, lens.data(), nullptr);
        break;
    }
  }
  if (!x.alloc(fdp) || !y.alloc(fdp)) return;
  size_t need = 0;
  miopenLRNGetWorkSpaceSize(y.desc, &need);
  if (need > kMaxElems * 8 * 4) return;
  std::vector<uint8_t> ws(need + 1);
  void* wsp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : ws.data();
  const double scale = 1.0;  // alpha / beta: MIOpen reads neither
  const void* alpha = fdp.ConsumeBool() ? &scale : nullptr;
  if (fdp.ConsumeBool()) {
    miopenLRNForward(h, desc.d, alpha, x.desc, x.data(), alpha, y.desc, y.data(), fdp.ConsumeBool(),
                     wsp);
    return;
  }
  if (!dy.alloc(fdp) || !dx.alloc(fdp)) return;
  miopenLRNBackward(h, desc.d, alpha, y.desc, y.data(), dy.desc, dy.data(), x.desc, x.data(), alpha,
                    dx.desc, dx.data(), wsp);
}

// A reduction: A fuzzed; C mostly A's lengths with a fuzzed set of dims at 1 (packed, or with
// strides from the bytes), sometimes another fuzzed descriptor or type; the descriptor set from
// the bytes (a refused set leaves MIOpen's default); scalars 8 bytes each (double data reads
// doubles), sometimes null.
void reduction(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Tensor a, c;
  const miopenDataType_t type =
      fdp.ConsumeIntegralInRange(0, 7) == 0 ? miopenDouble : compute_type(fdp);
  set_tensor(fdp, a, type, fdp.ConsumeIntegralInRange(0, 5));
  int nd = 0;
  std::array<int, 5> lens{}, strides{};
  miopenDataType_t got_type;
  if (miopenGetTensorDescriptorSize(a.desc, &nd) != miopenStatusSuccess || nd < 1 || nd > 5 ||
      miopenGetTensorDescriptor(a.desc, &got_type, lens.data(), strides.data()) !=
          miopenStatusSuccess)
    return;
  if (fdp.ConsumeIntegralInRange(0, 7) == 0) {
    set_tensor(fdp, c, fdp.ConsumeBool() ? type : compute_type(fdp),
               fdp.ConsumeIntegralInRange(0, 5));
  } else {
    const unsigned mask = fdp.ConsumeIntegral<uint8_t>();
    for (int i = 0; i < nd; ++i)
      if (mask & (1u << i)) lens[i] = 1;
    const bool strided = fdp.ConsumeIntegralInRange(0, 3) == 0;
    for (int i = 0; i < nd; ++i)
      strides[i] = fdp.ConsumeIntegralInRange(0, 64);
    miopenSetTensorDescriptor(c.desc, type, nd, lens.data(), strided ? strides.data() : nullptr);
  }
  if (!a.alloc(fdp) || !c.alloc(fdp)) return;
  miopenReduceTensorDescriptor_t rd = nullptr;
  if (miopenCreateReduceTensorDescriptor(&rd) != miopenStatusSuccess) return;
  const std::unique_ptr<std::remove_pointer_t<miopenReduceTensorDescriptor_t>,
                        miopenStatus_t (*)(miopenReduceTensorDescriptor_t)>
      owner(rd, miopenDestroyReduceTensorDescriptor);
  const miopenDataType_t comp = fdp.ConsumeBool()
                                    ? (type == miopenDouble ? miopenDouble : miopenFloat)
                                    : anydnn::fuzz::data_type(fdp);
  miopenSetReduceTensorDescriptor(rd, enum_value<miopenReduceTensorOp_t>(fdp, 7), comp,
                                  enum_value<miopenNanPropagation_t>(fdp, 1),
                                  enum_value<miopenReduceTensorIndices_t>(fdp, 1),
                                  enum_value<miopenIndicesType_t>(fdp, 3));
  size_t ws_need = 0, idx_need = 0;
  miopenGetReductionWorkspaceSize(h, rd, a.desc, c.desc, &ws_need);
  miopenGetReductionIndicesSize(h, rd, a.desc, c.desc, &idx_need);
  std::vector<uint8_t> ws = workspace(fdp, ws_need), idx = workspace(fdp, idx_need);
  uint64_t alpha = fdp.ConsumeIntegral<uint64_t>(), beta = fdp.ConsumeIntegral<uint64_t>();
  if (fdp.ConsumeBool()) {  // ordinary values: 1 and 0 (or 0.5) in the data's scalar type
    alpha = type == miopenDouble ? 0x3ff0000000000000u : 0x3f800000u;
    beta = fdp.ConsumeBool() ? 0 : (type == miopenDouble ? 0x3fe0000000000000u : 0x3f000000u);
  }
  const bool null_scalar = fdp.ConsumeIntegralInRange(0, 15) == 0;
  miopenReduceTensor(h, rd, ws_ptr(fdp, idx), idx.size(), ws_ptr(fdp, ws), ws.size(),
                     null_scalar ? nullptr : &alpha, a.desc, a.data(), &beta, c.desc, c.data());
}

// Pooling: a descriptor of 1-4 window dims (2 or 3 mostly) with fuzzed window / pads / strides,
// mode, index type and index mode; x of fuzzed lengths; y of the lengths the API computes, or
// fuzzed; dx / dy x's and y's, or fuzzed. The workspace is as large as
// miopenPoolingGetWorkSpaceSizeV2 says for the descriptor and y / dy (MIOpen's forward takes
// its size argument without checking it, so a shorter buffer would be the caller's bug).
void pooling(FuzzedDataProvider& fdp, miopenHandle_t h) {
  struct Desc {
    miopenPoolingDescriptor_t d = nullptr;
    Desc() { miopenCreatePoolingDescriptor(&d); }
    ~Desc() { miopenDestroyPoolingDescriptor(d); }
  } pd;
  const int sd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(1, 4)
                                                       : fdp.ConsumeIntegralInRange(2, 3);
  std::array<int, 4> k{}, p{}, s{};
  for (int i = 0; i < sd; ++i) {
    k[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 1, 5);
    p[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 0, 3);
    s[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 1, 3);
  }
  miopenSetNdPoolingDescriptor(pd.d, enum_value<miopenPoolingMode_t>(fdp, 2), sd, k.data(),
                               p.data(), s.data());
  if (fdp.ConsumeBool()) miopenSetPoolingIndexType(pd.d, enum_value<miopenIndexType_t>(fdp, 3));
  if (fdp.ConsumeBool())
    miopenSetPoolingWorkSpaceIndexMode(pd.d, enum_value<miopenPoolingWorkspaceIndexMode_t>(fdp, 1));
  const miopenDataType_t type = compute_type(fdp);
  Tensor x, y, dx, dy;
  const int nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? 0 : sd + 2;
  set_tensor(fdp, x, type, nd > 5 ? 0 : nd);
  std::array<int, 5> out{};
  if (nd >= 4 && nd <= 5 && fdp.ConsumeBool() &&
      miopenGetPoolingNdForwardOutputDim(pd.d, x.desc, nd, out.data()) == miopenStatusSuccess) {
    size_t total = 1;
    for (int i = 0; i < nd; ++i)
      total *= static_cast<size_t>(std::max(out[i], 1));
    if (total > kMaxElems) return;
    miopenSetTensorDescriptor(y.desc, type, nd, out.data(), nullptr);
  } else {
    set_tensor(fdp, y, type, nd > 5 ? 0 : nd);
  }
  const bool fuzzed_grads = fdp.ConsumeIntegralInRange(0, 3) == 0;
  if (fuzzed_grads) {
    set_tensor(fdp, dx, type, nd > 5 ? 0 : nd);
    set_tensor(fdp, dy, type, nd > 5 ? 0 : nd);
  }
  if (!x.alloc(fdp) || !y.alloc(fdp)) return;
  if (fuzzed_grads && (!dx.alloc(fdp) || !dy.alloc(fdp))) return;
  Tensor& gx = fuzzed_grads ? dx : x;
  Tensor& gy = fuzzed_grads ? dy : y;
  size_t need = 0, need_dy = 0;
  miopenPoolingGetWorkSpaceSizeV2(pd.d, y.desc, &need);
  miopenPoolingGetWorkSpaceSizeV2(pd.d, gy.desc, &need_dy);
  need = std::max(need, need_dy);
  if (need > (size_t{1} << 24)) return;
  std::vector<uint8_t> ws(need + 1, 0);
  void* wsp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : ws.data();
  uint32_t alpha = 0x3f800000u, beta = fdp.ConsumeBool() ? 0u : 0x3f000000u;  // 1, 0 or 0.5
  if (fdp.ConsumeIntegralInRange(0, 7) == 0) alpha = fdp.ConsumeIntegral<uint32_t>();
  const bool save = fdp.ConsumeBool();
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
      miopenPoolingForward(h, pd.d, &alpha, x.desc, x.data(), &beta, y.desc, y.data(), save, wsp,
                           need);
      break;
    case 1:
      miopenPoolingBackward(h, pd.d, &alpha, y.desc, y.data(), gy.desc, gy.data(), x.desc, x.data(),
                            &beta, gx.desc, gx.data(), wsp);
      break;
    case 2:
      // The indices a forward call left, read back by the backward one.
      if (miopenPoolingForward(h, pd.d, &alpha, x.desc, x.data(), &beta, y.desc, y.data(), true,
                               wsp, need) == miopenStatusSuccess)
        miopenPoolingBackward(h, pd.d, &alpha, y.desc, y.data(), gy.desc, gy.data(), x.desc,
                              x.data(), &beta, gx.desc, gx.data(), wsp);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/false);
  // Records must not carry over from one input to the next (reproducibility); fuzz_find_db
  // covers the database.
  setenv("MIOPEN_DEBUG_DISABLE_FIND_DB", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  miopenHandle_t h = nullptr;
  if (miopenCreate(&h) != miopenStatusSuccess) return 0;
  for (int step = 0; step < 3 && fdp.remaining_bytes() > 0; ++step) {
    switch (fdp.ConsumeIntegralInRange(0, 8)) {
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
    }
  }
  miopenDestroy(h);
  return 0;
}
