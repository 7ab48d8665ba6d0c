#include "pool_driver.hpp"

#include <miopen/miopen.h>

#include <algorithm>
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
#include "pool_spec.hpp"
#include "pooling_reference.hpp"

namespace anydnn::driver {

namespace {

struct Owned {
  miopenHandle_t handle = nullptr;
  miopenTensorDescriptor_t x = nullptr, y = nullptr, dx = nullptr, dy = nullptr;
  miopenPoolingDescriptor_t pool = nullptr;
  ~Owned() {
    for (auto* d : {x, y, dx, dy})
      if (d != nullptr) miopenDestroyTensorDescriptor(d);
    if (pool != nullptr) miopenDestroyPoolingDescriptor(pool);
    if (handle != nullptr) miopenDestroy(handle);
  }
};

// The lowest finite value of the data type: MIOpen's max pooling starts there, and a window
// that saw no element keeps it (MIOpen's host check counts it as 0 on both sides).
double lowest(miopenDataType_t t) {
  return t == miopenHalf       ? -65504.0
         : t == miopenBFloat16 ? -3.3895313892515355e38
                               : -3.4028234663852886e38;
}

uint64_t load_index(const HostTensor& ws, miopenIndexType_t t, size_t i) {
  const size_t size = t == miopenIndexUint8    ? 1
                      : t == miopenIndexUint16 ? 2
                      : t == miopenIndexUint32 ? 4
                                               : 8;
  uint64_t v = 0;  // little-endian hosts
  std::memcpy(&v, ws.bytes.data() + i * size, size);
  return v;
}

// How many outputs of one spatial dimension read input position i.
long long windows_over(long long i, long long out, int k, int p, int s) {
  long long n = 0;
  for (long long o = 0; o < out; ++o) {
    const long long start = o * s - p;
    if (i >= start && i < start + k) ++n;
  }
  return n;
}

class PoolDriver {
 public:
  explicit PoolDriver(std::string base) : base_(std::move(base)) {}
  int run(int argc, const char* const* argv);

 private:
  miopenStatus_t setup();
  miopenStatus_t call(bool forward, bool save_index);
  miopenStatus_t timed_loop(bool forward);
  bool verify_forward();
  bool verify_backward();
  void dump(const char* name, const HostTensor& t) const;

  std::string base_;
  PoolSpec spec_;
  InputFlags flags_;
  Owned o_;
  HostTensor x_, y_, dy_, dx_, ws_;
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, y_dev_, dy_dev_, dx_dev_, ws_dev_;
  ref::PoolingRefForward want_;
  bool have_want_ = false, save_index_ = false;
  int iters_ = 1;
  bool time_ = false, wall_ = false;
  std::string dump_root_;
};

miopenStatus_t set_tensor(miopenTensorDescriptor_t d, miopenDataType_t type,
                          const PoolTensorArg& t) {
  std::vector<int> strides;
  if (const auto err = t.resolved_strides(strides)) {
    std::cerr << "MIOpenDriver pool: " << *err << std::endl;
    return miopenStatusBadParm;
  }
  return miopenSetTensorDescriptor(d, type, static_cast<int>(t.lens.size()), t.lens.data(),
                                   strides.data());
}

// MIOpen's GetandSetData: x, dx (x's unless -D), the descriptor, y (lengths from the window
// unless -O; x's layout when neither layout nor strides are given), dy (y's unless -H).
miopenStatus_t PoolDriver::setup() {
  miopenStatus_t rc = miopenStatusSuccess;
  for (auto* d : {&o_.x, &o_.y, &o_.dx, &o_.dy})
    if (rc == miopenStatusSuccess) rc = miopenCreateTensorDescriptor(d);
  if (rc == miopenStatusSuccess) rc = miopenCreatePoolingDescriptor(&o_.pool);
  if (rc != miopenStatusSuccess) return rc;
  const PoolTensorArg& in = spec_.input;
  if ((rc = set_tensor(o_.x, spec_.type, in)) != miopenStatusSuccess) return rc;
  if ((rc = set_tensor(o_.dx, spec_.type, spec_.dinput.fill_missing(in))) != miopenStatusSuccess)
    return rc;
  const int sd = spec_.spatial_dims();
  rc = miopenSetNdPoolingDescriptor(o_.pool, spec_.mode, sd, spec_.lens.data(), spec_.pads.data(),
                                    spec_.strides.data());
  if (rc == miopenStatusSuccess) rc = miopenSetPoolingIndexType(o_.pool, spec_.index_type);
  if (rc == miopenStatusSuccess)
    rc = miopenSetPoolingWorkSpaceIndexMode(o_.pool, spec_.index_mode());
  if (rc != miopenStatusSuccess) return rc;
  PoolTensorArg out = spec_.output;
  if (out.lens.empty()) {
    out.lens.assign(sd + 2, 0);
    rc = miopenGetPoolingNdForwardOutputDim(o_.pool, o_.x, sd + 2, out.lens.data());
    if (rc != miopenStatusSuccess) return rc;
  }
  if (out.layout.empty() && out.strides.empty()) out.layout = in.layout;
  if ((rc = set_tensor(o_.y, spec_.type, out)) != miopenStatusSuccess) return rc;
  return set_tensor(o_.dy, spec_.type, spec_.doutput.fill_missing(out));
}

miopenStatus_t PoolDriver::call(bool forward, bool save_index) {
  const float alpha = 1.0f, beta = 0.0f;
  return forward ? miopenPoolingForward(o_.handle, o_.pool, &alpha, o_.x, x_dev_.data(), &beta,
                                        o_.y, y_dev_.data(), save_index, ws_dev_.data(), 0)
                 : miopenPoolingBackward(o_.handle, o_.pool, &alpha, o_.y, y_dev_.data(), o_.dy,
                                         dy_dev_.data(), o_.x, x_dev_.data(), &beta, o_.dx,
                                         dx_dev_.data(), ws_dev_.data());
}

// MIOpen's Run{Forward,Backward}GPU: one untimed call, then iters calls; the wall-clock line is
// their mean, the kernel-time line the last call's.
miopenStatus_t PoolDriver::timed_loop(bool forward) {
  const char* dir = forward ? "Forward" : "Backward";
  miopenStatus_t rc = call(forward, save_index_);
  if (rc == miopenStatusSuccess) rc = synchronize(memory_);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters_ && rc == miopenStatusSuccess; ++i)
    rc = call(forward, save_index_);
  if (rc == miopenStatusSuccess) rc = synchronize(memory_);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (rc != miopenStatusSuccess) {
    std::printf("Run%sGPU() FAILED, rc = 0x%x\n", dir, static_cast<unsigned>(rc));
    return rc;
  }
  if (time_) {
    float t = 0.0f;
    miopenGetKernelTime(o_.handle, &t);
    if (wall_) std::printf("Wall-clock Time %s Pooling Elapsed: %f ms\n", dir, ms / iters_);
    std::printf("GPU Kernel Time %s Pooling Elapsed: %f ms\n", dir, t);
  }
  if (forward) {
    if ((rc = y_dev_.download()) == miopenStatusSuccess) rc = ws_dev_.download();
    dump("dump_out.bin", y_);
    dump("dump_mask.bin", ws_);
  } else {
    rc = dx_dev_.download();
    dump("dump_din.bin", dx_);
  }
  return rc;
}

void PoolDriver::dump(const char* name, const HostTensor& t) const {
  if (!dump_root_.empty() && !t.write_file(dump_root_ + "/" + name))
    std::cerr << "MIOpenDriver " << base_ << ": cannot write " << dump_root_ << "/" << name
              << std::endl;
}

ref::PoolingRefDesc ref_desc(const PoolSpec& s) {
  return {s.mode, s.lens, s.pads, s.strides, s.index_mode()};
}

// MIOpen's VerifyForward (mloPoolingForwardRunHostAndVerify): the first element off by more
// than the tolerance or the first index that differs fails; the line gives the largest error
// and the most operations one output took.
bool PoolDriver::verify_forward() {
  const double tol = spec_.type == miopenFloat ? 1e-5 : spec_.type == miopenHalf ? 5e-3 : 1e-2;
  const double low = lowest(spec_.type);
  want_ = ref::pooling_forward(ref_desc(spec_), x_.lens, y_.lens, ref::to_logical(x_.view()), low);
  have_want_ = true;
  const auto got = ref::to_logical(y_.view());
  double max_err = 0.0;
  bool match = true;
  for (size_t i = 0; i < got.size() && match; ++i) {
    const double c = want_.y[i] == low ? 0.0 : want_.y[i];
    const double g = got[i] == low ? 0.0 : got[i];
    const double err = std::abs(c - g);
    if (!(err <= tol) || !std::isfinite(g)) {
      std::cout << "Difference " << err << " too large (> " << tol << ") at output " << i
                << ", cpu_val = " << c << " vs gpu_val = " << g << std::endl;
      match = false;
    }
    if (err > max_err) max_err = err;
    if (match && spec_.mode == miopenPoolingMax && save_index_) {
      const uint64_t mg = load_index(ws_, spec_.index_type, i);
      if (mg != want_.index[i]) {
        std::cout << "Mask mismatch, gpu " << mg << " cpu " << want_.index[i] << std::endl;
        match = false;
      }
    }
  }
  // Operations per output as MIOpen counts them: max 0, averages the window's elements + 1.
  long long flops = 0;
  if (spec_.mode != miopenPoolingMax) {
    const size_t sd = spec_.lens.size();
    flops = 1;
    for (size_t d = 0; d < sd; ++d) {
      long long best = 0;
      for (long long o = 0; o < static_cast<long long>(y_.lens[d + 2]); ++o) {
        const long long start = o * spec_.strides[d] - spec_.pads[d];
        const long long end = std::min<long long>(start + spec_.lens[d], x_.lens[d + 2]);
        best = std::max(best, end - std::max(start, 0LL));
      }
      flops *= best;
    }
    ++flops;
  }
  if (match)
    std::cout << "Forward Pooling Verifies on CPU and GPU (" << max_err << ", " << flops << ')'
              << std::endl;
  else
    std::cout << "Forward Pooling verification FAILED" << std::endl;
  return match;
}

// MIOpen's VerifyBackward: dx against the host's from the same dy (max: routed to the host
// forward's winners); the line gives the largest error and the most operations one dx took.
bool PoolDriver::verify_backward() {
  const double tol = spec_.type == miopenFloat ? 1e-6 : spec_.type == miopenHalf ? 5e-3 : 1e-2;
  if (!have_want_)
    want_ = ref::pooling_forward(ref_desc(spec_), x_.lens, y_.lens, ref::to_logical(x_.view()),
                                 lowest(spec_.type));
  const auto want =
      ref::pooling_backward(ref_desc(spec_), x_.lens, y_.lens, ref::to_logical(dy_.view()), want_);
  const auto got = ref::to_logical(dx_.view());
  double max_err = 0.0;
  bool finite = true;
  for (size_t i = 0; i < got.size(); ++i) {
    finite = finite && std::isfinite(got[i]);
    max_err = std::max(max_err, std::abs(got[i] - want[i]));
  }
  long long flops = 0;
  if (spec_.mode == miopenPoolingMax) {
    std::vector<long long> hits(want.size(), 0);
    for (long long s : want_.source)
      if (s >= 0) flops = std::max(flops, ++hits[static_cast<size_t>(s)]);
  } else {
    flops = 2;
    for (size_t d = 0; d < spec_.lens.size(); ++d) {
      long long best = 0;
      const auto in = static_cast<long long>(x_.lens[d + 2]);
      for (long long i = 0; i < in; ++i)
        best = std::max(best, windows_over(i, static_cast<long long>(y_.lens[d + 2]), spec_.lens[d],
                                           spec_.pads[d], spec_.strides[d]));
      flops *= best;
    }
  }
  const bool match = finite && max_err <= tol;
  std::cout << (match ? "Backward Pooling Verifies on CPU and GPU"
                      : "Backward Pooling verification FAILED")
            << " (" << max_err << ", " << flops << ')' << std::endl;
  return match;
}

int PoolDriver::run(int argc, const char* const* argv) {
  add_pool_flags(flags_);
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  pool_base_type(base_, spec_.type);
  spec_.base = base_;
  if (const auto err = pool_spec_from_flags(flags_, spec_)) {
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
  dump_root_ = flags_.get_str("dump_root");
  save_index_ = spec_.backward();  // MIOpen's do_backward = !forw

  std::mt19937 rng = driver_rng();
  miopenStatus_t rc = create_driver_handle(&o_.handle, memory_, time_);
  if (rc != miopenStatusSuccess) return rc;
  if ((rc = setup()) != miopenStatusSuccess) {
    std::cout << "Error setting up the pooling problem, status = " << rc << std::endl;
    return rc;
  }
  size_t ws_bytes = 0;
  if ((rc = miopenPoolingGetWorkSpaceSizeV2(o_.pool, o_.y, &ws_bytes)) != miopenStatusSuccess)
    return rc;
  x_ = HostTensor::from_descriptor(o_.x);
  y_ = HostTensor::from_descriptor(o_.y);
  dx_ = HostTensor::from_descriptor(o_.dx);
  dy_ = HostTensor::from_descriptor(o_.dy);
  ws_ = HostTensor::zeros(miopenInt8, ws_bytes);
  std::fill(y_.bytes.begin(), y_.bytes.end(), 0);
  for (size_t i = 0; i < dx_.elements(); ++i)
    dx_.set(i, 1.0);
  const std::string in_file = flags_.get_str("in_data"), dy_file = flags_.get_str("out_data");
  if (in_file.empty() || !x_.read_file(in_file)) {
    x_.fill_uniform(rng, 0.0, 1.0, 1.0);
    dump("dump_in.bin", x_);
  }
  if (dy_file.empty() || !dy_.read_file(dy_file)) {
    dy_.fill_uniform(rng, -0.5, 0.5, 0.001);
    dump("dump_dout.bin", dy_);
  }
  for (auto [dev, host] :
       {std::pair{&x_dev_, &x_}, std::pair{&y_dev_, &y_}, std::pair{&dy_dev_, &dy_},
        std::pair{&dx_dev_, &dx_}, std::pair{&ws_dev_, &ws_}}) {
    if ((rc = dev->mirror(memory_, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  const bool check = flags_.get_int("verify") != 0;
  bool ok = true;
  if (spec_.forward()) {
    if ((rc = timed_loop(true)) != miopenStatusSuccess) return rc;
    if (check) ok = verify_forward() && ok;
  } else if (spec_.mode == miopenPoolingMax) {
    // -F 2: the indices backward reads (see pool_driver.hpp).
    if ((rc = call(true, true)) != miopenStatusSuccess) return rc;
  }
  if (spec_.backward()) {
    if ((rc = timed_loop(false)) != miopenStatusSuccess) return rc;
    if (check) ok = verify_backward() && ok;
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace

int run_pool_driver(const std::string& base, int argc, const char* const* argv) {
  miopenDataType_t t;
  if (!pool_base_type(base, t)) return kExitUsage;
  PoolDriver driver(base);
  return driver.run(argc, argv);
}

}  // namespace anydnn::driver
