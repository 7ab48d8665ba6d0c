// MIOpenDriver rnn_seq: the RNN sequence API with per-sequence lengths (-K) in one of the three
// layouts (-I), verified against the double references run on the equivalent length-sorted
// packed batch.
#include <miopen/miopen.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "host_buffer.hpp"
#include "input_flags.hpp"
#include "rnn_driver.hpp"
#include "rnn_reference.hpp"
#include "verify.hpp"

namespace anydnn::driver {

int run_rnn_seq_driver(const std::string& base, int argc, const char* const* argv) {
  const miopenDataType_t type = base == "rnn_seqfp16" ? miopenHalf : miopenFloat;
  InputFlags flags;
  add_rnn_flags(flags);
  flags.add("io_layout", 'I', "1", "1 seq-major packed, 2 seq-major padded, 3 batch-major padded");
  flags.add("seq_len_array", 'K', "", "Per-sequence lengths (default: all -k)",
            InputFlags::Type::String);
  auto fail = [&base](const std::string& why) {
    std::cerr << "MIOpenDriver " << base << ": " << why << std::endl;
    return kExitUsage;
  };
  if (const auto err = flags.parse(argc, argv, 2)) return fail(*err);
  if (flags.help_requested()) {
    flags.print_usage(std::cout, base.c_str());
    return 0;
  }
  const std::string ms = flags.get_str("mode");
  const int mode = ms == "relu" ? 0 : ms == "tanh" ? 1 : ms == "lstm" ? 2 : ms == "gru" ? 3 : -1;
  if (mode < 0) return fail("-m must be relu, tanh, lstm or gru");
  const int maxT = flags.get_int("seq_len"), L = flags.get_int("num_layer"),
            H = flags.get_int("hid_h"), I = flags.get_int("in_h"), forw = flags.get_int("forw");
  const int B = std::atoi(flags.get_str("batchsize").c_str());
  const int io = flags.get_int("io_layout");
  if (maxT < 1 || L < 1 || H < 1 || I < 1 || B < 1) return fail("sizes must be positive");
  if (io < 1 || io > 3) return fail("-I must be 1, 2 or 3");
  std::vector<int> lens;
  {
    std::stringstream ss(flags.get_str("seq_len_array"));
    for (std::string item; std::getline(ss, item, ',');)
      lens.push_back(std::atoi(item.c_str()));
    if (lens.empty()) lens.assign(B, maxT);
    if (static_cast<int>(lens.size()) != B) return fail("-K needs one length per sequence (-n)");
  }
  const bool bi = flags.get_int("bidirection") != 0, skip = flags.get_int("inputmode") != 0,
             bias = flags.get_int("bias") != 0, inference = flags.get_int("fwdtype") != 0,
             dropout = flags.get_int("use_dropout") != 0;
  const int D = bi ? 2 : 1;
  const auto layout = static_cast<miopenRNNBaseLayout_t>(io);
  std::cout << "PRNG seed: 12345678" << std::endl;
  std::mt19937 rng(12345678);

  miopenHandle_t h;
  miopenCreate(&h);
  // The handle is destroyed on every way out, after the device buffers below (declared later).
  struct HandleOwner {
    miopenHandle_t h;
    ~HandleOwner() { miopenDestroy(h); }
  } owner{h};
  Memory memory = Memory::Host;
  if (const miopenStatus_t m = memory_of(h, memory); m != miopenStatusSuccess) return m;
  // The descriptors too are destroyed on every way out (before the handle: declared after it).
  struct Descriptors {
    miopenRNNDescriptor_t r = nullptr;
    miopenDropoutDescriptor_t dd = nullptr;
    miopenSeqTensorDescriptor_t sx = nullptr, sy = nullptr;
    miopenTensorDescriptor_t hd = nullptr, xt = nullptr, w = nullptr;
    ~Descriptors() {
      for (auto* s : {sx, sy})
        if (s) miopenDestroySeqTensorDescriptor(s);
      for (auto* t : {hd, xt, w})
        if (t) miopenDestroyTensorDescriptor(t);
      if (r) miopenDestroyRNNDescriptor(r);
      if (dd) miopenDestroyDropoutDescriptor(dd);
    }
  } desc;
  miopenRNNDescriptor_t& r = desc.r;
  miopenCreateRNNDescriptor(&r);
  miopenDropoutDescriptor_t& dd = desc.dd;
  // The dropout states stay on the host on every backend: the library keeps the generator's
  // {seed, counter} there (core/dropout_descriptor.hpp), not in device memory.
  std::vector<uint8_t> states;
  miopenStatus_t rc;
  if (dropout) {
    miopenCreateDropoutDescriptor(&dd);
    size_t n = 0;
    miopenDropoutGetStatesSize(h, &n);
    states.resize(n);
    miopenSetDropoutDescriptor(dd, h, std::stof(flags.get_str("dropout")), states.data(), n,
                               static_cast<unsigned>(flags.get_int("seed_low")), false, false,
                               MIOPEN_RNG_PSEUDO_XORWOW);
    rc = miopenSetRNNDescriptor_V2(
        r, H, L, dd, skip ? miopenRNNskip : miopenRNNlinear,
        bi ? miopenRNNbidirection : miopenRNNunidirection, static_cast<miopenRNNMode_t>(mode),
        bias ? miopenRNNwithBias : miopenRNNNoBias, miopenRNNdefault, type);
  } else {
    rc = miopenSetRNNDescriptor(r, H, L, skip ? miopenRNNskip : miopenRNNlinear,
                                bi ? miopenRNNbidirection : miopenRNNunidirection,
                                static_cast<miopenRNNMode_t>(mode),
                                bias ? miopenRNNwithBias : miopenRNNNoBias, miopenRNNdefault, type);
  }
  miopenSeqTensorDescriptor_t &sx = desc.sx, &sy = desc.sy;
  miopenCreateSeqTensorDescriptor(&sx);
  miopenCreateSeqTensorDescriptor(&sy);
  if (rc == miopenStatusSuccess)
    rc = miopenSetRNNDataSeqTensorDescriptor(sx, type, layout, maxT, B, I, lens.data(), nullptr);
  if (rc == miopenStatusSuccess)
    rc =
        miopenSetRNNDataSeqTensorDescriptor(sy, type, layout, maxT, B, D * H, lens.data(), nullptr);
  miopenTensorDescriptor_t &hd = desc.hd, &xt = desc.xt, &w = desc.w;
  miopenCreateTensorDescriptor(&hd);
  miopenCreateTensorDescriptor(&xt);
  miopenCreateTensorDescriptor(&w);
  int hl[3] = {L * D, B, H}, xl[2] = {B, I};
  miopenSetTensorDescriptor(hd, type, 3, hl, nullptr);
  miopenSetTensorDescriptor(xt, type, 2, xl, nullptr);
  size_t wb = 0, ws = 0, rs = 0;
  if (rc == miopenStatusSuccess) rc = miopenGetRNNParamsDescriptor(h, r, xt, w, type);
  if (rc == miopenStatusSuccess) rc = miopenGetTensorNumBytes(w, &wb);
  if (rc == miopenStatusSuccess)
    rc = miopenGetRNNTempSpaceSizes(h, r, sx, miopenRNNTraining, &ws, &rs);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the RNN, status = " << rc << std::endl;
    return rc;
  }
  // The layouts' element offsets and the length-sorted packed view of the references.
  std::vector<int> order(B);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lens[a] > lens[b]; });
  std::vector<size_t> batch, start;
  size_t rows = 0;
  for (int t = 0; t < lens[order[0]]; ++t) {
    start.push_back(rows);
    batch.push_back(std::count_if(lens.begin(), lens.end(), [&](int l) { return l > t; }));
    rows += batch.back();
  }
  auto offset = [&](int b, int t, int vec) -> size_t {
    if (layout == miopenRNNDataSeqMajorPadded) return (static_cast<size_t>(t) * B + b) * vec;
    if (layout == miopenRNNDataBatchMajorPadded) return (static_cast<size_t>(b) * maxT + t) * vec;
    const int rank = static_cast<int>(std::find(order.begin(), order.end(), b) - order.begin());
    return (start[t] + rank) * vec;
  };
  const size_t nx = layout == miopenRNNDataSeqMajorNotPadded ? rows : static_cast<size_t>(B) * maxT;
  // MIOpen's rnn_seq driver ranges (its rnn_seq_driver.hpp; see kRnnDataLo in rnn_driver.hpp).
  std::uniform_real_distribution<float> data(kRnnDataLo, kRnnDataHi),
      weights(kRnnWeightLo, kRnnWeightHi);
  // Host tensors in the call's type; inputs drawn in float and stored rounded to it, so the
  // references see exactly the values the library reads; outputs poisoned, so that anything
  // left unwritten fails verification.
  auto rnd = [&](size_t n, std::uniform_real_distribution<float>& d) {
    return HostTensor::drawn(type, n, rng, d);
  };
  auto poisoned = [&](size_t n) { return HostTensor::poisoned(type, n); };
  const size_t state = static_cast<size_t>(L) * D * B * H;
  HostTensor x = rnd(nx * I, data), hx = rnd(state, data), cx = rnd(state, data),
             wv = rnd(wb / (type == miopenHalf ? 2 : 4), weights), dy = rnd(nx * D * H, data),
             dhy = rnd(state, data), dcy = rnd(state, data);
  HostTensor y = poisoned(nx * D * H), hy = poisoned(state), cy = poisoned(state),
             dx = poisoned(nx * I), dhx = poisoned(state), dcx = poisoned(state),
             dw = poisoned(wv.elements());
  // The library's view of every tensor (device_buffer.hpp): the host tensors themselves on the
  // CPU backend, device copies on CUDA; outputs are poisoned there as here.
  DeviceBuffer x_d, hx_d, cx_d, w_d, dy_d, dhy_d, dcy_d, y_d, hy_d, cy_d, dx_d, dhx_d, dcx_d, dw_d,
      wsb, rsb;
  for (const auto& [d, t] :
       std::initializer_list<std::pair<DeviceBuffer*, HostTensor*>>{{&x_d, &x},
                                                                    {&hx_d, &hx},
                                                                    {&cx_d, &cx},
                                                                    {&w_d, &wv},
                                                                    {&dy_d, &dy},
                                                                    {&dhy_d, &dhy},
                                                                    {&dcy_d, &dcy},
                                                                    {&y_d, &y},
                                                                    {&hy_d, &hy},
                                                                    {&cy_d, &cy},
                                                                    {&dx_d, &dx},
                                                                    {&dhx_d, &dhx},
                                                                    {&dcx_d, &dcx},
                                                                    {&dw_d, &dw}}) {
    if ((rc = d->mirror(memory, *t)) || (rc = d->upload())) return rc;
  }
  if ((rc = wsb.scratch(memory, ws)) || (rc = rsb.scratch(memory, rs))) return rc;
  const bool run_fwd = forw == 0 || (forw & 1), run_bwd = forw == 0 || (forw & 2),
             run_wrw = forw == 0 || (forw & 4);
  auto forward = [&](bool infer) {
    return miopenRNNForward(h, r, infer ? miopenRNNInference : miopenRNNTraining, sx, x_d.data(),
                            hd, hx_d.data(), hy_d.data(), hd, cx_d.data(), cy_d.data(), sy,
                            y_d.data(), w_d.data(), wb, wsb.data(), ws, rsb.data(), rs);
  };
  if (run_fwd && (rc = forward(inference)) != miopenStatusSuccess) {
    std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
    return rc;
  }
  if ((run_bwd || run_wrw) && (!run_fwd || inference) && (rc = forward(false))) return rc;
  if (run_bwd || run_wrw) {
    rc = miopenRNNBackwardSeqData(h, r, sy, y_d.data(), dy_d.data(), hd, hx_d.data(), dhy_d.data(),
                                  dhx_d.data(), hd, cx_d.data(), dcy_d.data(), dcx_d.data(), sx,
                                  dx_d.data(), w_d.data(), wb, wsb.data(), ws, rsb.data(), rs);
    if (rc == miopenStatusSuccess && run_wrw)
      rc = miopenRNNBackwardWeightsSeqTensor(h, r, sx, x_d.data(), hd, hx_d.data(), sy, y_d.data(),
                                             dw_d.data(), wb, wsb.data(), ws, rsb.data(), rs);
    if (rc != miopenStatusSuccess) {
      std::printf("RunBackwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
  }
  for (const DeviceBuffer* d : {&y_d, &hy_d, &cy_d, &dx_d, &dhx_d, &dcx_d, &dw_d})
    if ((rc = d->download())) return rc;
  bool ok = true;
  if (flags.get_int("verify") != 0) {
    {
      using V = std::vector<double>;
      // Packed, sorted copies for the references, and the results mapped the same way.
      auto pack = [&](const HostTensor& s, int vec) {
        V o(rows * vec);
        for (size_t t = 0; t < batch.size(); ++t)
          for (size_t i = 0; i < batch[t]; ++i)
            for (int j = 0; j < vec; ++j)
              o[(start[t] + i) * vec + j] = s.get(offset(order[i], static_cast<int>(t), vec) + j);
        return o;
      };
      auto sort_state = [&](const HostTensor& s) {
        V o(state);
        for (int st = 0; st < L * D; ++st)
          for (int i = 0; i < B; ++i)
            for (int j = 0; j < H; ++j)
              o[(st * B + i) * H + j] = s.get((st * B + order[i]) * H + j);
        return o;
      };
      // Training passes with the library's dropout masks (fresh states, state_evo off: counter 0).
      ref::RnnConfig rc_ref{mode, H, L, bi, skip, bias};
      if (dropout) {
        rc_ref.dropout = std::stof(flags.get_str("dropout"));
        rc_ref.dropout_seed = static_cast<unsigned>(flags.get_int("seed_low"));
      }
      const std::unique_ptr<ref::DoubleGemm> gemm = rnn_reference_gemm(memory);
      const bool lstm = mode == 2;
      const V X = pack(x, I), W = wv.values(), HX = sort_state(hx), CX = sort_state(cx);
      // The references need all B sequences to be non-empty (MIOpen's packed batch).
      if (run_fwd) {
        // y and the final states come from the last forward: inference has no dropout.
        ref::RnnConfig rc_fwd = rc_ref;
        if (inference && !(run_bwd || run_wrw)) rc_fwd.dropout = 0.0;
        const auto f = ref::rnn_forward(rc_fwd, I, batch, X, HX, lstm ? CX : V{}, W, gemm.get());
        ok = check_rnn_output("Forward RNN", f.y, pack(y, D * H), type) && ok;
        ok = check_rnn_output("final hidden", f.hy, sort_state(hy), type) && ok;
        if (lstm) ok = check_rnn_output("final cell", f.cy, sort_state(cy), type) && ok;
      }
      if (run_bwd || run_wrw) {
        const auto b =
            ref::rnn_backward(rc_ref, I, batch, X, HX, lstm ? CX : V{}, W, pack(dy, D * H),
                              sort_state(dhy), lstm ? sort_state(dcy) : V{}, gemm.get());
        if (run_bwd) {
          ok = check_rnn_output("Backward RNN Data", b.dx, pack(dx, I), type) && ok;
          ok = check_rnn_output("initial hidden state", b.dhx, sort_state(dhx), type) && ok;
          if (lstm) ok = check_rnn_output("inital cell state", b.dcx, sort_state(dcx), type) && ok;
        }
        if (run_wrw) ok = check_rnn_output("Backward RNN Weights", b.dw, dw.values(), type) && ok;
      }
    }
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace anydnn::driver
