#include "tensorop_driver.hpp"

#include <miopen/miopen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "host_buffer.hpp"
#include "input_flags.hpp"
#include "tensor_op_reference.hpp"

namespace anydnn::driver {

namespace {

void add_tensorop_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "1", "Direction of operation (not used)");
  f.add("batchsize", 'n', "64", "Mini-batch size (Default=64)");
  f.add("in_channels", 'c', "3", "Number of Input Channels (Default=3)");
  f.add("in_h", 'H', "32", "Input Height (Default=32)");
  f.add("in_w", 'W', "32", "Input Width (Default=32)");
  f.add("alpha1", 'A', "1", "Activation alpha1 (Default=1)", T::String);
  f.add("alpha2", 'B', "1", "Activation alpha2 (Default=1)", T::String);
  f.add("beta", 'G', "0", "Activation beta (Default=1)", T::String);
  f.add("iter", 'i', "10", "Number of Iterations (Default=10)");
  f.add("verify", 'V', "1", "Verify Each Layer (Default=1)");
  f.add("time", 't', "0", "Time Each Layer (Default=0)");
  f.add("wall", 'w', "0", "Wall-clock Time Each Layer, Requires time == 1 (Default=0)");
  f.add("tensor_op", 'o', "0",
        "Tensor Op to execute (Default = 0), 0 - SetTensor, 1 - ScaleTensor, 2 - Add, 3 - Mul, "
        "4 - Min, 5 - Max");
  f.add("tensor_val", 'v', "1", "Scalar value for SetTensor and ScaleTensor", T::String);
}

struct HandleOwner {
  miopenHandle_t h = nullptr;
  ~HandleOwner() {
    if (h != nullptr) miopenDestroy(h);
  }
};

struct DescOwner {
  miopenTensorDescriptor_t d = nullptr;
  DescOwner() { miopenCreateTensorDescriptor(&d); }
  ~DescOwner() { miopenDestroyTensorDescriptor(d); }
};

bool parse_double(const InputFlags& f, const char* name, double& out) {
  const std::string& s = f.get_str(name);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end != nullptr && *end == '\0';
}

// MIOpen's CheckTensor: an element fails when both its absolute and relative errors exceed
// 80 epsilon of the data type, or either value is not finite. Prints MIOpen's line for the
// first failure.
bool check(const std::vector<double>& want, const HostTensor& got, miopenDataType_t type) {
  const double eps =
      (type == miopenHalf ? 0.0009765625 : std::numeric_limits<float>::epsilon()) * 80;
  const auto values = got.values();
  for (size_t i = 0; i < want.size(); ++i) {
    const double c = want[i], g = values[i], err = std::abs(c - g);
    const double rel = err / std::max(std::abs(c), std::abs(g));
    if ((err > eps && rel > eps) || !std::isfinite(c) || !std::isfinite(g)) {
      std::cout << "Difference in Tensor Op result: " << err << " too large at " << i
                << " cpu value = " << c << " , gpu_val = " << g << " tolreance = " << eps
                << std::endl;
      return false;
    }
  }
  return true;
}

// The value's bytes in the data type (Set / Scale take it so, as in MIOpen).
HostTensor scalar_of(miopenDataType_t type, double v) {
  HostTensor t = HostTensor::zeros(type, 1);
  t.set(0, v);
  return t;
}

}  // namespace

bool is_tensorop_base(const std::string& base) {
  return base == "tensorop" || base == "tensoropfp16";
}

int run_tensorop_driver(const std::string& base, int argc, const char* const* argv) {
  InputFlags flags;
  add_tensorop_flags(flags);
  if (const auto err = flags.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags.help_requested()) {
    flags.print_usage(std::cout, base);
    return 0;
  }
  const miopenDataType_t type = base == "tensoropfp16" ? miopenHalf : miopenFloat;
  double alpha1, alpha2, beta, value;
  if (!parse_double(flags, "alpha1", alpha1) || !parse_double(flags, "alpha2", alpha2) ||
      !parse_double(flags, "beta", beta) || !parse_double(flags, "tensor_val", value)) {
    std::cerr << "MIOpenDriver " << base << ": -A, -B, -G and -v take numbers" << std::endl;
    return kExitUsage;
  }
  const int raw_op = flags.get_int("tensor_op");
  if (raw_op < 0 || raw_op > 5) {
    flags.print_usage(std::cout, base);
    return kExitUsage;
  }
  const int lens[] = {flags.get_int("batchsize"), flags.get_int("in_channels"),
                      flags.get_int("in_h"), flags.get_int("in_w")};
  const int iters = flags.get_int("iter");
  if (iters < 1 || std::any_of(std::begin(lens), std::end(lens), [](int l) { return l < 1; })) {
    std::cerr << "MIOpenDriver " << base << ": sizes and -i must be positive" << std::endl;
    return kExitUsage;
  }
  const bool time = flags.get_int("time") != 0, wall = time && flags.get_int("wall") != 0;
  const bool is_set = raw_op == 0, is_op = raw_op >= 2;  // else ScaleTensor
  const auto op = static_cast<miopenTensorOp_t>(is_op ? raw_op - 2 : 0);

  unsigned seed = 12345678;
  if (const char* s = std::getenv("MIOPEN_DEBUG_DRIVER_PRNG_SEED"))
    seed = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  std::cout << "PRNG seed: " << seed << std::endl;
  std::mt19937 rng(seed);

  HandleOwner handle;
  miopenStatus_t rc = miopenCreate(&handle.h);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error creating a handle, status = " << rc << std::endl;
    return rc;
  }
  Memory memory = Memory::Host;
  if ((rc = memory_of(handle.h, memory)) != miopenStatusSuccess) return rc;
  if (time) miopenEnableProfiling(handle.h, true);
  DescOwner desc;  // MIOpen's driver gives A, B and C the same 4-D packed descriptor
  if ((rc = miopenSet4dTensorDescriptor(desc.d, type, lens[0], lens[1], lens[2], lens[3])) !=
      miopenStatusSuccess)
    return rc;
  // MIOpen's data: uniform in [-2, 2] for A, B and C.
  HostTensor a = HostTensor::from_descriptor(desc.d), b = a, c = a;
  a.fill_uniform(rng, -2.0, 2.0, 1.0);
  b.fill_uniform(rng, -2.0, 2.0, 1.0);
  c.fill_uniform(rng, -2.0, 2.0, 1.0);
  const HostTensor a0 = a, c0 = c;
  DeviceBuffer a_dev, b_dev, c_dev;
  for (auto [dev, host] : {std::pair{&a_dev, &a}, std::pair{&b_dev, &b}, std::pair{&c_dev, &c}}) {
    if ((rc = dev->mirror(memory, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  const float fa1 = static_cast<float>(alpha1), fa2 = static_cast<float>(alpha2),
              fb = static_cast<float>(beta);
  const HostTensor v = scalar_of(type, value);

  float low = 1e30f;
  double avg = 0.0, wall_sum = 0.0;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (is_op)
      rc = miopenOpTensor(handle.h, op, &fa1, desc.d, a_dev.data(), &fa2, desc.d, b_dev.data(), &fb,
                          desc.d, c_dev.data());
    else if (is_set)
      rc = miopenSetTensor(handle.h, desc.d, a_dev.data(), v.data());
    else
      rc = miopenScaleTensor(handle.h, desc.d, a_dev.data(), v.data());
    if (rc == miopenStatusSuccess && wall) rc = synchronize(memory);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != miopenStatusSuccess) {
      std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
    float kt = 0.0f;
    if (time) miopenGetKernelTime(handle.h, &kt);
    low = std::min(low, kt);
    if (iters > 1) avg += kt;
    wall_sum += iters == 1 || i > 0 ? ms : 0.0;
  }
  if (wall)
    std::printf("Wall-clock Time Tensor Ops Elapsed: %f ms, for %d iterations.\n",
                iters == 1 ? wall_sum : wall_sum / (iters - 1), iters > 1 ? iters - 1 : 1);
  if (time) {
    std::printf("GPU Kernel Min Time Tensor Op Elapsed: %f ms\n", low);
    if (iters > 1)
      std::printf("GPU Kernel Avg Time Tensor Op Elapsed: %f ms, for %d iterations.\n",
                  avg / (iters - 1), iters - 1);
    const size_t bytes = a.bytes.size();
    std::printf("stats: name, bytesRead, bytesWritten, GB/s, timeMs\n");
    std::printf("stats: tensor op, %zu, %zu, %f, %f\n", 3 * bytes, bytes,
                4.0 * static_cast<double>(bytes) / low / 1e6, iters > 1 ? avg / (iters - 1) : low);
  }
  if (flags.get_int("verify") == 0) return 0;
  HostTensor& out = is_op ? c : a;
  if ((rc = (is_op ? c_dev : a_dev).download()) != miopenStatusSuccess) return rc;
  // The reference replays every iteration, rounding to the data type after each.
  HostTensor state = is_op ? c0 : a0;
  std::vector<double> want;
  for (int i = 0; i < iters; ++i) {
    if (is_op)
      want = ref::op_tensor(op, a0.view(), b.view(), state.view(), alpha1, alpha2, beta);
    else if (is_set)
      want.assign(state.elements(), v.get(0));
    else
      want = ref::scale_tensor(state.view(), v.get(0));
    for (size_t j = 0; j < want.size(); ++j)
      state.set(j, want[j]);
  }
  if (!check(state.values(), out, type)) return kExitVerifyFailed;
  std::printf("Tensor Op verifies on CPU and GPU\n");
  return 0;
}

}  // namespace anydnn::driver
