#include "lrn_driver.hpp"

#include <miopen/miopen.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "lrn_reference.hpp"
#include "lrn_spec.hpp"
#include "verify.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t desc = nullptr;
  miopenLRNDescriptor_t lrn = nullptr;
  ~Owned() {
    if (lrn != nullptr) miopenDestroyLRNDescriptor(lrn);
    if (desc != nullptr) miopenDestroyTensorDescriptor(desc);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

class LrnDriver {
 public:
  explicit LrnDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t timed_loop(bool forward);
  bool verify(bool forward);

  std::string base_;
  LrnSpec spec_;
  InputFlags flags_;
  Owned o_;
  HostTensor x_, y_, dy_, dx_, ws_;
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, y_dev_, dy_dev_, dx_dev_, ws_dev_;
  int iters_ = 1;
  bool time_ = false, wall_ = false;
};

// MIOpen's Run{Forward,Backward}GPU for LRN: one call, then `iter` timed calls; the wall-clock
// time is their mean, the kernel time the last call's (miopenGetKernelTime).
miopenStatus_t LrnDriver::timed_loop(bool forward) {
  const float alpha = 1.0f, beta = 0.0f;
  auto call = [&] {
    miopenStatus_t rc =
        forward ? miopenLRNForward(o_.handle, o_.lrn, &alpha, o_.desc, x_dev_.data(), &beta,
                                   o_.desc, y_dev_.data(), spec_.do_backward(), ws_dev_.data())
                : miopenLRNBackward(o_.handle, o_.lrn, &alpha, o_.desc, y_dev_.data(), o_.desc,
                                    dy_dev_.data(), o_.desc, x_dev_.data(), &beta, o_.desc,
                                    dx_dev_.data(), ws_dev_.data());
    if (rc != miopenStatusSuccess)
      std::printf("%s() FAILED, rc = 0x%x\n", forward ? "RunForwardGPU" : "RunBackwardGPU",
                  static_cast<unsigned>(rc));
    return rc;
  };
  miopenStatus_t rc = call();
  if (rc != miopenStatusSuccess) return rc;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters_; ++i)
    if ((rc = call()) != miopenStatusSuccess) return rc;
  if ((rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (time_) {
    const char* dir = forward ? "Forward" : "Backward";
    float t = 0.0f;
    miopenGetKernelTime(o_.handle, &t);
    if (wall_) std::printf("Wall-clock Time %s LRN Elapsed: %f ms\n", dir, ms / iters_);
    std::printf("GPU Kernel Time %s LRN Elapsed: %f ms\n", dir, t);
  }
  rc = forward ? y_dev_.download() : dx_dev_.download();
  if (rc == miopenStatusSuccess && forward && spec_.do_backward()) rc = ws_dev_.download();
  return rc;
}

// MIOpen's Verify{Forward,Backward}: the host result against the output by rms_range; backward's
// host code reads the library's y and scale (as MIOpen's reads the GPU's).
bool LrnDriver::verify(bool forward) {
  const std::array<size_t, 4> lens = {
      static_cast<size_t>(spec_.lens[0]), static_cast<size_t>(spec_.lens[1]),
      static_cast<size_t>(spec_.lens[2]), static_cast<size_t>(spec_.lens[3])};
  const auto x = ref::to_logical(x_.view());
  std::vector<double> want;
  if (forward) {
    want = ref::lrn_forward(spec_.desc, lens, x, nullptr);
  } else {
    std::vector<double> scale(x.size());
    for (size_t i = 0; i < scale.size(); ++i)
      scale[i] = ws_.get(i);  // the scale is packed NCHW: y's layout
    want = ref::lrn_backward(spec_.desc, lens, x, ref::to_logical(y_.view()),
                             ref::to_logical(dy_.view()), scale);
  }
  const auto got = ref::to_logical(forward ? y_.view() : dx_.view());
  const double err = ref::rms_range(want, got);
  const char* dir = forward ? "Forward" : "Backward";
  if (!std::isfinite(err) || err > ref::lrn_tolerance(forward, spec_.type)) {
    std::cout << dir << " LRN FAILED: " << err << std::endl;
    return false;
  }
  std::printf("%s LRN Verifies on CPU and GPU (err=%f)\n", dir, err);
  return true;
}

int LrnDriver::run(int argc, const char* const* argv) {
  add_lrn_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  lrn_base_type(base_, spec_.type);
  spec_.base = base_;
  if (const auto err = lrn_spec_from_flags(flags_, spec_)) {
    if (*err == "Incorrect LRN Mode")
      std::printf("Incorrect LRN Mode\n");  // MIOpen's line
    else
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
  if (rc == miopenStatusSuccess) rc = miopenCreateLRNDescriptor(&o_.lrn);
  if (rc == miopenStatusSuccess)
    rc = miopenSetLRNDescriptor(o_.lrn, spec_.desc.mode, spec_.desc.n, spec_.desc.alpha,
                                spec_.desc.beta, spec_.desc.k);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the descriptors, status = " << rc << std::endl;
    return rc;
  }
  x_ = HostTensor::from_descriptor(o_.desc);
  y_ = x_;
  dy_ = x_;
  dx_ = x_;
  std::fill(y_.bytes.begin(), y_.bytes.end(), 0);
  std::fill(dx_.bytes.begin(), dx_.bytes.end(), 0);
  x_.fill_uniform(rng, -1.0, 1.0, 1.0);
  dy_.fill_uniform(rng, -0.5, 0.5, 0.001);
  for (auto [dev, host] : {std::pair{&x_dev_, &x_}, std::pair{&y_dev_, &y_},
                           std::pair{&dy_dev_, &dy_}, std::pair{&dx_dev_, &dx_}}) {
    if ((rc = dev->mirror(memory_, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  if (spec_.do_backward()) {
    size_t ws_bytes = 0;
    if ((rc = miopenLRNGetWorkSpaceSize(o_.desc, &ws_bytes)) != miopenStatusSuccess) return rc;
    const size_t esize = spec_.type == miopenHalf ? 2 : 4;
    ws_ = HostTensor::zeros(spec_.type, ws_bytes / esize);
    if (spec_.forw == 2) {
      std::uniform_real_distribution<double> canon(0.0, 1.0);
      for (size_t i = 0; i < ws_.elements(); ++i)
        ws_.set(i, 1.0 - canon(rng));
    }
    if ((rc = ws_dev_.mirror(memory_, ws_)) != miopenStatusSuccess) return rc;
    if ((rc = ws_dev_.upload()) != miopenStatusSuccess) return rc;
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

int run_lrn_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t t;
  if (!lrn_base_type(base, t)) return kExitUsage;
  LrnDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
