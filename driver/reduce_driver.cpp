#include "reduce_driver.hpp"

#include <miopen/miopen.h>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "conv_driver.hpp"  // exit codes
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "reduce_reference.hpp"
#include "reduce_spec.hpp"
#include "verify.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t a = nullptr, c = nullptr;
  miopenReduceTensorDescriptor_t reduce = nullptr;
  ~Owned() {
    if (reduce != nullptr) miopenDestroyReduceTensorDescriptor(reduce);
    if (c != nullptr) miopenDestroyTensorDescriptor(c);
    if (a != nullptr) miopenDestroyTensorDescriptor(a);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

class ReduceDriver {
 public:
  explicit ReduceDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t setup();
  miopenStatus_t call();
  miopenStatus_t run_forward();
  bool verify();

  std::string base_;
  ReduceSpec spec_;
  InputFlags flags_;
  Owned o_;
  HostTensor a_, c_, c_start_, indices_;
  HostTensor c_result_,
      indices_result_;  // what verify() checks (the device buffers alias c_ on the host)
  Memory memory_ = Memory::Host;
  DeviceBuffer a_dev_, c_dev_, ws_dev_, indices_dev_;
  size_t ws_bytes_ = 0, indices_bytes_ = 0;
  double alpha_ = 1.0, beta_ = 0.0;
  int iters_ = 1;
  bool time_ = false, wall_ = false;
};

miopenStatus_t ReduceDriver::setup() {
  miopenStatus_t rc = miopenCreateTensorDescriptor(&o_.a);
  if (rc == miopenStatusSuccess) rc = miopenCreateTensorDescriptor(&o_.c);
  if (rc == miopenStatusSuccess) rc = miopenCreateReduceTensorDescriptor(&o_.reduce);
  const auto out_lens = spec_.out_lens();
  if (rc == miopenStatusSuccess)
    rc = miopenSetTensorDescriptor(o_.a, spec_.type, static_cast<int>(spec_.lens.size()),
                                   spec_.lens.data(), nullptr);
  if (rc == miopenStatusSuccess)
    rc = miopenSetTensorDescriptor(o_.c, spec_.type, static_cast<int>(out_lens.size()),
                                   out_lens.data(), nullptr);
  if (rc == miopenStatusSuccess)
    rc = miopenSetReduceTensorDescriptor(
        o_.reduce, static_cast<miopenReduceTensorOp_t>(spec_.op),
        static_cast<miopenDataType_t>(spec_.comp), static_cast<miopenNanPropagation_t>(spec_.nan),
        static_cast<miopenReduceTensorIndices_t>(spec_.indices), MIOPEN_32BIT_INDICES);
  if (rc == miopenStatusSuccess)
    rc = miopenGetReductionWorkspaceSize(o_.handle, o_.reduce, o_.a, o_.c, &ws_bytes_);
  if (rc == miopenStatusSuccess)
    rc = miopenGetReductionIndicesSize(o_.handle, o_.reduce, o_.a, o_.c, &indices_bytes_);
  if (rc != miopenStatusSuccess)
    std::cout << "Error setting up the reduction descriptors, status = " << rc << std::endl;
  return rc;
}

// alpha / beta as MIOpen's driver passes them: floats, doubles for double data.
miopenStatus_t ReduceDriver::call() {
  const float af = static_cast<float>(alpha_), bf = static_cast<float>(beta_);
  const bool dbl = spec_.type == miopenDouble;
  const bool idx = spec_.needs_indices();
  return miopenReduceTensor(o_.handle, o_.reduce, idx ? indices_dev_.data() : nullptr,
                            idx ? indices_bytes_ : 0, ws_bytes_ > 0 ? ws_dev_.data() : nullptr,
                            ws_bytes_, dbl ? static_cast<const void*>(&alpha_) : &af, o_.a,
                            a_dev_.data(), dbl ? static_cast<const void*>(&beta_) : &bf, o_.c,
                            c_dev_.data());
}

// MIOpen's RunForwardGPU: one call, then -i timed calls; a blended result is taken after the
// first call (later calls blend again), a plain one after the last. The kernel time printed is
// the last call's, the wall-clock time the loop's mean.
miopenStatus_t ReduceDriver::run_forward() {
  const bool accumulate = !(alpha_ == 1.0 && beta_ == 0.0);
  miopenStatus_t rc = call();
  if (rc == miopenStatusSuccess && accumulate) rc = c_dev_.download();
  if (rc == miopenStatusSuccess && accumulate) rc = indices_dev_.download();
  if (accumulate) c_result_ = c_, indices_result_ = indices_;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters_ && rc == miopenStatusSuccess; ++i)
    rc = call();
  if (rc == miopenStatusSuccess) rc = synchronize(memory_);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (rc != miopenStatusSuccess) {
    std::cout << "RunForwardGPU() FAILED, rc = 0x" << std::hex << rc << std::dec << std::endl;
    return rc;
  }
  if (!accumulate) {
    if ((rc = c_dev_.download()) != miopenStatusSuccess) return rc;
    if ((rc = indices_dev_.download()) != miopenStatusSuccess) return rc;
    c_result_ = c_, indices_result_ = indices_;
  }
  if (time_) {
    float t = 0.0f;
    miopenGetKernelTime(o_.handle, &t);
    if (wall_) std::printf("Wall-clock Time Reduction Elapsed: %f ms\n", ms / iters_);
    std::printf("GPU Kernel Time Reduction Elapsed: %f ms\n", t);
  }
  return miopenStatusSuccess;
}

// MIOpen's VerifyForward: the host result against C by rms_range, then the indices exactly.
bool ReduceDriver::verify() {
  const auto want = ref::reduce_tensor(
      static_cast<miopenReduceTensorOp_t>(spec_.op), spec_.nan == 1, spec_.needs_indices(),
      a_.view(), c_start_.view(), alpha_, beta_, spec_.comp == miopenDouble ? DBL_MAX : FLT_MAX);
  const double error = ref::rms_range(want.c, c_result_.values());
  double tolerance = 1.5e-4;
  if (spec_.type == miopenHalf) tolerance *= 4.0;
  if (spec_.type == miopenBFloat16) tolerance *= 32.0;
  if (spec_.type == miopenFloat && spec_.op == MIOPEN_REDUCE_TENSOR_NORM2) tolerance *= 12.0;
  bool ok = true;
  if (!std::isfinite(error) || error > tolerance) {
    std::cout << "ReduceTensor() FAILED with error = " << error << " , tolerance = " << tolerance
              << std::endl;
    ok = false;
  } else if (!want.indices.empty()) {
    std::vector<double> got(want.indices.size()), ref_idx(want.indices.size());
    for (size_t i = 0; i < got.size(); ++i) {
      int v = 0;
      std::memcpy(&v, indices_result_.bytes.data() + i * sizeof(int), sizeof v);
      got[i] = v;
      ref_idx[i] = want.indices[i];
    }
    const double error2 = ref::rms_range(ref_idx, got);
    if (!std::isfinite(error2) || error2 != 0.0) {
      std::cout << "ReduceTensor() with indices output FAILED: " << error2 << std::endl;
      ok = false;
    } else {
      std::printf("ReduceTensor() with indices output Verifies on CPU and GPU (err=%f, err2=%f)\n",
                  error, error2);
    }
  } else {
    std::printf("ReduceTensor() Verifies on CPU and GPU (err=%f)\n", error);
  }
  if (flags_.get_int("dump_output") != 0) {
    a_.write_file("dump_in.bin");
    c_result_.write_file("dump_out.bin");
    HostTensor host =
        HostTensor::zeros(spec_.type == miopenDouble ? miopenDouble : miopenFloat, want.c.size());
    for (size_t i = 0; i < want.c.size(); ++i)
      host.set(i, want.c[i]);
    host.write_file("dump_outhost.bin");
    if (!want.indices.empty()) {
      indices_result_.write_file("dump_out_indices.bin");
      HostTensor hi = indices_result_;
      std::memcpy(hi.bytes.data(), want.indices.data(), want.indices.size() * sizeof(int));
      hi.write_file("dump_outhost_indices.bin");
    }
  }
  return ok;
}

int ReduceDriver::run(int argc, const char* const* argv) {
  add_reduce_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  reduce_base_type(base_, spec_.type);
  spec_.base = base_;
  if (const auto err = reduce_spec_from_flags(flags_, spec_)) {
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
  alpha_ = spec_.alpha;
  beta_ = spec_.beta;
  // MIOpen's driver runs an indexed MIN / MAX / AMAX unblended; non-double data takes the
  // scalars as floats.
  if (spec_.needs_indices()) alpha_ = 1.0, beta_ = 0.0;
  if (spec_.type != miopenDouble) {
    alpha_ = static_cast<float>(alpha_);
    beta_ = static_cast<float>(beta_);
  }

  std::mt19937 rng = driver_rng();
  miopenStatus_t rc = create_driver_handle(&o_.handle, memory_, time_);
  if (rc != miopenStatusSuccess) return rc;
  if ((rc = setup()) != miopenStatusSuccess) return rc;

  a_ = HostTensor::from_descriptor(o_.a);
  c_ = HostTensor::from_descriptor(o_.c);
  const std::string in_file = flags_.get_str("in_data");
  if (in_file.empty() || !a_.read_file(in_file)) a_.fill_uniform(rng, 0.0, 1.0, 1.0);
  for (size_t i = 0; i < c_.elements(); ++i)
    c_.set(i, 0.2);
  c_start_ = c_;
  indices_ = HostTensor::zeros(miopenInt32, indices_bytes_ / sizeof(int));
  if ((rc = a_dev_.mirror(memory_, a_)) != miopenStatusSuccess ||
      (rc = c_dev_.mirror(memory_, c_)) != miopenStatusSuccess ||
      (rc = indices_dev_.mirror(memory_, indices_)) != miopenStatusSuccess ||
      (rc = ws_dev_.scratch(memory_, ws_bytes_)) != miopenStatusSuccess ||
      (rc = a_dev_.upload()) != miopenStatusSuccess ||
      (rc = c_dev_.upload()) != miopenStatusSuccess ||
      (rc = indices_dev_.upload()) != miopenStatusSuccess)
    return rc;
  if ((rc = run_forward()) != miopenStatusSuccess) return rc;
  if (flags_.get_int("verify") != 0 && !verify()) return kExitVerifyFailed;
  return 0;
}

}  // namespace

int run_reduce_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t t;
  if (!reduce_base_type(base, t)) return kExitUsage;
  ReduceDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
