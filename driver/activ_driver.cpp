#include "activ_driver.hpp"

#include <miopen/miopen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>

#include "activ_spec.hpp"
#include "activation_reference.hpp"
#include "conv_driver.hpp"  // exit codes
#include "conv_spec.hpp"    // layout_enum
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t desc = nullptr;
  miopenActivationDescriptor_t activ = nullptr;
  ~Owned() {
    if (activ != nullptr) miopenDestroyActivationDescriptor(activ);
    if (desc != nullptr) miopenDestroyTensorDescriptor(desc);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

class ActivDriver {
 public:
  explicit ActivDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t setup();
  miopenStatus_t timed_loop(bool forward);
  bool verify_forward();
  bool verify_backward();

  std::string base_;
  ActivSpec spec_;
  InputFlags flags_;
  Owned o_;
  HostTensor x_, y_, dy_, dx_;
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, y_dev_, dy_dev_, dx_dev_;
  int iters_ = 1;
  bool time_ = false, wall_ = false;
};

miopenStatus_t ActivDriver::setup() {
  miopenStatus_t rc = miopenCreateTensorDescriptor(&o_.desc);
  if (rc == miopenStatusSuccess) {
    const auto layout = layout_enum(spec_.layout);
    rc = miopenSetNdTensorDescriptorWithLayout(o_.desc, spec_.type, *layout, spec_.lens.data(),
                                               static_cast<int>(spec_.lens.size()));
  }
  if (rc == miopenStatusSuccess) rc = miopenCreateActivationDescriptor(&o_.activ);
  if (rc == miopenStatusSuccess)
    rc = miopenSetActivationDescriptor(o_.activ, spec_.desc.mode, spec_.desc.alpha, spec_.desc.beta,
                                       spec_.desc.gamma);
  return rc;
}

// MIOpen's Run{Forward,Backward}GPU: iters calls, the kernel-time and wall-clock lines.
miopenStatus_t ActivDriver::timed_loop(bool forward) {
  const float alpha = 1.0f, beta = 0.0f;
  double fulltime = 0.0;
  float avgtime = 0.0f, lowtime = 100000000.0f;
  double last_ms = 0.0;
  for (int i = 0; i < iters_; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    miopenStatus_t rc =
        forward ? miopenActivationForward(o_.handle, o_.activ, &alpha, o_.desc, x_dev_.data(),
                                          &beta, o_.desc, y_dev_.data())
                : miopenActivationBackward(o_.handle, o_.activ, &alpha, o_.desc, y_dev_.data(),
                                           o_.desc, dy_dev_.data(), o_.desc, x_dev_.data(), &beta,
                                           o_.desc, dx_dev_.data());
    if (rc == miopenStatusSuccess) rc = synchronize(memory_);
    last_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != miopenStatusSuccess) {
      std::printf("%s() FAILED, rc = 0x%x\n", forward ? "RunForwardGPU" : "RunBackwardGPU",
                  static_cast<unsigned>(rc));
      return rc;
    }
    if (wall_) {
      if (iters_ > 1 && i > 0)
        fulltime += last_ms;
      else if (iters_ == 1)
        fulltime = last_ms;
    }
    if (time_) {
      float t = 0.0f;
      miopenGetKernelTime(o_.handle, &t);
      lowtime = std::min(lowtime, t);
      if (iters_ > 1 && i > 0) avgtime += t;
    }
  }
  const char* dir = forward ? "Forward" : "Backward";
  if (wall_)
    std::printf("Wall-clock Time %s GPU Activation Elapsed: %f ms, for %d iterations.\n", dir,
                iters_ == 1 ? last_ms : fulltime / static_cast<float>(iters_ - 1),
                iters_ > 1 ? iters_ - 1 : 1);
  if (time_) {
    std::printf("GPU Kernel Min Time %s Activation Elapsed: %f ms\n", dir, lowtime);
    if (iters_ > 1)
      std::printf("GPU Kernel Avg Time %s Activation Elapsed: %f ms, for %d iterations.\n", dir,
                  avgtime / (iters_ - 1), iters_ - 1);
    size_t elems = 1;
    for (int l : spec_.lens)
      elems *= static_cast<size_t>(l);
    const size_t bytes = elems * (spec_.type == miopenFloat ? 4 : 2);
    // MIOpen's line, its arithmetic included (the average divides by iters - 1).
    std::printf("stats: name, bytesRead, bytesWritten, GB/s, timeMs\n");
    std::printf("stats: %s-activ, %zu, %zu, %f, %f\n", forward ? "fwd" : "bwd", bytes, bytes,
                2 * bytes / lowtime / 1e6, avgtime / (iters_ - 1));
  }
  return forward ? y_dev_.download() : dx_dev_.download();
}

// MIOpen's mloNeuron{Forward,Backward}RunHostAndVerify: the first element off by more than the
// tolerance (absolutely and relatively) is printed and fails the check.
bool ActivDriver::verify_forward() {
  const auto x = ref::to_logical(x_.view());
  const auto want = ref::activation_forward(spec_.desc, x);
  const auto got = ref::to_logical(y_.view());
  const double tol = ref::activation_tolerance(spec_.type);
  const long long i = ref::activation_mismatch(want, got, tol);
  if (i >= 0) {
    const auto k = static_cast<size_t>(i);
    std::cout << "Difference in neuron layer: " << std::abs(want[k] - got[k]) << " too large at "
              << i << " x = " << x[k] << "  c_v = " << want[k] << " vs g_val = " << got[k]
              << " tolerance = " << tol << std::endl;
    return false;
  }
  std::printf("Forward Activation Verifies on CPU and GPU\n");
  return true;
}

bool ActivDriver::verify_backward() {
  const auto x = ref::to_logical(x_.view()), y = ref::to_logical(y_.view()),
             dy = ref::to_logical(dy_.view());
  const auto want = ref::activation_backward(spec_.desc, dy, x, y);
  const auto got = ref::to_logical(dx_.view());
  const double tol = ref::activation_tolerance(spec_.type);
  const long long i = ref::activation_mismatch(want, got, tol);
  if (i >= 0) {
    const auto k = static_cast<size_t>(i);
    std::cout << "Difference in neuron back-propagation: " << std::abs(want[k] - got[k])
              << " too large at " << i << " dy = " << dy[k] << " x = " << x[k] << " y = " << y[k]
              << "  c_v = " << want[k] << " vs g_val = " << got[k] << " tolerance = " << tol
              << std::endl;
    return false;
  }
  std::printf("Backward Activation Verifies on CPU and GPU\n");
  return true;
}

int ActivDriver::run(int argc, const char* const* argv) {
  add_activ_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  activ_base_type(base_, spec_.type);
  spec_.base = base_;
  if (const auto err = activ_spec_from_flags(flags_, spec_)) {
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
  if ((rc = setup()) != miopenStatusSuccess) {
    std::cout << "Error setting up the activation descriptors, status = " << rc << std::endl;
    return rc;
  }
  // MIOpen's buffers: x drawn per mode, dy uniform in [-0.5, 0.5], y and dx zero.
  x_ = HostTensor::from_descriptor(o_.desc);
  y_ = x_;
  dy_ = x_;
  dx_ = x_;
  std::fill(y_.bytes.begin(), y_.bytes.end(), 0);
  std::fill(dx_.bytes.begin(), dx_.bytes.end(), 0);
  for (size_t i = 0; i < x_.elements(); ++i)
    x_.set(i, ref::activation_input(spec_.desc, i, rng));
  dy_.fill_uniform(rng, -0.5, 0.5, 1.0);
  for (auto [dev, host] : {std::pair{&x_dev_, &x_}, std::pair{&y_dev_, &y_},
                           std::pair{&dy_dev_, &dy_}, std::pair{&dx_dev_, &dx_}}) {
    if ((rc = dev->mirror(memory_, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  const bool verify = flags_.get_int("verify") != 0;
  bool ok = true;
  if (spec_.forward()) {
    if ((rc = timed_loop(true)) != miopenStatusSuccess) return rc;
    if (verify) ok = verify_forward() && ok;
  }
  if (spec_.backward()) {
    if ((rc = timed_loop(false)) != miopenStatusSuccess) return rc;
    if (verify) ok = verify_backward() && ok;
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace

int run_activ_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t t;
  if (!activ_base_type(base, t)) return kExitUsage;
  ActivDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
