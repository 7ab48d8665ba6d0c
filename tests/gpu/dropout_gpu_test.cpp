// Dropout on the CUDA backend through the public C API with device buffers: the masks are the
// CPU backend's bits for the same seed and counter (packed and strided tensors, 2-D to 5-D,
// fp32 / fp16 / bf16), forward scales the kept values, backward applies the forward's mask,
// state evolution and use_mask behave as on the CPU, and the states live in device memory.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "core/float_types.hpp"
#include "gpu/gpu_test_util.hpp"

namespace anydnn::test {
namespace {

// Bytes in a backend's memory: host memory for the CPU handle, device memory for CUDA.
class Buf {
 public:
  Buf(bool gpu, size_t bytes, int fill) : gpu_(gpu), bytes_(bytes) {
    if (gpu_) {
      if (cudaMalloc(&dev_, bytes == 0 ? 1 : bytes) != cudaSuccess) dev_ = nullptr;
      if (dev_ != nullptr) cudaMemset(dev_, fill, bytes);
    } else {
      host_.assign(bytes == 0 ? 1 : bytes, static_cast<uint8_t>(fill));
    }
  }
  Buf(bool gpu, const std::vector<uint8_t>& b) : Buf(gpu, b.size(), 0) { set(b); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() {
    if (dev_ != nullptr) cudaFree(dev_);
  }
  void* get() { return gpu_ ? dev_ : static_cast<void*>(host_.data()); }
  void set(const std::vector<uint8_t>& b) {
    if (gpu_)
      cudaMemcpy(dev_, b.data(), b.size(), cudaMemcpyHostToDevice);
    else
      std::memcpy(host_.data(), b.data(), b.size());
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(bytes_);
    if (gpu_) {
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(b.data(), dev_, bytes_, cudaMemcpyDeviceToHost), cudaSuccess);
    } else {
      std::memcpy(b.data(), host_.data(), bytes_);
    }
    return b;
  }

 private:
  bool gpu_;
  size_t bytes_;
  void* dev_ = nullptr;
  std::vector<uint8_t> host_;
};

size_t type_size(miopenDataType_t t) {
  return t == miopenFloat ? 4 : 2;
}

std::vector<uint8_t> encode(const std::vector<float>& v, miopenDataType_t t) {
  std::vector<uint8_t> b(v.size() * type_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == miopenFloat) {
      std::memcpy(&b[i * 4], &v[i], 4);
    } else {
      const uint16_t h = t == miopenHalf ? float_to_half(v[i]) : float_to_bf16(v[i]);
      std::memcpy(&b[i * 2], &h, 2);
    }
  }
  return b;
}

float value_at(const std::vector<uint8_t>& b, size_t i, miopenDataType_t t) {
  if (t == miopenFloat) {
    float f;
    std::memcpy(&f, &b[i * 4], 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, &b[i * 2], 2);
  return t == miopenHalf ? half_to_float(h) : bf16_to_float(h);
}

struct Shape {
  miopenDataType_t type;
  std::vector<int> lens, in_strides, out_strides;  // empty strides: packed
};

std::string shape_name(const Shape& s) {
  std::string n = s.type == miopenFloat ? "fp32" : s.type == miopenHalf ? "fp16" : "bf16";
  for (int l : s.lens)
    n += "_" + std::to_string(l);
  return n + (s.in_strides.empty() ? "_packed" : "_strided");
}

// Offset of logical element i (row-major over lens).
size_t offset_of(const std::vector<int>& lens, const std::vector<int>& strides, size_t i) {
  size_t off = 0;
  for (size_t k = lens.size(); k-- > 0;) {
    off += (i % lens[k]) * strides[k];
    i /= lens[k];
  }
  return off;
}

std::vector<int> packed(const std::vector<int>& lens) {
  std::vector<int> s(lens.size(), 1);
  for (size_t k = lens.size() - 1; k-- > 0;)
    s[k] = s[k + 1] * lens[k + 1];
  return s;
}

size_t space(const std::vector<int>& lens, const std::vector<int>& strides) {
  size_t n = 1;
  for (size_t k = 0; k < lens.size(); ++k)
    n += static_cast<size_t>(lens[k] - 1) * strides[k];
  return n;
}

struct Result {
  std::vector<uint8_t> mask1, mask2, y1, y2, dx, mask_reused, y_reused;
};

// On one backend: two forward calls with state evolution (two masks), backward with the second
// mask, then use_mask forward with an all-ones mask.
Result run(bool gpu, const Shape& s, float p, unsigned long long seed) {
  Result r;
  miopenHandle_t h = nullptr;
  EXPECT_EQ(anydnnCreateWithBackend(&h, gpu ? anydnnBackendCuda : anydnnBackendCpu, nullptr),
            miopenStatusSuccess);
  const std::vector<int> is = s.in_strides.empty() ? packed(s.lens) : s.in_strides;
  const std::vector<int> os = s.out_strides.empty() ? packed(s.lens) : s.out_strides;
  miopenTensorDescriptor_t xd = nullptr, yd = nullptr;
  miopenCreateTensorDescriptor(&xd);
  miopenCreateTensorDescriptor(&yd);
  EXPECT_EQ(miopenSetTensorDescriptor(xd, s.type, static_cast<int>(s.lens.size()), s.lens.data(),
                                      is.data()),
            miopenStatusSuccess);
  EXPECT_EQ(miopenSetTensorDescriptor(yd, s.type, static_cast<int>(s.lens.size()), s.lens.data(),
                                      os.data()),
            miopenStatusSuccess);
  const size_t nin = space(s.lens, is), nout = space(s.lens, os);
  std::vector<float> xv(nin);
  for (size_t i = 0; i < nin; ++i)
    xv[i] = 0.25f * static_cast<float>(i % 37) - 4.0f;
  Buf x(gpu, encode(xv, s.type)), y(gpu, nout * type_size(s.type), 0),
      dx(gpu, nin * type_size(s.type), 0);
  size_t rbytes = 0, sbytes = 0;
  EXPECT_EQ(miopenDropoutGetReserveSpaceSize(xd, &rbytes), miopenStatusSuccess);
  EXPECT_EQ(miopenDropoutGetStatesSize(h, &sbytes), miopenStatusSuccess);
  Buf reserve(gpu, rbytes, 0), states(gpu, sbytes, 0);
  miopenDropoutDescriptor_t d = nullptr;
  miopenCreateDropoutDescriptor(&d);
  EXPECT_EQ(miopenSetDropoutDescriptor(d, h, p, states.get(), sbytes, seed, false, true,
                                       MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  EXPECT_EQ(miopenDropoutForward(h, d, nullptr, xd, x.get(), yd, y.get(), reserve.get(), rbytes),
            miopenStatusSuccess);
  r.mask1 = reserve.bytes();
  r.y1 = y.bytes();
  EXPECT_EQ(miopenDropoutForward(h, d, nullptr, xd, x.get(), yd, y.get(), reserve.get(), rbytes),
            miopenStatusSuccess);
  r.mask2 = reserve.bytes();
  r.y2 = y.bytes();
  // Backward maps dy (laid out as y) to dx (laid out as x).
  EXPECT_EQ(miopenDropoutBackward(h, d, nullptr, yd, y.get(), xd, dx.get(), reserve.get(), rbytes),
            miopenStatusSuccess);
  r.dx = dx.bytes();
  // Restore keeps the evolved states; use_mask applies the reserve as it is.
  EXPECT_EQ(miopenRestoreDropoutDescriptor(d, h, p, states.get(), sbytes, 0, true, false,
                                           MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  reserve.set(std::vector<uint8_t>(rbytes, 1));
  EXPECT_EQ(miopenDropoutForward(h, d, nullptr, xd, x.get(), yd, y.get(), reserve.get(), rbytes),
            miopenStatusSuccess);
  r.mask_reused = reserve.bytes();
  r.y_reused = y.bytes();
  miopenDestroyDropoutDescriptor(d);
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(yd);
  miopenDestroy(h);
  return r;
}

class DropoutGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(DropoutGpu, MasksAndValuesMatchCpu) {
  REQUIRE_GPU();
  const Shape& s = GetParam();
  const float p = 0.35f;
  const Result g = run(true, s, p, 1234567ull);
  const Result c = run(false, s, p, 1234567ull);
  EXPECT_EQ(g.mask1, c.mask1) << "first mask";
  EXPECT_EQ(g.mask2, c.mask2) << "second mask (state evolution)";
  EXPECT_NE(g.mask1, g.mask2) << "state_evo draws a new mask";
  // Values: fp32 products are exact IEEE operations on both backends.
  const std::vector<int> is = s.in_strides.empty() ? packed(s.lens) : s.in_strides;
  const std::vector<int> os = s.out_strides.empty() ? packed(s.lens) : s.out_strides;
  size_t n = 1;
  for (int l : s.lens)
    n *= l;
  size_t dropped = 0;
  const std::vector<float> xv = [&] {
    std::vector<float> v(space(s.lens, is));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = 0.25f * static_cast<float>(i % 37) - 4.0f;
    return v;
  }();
  const std::vector<uint8_t> xb = encode(xv, s.type);
  for (size_t i = 0; i < n; ++i) {
    const size_t si = offset_of(s.lens, is, i), di = offset_of(s.lens, os, i);
    const float want1 = g.mask1[i] ? value_at(xb, si, s.type) * (1.0f / (1.0f - p)) : 0.0f;
    const std::vector<uint8_t> w1 = encode({want1}, s.type);
    ASSERT_EQ(value_at(g.y1, di, s.type), value_at(w1, 0, s.type)) << "y1 at " << i;
    ASSERT_EQ(value_at(g.y2, di, s.type), value_at(c.y2, di, s.type)) << "y2 at " << i;
    ASSERT_EQ(value_at(g.dx, si, s.type), value_at(c.dx, si, s.type)) << "dx at " << i;
    ASSERT_EQ(value_at(g.y_reused, di, s.type), value_at(c.y_reused, di, s.type)) << i;
    dropped += g.mask1[i] ? 0 : 1;
  }
  EXPECT_NEAR(static_cast<double>(dropped) / n, p, 0.05);
  EXPECT_EQ(g.mask_reused, std::vector<uint8_t>(g.mask_reused.size(), 1)) << "use_mask kept it";
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DropoutGpu,
    ::testing::Values(Shape{miopenFloat, {4, 8, 30, 30}, {}, {}},
                      Shape{miopenFloat, {3, 5, 7}, {80, 15, 2}, {35, 7, 1}},
                      Shape{miopenHalf, {2, 3, 4, 5, 6}, {}, {}},
                      Shape{miopenHalf, {2, 3, 4, 5, 6}, {800, 250, 60, 12, 2}, {}},
                      Shape{miopenBFloat16, {64, 100}, {}, {}},
                      Shape{miopenBFloat16, {6, 4, 9, 9}, {400, 100, 10, 1}, {}}),
    [](const auto& info) { return shape_name(info.param) + "_" + std::to_string(info.index); });

// The states buffer is device memory on CUDA: miopenRestoreDropoutDescriptor reads it there, and
// refuses a buffer that holds no state.
TEST(DropoutGpuStates, RestoreReadsDeviceStates) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(anydnnCreateWithBackend(&h, anydnnBackendCuda, nullptr), miopenStatusSuccess);
  size_t sb = 0;
  ASSERT_EQ(miopenDropoutGetStatesSize(h, &sb), miopenStatusSuccess);
  Buf states(true, sb, 0), fresh(true, sb, 0);
  miopenDropoutDescriptor_t d = nullptr;
  miopenCreateDropoutDescriptor(&d);
  ASSERT_EQ(miopenSetDropoutDescriptor(d, h, 0.5f, states.get(), sb, 99, false, false,
                                       MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  ASSERT_EQ(miopenRestoreDropoutDescriptor(d, h, 0.5f, states.get(), sb, 0, false, false,
                                           MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  unsigned long long seed = 0;
  float p = 0;
  void* st = nullptr;
  bool um = true, evo = true;
  miopenRNGType_t rng;
  ASSERT_EQ(miopenGetDropoutDescriptor(d, h, &p, &st, &seed, &um, &evo, &rng), miopenStatusSuccess);
  EXPECT_EQ(seed, 99u) << "the seed comes back from the device states";
  EXPECT_EQ(st, states.get());
  EXPECT_EQ(miopenRestoreDropoutDescriptor(d, h, 0.5f, fresh.get(), sb, 0, false, false,
                                           MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusBadParm);
  // Host states (as MIOpenDriver passes them) work on CUDA too.
  std::vector<uint8_t> host(sb, 0);
  ASSERT_EQ(miopenSetDropoutDescriptor(d, h, 0.5f, host.data(), sb, 5, false, true,
                                       MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  Tensor x(miopenFloat, {1000});
  Buf xv(true, 4000, 0), yv(true, 4000, 0), reserve(true, 1000, 0);
  ASSERT_EQ(miopenDropoutForward(h, d, nullptr, x, xv.get(), x, yv.get(), reserve.get(), 1000),
            miopenStatusSuccess);
  uint64_t counter = 0;
  std::memcpy(&counter, host.data() + 16, sizeof counter);  // DropoutState{magic, seed, counter}
  EXPECT_EQ(counter, 1u) << "state_evo advanced the host-side counter";
  miopenDestroyDropoutDescriptor(d);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn::test
