// The RNN reference with its products on the GPU (ref::gpu::make_double_gemm, what MIOpenDriver
// -V 1 uses for CUDA runs) against the same reference with OpenBLAS: both are IEEE double, so the
// results agree to double rounding (1e-12 relative), for every mode, bidirectional, stacked,
// shrinking batches, biases and skip input, forward and backward, at sizes where cuBLAS tiles
// matter (odd H, several waves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <string>

#include "common_test_util.hpp"
#include "double_gemm_gpu.hpp"
#include "gpu/gpu_test_util.hpp"
#include "rnn_reference.hpp"

namespace anydnn {
namespace {

using V = std::vector<double>;

struct Case {
  const char* name;
  ref::RnnConfig c;
  size_t input;
  std::vector<size_t> batch;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

double max_relative_difference(const V& a, const V& b) {
  double scale = 0.0, diff = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    diff = std::max(diff, std::abs(a[i] - b[i]));
  }
  return scale == 0.0 ? diff : diff / scale;
}

class RnnReferenceGpu : public ::testing::TestWithParam<Case> {};

TEST_P(RnnReferenceGpu, MatchesTheCpuProducts) {
  REQUIRE_GPU();
  const Case& k = GetParam();
  const bool lstm = k.c.mode == 2;
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  const auto draw = [&](size_t n) {
    V v(n);
    for (double& e : v)
      e = u(rng);
    return v;
  };
  size_t rows = 0;
  for (size_t b : k.batch)
    rows += b;
  const int D = k.c.bidirectional ? 2 : 1;
  const size_t H = static_cast<size_t>(k.c.hidden);
  const size_t state = static_cast<size_t>(k.c.layers) * D * k.batch[0] * H;
  const V x = draw(rows * k.input), hx = draw(state), cx = lstm ? draw(state) : V{},
          w = draw(ref::rnn_weight_count(k.c, k.input)), dy = draw(rows * D * H), dhy = draw(state),
          dcy = lstm ? draw(state) : V{};
  const auto gpu = ref::gpu::make_double_gemm();
  const auto f_cpu = ref::rnn_forward(k.c, k.input, k.batch, x, hx, cx, w);
  const auto f_gpu = ref::rnn_forward(k.c, k.input, k.batch, x, hx, cx, w, gpu.get());
  EXPECT_LE(max_relative_difference(f_cpu.y, f_gpu.y), 1e-12) << "y";
  EXPECT_LE(max_relative_difference(f_cpu.hy, f_gpu.hy), 1e-12) << "hy";
  EXPECT_LE(max_relative_difference(f_cpu.cy, f_gpu.cy), 1e-12) << "cy";
  const auto b_cpu = ref::rnn_backward(k.c, k.input, k.batch, x, hx, cx, w, dy, dhy, dcy);
  const auto b_gpu =
      ref::rnn_backward(k.c, k.input, k.batch, x, hx, cx, w, dy, dhy, dcy, gpu.get());
  EXPECT_LE(max_relative_difference(b_cpu.dx, b_gpu.dx), 1e-12) << "dx";
  EXPECT_LE(max_relative_difference(b_cpu.dhx, b_gpu.dhx), 1e-12) << "dhx";
  EXPECT_LE(max_relative_difference(b_cpu.dcx, b_gpu.dcx), 1e-12) << "dcx";
  EXPECT_LE(max_relative_difference(b_cpu.dw, b_gpu.dw), 1e-12) << "dw";
}

const Case kCases[] = {
    {"relu_bias", {0, 131, 1, false, false, true}, 67, {37, 37, 30, 12, 1}},
    {"tanh_bidirectional_2layers", {1, 97, 2, true, false, true}, 45, {16, 9, 9}},
    {"lstm_bidirectional", {2, 129, 2, true, false, true}, 33, {33, 31, 20, 20, 3}},
    {"lstm_skip_input", {2, 256, 1, false, true, false}, 256, {32, 32, 32, 32}},
    {"gru_bias_3layers", {3, 77, 3, false, false, true}, 19, {17, 16, 14, 2}},
    {"gru_bidirectional_skip", {3, 160, 1, true, true, true}, 160, {8, 8, 5, 5, 5, 1}},
};

INSTANTIATE_TEST_SUITE_P(Reference, RnnReferenceGpu, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace anydnn
