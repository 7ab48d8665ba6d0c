// miopenReduceTensor and its descriptor through the public C API only: the descriptor round
// trip and MIOpen's default, the workspace and indices sizes MIOpen computes, every op on random
// data against the double reference (alpha / beta too), MIOpen's flattened indices for MIN / MAX
// / AMAX, the NaN option, fp16 / bf16 / double, and bad input (status, one-line reason, nothing
// written, nothing thrown). The API trace and the LogCmdRedux line are checked through the
// driver (tests/CMakeLists.txt: driver.reduce_api_trace, driver.logged_reduce*_replays): the
// logging environment is read once per process.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "host_buffer.hpp"
#include "reduce_reference.hpp"

namespace anydnn::test {
namespace {

struct ReduceDesc {
  miopenReduceTensorDescriptor_t d = nullptr;
  ReduceDesc() { EXPECT_EQ(miopenCreateReduceTensorDescriptor(&d), miopenStatusSuccess); }
  ReduceDesc(miopenReduceTensorOp_t op, miopenDataType_t comp,
             miopenNanPropagation_t nan = MIOPEN_NOT_PROPAGATE_NAN,
             miopenReduceTensorIndices_t idx = MIOPEN_REDUCE_TENSOR_NO_INDICES)
      : ReduceDesc() {
    EXPECT_EQ(miopenSetReduceTensorDescriptor(d, op, comp, nan, idx, MIOPEN_32BIT_INDICES),
              miopenStatusSuccess);
  }
  ~ReduceDesc() { miopenDestroyReduceTensorDescriptor(d); }
  operator miopenReduceTensorDescriptor_t() const { return d; }
};

const char* const kOps[] = {"ADD", "MUL", "MIN", "MAX", "AMAX", "AVG", "NORM1", "NORM2"};

bool has_indices(miopenReduceTensorOp_t op) {
  return op == MIOPEN_REDUCE_TENSOR_MIN || op == MIOPEN_REDUCE_TENSOR_MAX ||
         op == MIOPEN_REDUCE_TENSOR_AMAX;
}

std::vector<int> reduced_lens(std::vector<int> lens, const std::vector<int>& red) {
  for (int d : red)
    lens[static_cast<size_t>(d)] = 1;
  return lens;
}

// One call with buffers sized from the API's own answers; C's prior contents are `c` (read when
// beta != 0). Returns the status; `c` and `indices` hold what the call wrote.
struct ReduceRun {
  miopenStatus_t status = miopenStatusUnknownError;
  std::vector<int> indices;
};
ReduceRun reduce(miopenHandle_t h, miopenReduceTensorDescriptor_t rd, miopenTensorDescriptor_t ad,
                 const driver::HostTensor& a, miopenTensorDescriptor_t cd, driver::HostTensor& c,
                 double alpha, double beta) {
  size_t ws = 0, is = 0;
  EXPECT_EQ(miopenGetReductionWorkspaceSize(h, rd, ad, cd, &ws), miopenStatusSuccess);
  EXPECT_EQ(miopenGetReductionIndicesSize(h, rd, ad, cd, &is), miopenStatusSuccess);
  std::vector<unsigned char> workspace(ws);
  ReduceRun r;
  r.indices.assign(is / sizeof(int), -7);
  // alpha / beta are floats, doubles for double data (as MIOpen reads them).
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const bool dbl = a.type == miopenDouble;
  r.status = miopenReduceTensor(h, rd, r.indices.empty() ? nullptr : r.indices.data(), is,
                                workspace.empty() ? nullptr : workspace.data(), ws,
                                dbl ? static_cast<const void*>(&alpha) : &af, ad, a.data(),
                                dbl ? static_cast<const void*>(&beta) : &bf, cd, c.data());
  return r;
}

double tolerance(miopenDataType_t t) {
  return t == miopenHalf ? 2e-3 : t == miopenBFloat16 ? 1.6e-2 : t == miopenDouble ? 1e-12 : 2e-5;
}

// C (packed) against the reference rounded to C's type: relative error with the slack of a sum
// of `red_count` values in [-1, 1]; NaN only where the reference is NaN.
void expect_matches(const ref::ReduceResult& want, const driver::HostTensor& c, size_t red_count) {
  const double eps = c.type == miopenDouble ? 2.3e-16 : 1.2e-7;
  ASSERT_EQ(want.c.size(), c.elements());
  driver::HostTensor one = driver::HostTensor::zeros(c.type, 1);
  int bad = 0;
  for (size_t i = 0; i < want.c.size() && bad < 5; ++i) {
    one.set(0, want.c[i]);
    const double w = one.get(0), g = c.get(i);
    const bool ok = (std::isnan(w) && std::isnan(g)) || (std::isinf(w) && g == w) ||
                    std::fabs(g - w) <= tolerance(c.type) * (1.0 + std::fabs(w)) + eps * red_count;
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "C[" << i << "]: got " << g << ", want " << w;
    }
  }
}

// Random A (values near +-1 for MUL, so the product stays meaningful), C poisoned with NaN
// unless beta reads it.
void draw(std::mt19937& rng, miopenReduceTensorOp_t op, driver::HostTensor& a,
          driver::HostTensor& c, double beta) {
  const bool mul = op == MIOPEN_REDUCE_TENSOR_MUL;
  a.fill_uniform(rng, mul ? 0.9 : -1.0, mul ? 1.1 : 1.0, 1.0);
  if (mul)
    for (size_t i = 0; i < a.elements(); i += 3)
      a.set(i, -a.get(i));
  if (beta != 0.0)
    c.fill_uniform(rng, -1.0, 1.0, 1.0);
  else
    c.poison();
}

// One op, type and shape through the API against the reference; indices checked exactly.
void check_case(miopenHandle_t h, std::mt19937& rng, miopenReduceTensorOp_t op,
                miopenDataType_t type, const std::vector<int>& lens, const std::vector<int>& red,
                double alpha, double beta, bool indices) {
  SCOPED_TRACE(std::string(kOps[op]) + " type " + std::to_string(type) + " alpha " +
               std::to_string(alpha) + " beta " + std::to_string(beta) +
               (indices ? " indices" : ""));
  const miopenDataType_t comp = type == miopenDouble ? miopenDouble : miopenFloat;
  ReduceDesc rd(op, comp, MIOPEN_NOT_PROPAGATE_NAN,
                indices ? MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES : MIOPEN_REDUCE_TENSOR_NO_INDICES);
  Tensor ad(type, lens), cd(type, reduced_lens(lens, red));
  auto a = driver::HostTensor::from_descriptor(ad);
  auto c = driver::HostTensor::from_descriptor(cd);
  draw(rng, op, a, c, beta);
  const auto want = ref::reduce_tensor(op, false, indices, a.view(), c.view(), alpha, beta,
                                       type == miopenDouble ? DBL_MAX : FLT_MAX);
  const ReduceRun r = reduce(h, rd, ad, a, cd, c, alpha, beta);
  ASSERT_EQ(r.status, miopenStatusSuccess);
  size_t red_count = 1;
  for (int d : red)
    red_count *= static_cast<size_t>(lens[static_cast<size_t>(d)]);
  expect_matches(want, c, red_count);
  if (indices && has_indices(op)) {
    EXPECT_EQ(r.indices, want.indices);
  } else {
    EXPECT_TRUE(r.indices.empty());
  }
}

TEST(ReduceApi, DescriptorStartsAtMiopensDefaultAndRoundTrips) {
  ReduceDesc d;
  miopenReduceTensorOp_t op;
  miopenDataType_t comp;
  miopenNanPropagation_t nan;
  miopenReduceTensorIndices_t idx;
  miopenIndicesType_t it;
  ASSERT_EQ(miopenGetReduceTensorDescriptor(d, &op, &comp, &nan, &idx, &it), miopenStatusSuccess);
  EXPECT_EQ(op, MIOPEN_REDUCE_TENSOR_ADD);
  EXPECT_EQ(comp, miopenFloat);
  EXPECT_EQ(nan, MIOPEN_NOT_PROPAGATE_NAN);
  EXPECT_EQ(idx, MIOPEN_REDUCE_TENSOR_NO_INDICES);
  EXPECT_EQ(it, MIOPEN_32BIT_INDICES);
  for (int o = 0; o < 8; ++o) {
    const auto want_op = static_cast<miopenReduceTensorOp_t>(o);
    const auto want_comp = o % 2 ? miopenDouble : miopenHalf;
    const auto want_nan = o % 3 ? MIOPEN_PROPAGATE_NAN : MIOPEN_NOT_PROPAGATE_NAN;
    const auto want_idx =
        o % 2 ? MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES : MIOPEN_REDUCE_TENSOR_NO_INDICES;
    // Without indices the indices type is only stored (MIOpen refuses 64-bit only with them).
    const auto want_it = o % 2 ? MIOPEN_32BIT_INDICES : MIOPEN_64BIT_INDICES;
    ASSERT_EQ(miopenSetReduceTensorDescriptor(d, want_op, want_comp, want_nan, want_idx, want_it),
              miopenStatusSuccess);
    ASSERT_EQ(miopenGetReduceTensorDescriptor(d, &op, &comp, &nan, &idx, &it), miopenStatusSuccess);
    EXPECT_EQ(op, want_op);
    EXPECT_EQ(comp, want_comp);
    EXPECT_EQ(nan, want_nan);
    EXPECT_EQ(idx, want_idx);
    EXPECT_EQ(it, want_it);
  }
}

TEST(ReduceApi, BadDescriptorValuesGetStatusAndReason) {
  ReduceDesc d;
  auto set = [&](int op, int comp, int nan, int idx, int it) {
    return [=, &d] {
      return miopenSetReduceTensorDescriptor(
          d, static_cast<miopenReduceTensorOp_t>(op), static_cast<miopenDataType_t>(comp),
          static_cast<miopenNanPropagation_t>(nan), static_cast<miopenReduceTensorIndices_t>(idx),
          static_cast<miopenIndicesType_t>(it));
    };
  };
  const char* fn = "miopenSetReduceTensorDescriptor";
  expect_failure(miopenStatusBadParm, fn, "reduceTensorOp 8", set(8, 1, 0, 0, 0));
  expect_failure(miopenStatusBadParm, fn, "is not a miopenReduceTensorOp_t", set(-1, 1, 0, 0, 0));
  expect_failure(miopenStatusBadParm, fn, "reduceTensorCompType 99", set(0, 99, 0, 0, 0));
  expect_failure(miopenStatusBadParm, fn, "reduceTensorNanOpt 2", set(0, 1, 2, 0, 0));
  expect_failure(miopenStatusBadParm, fn, "reduceTensorIndices 2", set(0, 1, 0, 2, 0));
  expect_failure(miopenStatusBadParm, fn, "reduceTensorIndicesType 4", set(0, 1, 0, 0, 4));
  // MIOpen throws without a status here: its try_ answers UnknownError.
  expect_failure(miopenStatusUnknownError, fn, "Only int32 type is supported",
                 set(3, 1, 0, 1, MIOPEN_64BIT_INDICES));
  // A failed set leaves the descriptor as it was.
  miopenReduceTensorOp_t op;
  miopenDataType_t comp;
  miopenNanPropagation_t nan;
  miopenReduceTensorIndices_t idx;
  miopenIndicesType_t it;
  ASSERT_EQ(miopenGetReduceTensorDescriptor(d, &op, &comp, &nan, &idx, &it), miopenStatusSuccess);
  EXPECT_EQ(op, MIOPEN_REDUCE_TENSOR_ADD);
  EXPECT_EQ(idx, MIOPEN_REDUCE_TENSOR_NO_INDICES);
  expect_failure(miopenStatusBadParm, "miopenGetReduceTensorDescriptor",
                 "reduceTensorIndicesType is a null pointer", [&] {
                   return miopenGetReduceTensorDescriptor(d, &op, &comp, &nan, &idx, nullptr);
                 });
  expect_failure(miopenStatusBadParm, "miopenCreateReduceTensorDescriptor", "null pointer",
                 [&] { return miopenCreateReduceTensorDescriptor(nullptr); });
  Tensor t(miopenFloat, {2, 3});
  expect_failure(miopenStatusBadParm, "miopenSetReduceTensorDescriptor",
                 "does not point to a live object", [&] {
                   return miopenSetReduceTensorDescriptor(
                       reinterpret_cast<miopenReduceTensorDescriptor_t>(t.d),
                       MIOPEN_REDUCE_TENSOR_ADD, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
                       MIOPEN_REDUCE_TENSOR_NO_INDICES, MIOPEN_32BIT_INDICES);
                 });
}

// MIOpen's GetWorkspaceSize (block 256, wave 64: partial results only for the multi-block
// method, reduced extent > 1024, at most 32 blocks per output; 4 + 64 + 64 more bytes with
// indices; one 4096-byte page for the dynamic reduction's descriptors) and GetIndicesSize.
TEST(ReduceApi, SizesAreMiopens) {
  Handle h;
  Tensor a(miopenFloat, {100, 60, 16, 240}), c(miopenFloat, {1, 60, 1, 240});
  Tensor ah(miopenHalf, {2, 3000}), ch(miopenHalf, {2, 1});
  Tensor all(miopenFloat, {5000}), one(miopenFloat, {1});
  Tensor small(miopenFloat, {4, 5}), row(miopenFloat, {4, 1});
  ReduceDesc add(MIOPEN_REDUCE_TENSOR_ADD, miopenFloat),
      add_idx(MIOPEN_REDUCE_TENSOR_ADD, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
              MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES),
      max_idx(MIOPEN_REDUCE_TENSOR_MAX, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
              MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES),
      max(MIOPEN_REDUCE_TENSOR_MAX, miopenFloat);
  auto ws = [&](miopenReduceTensorDescriptor_t d, miopenTensorDescriptor_t x,
                miopenTensorDescriptor_t y) {
    size_t s = 0;
    EXPECT_EQ(miopenGetReductionWorkspaceSize(h, d, x, y, &s), miopenStatusSuccess);
    return s;
  };
  auto is = [&](miopenReduceTensorDescriptor_t d, miopenTensorDescriptor_t x,
                miopenTensorDescriptor_t y) {
    size_t s = 99;
    EXPECT_EQ(miopenGetReductionIndicesSize(h, d, x, y, &s), miopenStatusSuccess);
    return s;
  };
  // 14400 outputs of 1600 values: two blocks each.
  EXPECT_EQ(ws(add, a, c), 14400u * 2 * 4 + 4096);
  EXPECT_EQ(ws(max_idx, a, c), 14400u * 2 * (4 + 4) + 64 + 4 + 64 + 4096);
  EXPECT_EQ(ws(add_idx, a, c), 14400u * 2 * 4 + 4096);  // ADD has no indices
  EXPECT_EQ(is(max_idx, a, c), 14400u * 4);
  EXPECT_EQ(is(max, a, c), 0u);
  EXPECT_EQ(is(add_idx, a, c), 0u);
  // fp16, 2 outputs of 3000 values: three blocks each, 2-byte partials.
  EXPECT_EQ(ws(add, ah, ch), 2u * 3 * 2 + 4096);
  // One output of 5000 values: one partial per 256-thread block.
  EXPECT_EQ(ws(add, all, one), 20u * 4 + 4096);
  EXPECT_EQ(ws(max_idx, all, one), 20u * 8 + 64 + 4 + 64 + 4096);
  EXPECT_EQ(is(max_idx, all, one), 4u);
  // Small reductions (one block or less per output) keep no partials.
  EXPECT_EQ(ws(add, small, row), 4096u);
  EXPECT_EQ(ws(max_idx, small, row), 64u + 4 + 64 + 4096);
  // Both reject shapes MIOpen rejects, with its status-less throw (UnknownError).
  Tensor bad(miopenFloat, {4, 2}), rank(miopenFloat, {4});
  size_t s = 0;
  expect_failure(miopenStatusUnknownError, "miopenGetReductionWorkspaceSize",
                 "should either be 1 or be equal",
                 [&] { return miopenGetReductionWorkspaceSize(h, add, small, bad, &s); });
  expect_failure(miopenStatusUnknownError, "miopenGetReductionIndicesSize",
                 "number of dimensions of the input and output tensor should match",
                 [&] { return miopenGetReductionIndicesSize(h, add, small, rank, &s); });
  expect_failure(miopenStatusBadParm, "miopenGetReductionIndicesSize", "sizeInBytes",
                 [&] { return miopenGetReductionIndicesSize(h, add, small, row, nullptr); });
}

// Every op on fp32 data, over several reduced-dimension patterns, plain and blended.
TEST(ReduceApi, EveryOpMatchesTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  const std::vector<int> lens = {3, 5, 4, 7};
  const std::vector<std::vector<int>> reds = {{3}, {0}, {0, 2}, {1, 2, 3}, {0, 1, 2, 3}};
  for (int o = 0; o < 8; ++o)
    for (const auto& red : reds) {
      const auto op = static_cast<miopenReduceTensorOp_t>(o);
      check_case(h, rng, op, miopenFloat, lens, red, 1.0, 0.0, false);
      check_case(h, rng, op, miopenFloat, lens, red, 0.5, -1.25, false);
    }
  // A long reduction (the sizes' multi-block case).
  for (int o = 0; o < 8; ++o)
    check_case(h, rng, static_cast<miopenReduceTensorOp_t>(o), miopenFloat, {3, 3000}, {1}, 2.0,
               0.0, false);
}

// FLATTENED_INDICES: for MIN / MAX / AMAX one int32 per output, the position of the chosen
// element within the reduced dimensions flattened row-major; other ops write none.
TEST(ReduceApi, IndicesAreTheFlattenedPositionWithinTheReducedDims) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  for (int o : {2, 3, 4})
    for (const auto& red : std::vector<std::vector<int>>{{1}, {0}, {0, 2}, {0, 1, 2}})
      check_case(h, rng, static_cast<miopenReduceTensorOp_t>(o), miopenFloat, {4, 6, 5}, red, 1.0,
                 0.0, true);
  check_case(h, rng, MIOPEN_REDUCE_TENSOR_ADD, miopenFloat, {4, 6, 5}, {1}, 1.0, 0.0, true);
  // By hand: A is 2x3x4, reduce dims 0 and 2; output c's maximum at (1, c, 2) is index 1*4+2.
  Tensor ad(miopenFloat, {2, 3, 4}), cd(miopenFloat, {1, 3, 1});
  ReduceDesc rd(MIOPEN_REDUCE_TENSOR_MAX, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
                MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES);
  auto a = driver::HostTensor::from_descriptor(ad);
  auto c = driver::HostTensor::from_descriptor(cd);
  for (size_t i = 0; i < 24; ++i)
    a.set(i, -static_cast<double>(i));
  a.set(1 * 12 + 0 * 4 + 2, 5.0);  // c = 0: (1, 0, 2) -> 6
  a.set(0 * 12 + 1 * 4 + 3, 7.0);  // c = 1: (0, 1, 3) -> 3
  a.set(1 * 12 + 2 * 4 + 0, 9.0);  // c = 2: (1, 2, 0) -> 4
  const ReduceRun r = reduce(h, rd, ad, a, cd, c, 1.0, 0.0);
  ASSERT_EQ(r.status, miopenStatusSuccess);
  EXPECT_EQ(r.indices, (std::vector<int>{6, 3, 4}));
  EXPECT_EQ(c.values(), (std::vector<double>{5.0, 7.0, 9.0}));
}

// PROPAGATE: a NaN among the reduced values makes the result NaN (and MIN / MAX / AMAX point at
// it); NOT_PROPAGATE: MIN / MAX / AMAX skip it, as MIOpen's comparisons do.
TEST(ReduceApi, NanOptionDecidesWhetherNansWin) {
  Handle h;
  Tensor ad(miopenFloat, {2, 5}), cd(miopenFloat, {2, 1});
  for (int o = 0; o < 8; ++o)
    for (bool prop : {false, true}) {
      const auto op = static_cast<miopenReduceTensorOp_t>(o);
      SCOPED_TRACE(std::string(kOps[o]) + (prop ? " PROPAGATE" : " NOT_PROPAGATE"));
      ReduceDesc rd(op, miopenFloat, prop ? MIOPEN_PROPAGATE_NAN : MIOPEN_NOT_PROPAGATE_NAN,
                    MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES);
      auto a = driver::HostTensor::from_descriptor(ad);
      auto c = driver::HostTensor::from_descriptor(cd);
      for (size_t i = 0; i < 10; ++i)
        a.set(i, 0.25 * static_cast<double>(i) - 1.0);
      a.set(2, std::nan(""));  // row 0 only
      c.poison();
      const auto want = ref::reduce_tensor(op, prop, true, a.view(), c.view(), 1.0, 0.0, FLT_MAX);
      const ReduceRun r = reduce(h, rd, ad, a, cd, c, 1.0, 0.0);
      ASSERT_EQ(r.status, miopenStatusSuccess);
      expect_matches(want, c, 5);
      if (has_indices(op)) EXPECT_EQ(r.indices, want.indices);
      // Row 1 has no NaN: finite either way.
      EXPECT_TRUE(std::isfinite(c.get(1)));
      const bool nan_wins = prop || !has_indices(op);  // sums and products carry it anyway
      EXPECT_EQ(std::isnan(c.get(0)), nan_wins);
      if (prop && has_indices(op)) EXPECT_EQ(r.indices[0], 2);
    }
}

// MIOpen's other types: half and double (double's compType and scalars are doubles), and
// bfloat16, which anydnn computes in fp32 as it does half.
TEST(ReduceApi, HalfBfloat16AndDouble) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  for (miopenDataType_t t : {miopenHalf, miopenBFloat16, miopenDouble})
    for (int o = 0; o < 8; ++o) {
      const auto op = static_cast<miopenReduceTensorOp_t>(o);
      check_case(h, rng, op, t, {2, 6, 5, 3}, {0, 2, 3}, 1.0, 0.0, has_indices(op));
      check_case(h, rng, op, t, {2, 6, 5, 3}, {1}, 0.75, 0.5, false);
    }
}

TEST(ReduceApi, BadInputGetsMiopensStatusAndAReason) {
  Handle h;
  Tensor a(miopenFloat, {2, 3, 4}), c(miopenFloat, {2, 1, 4}), same(miopenFloat, {2, 3, 4}),
      wrong(miopenFloat, {2, 2, 4}), rank(miopenFloat, {2, 12}), half_c(miopenHalf, {2, 1, 4}),
      ints(miopenInt32, {2, 3, 4}), ints_c(miopenInt32, {2, 1, 4}),
      seven(miopenFloat, {1, 1, 1, 1, 1, 1, 2}), seven_c(miopenFloat, {1, 1, 1, 1, 1, 1, 1}), unset;
  ReduceDesc add(MIOPEN_REDUCE_TENSOR_ADD, miopenFloat),
      max_idx(MIOPEN_REDUCE_TENSOR_MAX, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
              MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES),
      int_comp(MIOPEN_REDUCE_TENSOR_ADD, miopenInt32);
  std::vector<float> x(24, 1.0f), y(8, 7.0f);
  std::vector<int> idx(8, -7);
  std::vector<unsigned char> ws(1 << 16);
  const float one = 1.0f, zero = 0.0f;
  const char* fn = "miopenReduceTensor";
  auto call = [&](miopenReduceTensorDescriptor_t rd, miopenTensorDescriptor_t ad,
                  miopenTensorDescriptor_t cd, size_t ws_bytes = 1 << 16, size_t idx_bytes = 32,
                  const void* alpha = nullptr, const void* xp = nullptr, void* yp = nullptr,
                  void* ip = nullptr) {
    return [=, &h, &one, &zero, &x, &y, &idx, &ws] {
      return miopenReduceTensor(h, rd, ip ? ip : idx.data(), idx_bytes, ws.data(), ws_bytes,
                                alpha ? alpha : &one, ad, xp ? xp : x.data(), &zero, cd,
                                yp ? yp : y.data());
    };
  };
  expect_failure(miopenStatusBadParm, fn, "handle", [&] {
    return miopenReduceTensor(nullptr, add, nullptr, 0, ws.data(), ws.size(), &one, a, x.data(),
                              &zero, c, y.data());
  });
  expect_failure(miopenStatusBadParm, fn, "reduceTensorDesc is a null pointer",
                 call(nullptr, a, c));
  expect_failure(miopenStatusBadParm, fn, "cDesc has not been set", call(add, a, unset));
  expect_failure(miopenStatusUnknownError, fn, "should either be 1 or be equal",
                 call(add, a, wrong));
  expect_failure(miopenStatusUnknownError, fn, "number of dimensions", call(add, a, rank));
  expect_failure(miopenStatusUnknownError, fn, "at least one dimension", call(add, a, same));
  expect_failure(miopenStatusUnknownError, fn, "at most number of dimensions of 6",
                 call(add, seven, seven_c));
  expect_failure(miopenStatusNotImplemented, fn, "mixed-type", call(add, a, half_c));
  expect_failure(miopenStatusNotImplemented, fn, "reduction of", call(add, ints, ints_c));
  expect_failure(miopenStatusNotImplemented, fn, "reduceTensorCompType", call(int_comp, a, c));
  expect_failure(miopenStatusUnknownError, fn, "workspace size allocated is not enough",
                 call(add, a, c, 100));
  expect_failure(miopenStatusUnknownError, fn, "indices size allocated is not enough",
                 call(max_idx, a, c, 1 << 16, 31));
  expect_failure(miopenStatusBadParm, fn, "alpha is a null pointer", [&] {
    return miopenReduceTensor(h, add, nullptr, 0, ws.data(), ws.size(), nullptr, a, x.data(), &zero,
                              c, y.data());
  });
  expect_failure(miopenStatusBadParm, fn, "beta is a null pointer", [&] {
    return miopenReduceTensor(h, add, nullptr, 0, ws.data(), ws.size(), &one, a, x.data(), nullptr,
                              c, y.data());
  });
  expect_failure(miopenStatusBadParm, fn, "A is a null pointer", [&] {
    return miopenReduceTensor(h, add, nullptr, 0, ws.data(), ws.size(), &one, a, nullptr, &zero, c,
                              y.data());
  });
  expect_failure(miopenStatusBadParm, fn, "C is a null pointer", [&] {
    return miopenReduceTensor(h, add, nullptr, 0, ws.data(), ws.size(), &one, a, x.data(), &zero, c,
                              nullptr);
  });
  expect_failure(miopenStatusBadParm, fn, "indices is a null pointer", [&] {
    return miopenReduceTensor(h, max_idx, nullptr, 32, ws.data(), ws.size(), &one, a, x.data(),
                              &zero, c, y.data());
  });
  // Nothing was written by any failed call.
  EXPECT_EQ(y, std::vector<float>(8, 7.0f));
  EXPECT_EQ(idx, std::vector<int>(8, -7));
  // A pointer to another kind of object is told apart from a reduce descriptor.
  expect_failure(miopenStatusBadParm, fn, "does not point to a live object",
                 call(reinterpret_cast<miopenReduceTensorDescriptor_t>(a.d), a, c));
  // MIOpen always asks for its 4096-byte descriptor page: no workspace fails the size check.
  expect_failure(miopenStatusUnknownError, fn, "workspace size allocated is not enough", [&] {
    return miopenReduceTensor(h, add, nullptr, 0, nullptr, 0, &one, a, x.data(), &zero, c,
                              y.data());
  });
}

}  // namespace
}  // namespace anydnn::test
