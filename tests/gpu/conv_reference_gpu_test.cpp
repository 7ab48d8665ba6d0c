// The GPU copy of the convolution reference (reference/conv_reference_gpu.cu, MIOpenDriver -V 1 on
// CUDA runs) against the CPU reference it mirrors: every problem of the shared list (strides,
// dilations, padding, groups, 1x1, 3-D, NHWC, fp16/bf16), every direction, fresh random inputs.
// Both sum in double in the same order, so they must agree to double rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "conv_reference_gpu.hpp"
#include "conv_test_util.hpp"
#include "gpu/gpu_test_util.hpp"

namespace anydnn {
namespace {

using driver::HostTensor;
using test::DeviceTensor;

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0.0, diff = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    diff = std::max(diff, std::abs(a[i] - b[i]));
  }
  return scale == 0.0 ? diff : diff / scale;
}

class ConvReferenceGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvReferenceGpu, MatchesTheCpuReference) {
  REQUIRE_GPU();
  driver::ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(GetParam(), spec)) << GetParam();
  const test::BuiltConv built = test::build_conv(spec);
  const ref::ConvParams params{spec.pads, spec.strides, spec.dilations, spec.groups};
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  HostTensor hx = test::host_tensor(built.x), hw = test::host_tensor(built.w),
             hy = test::host_tensor(built.y);
  for (HostTensor* t : {&hx, &hw, &hy})
    test::fill_random(*t, rng);
  DeviceTensor dx(hx), dw(hw), dy(hy);
  ASSERT_TRUE(dx.data() && dw.data() && dy.data());
  const auto on = [](const HostTensor& h, const DeviceTensor& d) {
    ref::TensorView v = h.view();
    v.data = d.data();
    return v;
  };
  const double tol = 1e-12;
  EXPECT_LE(
      max_relative_difference(ref::conv_forward(hx.view(), hw.view(), params, hy.lens),
                              ref::gpu::conv_forward(on(hx, dx), on(hw, dw), params, hy.lens)),
      tol)
      << "forward";
  EXPECT_LE(max_relative_difference(
                ref::conv_backward_data(hy.view(), hw.view(), params, hx.lens),
                ref::gpu::conv_backward_data(on(hy, dy), on(hw, dw), params, hx.lens)),
            tol)
      << "backward data";
  EXPECT_LE(max_relative_difference(
                ref::conv_backward_weights(hx.view(), hy.view(), params, hw.lens),
                ref::gpu::conv_backward_weights(on(hx, dx), on(hy, dy), params, hw.lens)),
            tol)
      << "backward weights";
}

// Transposed problems run these same three functions with the roles swapped (the driver does
// that mapping), so the plain lines cover them.
std::vector<std::string> plain_problems() {
  std::vector<std::string> out;
  for (const auto& line : test::load_problem_lines("conv_problems.txt"))
    if (line.find("-m trans") == std::string::npos) out.push_back(line);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvReferenceGpu, ::testing::ValuesIn(plain_problems()),
                         [](const auto& info) { return test::test_name_of(info.param); });

}  // namespace
}  // namespace anydnn
