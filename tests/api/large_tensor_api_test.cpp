// Tensors above 2^31 (and 2^32) elements through the public C API. Sizes are 64-bit; every
// compute path either indexes them with 64-bit offsets or is not applicable (the cblas GEMMs,
// whose M, N, K are int). The big buffers are lazy anonymous mappings: untouched pages read as
// zeros from the shared zero page and cost no memory, so a 16 GB input costs only the pages a
// strided convolution actually touches.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

// A lazily committed, zero-filled buffer of `bytes`.
struct LazyBuffer {
  void* p = nullptr;
  size_t bytes = 0;
  explicit LazyBuffer(size_t n) : bytes(n) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
             0);
    if (p == MAP_FAILED) p = nullptr;
  }
  ~LazyBuffer() {
    if (p != nullptr) munmap(p, bytes);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

constexpr size_t kTwo31 = size_t{1} << 31;

TEST(LargeTensorApi, SizesAreSixtyFourBitAndIntQueriesFailCleanly) {
  // 65536 x 32769 = 2^31 + 2^16 elements; 2^17 x 32769 > 2^32.
  Tensor f(miopenFloat, {1, 1, 65536, 32769});
  Tensor h(miopenHalf, {2, 1, 65536, 32769});
  size_t bytes = 0;
  ASSERT_EQ(miopenGetTensorNumBytes(f, &bytes), miopenStatusSuccess);
  EXPECT_EQ(bytes, size_t{65536} * 32769 * 4);
  ASSERT_EQ(miopenGetTensorNumBytes(h, &bytes), miopenStatusSuccess);
  EXPECT_EQ(bytes, size_t{2} * 65536 * 32769 * 2);
  // Lengths fit the int API, the N and C strides (2^31 + 2^16) do not: BadParm, not a wrap.
  miopenDataType_t type;
  int n, c, hh, w, ns, cs, hs, ws;
  expect_failure(miopenStatusBadParm, "miopenGet4dTensorDescriptor", "does not fit in an int", [&] {
    return miopenGet4dTensorDescriptor(f, &type, &n, &c, &hh, &w, &ns, &cs, &hs, &ws);
  });
  int lens[4], strides[4];
  expect_failure(miopenStatusBadParm, "miopenGetTensorDescriptor", "does not fit in an int",
                 [&] { return miopenGetTensorDescriptor(f, &type, lens, strides); });
  // A strided tensor of 4 elements whose last one sits past 2^32.
  Tensor s;
  const int sl[] = {2, 2}, ss[] = {0x7fffffff, 0x7fffffff};
  ASSERT_EQ(miopenSetTensorDescriptor(s, miopenFloat, 2, sl, ss), miopenStatusSuccess);
  ASSERT_EQ(miopenGetTensorNumBytes(s, &bytes), miopenStatusSuccess);
  EXPECT_EQ(bytes, (size_t{2} * 0x7fffffff + 1) * 4);
}

// A 1x1 convolution over 2^31 + 2^16 output pixels: the GEMM solvers would pass that as an int
// N to cblas, so they are not applicable; the others (naive direct, implicit GEMM) remain.
TEST(LargeTensorApi, GemmSolversRefuseDimensionsAboveIntMax) {
  Handle handle;
  Tensor x(miopenFloat, {1, 1, 65536, 32769}), w(miopenFloat, {1, 1, 1, 1}),
      y(miopenFloat, {1, 1, 65536, 32769});
  Conv conv(0, 1);
  for (int dir = 0; dir < 3; ++dir) {
    SCOPED_TRACE(dir);
    size_t count = 0;
    miopenConvSolution_t sols[32];
    if (dir == 0)
      ASSERT_EQ(miopenConvolutionForwardGetSolution(handle, w, x, conv, y, 32, &count, sols),
                miopenStatusSuccess);
    if (dir == 1)
      ASSERT_EQ(miopenConvolutionBackwardDataGetSolution(handle, y, w, conv, x, 32, &count, sols),
                miopenStatusSuccess);
    if (dir == 2)
      ASSERT_EQ(
          miopenConvolutionBackwardWeightsGetSolution(handle, y, x, conv, w, 32, &count, sols),
          miopenStatusSuccess);
    ASSERT_GT(count, 0u);
    for (size_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      ASSERT_EQ(anydnnGetConvSolverName(handle, sols[i].solution_id, &name), miopenStatusSuccess);
      EXPECT_NE(std::string(name).substr(0, 4), "Gemm") << name;
    }
  }
}

// Forward and backward weights of a strided 1x1 convolution whose input has 1.5 x 2^32
// elements (24 GB, lazily mapped): output (i, j) reads input (512 i, 512 j), the last of them
// past element 2^32. Every applicable solver alone, against exact expectations.
TEST(LargeTensorApi, StridedConvolutionOverAnInputAboveTwoToThe32) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  constexpr size_t H = 196608, W = 32769, S = 512, OH = 384, OW = 65;
  Handle handle;
  Tensor x(miopenFloat, {1, 1, static_cast<int>(H), static_cast<int>(W)}),
      w(miopenFloat, {1, 1, 1, 1}), y(miopenFloat, {1, 1, OH, OW});
  Conv conv(0, S);
  int nd = 0, yl[4];
  ASSERT_EQ(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &nd, yl), miopenStatusSuccess);
  ASSERT_EQ((std::vector<int>(yl, yl + 4)), (std::vector<int>{1, 1, OH, OW}));
  LazyBuffer hx(H * W * sizeof(float));
  ASSERT_NE(hx.p, nullptr);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  std::vector<float> sampled(OH * OW), dy(OH * OW), out(OH * OW);
  for (size_t i = 0; i < OH; ++i)
    for (size_t j = 0; j < OW; ++j)
      hx.as<float>()[i * S * W + j * S] = sampled[i * OW + j] = u(rng);
  ASSERT_GT((OH - 1) * S * W + (OW - 1) * S, size_t{1} << 32);
  const float weight = 2.0f;
  double dw_expected = 0.0;
  for (size_t i = 0; i < OH * OW; ++i) {
    dy[i] = u(rng);
    dw_expected += double(dy[i]) * sampled[i];
  }
  int forward = 0, weights = 0;
  size_t count = 0;
  miopenConvSolution_t sols[32];
  ASSERT_EQ(miopenConvolutionForwardGetSolution(handle, w, x, conv, y, 32, &count, sols),
            miopenStatusSuccess);
  for (size_t s = 0; s < count; ++s) {
    const char* name = nullptr;
    anydnnGetConvSolverName(handle, sols[s].solution_id, &name);
    SCOPED_TRACE(name);
    std::vector<uint8_t> ws(sols[s].workspace_size);
    std::fill(out.begin(), out.end(), NAN);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(miopenConvolutionForwardImmediate(handle, w, &weight, x, hx.p, conv, y, out.data(),
                                                ws.data(), ws.size(), sols[s].solution_id),
              miopenStatusSuccess);
    for (size_t i = 0; i < OH * OW; ++i)
      ASSERT_EQ(out[i], 2.0f * sampled[i]) << i;
    std::cout << "forward " << name << ": "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
              << " s\n";
    ++forward;
  }
  ASSERT_EQ(miopenConvolutionBackwardWeightsGetSolution(handle, y, x, conv, w, 32, &count, sols),
            miopenStatusSuccess);
  for (size_t s = 0; s < count; ++s) {
    const char* name = nullptr;
    anydnnGetConvSolverName(handle, sols[s].solution_id, &name);
    SCOPED_TRACE(name);
    std::vector<uint8_t> ws(sols[s].workspace_size);
    float dw = NAN;
    ASSERT_EQ(miopenConvolutionBackwardWeightsImmediate(handle, y, dy.data(), x, hx.p, conv, w, &dw,
                                                        ws.data(), ws.size(), sols[s].solution_id),
              miopenStatusSuccess);
    EXPECT_NEAR(dw, dw_expected, 1e-5 * dw_expected);
    ++weights;
  }
  EXPECT_GE(forward, 2);
  EXPECT_GE(weights, 2);
}

// Batch-norm inference over 2^31 + 2^17 half elements (4 GB in, 4 GB out): element indices
// pass 2^31 in the per-channel loops. x is zero except a tail, so only y is committed.
TEST(LargeTensorApi, BatchNormInferenceOverMoreThanTwoToThe31HalfElements) {
  constexpr size_t C = 2, H = 65536, W = 16385, N = C * H * W;
  static_assert(N > kTwo31);
  Handle h;
  Tensor x(miopenHalf, {1, static_cast<int>(C), static_cast<int>(H), static_cast<int>(W)}), bn;
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(bn, x, miopenBNSpatial), miopenStatusSuccess);
  LazyBuffer hx(N * 2), hy(N * 2);
  ASSERT_TRUE(hx.p && hy.p);
  const uint16_t one = 0x3c00;  // 1.0
  for (size_t i = N - 4096; i < N; ++i)
    hx.as<uint16_t>()[i] = one;
  // y = scale (x - mean) / sqrt(var + eps) + bias with mean 0, var 1 - eps, scale 2, bias 0.5:
  // 2 x + 0.5, exact in half for x = 0 and 1.
  std::vector<float> scale(C, 2.0f), bias(C, 0.5f), mean(C, 0.0f), var(C, 1.0f - 1e-5f);
  float alpha = 1.0f, beta = 0.0f;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(miopenBatchNormalizationForwardInference(h, miopenBNSpatial, &alpha, &beta, x, hx.p, x,
                                                     hy.p, bn, scale.data(), bias.data(),
                                                     mean.data(), var.data(), 1e-5),
            miopenStatusSuccess);
  std::cout << "batch norm inference over " << N << " halves: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
  const uint16_t half_0_5 = 0x3800, half_2_5 = 0x4100;
  for (size_t i : {size_t{0}, kTwo31 - 1, kTwo31, kTwo31 + 1, N - 4097})
    EXPECT_EQ(hy.as<uint16_t>()[i], half_0_5) << i;
  for (size_t i = N - 4096; i < N; ++i)
    ASSERT_EQ(hy.as<uint16_t>()[i], half_2_5) << i;
}

}  // namespace
}  // namespace anydnn::test
