#include "bn_driver.hpp"

#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <utility>

#include "bn_reference.hpp"
#include "bn_spec.hpp"
#include "conv_driver.hpp"  // exit codes
#include "conv_spec.hpp"    // layout_enum
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "verify.hpp"

namespace anydnn::driver {

namespace {

constexpr double kEpsilon = 1e-3;

struct Descs {
  miopenTensorDescriptor_t x = nullptr, p = nullptr;
  Descs() {
    miopenCreateTensorDescriptor(&x);
    miopenCreateTensorDescriptor(&p);
  }
  ~Descs() {
    miopenDestroyTensorDescriptor(x);
    miopenDestroyTensorDescriptor(p);
  }
};

struct HandleOwner {
  miopenHandle_t h = nullptr;
  ~HandleOwner() {
    if (h != nullptr) miopenDestroy(h);
  }
};

double rms_tolerance(miopenDataType_t t) {
  // MIOpen: 1e-4 fp32, 5e-4 for 16-bit data; bf16's 8-bit mantissa gets the conv rule's x8.
  return t == miopenFloat ? 1e-4 : t == miopenHalf ? 5e-4 : 4e-3;
}

// One verification line; returns whether it passed.
bool check(const char* prefix, const char* what, const std::vector<double>& want,
           const HostTensor& got, double tol) {
  const double err = ref::rms_range(want, ref::to_logical(got.view()));
  if (!(err <= tol)) {
    std::cout << prefix << " FAILED on " << what << ": " << err << std::endl;
    return false;
  }
  std::cout << prefix << " passed on " << what << " (" << err << ")" << std::endl;
  return true;
}

class BnDriver {
 public:
  BnDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t setup();
  void init_data();
  miopenStatus_t init_device();
  miopenStatus_t download_outputs();
  miopenStatus_t call_forward(double factor);
  miopenStatus_t call_backward();
  void print_times(bool forward, float low, double avg_sum, double wall_sum, int iters) const;
  bool verify_forward(int calls);
  bool verify_backward();

  std::string base_;
  BnSpec spec_;
  InputFlags flags_;
  HandleOwner handle_;
  Descs descs_;
  std::mt19937 rng_;
  HostTensor x_, y_, y_prior_, dy_, dx_, dx_prior_, scale_, bias_, run_mean_, run_var_, run_mean0_,
      run_var0_, save_mean_, save_invvar_, dscale_, dbias_;
  // What the library reads and writes (device_buffer.hpp): the host tensors on the CPU backend,
  // device copies of them on CUDA.
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, y_dev_, dy_dev_, dx_dev_, scale_dev_, bias_dev_, run_mean_dev_, run_var_dev_,
      save_mean_dev_, save_invvar_dev_, dscale_dev_, dbias_dev_;
  bool time_ = false, wall_ = false;
};

HostTensor from_desc(miopenTensorDescriptor_t d) {
  return HostTensor::from_descriptor(d);
}

miopenStatus_t BnDriver::setup() {
  const auto layout = layout_enum(spec_.layout);
  miopenStatus_t rc = miopenSetNdTensorDescriptorWithLayout(
      descs_.x, spec_.type, *layout, spec_.lens.data(), static_cast<int>(spec_.lens.size()));
  if (rc == miopenStatusSuccess)
    rc = miopenDeriveBNTensorDescriptor(descs_.p, descs_.x, spec_.mode);
  if (rc == miopenStatusSuccess && spec_.param_type != miopenFloat) {
    // bnormfp16 / bnormbfp16: parameters in the data type (the derived descriptor is fp32).
    int dims = 0;
    miopenGetTensorDescriptorSize(descs_.p, &dims);
    std::vector<int> lens(static_cast<size_t>(dims)), strides(lens.size());
    miopenDataType_t t;
    miopenGetTensorDescriptor(descs_.p, &t, lens.data(), strides.data());
    rc = miopenSetTensorDescriptor(descs_.p, spec_.param_type, dims, lens.data(), nullptr);
  }
  return rc;
}

void BnDriver::init_data() {
  x_ = from_desc(descs_.x);
  y_ = x_;
  dy_ = x_;
  dx_ = x_;
  scale_ = from_desc(descs_.p);
  bias_ = scale_;
  run_mean_ = scale_;
  run_var_ = scale_;
  save_mean_ = scale_;
  save_invvar_ = scale_;
  dscale_ = scale_;
  dbias_ = scale_;
  x_.fill_uniform(rng_, -1.0, 1.0, 1.0);
  dy_.fill_uniform(rng_, -1.0, 1.0, 1.0);
  scale_.fill_uniform(rng_, 0.5, 1.5, 1.0);
  bias_.fill_uniform(rng_, -0.5, 0.5, 1.0);
  run_mean_.fill_uniform(rng_, -0.1, 0.1, 1.0);
  run_var_.fill_uniform(rng_, 0.5, 1.5, 1.0);
  run_mean0_ = run_mean_;
  run_var0_ = run_var_;
  y_.fill_uniform(rng_, -1.0, 1.0, 1.0);  // the prior output beta blends with
  y_prior_ = y_;
  dx_.fill_uniform(rng_, -1.0, 1.0, 1.0);
  dx_prior_ = dx_;
  if (spec_.backward() && spec_.save) {
    // Saved statistics as a forward training pass would have left them.
    const auto r = ref::bn_forward_training(x_.view(), spec_.mode, ref::to_logical(scale_.view()),
                                            ref::to_logical(bias_.view()), kEpsilon, 1.0, {}, {});
    for (size_t i = 0; i < r.mean.size(); ++i) {
      save_mean_.set(i, r.mean[i]);
      save_invvar_.set(i, r.invstd[i]);
    }
  } else {
    save_mean_.poison();
    save_invvar_.poison();
  }
  dscale_.poison();
  dbias_.poison();
}

miopenStatus_t BnDriver::init_device() {
  // Every tensor as init_data left it: inputs, the prior outputs beta blends with, and the
  // poisoned outputs.
  const std::pair<DeviceBuffer*, HostTensor*> all[] = {{&x_dev_, &x_},
                                                       {&y_dev_, &y_},
                                                       {&dy_dev_, &dy_},
                                                       {&dx_dev_, &dx_},
                                                       {&scale_dev_, &scale_},
                                                       {&bias_dev_, &bias_},
                                                       {&run_mean_dev_, &run_mean_},
                                                       {&run_var_dev_, &run_var_},
                                                       {&save_mean_dev_, &save_mean_},
                                                       {&save_invvar_dev_, &save_invvar_},
                                                       {&dscale_dev_, &dscale_},
                                                       {&dbias_dev_, &dbias_}};
  for (const auto& [dev, host] : all) {
    miopenStatus_t rc = dev->mirror(memory_, *host);
    if (rc == miopenStatusSuccess) rc = dev->upload();
    if (rc != miopenStatusSuccess) return rc;
  }
  return miopenStatusSuccess;
}

miopenStatus_t BnDriver::download_outputs() {
  // Everything a pass may write; the statistics a pass only reads come back unchanged.
  for (const DeviceBuffer* dev : {&y_dev_, &dx_dev_, &run_mean_dev_, &run_var_dev_, &save_mean_dev_,
                                  &save_invvar_dev_, &dscale_dev_, &dbias_dev_}) {
    if (const miopenStatus_t rc = dev->download(); rc != miopenStatusSuccess) return rc;
  }
  return miopenStatusSuccess;
}

miopenStatus_t BnDriver::call_forward(double factor) {
  const float alpha = static_cast<float>(spec_.alpha), beta = static_cast<float>(spec_.beta);
  if (spec_.forward_inference()) {
    return miopenBatchNormalizationForwardInference(
        handle_.h, spec_.mode, const_cast<float*>(&alpha), const_cast<float*>(&beta), descs_.x,
        x_dev_.data(), descs_.x, y_dev_.data(), descs_.p, scale_dev_.data(), bias_dev_.data(),
        spec_.run ? run_mean_dev_.data() : nullptr, spec_.run ? run_var_dev_.data() : nullptr,
        kEpsilon);
  }
  return miopenBatchNormalizationForwardTraining(
      handle_.h, spec_.mode, const_cast<float*>(&alpha), const_cast<float*>(&beta), descs_.x,
      x_dev_.data(), descs_.x, y_dev_.data(), descs_.p, scale_dev_.data(), bias_dev_.data(), factor,
      spec_.run ? run_mean_dev_.data() : nullptr, spec_.run ? run_var_dev_.data() : nullptr,
      kEpsilon, spec_.save ? save_mean_dev_.data() : nullptr,
      spec_.save ? save_invvar_dev_.data() : nullptr);
}

miopenStatus_t BnDriver::call_backward() {
  const float one = 1.0f, zero = 0.0f;
  return miopenBatchNormalizationBackward(
      handle_.h, spec_.mode, &one, &zero, &one, &zero, descs_.x, x_dev_.data(), descs_.x,
      dy_dev_.data(), descs_.x, dx_dev_.data(), descs_.p, scale_dev_.data(), dscale_dev_.data(),
      dbias_dev_.data(), kEpsilon, spec_.save ? save_mean_dev_.data() : nullptr,
      spec_.save ? save_invvar_dev_.data() : nullptr);
}

void BnDriver::print_times(bool forward, float low, double avg_sum, double wall_sum,
                           int iters) const {
  if (wall_)
    std::printf("Wall-clock Time %s GPU Batch Norm Elapsed: %f ms, for %d iterations.\n",
                forward ? "Forward" : "Backward", iters == 1 ? wall_sum : wall_sum / (iters - 1),
                iters > 1 ? iters - 1 : 1);
  if (!time_) return;
  std::printf("GPU Kernel Min Time %s Batch Normalization Elapsed: %f ms\n",
              forward ? "Forward" : "Backwards", low);
  if (iters > 1)
    std::printf("GPU Kernel Avg Time %s Batch Normalization Elapsed: %f ms, for %d iterations.\n",
                forward ? "Forward" : "Backward", avg_sum / (iters - 1), iters - 1);
  // MIOpen's accounting: the data tensor plus two per-channel vectors; training forward reads
  // x twice, inference once, backward reads x and dy; each writes one tensor.
  size_t elems = 1;
  for (int l : spec_.lens)
    elems *= static_cast<size_t>(l);
  const size_t data_bytes =
      (elems + 2 * static_cast<size_t>(spec_.lens[1])) * (spec_.type == miopenFloat ? 4 : 2);
  const double reads = forward ? (spec_.forward_inference() ? 1.0 : 2.0) : 2.0;
  std::printf("stats: %s, 0, %zu, %zu, 0, %f, %f\n", forward ? "bnormf" : "bnormb", data_bytes,
              data_bytes, (reads + 1.0) * static_cast<double>(data_bytes) / low / 1e6, low);
}

bool BnDriver::verify_forward(int calls) {
  const double tol = rms_tolerance(spec_.type);
  const auto sc = ref::to_logical(scale_.view()), bi = ref::to_logical(bias_.view());
  std::vector<double> want_y;
  bool ok = true;
  if (spec_.forward_training()) {
    // The running statistics after `calls` updates with factors 1/(1+i).
    auto rm = ref::to_logical(run_mean0_.view()), rv = ref::to_logical(run_var0_.view());
    ref::BnForwardResult r;
    for (int i = 0; i < calls; ++i) {
      r = ref::bn_forward_training(x_.view(), spec_.mode, sc, bi, kEpsilon, 1.0 / (1.0 + i), rm,
                                   rv);
      rm = r.running_mean;
      rv = r.running_var;
    }
    const char* p = "Forward train batch norm verification";
    if (spec_.run) {
      ok = check(p, "running mean", rm, run_mean_, tol) && ok;
      ok = check(p, "running variance", rv, run_var_, tol) && ok;
    }
    if (spec_.save) {
      ok = check(p, "saved mean", r.mean, save_mean_, tol) && ok;
      ok = check(p, "saved inverse variance", r.invstd, save_invvar_, tol) && ok;
    }
    want_y = r.y;
  } else {
    want_y = spec_.run ? ref::bn_forward_inference(x_.view(), spec_.mode, sc, bi,
                                                   ref::to_logical(run_mean_.view()),
                                                   ref::to_logical(run_var_.view()), kEpsilon)
                       : ref::bn_forward_inference(x_.view(), spec_.mode, sc, bi, {}, {}, kEpsilon);
  }
  const auto prior = ref::to_logical(y_prior_.view());
  for (size_t i = 0; i < want_y.size(); ++i)
    want_y[i] = spec_.alpha * want_y[i] + spec_.beta * prior[i];
  ok = check("Forward batch norm verification", "output", want_y, y_, tol) && ok;
  if (ok) std::cout << "Forward Batch Norm Verifies on CPU and GPU." << std::endl;
  return ok;
}

bool BnDriver::verify_backward() {
  const double tol = rms_tolerance(spec_.type) * 1000;  // MIOpen's backward tolerance
  const auto sc = ref::to_logical(scale_.view());
  const auto r = spec_.save
                     ? ref::bn_backward(x_.view(), dy_.view(), spec_.mode, sc, kEpsilon,
                                        ref::to_logical(save_mean_.view()),
                                        ref::to_logical(save_invvar_.view()))
                     : ref::bn_backward(x_.view(), dy_.view(), spec_.mode, sc, kEpsilon, {}, {});
  const char* p = "Backwards prop batch norm verification";
  bool ok = check(p, "dx", r.dx, dx_, tol);
  ok = check(p, "dscale", r.dscale, dscale_, tol) && ok;
  ok = check(p, "dbias", r.dbias, dbias_, tol) && ok;
  if (ok) std::cout << "Backwards Prop Batch Norm Verifies on CPU and GPU." << std::endl;
  return ok;
}

int BnDriver::run(int argc, const char* const* argv) {
  add_bn_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  bn_base_types(base_, spec_.type, spec_.param_type);
  spec_.base = base_;
  if (const auto err = bn_spec_from_flags(flags_, spec_)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  RunOptions run;
  if (const auto err = read_run_options(flags_, run)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  const int iters = run.iters;
  if (spec_.forw != 0 && spec_.back)
    std::cout << "Warning: -F " << spec_.forw
              << " and -b 1 together: running the forward pass only (as MIOpenDriver)" << std::endl;
  time_ = run.time;
  wall_ = run.wall;

  rng_ = driver_rng();
  miopenStatus_t rc = create_driver_handle(&handle_.h, memory_, time_);
  if (rc != miopenStatusSuccess) return rc;
  rc = setup();
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the batch-norm descriptors, status = " << rc << std::endl;
    return rc;
  }
  init_data();
  if ((rc = init_device()) != miopenStatusSuccess) return rc;
  const bool verify_on = flags_.get_int("verify") != 0;
  const bool forward = spec_.forward_training() || spec_.forward_inference();

  float low = 1e30f;
  double avg = 0.0, wall = 0.0;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    rc = forward ? call_forward(1.0 / (1.0 + i)) : call_backward();
    // The wall clock measures the work, not its queueing.
    if (rc == miopenStatusSuccess && wall_) rc = synchronize(memory_);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != miopenStatusSuccess) {
      std::printf("%s() FAILED, rc = 0x%x\n", forward ? "RunForwardGPU" : "RunBackwardGPU",
                  static_cast<unsigned>(rc));
      return rc;
    }
    float kt = 0.0f;
    if (time_) miopenGetKernelTime(handle_.h, &kt);
    low = std::min(low, kt);
    if (iters == 1 || i > 0) {
      avg += kt;
      wall += ms;
    }
  }
  print_times(forward, low, avg, wall, iters);
  if (!verify_on) return 0;
  // beta blends with the prior output: verify one more call on the original prior.
  if (spec_.beta != 0.0) {
    y_.bytes = y_prior_.bytes;
    dx_.bytes = dx_prior_.bytes;
    if ((rc = y_dev_.upload()) != miopenStatusSuccess) return rc;
    if ((rc = dx_dev_.upload()) != miopenStatusSuccess) return rc;
    rc = forward ? call_forward(1.0 / (1.0 + iters)) : call_backward();
    if (rc != miopenStatusSuccess) return rc;
  }
  if ((rc = download_outputs()) != miopenStatusSuccess) return rc;
  const int calls = iters + (spec_.beta != 0.0 ? 1 : 0);
  const bool ok = forward ? verify_forward(calls) : verify_backward();
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace

int run_bn_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t d, p;
  if (!bn_base_types(base, d, p)) return kExitUsage;
  BnDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
