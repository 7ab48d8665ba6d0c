// Activation through the C API with hostile values: the descriptor calls (any mode value, any
// double for alpha / beta / gamma incl. NaN and infinities, null descriptors and out-pointers,
// destroy and recreate), and forward / backward on tensors of 1-8 dims (each <= 8, <= 4096
// elements) whose lengths, strides (overlapping included), data types and agreement come from
// the bytes, with null or finite scaling factors and sometimes in place. With
// MIOPEN_ENABLE_LOGGING(_CMD)=1 so the logger formats every descriptor and key. Every tensor
// buffer is as large as its own descriptor says (miopenGetTensorNumBytes), so any access out of
// bounds is the library's.
#include <miopen/miopen.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "fuzz_common.hpp"

using anydnn::fuzz::data_type;
using anydnn::fuzz::enum_value;
using anydnn::fuzz::hostile_int;

namespace {

constexpr size_t kMaxElems = 4096;

double param(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return fdp.ConsumeBool() ? INFINITY : -INFINITY;
    case 2:
      return fdp.ConsumeFloatingPoint<double>();
    case 3:
      return 0.0;
    default:
      return fdp.ConsumeFloatingPointInRange<double>(-3.0, 3.0);
  }
}

struct Tensor {
  miopenTensorDescriptor_t desc = nullptr;
  std::vector<uint8_t> buf;
  Tensor() { miopenCreateTensorDescriptor(&desc); }
  ~Tensor() { miopenDestroyTensorDescriptor(desc); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  bool alloc() {
    size_t bytes = 0;
    if (miopenGetTensorNumBytes(desc, &bytes) != miopenStatusSuccess || bytes > kMaxElems * 8)
      return false;
    buf.assign(bytes + 1, 0x3c);  // finite in every float type
    return true;
  }
};

// Lengths and strides from the bytes, or a copy of `like`'s descriptor (agreement is the usual
// case, so that calls reach the kernels).
void set_tensor(FuzzedDataProvider& fdp, Tensor& t, const Tensor* like) {
  if (like != nullptr && fdp.ConsumeIntegralInRange(0, 3) != 0) {
    int n = 0;
    std::array<int, 8> lens{}, strides{};
    miopenDataType_t dt;
    if (miopenGetTensorDescriptorSize(like->desc, &n) == miopenStatusSuccess && n >= 1 && n <= 8 &&
        miopenGetTensorDescriptor(like->desc, &dt, lens.data(), strides.data()) ==
            miopenStatusSuccess) {
      miopenSetTensorDescriptor(t.desc, dt, n, lens.data(),
                                fdp.ConsumeBool() ? strides.data() : nullptr);
      return;
    }
  }
  const int nd = fdp.ConsumeIntegralInRange(1, 8);
  std::array<int, 8> lens{}, strides{};
  size_t total = 1;
  for (int i = 0; i < nd; ++i) {
    lens[i] = fdp.ConsumeIntegralInRange(0, 15) == 0 ? hostile_int(fdp)
                                                     : fdp.ConsumeIntegralInRange(1, 8);
    total *= static_cast<size_t>(lens[i] > 0 ? lens[i] : 1);
    if (total > kMaxElems) lens[i] = 1;
  }
  const miopenDataType_t type =
      fdp.ConsumeIntegralInRange(0, 3) == 0 ? data_type(fdp) : miopenFloat;
  if (fdp.ConsumeBool()) {
    for (int i = 0; i < nd; ++i)
      strides[i] = fdp.ConsumeIntegralInRange(0, 7) == 0 ? hostile_int(fdp)
                                                         : fdp.ConsumeIntegralInRange(1, 64);
    miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), strides.data());
  } else {
    miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), nullptr);
  }
}

void compute(FuzzedDataProvider& fdp, miopenHandle_t h, miopenActivationDescriptor_t a) {
  Tensor x, y, dx, dy;
  set_tensor(fdp, x, nullptr);
  for (Tensor* t : {&y, &dx, &dy})
    set_tensor(fdp, *t, &x);
  if (!x.alloc() || !y.alloc() || !dx.alloc() || !dy.alloc()) return;
  // The API's scaling factors are floats: draw them in float's range.
  const float alpha = fdp.ConsumeBool() ? fdp.ConsumeFloatingPoint<float>()
                                        : fdp.ConsumeFloatingPointInRange<float>(-2.0f, 2.0f);
  const float beta = fdp.ConsumeBool() ? 0.0f : fdp.ConsumeFloatingPoint<float>();
  const float* pa = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : &alpha;
  const float* pb = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : &beta;
  const bool in_place = fdp.ConsumeIntegralInRange(0, 3) == 0;
  if (fdp.ConsumeBool()) {
    // In place only where y's buffer is x's size: the library is told y's descriptor.
    void* out = in_place && y.buf.size() == x.buf.size() ? x.buf.data() : y.buf.data();
    miopenActivationForward(h, a, pa, x.desc, x.buf.data(), pb, y.desc, out);
  } else {
    void* out = in_place && dx.buf.size() == dy.buf.size() ? dy.buf.data() : dx.buf.data();
    miopenActivationBackward(h, a, pa, y.desc, y.buf.data(), dy.desc, dy.buf.data(), x.desc,
                             x.buf.data(), pb, dx.desc, out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  miopenHandle_t h = nullptr;
  if (miopenCreate(&h) != miopenStatusSuccess) return 0;
  std::array<miopenActivationDescriptor_t, 2> pool{};
  for (auto& a : pool)
    miopenCreateActivationDescriptor(&a);
  miopenCreateActivationDescriptor(nullptr);
  for (int step = 0; step < 16 && fdp.remaining_bytes() > 0; ++step) {
    const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, pool.size());
    miopenActivationDescriptor_t a = i < pool.size() ? pool[i] : nullptr;
    switch (fdp.ConsumeIntegralInRange(0, 4)) {
      case 0:
      case 1:
        miopenSetActivationDescriptor(a, enum_value<miopenActivationMode_t>(fdp, 9), param(fdp),
                                      param(fdp), param(fdp));
        break;
      case 2: {
        miopenActivationMode_t m;
        double al, be, ga;
        miopenGetActivationDescriptor(a, fdp.ConsumeBool() ? &m : nullptr, &al, &be,
                                      fdp.ConsumeBool() ? &ga : nullptr);
        break;
      }
      case 3:
        compute(fdp, h, a);
        break;
      case 4:
        if (i < pool.size()) {
          miopenDestroyActivationDescriptor(pool[i]);
          pool[i] = nullptr;
          miopenCreateActivationDescriptor(&pool[i]);
        }
        break;
    }
  }
  for (auto& a : pool)
    miopenDestroyActivationDescriptor(a);
  miopenDestroy(h);
  return 0;
}
