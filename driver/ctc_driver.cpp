#include "ctc_driver.hpp"

#include <miopen/miopen.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>

#include "conv_driver.hpp"  // exit codes
#include "ctc_reference.hpp"
#include "ctc_spec.hpp"
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "verify.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t probs = nullptr, grads = nullptr;
  miopenCTCLossDescriptor_t ctc = nullptr;
  ~Owned() {
    if (ctc != nullptr) miopenDestroyCTCLossDescriptor(ctc);
    if (grads != nullptr) miopenDestroyTensorDescriptor(grads);
    if (probs != nullptr) miopenDestroyTensorDescriptor(probs);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

// MIOpen's dumpBufferToFile: the raw bytes.
void dump(const char* name, const void* data, size_t bytes) {
  if (FILE* f = std::fopen(name, "wb")) {
    std::fwrite(data, 1, bytes, f);
    std::fclose(f);
  }
}

std::vector<double> floats_of(const HostTensor& t, size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = t.get(i);
  return v;
}

}  // namespace

int run_ctc_driver(int argc, const char* const* argv) {
  InputFlags flags;
  add_ctc_flags(flags);
  if (const auto err = flags.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver ctc: " << *err << std::endl;
    return kExitUsage;
  }
  if (flags.help_requested()) {
    flags.print_usage(std::cout, "ctc");
    return 0;
  }
  CtcSpec spec;
  if (const auto err = ctc_spec_from_flags(flags, spec)) {
    std::cerr << "MIOpenDriver ctc: " << *err << std::endl;
    return kExitUsage;
  }
  RunOptions run;
  if (const auto err = read_run_options(flags, run)) {
    std::cerr << "MIOpenDriver ctc: " << *err << std::endl;
    return kExitUsage;
  }
  const int iters = run.iters;
  const bool time = run.time;
  const bool wall = run.wall;

  std::mt19937 rng = driver_rng();

  Owned o;
  Memory memory = Memory::Host;
  miopenStatus_t rc = create_driver_handle(&o.handle, memory, time);
  if (rc != miopenStatusSuccess) return rc;
  const int T = spec.max_time(), N = spec.batch, C = spec.classes();
  const std::array<int, 3> dims = {T, N, C};
  if ((rc = miopenCreateTensorDescriptor(&o.probs)) == miopenStatusSuccess &&
      (rc = miopenCreateTensorDescriptor(&o.grads)) == miopenStatusSuccess &&
      (rc = miopenSetTensorDescriptor(o.probs, miopenFloat, 3, dims.data(), nullptr)) ==
          miopenStatusSuccess &&
      (rc = miopenSetTensorDescriptor(o.grads, miopenFloat, 3, dims.data(), nullptr)) ==
          miopenStatusSuccess &&
      (rc = miopenCreateCTCLossDescriptor(&o.ctc)) == miopenStatusSuccess)
    rc = miopenSetCTCLossDescriptor(o.ctc, miopenFloat, spec.blank, spec.apply_softmax);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the descriptors, status = " << rc << std::endl;
    return rc;
  }

  // MIOpen's AllocateBuffersAndCopy: labels in [1, c] off the blank.
  const int total = std::accumulate(spec.label_lengths.begin(), spec.label_lengths.end(), 0);
  std::vector<int> labels(std::max(total, 0));
  std::uniform_int_distribution<int> pick(1, spec.num_class);
  for (int& l : labels) {
    l = pick(rng);
    if (spec.blank > spec.num_class)
      l = l == spec.num_class ? spec.num_class - 1 : l;
    else if (spec.blank < 0)
      l = l == 0 ? 1 : l;
    else if (l == spec.blank)
      l = spec.blank - 1 >= 0 ? spec.blank - 1 : spec.blank + 1;
  }
  size_t ws_size = 0;
  rc = miopenGetCTCLossWorkspaceSize(o.handle, o.probs, o.grads, labels.data(),
                                     spec.label_lengths.data(), spec.input_lengths.data(),
                                     static_cast<miopenCTCLossAlgo_t>(spec.algo), o.ctc, &ws_size);
  if (rc != miopenStatusSuccess) {
    std::printf("miopenGetCTCLossWorkspaceSize() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
    return rc;
  }
  const size_t elems = static_cast<size_t>(T) * N * C;
  HostTensor probs = HostTensor::zeros(miopenFloat, elems);
  HostTensor grads = HostTensor::zeros(miopenFloat, elems);
  HostTensor losses = HostTensor::zeros(miopenFloat, N);
  std::uniform_real_distribution<double> u(0.0, 0.01);
  for (size_t r = 0; r < static_cast<size_t>(T) * N; ++r) {
    std::vector<float> row(C);
    float sum = 0.0f;
    for (auto& v : row) {
      v = static_cast<float>(u(rng));
      sum += v;
    }
    for (int c = 0; c < C; ++c)
      probs.set(r * C + c, spec.apply_softmax ? row[c] / sum : row[c]);
  }
  const bool dumps = flags.get_int("dump_output") != 0;
  if (dumps) {
    dump("dump_probs.bin", probs.data(), probs.bytes.size());
    dump("dump_labels.bin", labels.data(), labels.size() * sizeof(int));
    dump("dump_labelLengths.bin", spec.label_lengths.data(), N * sizeof(int));
    dump("dump_inputLengths.bin", spec.input_lengths.data(), N * sizeof(int));
  }
  DeviceBuffer probs_dev, grads_dev, losses_dev, work_dev;
  for (auto [dev, host] : {std::pair{&probs_dev, &probs}, std::pair{&grads_dev, &grads},
                           std::pair{&losses_dev, &losses}}) {
    if ((rc = dev->mirror(memory, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  if ((rc = work_dev.scratch(memory, ws_size)) != miopenStatusSuccess) return rc;

  // MIOpen's RunForwardGPU: the mean kernel time leaves out the first call.
  double kernel_total = 0.0, kernel_first = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    rc =
        miopenCTCLoss(o.handle, o.probs, probs_dev.data(), labels.data(), spec.label_lengths.data(),
                      spec.input_lengths.data(), losses_dev.data(), o.grads, grads_dev.data(),
                      static_cast<miopenCTCLossAlgo_t>(spec.algo), o.ctc, work_dev.data(), ws_size);
    if (rc == miopenStatusSuccess) rc = synchronize(memory);
    if (rc != miopenStatusSuccess) {
      std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
    float t = 0.0f;
    miopenGetKernelTime(o.handle, &t);
    kernel_total += t;
    if (i == 0) kernel_first = t;
  }
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (time) {
    if (wall) std::printf("Wall-clock Time CTC Loss Elapsed: %f ms\n", wall_ms / iters);
    const double avg = iters > 1 ? (kernel_total - kernel_first) / (iters - 1) : kernel_first;
    std::printf("GPU Kernel Time Forward Conv. Elapsed: %f ms (average)\n", avg);
  }
  if ((rc = losses_dev.download()) != miopenStatusSuccess) return rc;
  if ((rc = grads_dev.download()) != miopenStatusSuccess) return rc;
  if (flags.get_int("verify") == 0) return 0;

  // MIOpen's VerifyForward.
  const ref::CtcResult want =
      ref::ctc_loss({spec.blank, spec.apply_softmax},
                    {static_cast<size_t>(T), static_cast<size_t>(N), static_cast<size_t>(C)},
                    floats_of(probs, elems), labels, spec.label_lengths, spec.input_lengths);
  if (dumps) {
    const std::vector<float> l(want.losses.begin(), want.losses.end()),
        g(want.gradients.begin(), want.gradients.end());
    dump("dump_losses_cpu.bin", l.data(), l.size() * sizeof(float));
    dump("dump_gradients_cpu.bin", g.data(), g.size() * sizeof(float));
  }
  // relative_rms (verify.hpp) rather than MIOpen's rms_range, which divides by the signed
  // maximum: without the softmax every gradient is <= 0, the maximum is 0 and any difference
  // would fail. relative_rms <= rms_range, so MIOpen's tolerances keep their meaning.
  const double e1 = ref::relative_rms(want.losses, floats_of(losses, N));
  const double e2 = ref::relative_rms(want.gradients, floats_of(grads, elems));
  bool ok = true;
  if (!std::isfinite(e1) || e1 > ref::kCtcLossTolerance) {
    std::cout << "CTC loss FAILED: " << e1 << std::endl;
    ok = false;
  } else {
    std::printf("CTC loss Verifies on CPU and GPU\n");
  }
  if (!std::isfinite(e2) || e2 > ref::kCtcGradientTolerance) {
    std::cout << "CTC gradient FAILED: " << e2 << std::endl;
    ok = false;
  } else {
    std::printf("CTC gradient Verifies on CPU and GPU\n");
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace anydnn::driver
