#include "rnn_driver.hpp"

#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "host_buffer.hpp"
#include "input_flags.hpp"
#include "rnn_reference.hpp"
#include "verify.hpp"
#if ANYDNN_DRIVER_CUDA
#include "double_gemm_gpu.hpp"
#endif

namespace anydnn::driver {

bool check_rnn_output(const char* what, const std::vector<double>& want,
                      const std::vector<double>& got, miopenDataType_t type) {
  // MIOpen's driver (rnn_driver.hpp VerifyForward / VerifyBackward) compares with
  // miopen::rms_range, whose normaliser is the largest |value| of either vector (its compare_mag):
  // that is ref::relative_rms; ref::rms_range divides by the signed maximum instead.
  const double err = ref::relative_rms(want, got);
  if (!(err <= (type == miopenHalf ? 5e-2 : 1e-6))) {
    std::cout << what << " FAILED: " << err << std::endl;
    return false;
  }
  std::cout << what << " Verifies on CPU and GPU (" << err << ")" << std::endl;
  return true;
}

std::unique_ptr<ref::DoubleGemm> rnn_reference_gemm([[maybe_unused]] Memory memory) {
#if ANYDNN_DRIVER_CUDA
  const char* env = std::getenv("MIOPEN_DRIVER_USE_GPU_REFERENCE");
  if (memory == Memory::Cuda && !(env != nullptr && std::string(env) == "0")) {
    try {
      return ref::gpu::make_double_gemm();
    } catch (const std::exception& e) {
      std::cout << "GPU reference unavailable (" << e.what() << "), using the CPU reference"
                << std::endl;
    }
  }
#endif
  return nullptr;
}

void add_rnn_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "0", "1 forward, 2 backward data, 4 backward weights (0: all)");
  f.add("num_layer", 'l', "1", "Number of hidden stacks");
  f.add("seq_len", 'k', "1", "Number of time steps");
  f.add("bidirection", 'r', "0", "Unidirectional (0) or bidirectional (1)");
  f.add("batchsize", 'n', "4", "Batch size, or one per time step (non-increasing): 4,4,2",
        T::String);
  f.add("hid_h", 'H', "32", "Hidden size");
  f.add("in_h", 'W', "32", "Input size");
  f.add("iter", 'i', "1", "Iterations");
  f.add("verify", 'V', "1", "Verify against the CPU reference (1)");
  f.add("time", 't', "0", "Time each call (1; MIOpen's logged lines carry it)");
  f.add("wall", 'w', "0", "Wall-clock time (1, 2, 3)");
  f.add("dump_output", 'o', "0", "Dump outputs (unused)");
  f.add("bias", 'b', "0", "Use biases (1)");
  f.add("mode", 'm', "tanh", "relu, tanh, lstm or gru", T::String);
  f.add("inputmode", 'p', "0", "Linear (0) or skip (1) input");
  f.add("use_padding", 'q', "0",
        "Padded I/O: every step of x, y, dx, dy padded to -n's first batch");
  f.add("rnnalgo", 'a', "0", "RNN algorithm (0 default, 1 fundamental)");
  f.add("fwdtype", 'c', "0", "Forward training (0) or inference (1)");
  f.add("datatype", 'f', "1", "Data type (1; the base picks it: rnn fp32, rnnfp16 fp16)");
  f.add("use_dropout", 'U', "0", "Dropout between layers (1)");
  f.add("dropout", 'P', "0.0", "Dropout rate", T::String);
  f.add("seed_low", 'L', "0", "Dropout seed, low 32 bits");
  f.add("seed_high", 'M', "0", "Dropout seed, high 32 bits");
}

namespace {

bool check(const char* what, const std::vector<double>& want, const HostTensor& got) {
  return check_rnn_output(what, want, got.values(), got.type);
}

// Packed rows (step t's B_t rows back to back) -> every step padded to B_0 rows (zeros), and
// back: MIOpen's driver (ChangeDataPadding) for -q 1.
HostTensor pad_rows(const HostTensor& packed, const std::vector<size_t>& batch, size_t width) {
  const size_t es = packed.type == miopenHalf ? 2 : 4, row = width * es;
  HostTensor out = HostTensor::zeros(packed.type, batch.size() * batch[0] * width);
  size_t from = 0;
  for (size_t t = 0; t < batch.size(); ++t)
    for (size_t i = 0; i < batch[t]; ++i, ++from)
      std::memcpy(out.bytes.data() + (t * batch[0] + i) * row, packed.bytes.data() + from * row,
                  row);
  return out;
}
void unpad_rows(const HostTensor& padded, const std::vector<size_t>& batch, size_t width,
                HostTensor& packed) {
  const size_t es = padded.type == miopenHalf ? 2 : 4, row = width * es;
  size_t to = 0;
  for (size_t t = 0; t < batch.size(); ++t)
    for (size_t i = 0; i < batch[t]; ++i, ++to)
      std::memcpy(packed.bytes.data() + to * row, padded.bytes.data() + (t * batch[0] + i) * row,
                  row);
}

struct Owned {
  miopenDataType_t type = miopenFloat;
  miopenHandle_t h = nullptr;
  miopenRNNDescriptor_t rnn = nullptr;
  miopenDropoutDescriptor_t drop = nullptr;
  std::vector<miopenTensorDescriptor_t> tensors;
  ~Owned() {
    for (auto t : tensors)
      miopenDestroyTensorDescriptor(t);
    if (rnn) miopenDestroyRNNDescriptor(rnn);
    if (drop) miopenDestroyDropoutDescriptor(drop);
    if (h) miopenDestroy(h);
  }
  miopenTensorDescriptor_t tensor(std::vector<int> lens) {
    miopenTensorDescriptor_t t;
    miopenCreateTensorDescriptor(&t);
    miopenSetTensorDescriptor(t, type, static_cast<int>(lens.size()), lens.data(), nullptr);
    tensors.push_back(t);
    return t;
  }
};

}  // namespace

int run_rnn_driver(const std::string& base, int argc, const char* const* argv) {
  if (base == "rnn_seq" || base == "rnn_seqfp16") return run_rnn_seq_driver(base, argc, argv);
  InputFlags flags;
  add_rnn_flags(flags);
  auto fail = [&](const std::string& why) {
    std::cerr << "MIOpenDriver " << base << ": " << why << std::endl;
    return kExitUsage;
  };
  if (const auto err = flags.parse(argc, argv, 2)) return fail(*err);
  if (flags.help_requested()) {
    flags.print_usage(std::cout, base);
    return 0;
  }
  const miopenDataType_t type = base == "rnnfp16" ? miopenHalf : miopenFloat;
  const std::string mode_s = flags.get_str("mode");
  const int mode = mode_s == "relu"   ? 0
                   : mode_s == "tanh" ? 1
                   : mode_s == "lstm" ? 2
                   : mode_s == "gru"  ? 3
                                      : -1;
  if (mode < 0) return fail("-m must be relu, tanh, lstm or gru");
  const int T = flags.get_int("seq_len"), L = flags.get_int("num_layer");
  const int H = flags.get_int("hid_h"), I = flags.get_int("in_h");
  const int forw = flags.get_int("forw"), iters = flags.get_int("iter");
  if (T < 1 || L < 1 || H < 1 || I < 1 || iters < 1) return fail("sizes must be positive");
  const bool padded = flags.get_int("use_padding") != 0;
  std::vector<size_t> batch;
  {
    std::stringstream ss(flags.get_str("batchsize"));
    for (std::string item; std::getline(ss, item, ',');) {
      char* end = nullptr;
      const long v = std::strtol(item.c_str(), &end, 10);
      if (*end != '\0' || v < 0) return fail("-n must be a batch size or a comma list of them");
      batch.push_back(static_cast<size_t>(v));
    }
    if (batch.empty() || static_cast<int>(batch.size()) > T)
      return fail("-n lists more batch sizes than -k time steps");
    while (static_cast<int>(batch.size()) < T)
      batch.push_back(batch.back());
  }
  const bool bi = flags.get_int("bidirection") != 0, skip = flags.get_int("inputmode") != 0;
  const bool bias = flags.get_int("bias") != 0, inference = flags.get_int("fwdtype") != 0;
  const bool dropout = flags.get_int("use_dropout") != 0;
  const bool timing = flags.get_int("time") != 0 || flags.get_int("wall") != 0;
  const int D = bi ? 2 : 1;
  const bool run_fwd = forw == 0 || (forw & 1), run_bwd = forw == 0 || (forw & 2),
             run_wrw = forw == 0 || (forw & 4);

  unsigned seed = 12345678;
  if (const char* sd = std::getenv("MIOPEN_DEBUG_DRIVER_PRNG_SEED"))
    seed = static_cast<unsigned>(std::strtoul(sd, nullptr, 10));
  std::cout << "PRNG seed: " << seed << std::endl;
  std::mt19937 rng(seed);

  Owned o;
  o.type = type;
  if (miopenCreate(&o.h) != miopenStatusSuccess) return miopenStatusNotInitialized;
  Memory memory = Memory::Host;
  if (const miopenStatus_t r = memory_of(o.h, memory); r != miopenStatusSuccess) return r;
  if (timing) miopenEnableProfiling(o.h, true);
  miopenCreateRNNDescriptor(&o.rnn);
  // The dropout states stay on the host on every backend: the library keeps the generator's
  // {seed, counter} there (core/dropout_descriptor.hpp), not in device memory.
  std::vector<uint8_t> states;
  miopenStatus_t rc;
  const unsigned long long dseed =
      (static_cast<unsigned long long>(flags.get_int("seed_high")) << 32) |
      static_cast<unsigned>(flags.get_int("seed_low"));
  if (dropout) {
    miopenCreateDropoutDescriptor(&o.drop);
    size_t n = 0;
    miopenDropoutGetStatesSize(o.h, &n);
    states.resize(n);
    rc = miopenSetDropoutDescriptor(o.drop, o.h, std::stof(flags.get_str("dropout")), states.data(),
                                    n, dseed, false, false, MIOPEN_RNG_PSEUDO_XORWOW);
    if (rc != miopenStatusSuccess) return rc;
    rc = miopenSetRNNDescriptor_V2(o.rnn, H, L, o.drop, skip ? miopenRNNskip : miopenRNNlinear,
                                   bi ? miopenRNNbidirection : miopenRNNunidirection,
                                   static_cast<miopenRNNMode_t>(mode),
                                   bias ? miopenRNNwithBias : miopenRNNNoBias,
                                   static_cast<miopenRNNAlgo_t>(flags.get_int("rnnalgo")), type);
  } else {
    rc = miopenSetRNNDescriptor(o.rnn, H, L, skip ? miopenRNNskip : miopenRNNlinear,
                                bi ? miopenRNNbidirection : miopenRNNunidirection,
                                static_cast<miopenRNNMode_t>(mode),
                                bias ? miopenRNNwithBias : miopenRNNNoBias,
                                static_cast<miopenRNNAlgo_t>(flags.get_int("rnnalgo")), type);
  }
  if (rc != miopenStatusSuccess) return rc;
  if (padded && (rc = miopenSetRNNPaddingMode(o.rnn, miopenRNNIOWithPadding))) return rc;
  std::vector<miopenTensorDescriptor_t> xd, yd;
  size_t rows = 0;
  for (size_t b : batch) {
    xd.push_back(o.tensor({static_cast<int>(b), I}));
    yd.push_back(o.tensor({static_cast<int>(b), D * H}));
    rows += b;
  }
  const int B0 = static_cast<int>(batch[0]);
  const auto hdesc = o.tensor({L * D, B0, H});
  miopenTensorDescriptor_t wdesc;
  miopenCreateTensorDescriptor(&wdesc);
  o.tensors.push_back(wdesc);
  size_t wbytes = 0, ws = 0, rs = 0;
  if ((rc = miopenGetRNNParamsDescriptor(o.h, o.rnn, xd[0], wdesc, type)) ||
      (rc = miopenGetTensorNumBytes(wdesc, &wbytes)) ||
      (rc = miopenGetRNNWorkspaceSize(o.h, o.rnn, T, xd.data(), &ws)) ||
      (rc = miopenGetRNNTrainingReserveSize(o.h, o.rnn, T, xd.data(), &rs))) {
    std::cout << "Error setting up the RNN, status = " << rc << std::endl;
    return rc;
  }
  // MIOpen's driver ranges (rnn_driver.hpp): data in [0, 0.01), weights in [-0.005, 0.005).
  std::uniform_real_distribution<float> data(kRnnDataLo, kRnnDataHi),
      weights(kRnnWeightLo, kRnnWeightHi);
  // Inputs are drawn in fp32 and stored in the call's type; the reference reads them back.
  auto random = [&](size_t n, std::uniform_real_distribution<float>& dist) {
    return HostTensor::drawn(type, n, rng, dist);
  };
  auto poisoned = [&](size_t n) { return HostTensor::poisoned(type, n); };
  const size_t state = static_cast<size_t>(L) * D * B0 * H;
  auto x = random(rows * I, data), hx = random(state, data), cx = random(state, data);
  auto w = random(wbytes / (type == miopenHalf ? 2 : 4), weights);
  auto dy = random(rows * D * H, data), dhy = random(state, data), dcy = random(state, data);
  auto y = poisoned(rows * D * H), hy = poisoned(state), cy = poisoned(state),
       dx = poisoned(rows * I), dhx = poisoned(state), dcx = poisoned(state),
       dw = poisoned(w.elements());
  // Padded I/O (-q 1): the library sees x, dy, y and dx with every step padded to B_0 rows (as
  // MIOpen's driver, ChangeDataPadding); the reference keeps the packed ones. Padding rows are
  // zero in the inputs and poisoned in the outputs (the library leaves them alone).
  const size_t padded_rows = static_cast<size_t>(T) * B0;
  HostTensor x_pad, dy_pad, y_pad, dx_pad;
  if (padded) {
    x_pad = pad_rows(x, batch, I);
    dy_pad = pad_rows(dy, batch, D * H);
    y_pad = poisoned(padded_rows * D * H);
    dx_pad = poisoned(padded_rows * I);
  }
  HostTensor &x_io = padded ? x_pad : x, &dy_io = padded ? dy_pad : dy;
  HostTensor &y_io = padded ? y_pad : y, &dx_io = padded ? dx_pad : dx;
  // The library's view of every tensor (device_buffer.hpp): the host tensors themselves on the
  // CPU backend, device copies on CUDA; outputs are poisoned there as here.
  DeviceBuffer x_d, hx_d, cx_d, w_d, dy_d, dhy_d, dcy_d, y_d, hy_d, cy_d, dx_d, dhx_d, dcx_d, dw_d,
      wsb, rsb;
  for (const auto& [d, t] :
       std::initializer_list<std::pair<DeviceBuffer*, HostTensor*>>{{&x_d, &x_io},
                                                                    {&hx_d, &hx},
                                                                    {&cx_d, &cx},
                                                                    {&w_d, &w},
                                                                    {&dy_d, &dy_io},
                                                                    {&dhy_d, &dhy},
                                                                    {&dcy_d, &dcy},
                                                                    {&y_d, &y_io},
                                                                    {&hy_d, &hy},
                                                                    {&cy_d, &cy},
                                                                    {&dx_d, &dx_io},
                                                                    {&dhx_d, &dhx},
                                                                    {&dcx_d, &dcx},
                                                                    {&dw_d, &dw}}) {
    if ((rc = d->mirror(memory, *t)) || (rc = d->upload())) return rc;
  }
  if ((rc = wsb.scratch(memory, ws)) || (rc = rsb.scratch(memory, rs))) return rc;

  auto timed = [&](const char* label, auto&& call) -> miopenStatus_t {
    double kernel = 0, wall = 0;
    for (int i = 0; i < iters; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      miopenStatus_t r = call();
      // The wall clock measures the work, not its queueing.
      if (r == miopenStatusSuccess && timing) r = synchronize(memory);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r != miopenStatusSuccess) return r;
      float kt = 0;
      miopenGetKernelTime(o.h, &kt);
      if (timing) {
        if (i == 0) std::cout << label << " time results:" << std::endl;
        std::printf("launch#%d, host_time= %f ms, gpu_time= %f ms\n", i, ms, kt);
      }
      kernel += kt;
      wall += ms;
    }
    if (timing) {
      std::printf("GPU Kernel Time Elapsed: %f ms\n", kernel / iters);
      std::printf("Wall-clock Time Elapsed: %f ms\n", wall / iters);
    }
    return miopenStatusSuccess;
  };
  auto forward = [&](bool infer) {
    return infer ? miopenRNNForwardInference(o.h, o.rnn, T, xd.data(), x_d.data(), hdesc,
                                             hx_d.data(), hdesc, cx_d.data(), wdesc, w_d.data(),
                                             yd.data(), y_d.data(), hdesc, hy_d.data(), hdesc,
                                             cy_d.data(), wsb.data(), ws)
                 : miopenRNNForwardTraining(o.h, o.rnn, T, xd.data(), x_d.data(), hdesc,
                                            hx_d.data(), hdesc, cx_d.data(), wdesc, w_d.data(),
                                            yd.data(), y_d.data(), hdesc, hy_d.data(), hdesc,
                                            cy_d.data(), wsb.data(), ws, rsb.data(), rs);
  };
  const bool verify = flags.get_int("verify") != 0;
  // The training passes' reference draws the library's dropout masks (the states are fresh and
  // state_evo is off, so every call uses generator counter 0); inference has no dropout.
  ref::RnnConfig rc_ref{mode, H, L, bi, skip, bias};
  if (dropout) {
    rc_ref.dropout = std::stof(flags.get_str("dropout"));
    rc_ref.dropout_seed = dseed;
  }
  ref::RnnConfig rc_infer = rc_ref;
  rc_infer.dropout = 0.0;
  const std::unique_ptr<ref::DoubleGemm> gemm = verify ? rnn_reference_gemm(memory) : nullptr;
  using V = std::vector<double>;
  const V X = x.values(), HX = hx.values(), CX = cx.values(), W = w.values();
  const bool lstm = mode == 2;
  bool ok = true;
  if (run_fwd) {
    rc = timed("Forward RNN", [&] { return forward(inference); });
    if (rc != miopenStatusSuccess) {
      std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
    for (const DeviceBuffer* d : {&y_d, &hy_d, &cy_d})
      if ((rc = d->download())) return rc;
    if (padded) unpad_rows(y_io, batch, D * H, y);
    if (verify) {
      const auto f = ref::rnn_forward(inference ? rc_infer : rc_ref, I, batch, X, HX,
                                      lstm ? CX : V{}, W, gemm.get());
      ok = check("Forward RNN", f.y, y) && ok;
      ok = check("final hidden", f.hy, hy) && ok;
      if (lstm) ok = check("final cell", f.cy, cy) && ok;
    }
  }
  if (run_bwd || run_wrw) {
    // The backward passes need the training forward's reserve.
    if (!run_fwd || inference) {
      rc = forward(false);
      if (rc != miopenStatusSuccess) return rc;
    }
    if (run_bwd || run_wrw) {
      rc = timed("Backward Data RNN", [&] {
        return miopenRNNBackwardData(o.h, o.rnn, T, yd.data(), y_d.data(), yd.data(), dy_d.data(),
                                     hdesc, dhy_d.data(), hdesc, dcy_d.data(), wdesc, w_d.data(),
                                     hdesc, hx_d.data(), hdesc, cx_d.data(), xd.data(), dx_d.data(),
                                     hdesc, dhx_d.data(), hdesc, dcx_d.data(), wsb.data(), ws,
                                     rsb.data(), rs);
      });
      if (rc != miopenStatusSuccess) {
        std::printf("RunBackwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
        return rc;
      }
    }
    if (run_wrw) {
      rc = timed("Backward Weights RNN", [&] {
        return miopenRNNBackwardWeights(o.h, o.rnn, T, xd.data(), x_d.data(), hdesc, hx_d.data(),
                                        yd.data(), y_d.data(), wdesc, dw_d.data(), wsb.data(), ws,
                                        rsb.data(), rs);
      });
      if (rc != miopenStatusSuccess) {
        std::printf("RunBackwardWeightsGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
        return rc;
      }
    }
    for (const DeviceBuffer* d : {&dx_d, &dhx_d, &dcx_d, &dw_d})
      if ((rc = d->download())) return rc;
    if (padded) unpad_rows(dx_io, batch, I, dx);
    if (verify) {
      const auto b = ref::rnn_backward(rc_ref, I, batch, X, HX, lstm ? CX : V{}, W, dy.values(),
                                       dhy.values(), lstm ? dcy.values() : V{}, gemm.get());
      if (run_bwd) {
        ok = check("Backward RNN Data", b.dx, dx) && ok;
        ok = check("initial hidden state", b.dhx, dhx) && ok;
        if (lstm) ok = check("inital cell state", b.dcx, dcx) && ok;  // MIOpen's spelling
      }
      if (run_wrw) ok = check("Backward RNN Weights", b.dw, dw) && ok;
    }
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace anydnn::driver
