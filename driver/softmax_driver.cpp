#include "softmax_driver.hpp"

#include <miopen/miopen.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "softmax_reference.hpp"
#include "softmax_spec.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t desc = nullptr;
  ~Owned() {
    if (desc != nullptr) miopenDestroyTensorDescriptor(desc);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

class SoftmaxDriver {
 public:
  explicit SoftmaxDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t timed_loop(bool forward);
  bool verify(bool forward);

  std::string base_;
  SoftmaxSpec spec_;
  InputFlags flags_;
  Owned o_;
  HostTensor x_, y_, dy_, dx_;
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, y_dev_, dy_dev_, dx_dev_;
  int iters_ = 1;
  bool time_ = false, wall_ = false;
};

// MIOpen's Run{Forward,Backward}GPU: iters calls; the mean kernel time and wall-clock time
// leave out the first call (MIOpen's "First Call Overhead").
miopenStatus_t SoftmaxDriver::timed_loop(bool forward) {
  double kernel_total = 0.0, kernel_first = 0.0, wall_first = 0.0, wall_rest = 0.0;
  for (int i = 0; i < iters_; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    miopenStatus_t rc =
        forward
            ? miopenSoftmaxForward_V2(o_.handle, &spec_.alpha, o_.desc, x_dev_.data(), &spec_.beta,
                                      o_.desc, y_dev_.data(), spec_.desc.algorithm, spec_.desc.mode)
            : miopenSoftmaxBackward_V2(o_.handle, &spec_.alpha, o_.desc, y_dev_.data(), o_.desc,
                                       dy_dev_.data(), &spec_.beta, o_.desc, dx_dev_.data(),
                                       spec_.desc.algorithm, spec_.desc.mode);
    if (rc == miopenStatusSuccess) rc = synchronize(memory_);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != miopenStatusSuccess) {
      std::printf("%s() FAILED, rc = 0x%x\n", forward ? "RunForwardGPU" : "RunBackwardGPU",
                  static_cast<unsigned>(rc));
      return rc;
    }
    float t = 0.0f;
    miopenGetKernelTime(o_.handle, &t);
    kernel_total += t;
    if (i == 0) {
      kernel_first = t;
      wall_first = ms;
    } else {
      wall_rest += ms;
    }
  }
  if (time_) {
    const char* dir = forward ? "Forward" : "Backward";
    double gpu = kernel_first, wall = wall_first, aux = 0.0;
    if (iters_ > 1) {
      gpu = (kernel_total - kernel_first) / (iters_ - 1);
      wall = wall_rest / (iters_ - 1);
      aux = wall_first - wall;
    }
    if (wall_) {
      std::printf("Wall-clock Time %s Softmax Elapsed: %f ms", dir, wall);
      if (iters_ > 1) std::printf(", First Call Overhead: %f ms", aux);
      std::printf("\n");
    }
    std::printf("GPU Kernel Time %s Softmax Elapsed: %f ms\n", dir, gpu);
  }
  return forward ? y_dev_.download() : dx_dev_.download();
}

// MIOpen's Verify{Forward,Backward}: the host result (blended with the buffer's prior contents,
// zeros as the driver starts them) against the output by rms_range.
bool SoftmaxDriver::verify(bool forward) {
  const std::array<size_t, 4> lens = {
      static_cast<size_t>(spec_.lens[0]), static_cast<size_t>(spec_.lens[1]),
      static_cast<size_t>(spec_.lens[2]), static_cast<size_t>(spec_.lens[3])};
  const auto y = ref::to_logical(y_.view());
  std::vector<double> want =
      forward ? ref::softmax_forward(spec_.desc, lens, ref::to_logical(x_.view()))
              : ref::softmax_backward(spec_.desc, lens, y, ref::to_logical(dy_.view()));
  // Every iteration blends into the previous one's output: out_k = a f + b out_{k-1}, out_0 = 0.
  std::vector<double> out(want.size(), 0.0);
  for (int i = 0; i < iters_; ++i)
    out = ref::softmax_blend(want, spec_.alpha, spec_.beta, out);
  const auto got = ref::to_logical(forward ? y_.view() : dx_.view());
  const double err = ref::softmax_rms_error(out, got);
  const char* dir = forward ? "Forward" : "Backward";
  if (!std::isfinite(err) || err > ref::softmax_tolerance(spec_.type)) {
    std::cout << dir << " Softmax FAILED: " << err << std::endl;
    return false;
  }
  std::printf("%s Softmax Verifies on CPU and GPU (err=%f)\n", dir, err);
  return true;
}

int SoftmaxDriver::run(int argc, const char* const* argv) {
  add_softmax_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  softmax_base_type(base_, spec_.type);
  spec_.base = base_;
  if (const auto err = softmax_spec_from_flags(flags_, spec_)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  RunOptions run;
  if (const auto err = read_run_options(flags_, run)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  iters_ = run.iters;
  time_ = run.time;
  wall_ = run.wall;

  std::mt19937 rng = driver_rng();
  miopenStatus_t rc = create_driver_handle(&o_.handle, memory_, time_);
  if (rc != miopenStatusSuccess) return rc;
  if ((rc = miopenCreateTensorDescriptor(&o_.desc)) == miopenStatusSuccess)
    rc = miopenSet4dTensorDescriptor(o_.desc, spec_.type, spec_.lens[0], spec_.lens[1],
                                     spec_.lens[2], spec_.lens[3]);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the tensor descriptor, status = " << rc << std::endl;
    return rc;
  }
  x_ = HostTensor::from_descriptor(o_.desc);
  y_ = x_;
  dy_ = x_;
  dx_ = x_;
  std::fill(y_.bytes.begin(), y_.bytes.end(), 0);
  std::fill(dx_.bytes.begin(), dx_.bytes.end(), 0);
  x_.fill_uniform(rng, 0.0, 1.0, 1.0);
  dy_.fill_uniform(rng, -0.5, 0.5, 0.001);
  for (auto [dev, host] : {std::pair{&x_dev_, &x_}, std::pair{&y_dev_, &y_},
                           std::pair{&dy_dev_, &dy_}, std::pair{&dx_dev_, &dx_}}) {
    if ((rc = dev->mirror(memory_, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  const bool check = flags_.get_int("verify") != 0;
  bool ok = true;
  if (spec_.forward()) {
    if ((rc = timed_loop(true)) != miopenStatusSuccess) return rc;
    if (check) ok = verify(true) && ok;
  }
  if (spec_.backward()) {
    if ((rc = timed_loop(false)) != miopenStatusSuccess) return rc;
    if (check) ok = verify(false) && ok;
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace

int run_softmax_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t t;
  if (!softmax_base_type(base, t)) return kExitUsage;
  SoftmaxDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
