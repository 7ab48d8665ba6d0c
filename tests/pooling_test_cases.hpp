// The pooling problems the CPU and GPU solver tests share, the input draws and the check against
// the double reference (reference/pooling_reference.hpp). A runner callback per device runs one
// solver on host buffers (the GPU test copies them to the device and back).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "activation_test_cases.hpp"  // host_tensor, element_offsets
#include "host_buffer.hpp"
#include "pooling/pooling_problem.hpp"
#include "pooling_reference.hpp"

namespace anydnn::test {

// One shape: input lengths (n, c, spatial...), window, pads, strides, and the layout of x / y
// ("packed": NCHW / NCDHW; "nhwc": NHWC / NDHWC; "padded": NCHW with a row pitch of w + 3).
struct PoolCase {
  std::vector<size_t> in;
  std::vector<int> k, p, s;
  std::string layout;
};

// Odd sizes, stride 1 / 2 / 3, pads, windows larger than the stride (overlapping) and equal to
// it, a window wider than the padded input, 3-D, NHWC, padded rows, batch 1.
inline std::vector<PoolCase> pooling_cases() {
  return {
      {{2, 3, 7, 9}, {3, 3}, {1, 1}, {2, 2}, "packed"},
      {{1, 5, 11, 6}, {2, 3}, {0, 1}, {2, 1}, "packed"},
      {{3, 2, 5, 5}, {2, 2}, {0, 0}, {2, 2}, "nhwc"},
      {{2, 7, 9, 8}, {3, 2}, {1, 0}, {3, 2}, "nhwc"},
      {{1, 4, 6, 13}, {4, 4}, {2, 1}, {1, 3}, "padded"},
      {{2, 3, 3, 4}, {5, 5}, {1, 1}, {1, 1}, "packed"},
      {{1, 3, 5, 6, 7}, {2, 3, 3}, {0, 1, 1}, {2, 2, 1}, "packed"},
      {{2, 2, 4, 5, 5}, {3, 2, 2}, {1, 0, 1}, {1, 2, 2}, "nhwc"},
      {{1, 16, 9, 9}, {3, 3}, {1, 1}, {2, 2}, "nhwc"},
  };
}

struct PoolVariant {
  miopenDataType_t type;
  miopenPoolingMode_t mode;
  miopenIndexType_t index_type;
  miopenPoolingWorkspaceIndexMode_t index_mode;
};

// Every type x mode; max with every index type and mode (uint8 only where the window / image fits).
inline std::vector<PoolVariant> pooling_variants() {
  std::vector<PoolVariant> v;
  for (auto t : {miopenFloat, miopenHalf, miopenBFloat16}) {
    v.push_back({t, miopenPoolingAverage, miopenIndexUint8, miopenPoolingWorkspaceIndexMask});
    v.push_back(
        {t, miopenPoolingAverageInclusive, miopenIndexUint8, miopenPoolingWorkspaceIndexMask});
    for (auto it : {miopenIndexUint8, miopenIndexUint16, miopenIndexUint32, miopenIndexUint64})
      for (auto im : {miopenPoolingWorkspaceIndexMask, miopenPoolingWorkspaceIndexImage})
        if (t == miopenFloat || it == miopenIndexUint32) v.push_back({t, miopenPoolingMax, it, im});
  }
  return v;
}

inline TensorDescriptor pool_tensor(miopenDataType_t t, const std::vector<size_t>& lens,
                                    const std::string& layout) {
  if (layout == "nhwc")
    return TensorDescriptor::with_layout(t, lens.size() == 5 ? "NDHWC" : "NHWC", lens);
  if (layout == "padded" && lens.size() == 4) {
    const size_t pitch = lens[3] + 3;
    return TensorDescriptor(t, lens, {lens[1] * lens[2] * pitch, lens[2] * pitch, pitch, 1});
  }
  return TensorDescriptor(t, lens);
}

struct PoolHost {
  driver::HostTensor x, y, dy, dx;
  std::vector<unsigned char> ws;
};

// Runs one direction of one problem on host buffers.
using PoolRunner = std::function<void(const PoolingProblem&, PoolHost&)>;

inline double pool_tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 1e-5 : t == miopenHalf ? 5e-3 : 3e-2;
}

inline double pool_lowest(miopenDataType_t t) {
  return t == miopenFloat ? -3.4028234663852886e38 : t == miopenHalf ? -65504.0 : -3.38953139e38;
}

// Builds the forward and backward problems of (c, v), runs both through `run` with fresh random
// inputs and NaN-poisoned outputs, and checks y, the indices and dx against the reference.
// Adds to `ran` the directions the solver (by `takes`) accepted.
inline void check_pooling(const PoolCase& c, const PoolVariant& v, std::mt19937& rng,
                          const std::function<bool(const PoolingProblem&)>& takes,
                          const PoolRunner& run, int& ran) {
  PoolingDesc desc;
  desc.mode = v.mode;
  desc.lens = c.k;
  desc.pads = c.p;
  desc.strides = c.s;
  desc.index_type = v.index_type;
  desc.index_mode = v.index_mode;
  const TensorDescriptor x = pool_tensor(v.type, c.in, c.layout);
  const TensorDescriptor y = pool_tensor(v.type, pooling_output_lens(desc, x), c.layout);
  PoolDescriptors d{&x, &y, &x, &y};
  const PoolingProblem fwd(PoolDirection::Forward, desc, d, true);
  const PoolingProblem bwd(PoolDirection::Backward, desc, d, false);
  SCOPED_TRACE(fwd.key() + " type " + std::to_string(v.type) + " index type " +
               std::to_string(v.index_type));
  PoolHost h;
  h.x = host_tensor(x);
  h.y = host_tensor(y);
  h.dy = host_tensor(y);
  h.dx = host_tensor(x);
  const auto xo = element_offsets(x), yo = element_offsets(y);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (size_t i = 0; i < xo.size(); ++i)
    h.x.set(xo[i], u(rng));
  for (size_t i = 0; i < yo.size(); ++i)
    h.dy.set(yo[i], u(rng));
  h.y.poison();
  h.dx.poison();
  h.ws.assign(pooling_workspace_size(desc, y) + 1, 0xa5);
  std::vector<double> xv(xo.size()), dyv(yo.size());
  for (size_t i = 0; i < xo.size(); ++i)
    xv[i] = h.x.get(xo[i]);
  for (size_t i = 0; i < yo.size(); ++i)
    dyv[i] = h.dy.get(yo[i]);
  const ref::PoolingRefDesc rd{v.mode, c.k, c.p, c.s, v.index_mode};
  const auto want = ref::pooling_forward(rd, x.lens(), y.lens(), xv, pool_lowest(v.type));
  const double tol = pool_tolerance(v.type);
  const bool fwd_ran = takes(fwd);
  if (fwd_ran) {
    ++ran;
    run(fwd, h);
    for (size_t i = 0; i < yo.size(); ++i) {
      const double got = h.y.get(yo[i]);
      ASSERT_LE(std::abs(got - want.y[i]), tol * std::max(1.0, std::abs(want.y[i])))
          << "y[" << i << "] = " << got << ", want " << want.y[i];
    }
    if (v.mode == miopenPoolingMax)
      for (size_t i = 0; i < yo.size(); ++i)
        ASSERT_EQ(pool::pool_load_index(h.ws.data(), v.index_type, static_cast<long long>(i)),
                  want.index[i])
            << "index " << i;
  }
  if (takes(bwd)) {
    ++ran;
    if (!fwd_ran && v.mode == miopenPoolingMax)  // the reference's indices, stored
      for (size_t i = 0; i < yo.size(); ++i)
        pool::pool_store_index(h.ws.data(), v.index_type, static_cast<long long>(i), want.index[i]);
    run(bwd, h);
    const auto dx = ref::pooling_backward(rd, x.lens(), y.lens(), dyv, want);
    for (size_t i = 0; i < xo.size(); ++i) {
      const double got = h.dx.get(xo[i]);
      ASSERT_LE(std::abs(got - dx[i]), tol * std::max(1.0, std::abs(dx[i])))
          << "dx[" << i << "] = " << got << ", want " << dx[i];
    }
  }
}

}  // namespace anydnn::test
