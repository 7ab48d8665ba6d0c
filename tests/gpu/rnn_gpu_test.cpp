// RNN on the CUDA backend through the public C API with device buffers: the legacy per-step
// API (every mode, uni- and bidirectional, 2 layers, variable and constant batches, skip input,
// initial states given or null) against the double reference with the CPU API tests'
// tolerances and against the CPU backend on the same inputs; fp16 storage; dropout between
// layers (the CPU's masks); the per-layer parameter API on device memory; the sequence API in
// every layout.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "core/float_types.hpp"
#include "gpu/gpu_test_util.hpp"
#include "rnn_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

using V = std::vector<double>;

// Bytes in a backend's memory: host memory for the CPU handle, device memory for CUDA.
class Mem {
 public:
  Mem(bool gpu, size_t bytes, int fill = 0) : gpu_(gpu), bytes_(bytes) {
    if (gpu_) {
      if (cudaMalloc(&dev_, bytes == 0 ? 1 : bytes) != cudaSuccess) dev_ = nullptr;
      if (dev_ != nullptr) cudaMemset(dev_, fill, bytes);
    } else {
      host_.assign(bytes == 0 ? 1 : bytes, static_cast<uint8_t>(fill));
    }
  }
  Mem(bool gpu, const std::vector<uint8_t>& bytes) : Mem(gpu, bytes.size()) {
    if (gpu_)
      cudaMemcpy(dev_, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
    else
      std::memcpy(host_.data(), bytes.data(), bytes.size());
  }
  Mem(const Mem&) = delete;
  Mem& operator=(const Mem&) = delete;
  ~Mem() {
    if (dev_ != nullptr) cudaFree(dev_);
  }
  void* get() { return gpu_ ? dev_ : static_cast<void*>(host_.data()); }
  size_t size() const { return bytes_; }
  // The contents; waits for the device first (work runs on the handle's own stream).
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(bytes_);
    if (gpu_) {
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(b.data(), dev_, bytes_, cudaMemcpyDeviceToHost), cudaSuccess);
    } else {
      std::memcpy(b.data(), host_.data(), bytes_);
    }
    return b;
  }

 private:
  bool gpu_;
  size_t bytes_;
  void* dev_ = nullptr;
  std::vector<uint8_t> host_;
};

// fp32 values as the bytes of `type` (fp32 or half), and back.
std::vector<uint8_t> encode(const std::vector<float>& v, miopenDataType_t type) {
  std::vector<uint8_t> b(v.size() * (type == miopenHalf ? 2 : 4));
  if (type == miopenHalf) {
    auto* h = reinterpret_cast<uint16_t*>(b.data());
    for (size_t i = 0; i < v.size(); ++i)
      h[i] = float_to_half(v[i]);
  } else {
    std::memcpy(b.data(), v.data(), b.size());
  }
  return b;
}
V decode(const std::vector<uint8_t>& b, miopenDataType_t type) {
  const bool half = type == miopenHalf;
  V v(b.size() / (half ? 2 : 4));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = half ? half_to_float(reinterpret_cast<const uint16_t*>(b.data())[i])
                : reinterpret_cast<const float*>(b.data())[i];
  return v;
}

// Values exactly representable in half (so fp32 and fp16 runs see the same numbers).
std::vector<float> random_halves(std::mt19937& rng, size_t n) {
  auto v = random_floats(rng, n);
  for (auto& e : v)
    e = half_to_float(float_to_half(e));
  return v;
}

// A handle on the named backend; CUDA gets a stream of its own.
struct BackendHandle {
  miopenHandle_t h = nullptr;
  cudaStream_t stream = nullptr;
  explicit BackendHandle(bool gpu) {
    if (gpu) EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    EXPECT_EQ(anydnnCreateWithBackend(&h, gpu ? anydnnBackendCuda : anydnnBackendCpu, stream),
              miopenStatusSuccess);
  }
  ~BackendHandle() {
    miopenDestroy(h);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
  operator miopenHandle_t() const { return h; }
};

struct Case {
  int mode;
  bool bi, skip, bias;
  int layers;
  std::vector<size_t> batch;
  bool states;  // hx / cx (and dhy / dcy) given, else null
};

std::string name(const Case& c) {
  const char* modes[] = {"relu", "tanh", "lstm", "gru"};
  std::string n = std::string(modes[c.mode]) + (c.bi ? "_bi" : "_uni") + (c.skip ? "_skip" : "") +
                  (c.bias ? "_bias" : "") + "_l" + std::to_string(c.layers) + "_b";
  for (size_t b : c.batch)
    n += std::to_string(b);
  return n + (c.states ? "_states" : "_nostates");
}

// Inputs of one case (fp32 values; half-representable so that fp16 runs use the same ones).
struct Inputs {
  std::vector<float> x, hx, cx, w, dy, dhy, dcy;
};

// Everything one backend computes for a case: forward training and inference, backward data
// and weights, and the training reserve.
struct Outputs {
  V y, hy, cy, yi, hyi, cyi, dx, dhx, dcx, dw;
  std::vector<uint8_t> reserve;
};

// The case's RNN on one backend. `dropout` >= 0 adds a dropout descriptor (seed 7) between
// layers (_V2).
Outputs run_legacy(bool gpu, const Case& c, int H, int I, miopenDataType_t type, const Inputs& in,
                   float dropout = -1.0f) {
  Outputs o;
  BackendHandle hd(gpu);
  Rnn r;
  Dropout dd;
  std::unique_ptr<Mem> states;
  const auto dir = c.bi ? miopenRNNbidirection : miopenRNNunidirection;
  const auto imode = c.skip ? miopenRNNskip : miopenRNNlinear;
  const auto bias = c.bias ? miopenRNNwithBias : miopenRNNNoBias;
  const auto mode = static_cast<miopenRNNMode_t>(c.mode);
  if (dropout >= 0.0f) {
    size_t sb = 0;
    EXPECT_EQ(miopenDropoutGetStatesSize(hd, &sb), miopenStatusSuccess);
    states = std::make_unique<Mem>(gpu, sb);
    EXPECT_EQ(miopenSetDropoutDescriptor(dd, hd, dropout, states->get(), sb, 7, false, false,
                                         MIOPEN_RNG_PSEUDO_XORWOW),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetRNNDescriptor_V2(r, H, c.layers, dd, imode, dir, mode, bias,
                                        miopenRNNdefault, type),
              miopenStatusSuccess);
  } else {
    EXPECT_EQ(
        miopenSetRNNDescriptor(r, H, c.layers, imode, dir, mode, bias, miopenRNNdefault, type),
        miopenStatusSuccess);
  }
  const int D = c.bi ? 2 : 1, T = static_cast<int>(c.batch.size()),
            B0 = static_cast<int>(c.batch[0]);
  std::vector<Tensor> xs, ys;
  xs.reserve(T);
  ys.reserve(T);
  std::vector<miopenTensorDescriptor_t> xd, yd;
  size_t rows = 0;
  for (size_t b : c.batch) {
    xs.emplace_back(type, std::vector<int>{static_cast<int>(b), I});
    ys.emplace_back(type, std::vector<int>{static_cast<int>(b), D * H});
    xd.push_back(xs.back());
    yd.push_back(ys.back());
    rows += b;
  }
  Tensor hdesc(type, {c.layers * D, B0, H}), w;
  EXPECT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, type), miopenStatusSuccess);
  size_t wb = 0, ws = 0, rs = 0;
  miopenGetTensorNumBytes(w, &wb);
  EXPECT_EQ(miopenGetRNNWorkspaceSize(hd, r, T, xd.data(), &ws), miopenStatusSuccess);
  EXPECT_EQ(miopenGetRNNTrainingReserveSize(hd, r, T, xd.data(), &rs), miopenStatusSuccess);
  const size_t es = type == miopenHalf ? 2 : 4;
  EXPECT_EQ(wb, in.w.size() * es);
  const size_t state = static_cast<size_t>(c.layers) * D * B0 * H;
  const bool lstm = c.mode == 2;
  Mem x(gpu, encode(in.x, type)), wv(gpu, encode(in.w, type)), hx(gpu, encode(in.hx, type)),
      cx(gpu, encode(in.cx, type)), dy(gpu, encode(in.dy, type)), dhy(gpu, encode(in.dhy, type)),
      dcy(gpu, encode(in.dcy, type));
  // Outputs poisoned (NaN in fp32 and fp16); workspace and reserve zeroed.
  Mem y(gpu, rows * D * H * es, 0xFF), hy(gpu, state * es, 0xFF), cy(gpu, state * es, 0xFF),
      yi(gpu, rows * D * H * es, 0xFF), hyi(gpu, state * es, 0xFF), cyi(gpu, state * es, 0xFF),
      dx(gpu, rows * I * es, 0xFF), dhx(gpu, state * es, 0xFF), dcx(gpu, state * es, 0xFF),
      dw(gpu, wb, 0xFF), wsb(gpu, ws), wsi(gpu, ws), rsb(gpu, rs);
  const void* hxp = c.states ? hx.get() : nullptr;
  const void* cxp = c.states ? cx.get() : nullptr;
  const void* dhyp = c.states ? dhy.get() : nullptr;
  const void* dcyp = c.states ? dcy.get() : nullptr;
  EXPECT_EQ(miopenRNNForwardTraining(hd, r, T, xd.data(), x.get(), hdesc, hxp, hdesc, cxp, w,
                                     wv.get(), yd.data(), y.get(), hdesc, hy.get(), hdesc, cy.get(),
                                     wsb.get(), ws, rsb.get(), rs),
            miopenStatusSuccess);
  EXPECT_EQ(miopenRNNForwardInference(hd, r, T, xd.data(), x.get(), hdesc, hxp, hdesc, cxp, w,
                                      wv.get(), yd.data(), yi.get(), hdesc, hyi.get(), hdesc,
                                      cyi.get(), wsi.get(), ws),
            miopenStatusSuccess);
  EXPECT_EQ(
      miopenRNNBackwardData(hd, r, T, yd.data(), y.get(), yd.data(), dy.get(), hdesc, dhyp, hdesc,
                            dcyp, w, wv.get(), hdesc, hxp, hdesc, cxp, xd.data(), dx.get(), hdesc,
                            dhx.get(), hdesc, dcx.get(), wsb.get(), ws, rsb.get(), rs),
      miopenStatusSuccess);
  EXPECT_EQ(miopenRNNBackwardWeights(hd, r, T, xd.data(), x.get(), hdesc, hxp, yd.data(), y.get(),
                                     w, dw.get(), wsb.get(), ws, rsb.get(), rs),
            miopenStatusSuccess);
  o.y = decode(y.bytes(), type);
  o.hy = decode(hy.bytes(), type);
  o.yi = decode(yi.bytes(), type);
  o.hyi = decode(hyi.bytes(), type);
  if (lstm) {
    o.cy = decode(cy.bytes(), type);
    o.cyi = decode(cyi.bytes(), type);
    o.dcx = decode(dcx.bytes(), type);
  }
  o.dx = decode(dx.bytes(), type);
  o.dhx = decode(dhx.bytes(), type);
  o.dw = decode(dw.bytes(), type);
  o.reserve = rsb.bytes();
  return o;
}

Inputs make_inputs(std::mt19937& rng, const Case& c, int H, int I) {
  const int D = c.bi ? 2 : 1;
  size_t rows = 0;
  for (size_t b : c.batch)
    rows += b;
  const size_t state = static_cast<size_t>(c.layers) * D * c.batch[0] * H;
  const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
  Inputs in;
  in.x = random_halves(rng, rows * I);
  in.hx = random_halves(rng, state);
  in.cx = random_halves(rng, state);
  in.w = random_halves(rng, ref::rnn_weight_count(rc, I));
  in.dy = random_halves(rng, rows * D * H);
  in.dhy = random_halves(rng, state);
  in.dcy = random_halves(rng, state);
  return in;
}

void expect_close(const V& want, const V& got, double tol, const char* what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  EXPECT_LT(ref::relative_rms(want, got), tol) << what;
}

class RnnGpu : public ::testing::TestWithParam<Case> {};

TEST_P(RnnGpu, MatchesReferenceAndCpu) {
  REQUIRE_GPU();
  const Case& c = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  const int H = 6, I = c.skip ? H : 5;
  const Inputs in = make_inputs(rng, c, H, I);
  const bool lstm = c.mode == 2;
  const Outputs g = run_legacy(true, c, H, I, miopenFloat, in);
  const Outputs cpu = run_legacy(false, c, H, I, miopenFloat, in);

  const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
  const V X(in.x.begin(), in.x.end()), W(in.w.begin(), in.w.end());
  const V HX = c.states ? V(in.hx.begin(), in.hx.end()) : V{};
  const V CX = c.states && lstm ? V(in.cx.begin(), in.cx.end()) : V{};
  const auto f = ref::rnn_forward(rc, I, c.batch, X, HX, CX, W);
  // The CPU API tests' tolerances: 1e-6 forward, 1e-5 backward.
  expect_close(f.y, g.y, 1e-6, "y (training)");
  expect_close(f.hy, g.hy, 1e-6, "hy (training)");
  expect_close(f.y, g.yi, 1e-6, "y (inference)");
  expect_close(f.hy, g.hyi, 1e-6, "hy (inference)");
  if (lstm) {
    expect_close(f.cy, g.cy, 1e-6, "cy (training)");
    expect_close(f.cy, g.cyi, 1e-6, "cy (inference)");
  }
  const auto b = ref::rnn_backward(rc, I, c.batch, X, HX, CX, W, V(in.dy.begin(), in.dy.end()),
                                   c.states ? V(in.dhy.begin(), in.dhy.end()) : V{},
                                   c.states && lstm ? V(in.dcy.begin(), in.dcy.end()) : V{});
  expect_close(b.dx, g.dx, 1e-5, "dx");
  expect_close(b.dhx, g.dhx, 1e-5, "dhx");
  if (lstm) expect_close(b.dcx, g.dcx, 1e-5, "dcx");
  expect_close(b.dw, g.dw, 1e-5, "dw");

  // The CPU backend on the same inputs.
  expect_close(cpu.y, g.y, 1e-6, "y vs CPU");
  expect_close(cpu.hy, g.hy, 1e-6, "hy vs CPU");
  expect_close(cpu.yi, g.yi, 1e-6, "inference y vs CPU");
  if (lstm) expect_close(cpu.cy, g.cy, 1e-6, "cy vs CPU");
  expect_close(cpu.dx, g.dx, 1e-5, "dx vs CPU");
  expect_close(cpu.dhx, g.dhx, 1e-5, "dhx vs CPU");
  if (lstm) expect_close(cpu.dcx, g.dcx, 1e-5, "dcx vs CPU");
  expect_close(cpu.dw, g.dw, 1e-5, "dw vs CPU");
  // Same reserve layout and contents (the backward passes of either backend read it).
  const V rg = decode(g.reserve, miopenFloat), rcpu = decode(cpu.reserve, miopenFloat);
  expect_close(rcpu, rg, 1e-5, "reserve vs CPU");
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (int mode = 0; mode < 4; ++mode)
    for (bool bi : {false, true}) {
      v.push_back({mode, bi, false, true, 2, {4, 4, 3, 1}, true});   // variable batch, states
      v.push_back({mode, bi, true, false, 2, {3, 3, 2}, false});     // skip, null states
      v.push_back({mode, bi, false, true, 2, {3, 3, 3, 3}, false});  // constant batch: in place
    }
  for (int mode = 0; mode < 4; ++mode)
    v.push_back({mode, false, false, true, 1, {5}, true});  // one step
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, RnnGpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return name(info.param); });

// fp16 storage (staged into fp32 on the device): the CUDA results match the CPU backend's fp16
// results and the reference on the same half values within fp16 rounding.
TEST(RnnGpuHalf, MatchesCpuAndReference) {
  REQUIRE_GPU();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  for (const Case& c : {Case{2, true, false, true, 2, {4, 4, 3, 1}, true},
                        Case{3, false, false, true, 2, {3, 2, 2}, true},
                        Case{1, true, true, false, 2, {3, 3, 1}, false}}) {
    SCOPED_TRACE(name(c));
    const int H = 6, I = c.skip ? H : 5;
    const bool lstm = c.mode == 2;
    const Inputs in = make_inputs(rng, c, H, I);
    const Outputs g = run_legacy(true, c, H, I, miopenHalf, in);
    const Outputs cpu = run_legacy(false, c, H, I, miopenHalf, in);
    const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
    const V X(in.x.begin(), in.x.end()), W(in.w.begin(), in.w.end());
    const V HX = c.states ? V(in.hx.begin(), in.hx.end()) : V{};
    const V CX = c.states && lstm ? V(in.cx.begin(), in.cx.end()) : V{};
    const auto f = ref::rnn_forward(rc, I, c.batch, X, HX, CX, W);
    const auto b = ref::rnn_backward(rc, I, c.batch, X, HX, CX, W, V(in.dy.begin(), in.dy.end()),
                                     c.states ? V(in.dhy.begin(), in.dhy.end()) : V{},
                                     c.states && lstm ? V(in.dcy.begin(), in.dcy.end()) : V{});
    expect_close(f.y, g.y, 3e-3, "y");
    expect_close(f.hy, g.hy, 3e-3, "hy");
    expect_close(f.y, g.yi, 3e-3, "y (inference)");
    expect_close(b.dx, g.dx, 3e-3, "dx");
    expect_close(b.dhx, g.dhx, 3e-3, "dhx");
    expect_close(b.dw, g.dw, 3e-3, "dw");
    if (lstm) {
      expect_close(f.cy, g.cy, 3e-3, "cy");
      expect_close(b.dcx, g.dcx, 3e-3, "dcx");
    }
    expect_close(cpu.y, g.y, 3e-3, "y vs CPU");
    expect_close(cpu.hy, g.hy, 3e-3, "hy vs CPU");
    expect_close(cpu.dx, g.dx, 3e-3, "dx vs CPU");
    expect_close(cpu.dhx, g.dhx, 3e-3, "dhx vs CPU");
    expect_close(cpu.dw, g.dw, 3e-3, "dw vs CPU");
  }
}

// Dropout between layers: the CUDA masks are the CPU's bits for the same seed, so outputs,
// gradients and the masks in the reserve agree.
TEST(RnnGpuDropout, MasksAndResultsMatchCpu) {
  REQUIRE_GPU();
  std::mt19937 rng(fresh_seed());
  for (int mode : {2, 3, 1}) {
    const Case c{mode, mode == 2, false, true, 3, {4, 3, 3, 1}, true};
    SCOPED_TRACE(name(c));
    const int H = 6, I = 5;
    const Inputs in = make_inputs(rng, c, H, I);
    const Outputs g = run_legacy(true, c, H, I, miopenFloat, in, 0.4f);
    const Outputs cpu = run_legacy(false, c, H, I, miopenFloat, in, 0.4f);
    const int D = c.bi ? 2 : 1;
    const size_t rows = 4 + 3 + 3 + 1, mask_bytes = rows * D * H;
    // The masks: the last L*R*D*H bytes of the reserve; layers 0..L-2 are written.
    ASSERT_EQ(g.reserve.size(), cpu.reserve.size());
    const size_t mask_start = g.reserve.size() - c.layers * mask_bytes;
    const std::vector<uint8_t> gm(g.reserve.begin() + mask_start,
                                  g.reserve.begin() + mask_start + (c.layers - 1) * mask_bytes);
    const std::vector<uint8_t> cm(cpu.reserve.begin() + mask_start,
                                  cpu.reserve.begin() + mask_start + (c.layers - 1) * mask_bytes);
    EXPECT_EQ(gm, cm) << "dropout masks";
    const size_t kept = std::count(gm.begin(), gm.end(), uint8_t{1});
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, gm.size());
    expect_close(cpu.y, g.y, 1e-6, "y vs CPU");
    expect_close(cpu.yi, g.yi, 1e-6, "inference y vs CPU");
    expect_close(cpu.hy, g.hy, 1e-6, "hy vs CPU");
    expect_close(cpu.dx, g.dx, 1e-5, "dx vs CPU");
    expect_close(cpu.dhx, g.dhx, 1e-5, "dhx vs CPU");
    expect_close(cpu.dw, g.dw, 1e-5, "dw vs CPU");
    // Inference never drops: it is the reference network.
    const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
    const auto f = ref::rnn_forward(
        rc, I, c.batch, V(in.x.begin(), in.x.end()), V(in.hx.begin(), in.hx.end()),
        mode == 2 ? V(in.cx.begin(), in.cx.end()) : V{}, V(in.w.begin(), in.w.end()));
    expect_close(f.y, g.yi, 1e-6, "inference y vs reference");
    EXPECT_GT(ref::relative_rms(f.y, g.y), 1e-3) << "training dropped values";
  }
}

// miopenSet/GetRNNLayerParam and Bias with the weights and the pieces in device memory.
TEST(RnnGpuParams, LayerParamsAndBiasesOnDeviceMemory) {
  REQUIRE_GPU();
  BackendHandle hd(true);
  Rnn r;
  const int H = 4, I = 3;
  ASSERT_EQ(miopenSetRNNDescriptor(r, H, 2, miopenRNNlinear, miopenRNNbidirection, miopenGRU,
                                   miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  Tensor x(miopenFloat, {2, I}), w;
  ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, r, x, w, miopenFloat), miopenStatusSuccess);
  size_t wb = 0;
  miopenGetTensorNumBytes(w, &wb);
  Mem wv(true, wb, 0);
  std::mt19937 rng(fresh_seed());
  for (int layer = 0; layer < 4; ++layer)
    for (int id = 0; id < 6; ++id) {
      size_t bytes = 0;
      ASSERT_EQ(miopenGetRNNLayerParamSize(hd, r, layer, x, id, &bytes), miopenStatusSuccess);
      const auto m = random_floats(rng, bytes / 4);
      Mem piece(true, encode(m, miopenFloat)), back(true, bytes, 0xFF);
      Tensor pd;
      ASSERT_EQ(miopenGetRNNLayerParam(hd, r, layer, x, w, wv.get(), id, pd, nullptr),
                miopenStatusSuccess);
      ASSERT_EQ(miopenSetRNNLayerParam(hd, r, layer, x, w, wv.get(), id, pd, piece.get()),
                miopenStatusSuccess);
      ASSERT_EQ(miopenGetRNNLayerParam(hd, r, layer, x, w, wv.get(), id, pd, back.get()),
                miopenStatusSuccess);
      EXPECT_EQ(decode(back.bytes(), miopenFloat), V(m.begin(), m.end()));
      const auto bv = random_floats(rng, H);
      Mem bp(true, encode(bv, miopenFloat)), bback(true, H * 4, 0xFF);
      Tensor bd;
      ASSERT_EQ(miopenGetRNNLayerBias(hd, r, layer, x, w, wv.get(), id, bd, nullptr),
                miopenStatusSuccess);
      ASSERT_EQ(miopenSetRNNLayerBias(hd, r, layer, x, w, wv.get(), id, bd, bp.get()),
                miopenStatusSuccess);
      ASSERT_EQ(miopenGetRNNLayerBias(hd, r, layer, x, w, wv.get(), id, bd, bback.get()),
                miopenStatusSuccess);
      EXPECT_EQ(decode(bback.bytes(), miopenFloat), V(bv.begin(), bv.end()));
    }
}

// The sequence API (miopenRNNForward, miopenRNNBackwardSeqData,
// miopenRNNBackwardWeightsSeqTensor) on CUDA against the CPU backend: same inputs in every
// layout, unsorted lengths in the padded ones, fp32 and fp16, initial states given or null.
struct SeqCase {
  miopenRNNBaseLayout_t layout;
  miopenDataType_t type;
  bool states;
};

struct SeqOutputs {
  V y, hy, cy, dx, dhx, dcx, dw;
};

SeqOutputs run_seq(bool gpu, const SeqCase& sc, const std::vector<int>& lens, int H, int I, int L,
                   int maxT, const std::vector<float>& x, const std::vector<float>& dy,
                   const std::vector<float>& hx, const std::vector<float>& cx,
                   const std::vector<float>& dhy, const std::vector<float>& dcy,
                   const std::vector<float>& wv, float marker) {
  const int D = 2, B = static_cast<int>(lens.size());
  const miopenDataType_t type = sc.type;
  const bool half = type == miopenHalf;
  BackendHandle hd(gpu);
  Rnn r;
  EXPECT_EQ(miopenSetRNNDescriptor(r, H, L, miopenRNNlinear, miopenRNNbidirection, miopenLSTM,
                                   miopenRNNwithBias, miopenRNNdefault, type),
            miopenStatusSuccess);
  const uint16_t marker_half = float_to_half(marker);
  const void* mark = half ? static_cast<const void*>(&marker_half) : &marker;
  Seq sx, sy;
  EXPECT_EQ(miopenSetRNNDataSeqTensorDescriptor(sx, type, sc.layout, maxT, B, I, lens.data(),
                                                const_cast<void*>(mark)),
            miopenStatusSuccess);
  EXPECT_EQ(miopenSetRNNDataSeqTensorDescriptor(sy, type, sc.layout, maxT, B, D * H, lens.data(),
                                                const_cast<void*>(mark)),
            miopenStatusSuccess);
  Tensor hdesc(type, {L * D, B, H});
  size_t ws = 0, rs = 0;
  EXPECT_EQ(miopenGetRNNTempSpaceSizes(hd, r, sx, miopenRNNTraining, &ws, &rs),
            miopenStatusSuccess);
  const size_t es = half ? 2 : 4, wb = wv.size() * es, state = hx.size();
  Mem bx(gpu, encode(x, type)), bdy(gpu, encode(dy, type)), bhx(gpu, encode(hx, type)),
      bcx(gpu, encode(cx, type)), bdhy(gpu, encode(dhy, type)), bdcy(gpu, encode(dcy, type)),
      bw(gpu, encode(wv, type));
  Mem by(gpu, dy.size() * es, 0xFF), bhy(gpu, state * es, 0xFF), bcy(gpu, state * es, 0xFF),
      bdx(gpu, x.size() * es, 0xFF), bdhx(gpu, state * es, 0xFF), bdcx(gpu, state * es, 0xFF),
      bdw(gpu, wb, 0xFF), wsb(gpu, ws), rsb(gpu, rs);
  const void* hxp = sc.states ? bhx.get() : nullptr;
  const void* cxp = sc.states ? bcx.get() : nullptr;
  const void* dhyp = sc.states ? bdhy.get() : nullptr;
  const void* dcyp = sc.states ? bdcy.get() : nullptr;
  EXPECT_EQ(
      miopenRNNForward(hd, r, miopenRNNTraining, sx, bx.get(), hdesc, hxp, bhy.get(), hdesc, cxp,
                       bcy.get(), sy, by.get(), bw.get(), wb, wsb.get(), ws, rsb.get(), rs),
      miopenStatusSuccess);
  EXPECT_EQ(miopenRNNBackwardSeqData(hd, r, sy, by.get(), bdy.get(), hdesc, hxp, dhyp, bdhx.get(),
                                     hdesc, cxp, dcyp, bdcx.get(), sx, bdx.get(), bw.get(), wb,
                                     wsb.get(), ws, rsb.get(), rs),
            miopenStatusSuccess);
  EXPECT_EQ(miopenRNNBackwardWeightsSeqTensor(hd, r, sx, bx.get(), hdesc, hxp, sy, by.get(),
                                              bdw.get(), wb, wsb.get(), ws, rsb.get(), rs),
            miopenStatusSuccess);
  return SeqOutputs{decode(by.bytes(), type),   decode(bhy.bytes(), type),
                    decode(bcy.bytes(), type),  decode(bdx.bytes(), type),
                    decode(bdhx.bytes(), type), decode(bdcx.bytes(), type),
                    decode(bdw.bytes(), type)};
}

class RnnGpuSeq : public ::testing::TestWithParam<SeqCase> {};

TEST_P(RnnGpuSeq, MatchesCpu) {
  REQUIRE_GPU();
  const SeqCase sc = GetParam();
  const int H = 5, I = 4, L = 2, D = 2, maxT = 5;
  const bool packed = sc.layout == miopenRNNDataSeqMajorNotPadded;
  // Packed layouts need sorted lengths; padded ones take any order (and a length-0 sequence).
  const std::vector<int> lens =
      packed ? std::vector<int>{5, 5, 3, 2} : std::vector<int>{2, 5, 0, 3, 5};
  const int B = static_cast<int>(lens.size());
  const size_t steps = packed ? static_cast<size_t>(std::accumulate(lens.begin(), lens.end(), 0))
                              : static_cast<size_t>(B) * maxT;
  std::mt19937 rng(fresh_seed());
  const size_t state = static_cast<size_t>(L) * D * B * H;
  const auto x = random_halves(rng, steps * I), dy = random_halves(rng, steps * D * H),
             hx = random_halves(rng, state), cx = random_halves(rng, state),
             dhy = random_halves(rng, state), dcy = random_halves(rng, state);
  const ref::RnnConfig rc{2, H, L, true, false, true};
  const auto wv = random_halves(rng, ref::rnn_weight_count(rc, I));
  const float marker = -7.0f;
  const SeqOutputs g = run_seq(true, sc, lens, H, I, L, maxT, x, dy, hx, cx, dhy, dcy, wv, marker);
  const SeqOutputs c = run_seq(false, sc, lens, H, I, L, maxT, x, dy, hx, cx, dhy, dcy, wv, marker);
  const double tol = sc.type == miopenHalf ? 3e-3 : 1e-5;
  expect_close(c.y, g.y, tol, "y (padding included)");
  expect_close(c.hy, g.hy, tol, "hy");
  expect_close(c.cy, g.cy, tol, "cy");
  expect_close(c.dx, g.dx, tol, "dx");
  expect_close(c.dhx, g.dhx, tol, "dhx");
  expect_close(c.dcx, g.dcx, tol, "dcx");
  expect_close(c.dw, g.dw, tol, "dw");
  if (!packed) {
    // Sequence 0 has 2 steps: its later steps are padding, filled with the marker.
    const size_t at = sc.layout == miopenRNNDataBatchMajorPadded
                          ? (0 * maxT + 3) * static_cast<size_t>(D * H)
                          : (3 * static_cast<size_t>(B) + 0) * D * H;
    EXPECT_EQ(g.y[at], marker);
    // Sequence 2 has length 0: its final state is its initial state (or 0).
    for (int j = 0; j < H; ++j)
      EXPECT_EQ(g.hy[(0 * B + 2) * H + j], sc.states ? hx[(0 * B + 2) * H + j] : 0.0f);
  }
}

std::string seq_name(const ::testing::TestParamInfo<SeqCase>& info) {
  const SeqCase& s = info.param;
  const std::string layout = s.layout == miopenRNNDataSeqMajorNotPadded ? "seq_packed"
                             : s.layout == miopenRNNDataSeqMajorPadded  ? "seq_padded"
                                                                        : "batch_padded";
  return layout + (s.type == miopenHalf ? "_fp16" : "_fp32") + (s.states ? "_states" : "_nostates");
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, RnnGpuSeq,
    ::testing::Values(SeqCase{miopenRNNDataSeqMajorNotPadded, miopenFloat, true},
                      SeqCase{miopenRNNDataSeqMajorPadded, miopenFloat, true},
                      SeqCase{miopenRNNDataBatchMajorPadded, miopenFloat, true},
                      SeqCase{miopenRNNDataBatchMajorPadded, miopenFloat, false},
                      SeqCase{miopenRNNDataSeqMajorPadded, miopenHalf, true},
                      SeqCase{miopenRNNDataBatchMajorPadded, miopenHalf, false}),
    seq_name);

}  // namespace
}  // namespace anydnn::test
