// The canonical problem string: MIOpenDriver syntax that parses back into the same problem.
#include <gtest/gtest.h>

#include "conv/conv_problem.hpp"
#include "conv_spec.hpp"
#include "core/errors.hpp"

namespace anydnn {
namespace {

TEST(ConvProblem, KeyIsTheDriverCommand) {
  const TensorDescriptor x(miopenFloat, {4, 64, 56, 56});
  const TensorDescriptor w(miopenFloat, {64, 64, 3, 3});
  const ConvolutionDescriptor c(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  const TensorDescriptor y(miopenFloat, c.forward_output_lens(x, w));
  const ConvProblem p(ConvDirection::Forward, x, w, c, y);
  EXPECT_EQ(p.key(),
            "conv -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv "
            "-g 1 -F 1");
  EXPECT_EQ(p.network_config(), p.key());
  EXPECT_DOUBLE_EQ(p.flop_count(), 2.0 * 4 * 64 * 64 * 9 * 56 * 56);
  EXPECT_EQ(p.identifier().find(' '), std::string::npos);
}

// Each key parses back (through the driver's own flag table) into the problem it came from.
TEST(ConvProblem, KeyRoundTripsThroughDriverSyntax) {
  struct Case {
    miopenDataType_t type;
    std::vector<size_t> x, w;
    miopenConvolutionMode_t mode;
    std::vector<int> pad, stride, dil, adj;
    int groups;
    std::string layout;
    ConvDirection dir;
  };
  const std::vector<Case> cases = {
      {miopenHalf,
       {2, 6, 9, 10},
       {4, 3, 3, 1},
       miopenConvolution,
       {1, 0},
       {2, 1},
       {1, 2},
       {0, 0},
       2,
       "NCHW",
       ConvDirection::BackwardData},
      {miopenBFloat16,
       {2, 8, 9, 10},
       {8, 2, 3, 3},
       miopenTranspose,
       {1, 1},
       {2, 2},
       {1, 1},
       {1, 0},
       4,
       "NHWC",
       ConvDirection::Forward},
      {miopenFloat,
       {1, 4, 5, 6, 7},
       {2, 2, 3, 1, 3},
       miopenConvolution,
       {1, 0, 1},
       {2, 1, 1},
       {1, 1, 2},
       {0, 0, 0},
       2,
       "NDHWC",
       ConvDirection::BackwardWeights},
  };
  for (const auto& c : cases) {
    const auto x = TensorDescriptor::with_layout(c.type, c.layout, c.x);
    const auto w = TensorDescriptor::with_layout(c.type, c.layout, c.w);
    ConvolutionDescriptor conv(c.mode, c.pad, c.stride, c.dil);
    conv.set_group_count(c.groups);
    if (c.mode == miopenTranspose) conv.set_trans_output_pads(c.adj);
    const auto y = TensorDescriptor::with_layout(c.type, c.layout, conv.forward_output_lens(x, w));
    const ConvProblem p(c.dir, x, w, conv, y);
    driver::ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(p.key(), spec)) << p.key();
    EXPECT_EQ(spec.type, c.type) << p.key();
    EXPECT_EQ(spec.in_lens, std::vector<int>(c.x.begin(), c.x.end())) << p.key();
    EXPECT_EQ(spec.wei_lens, std::vector<int>(c.w.begin(), c.w.end())) << p.key();
    EXPECT_EQ(spec.pads, c.pad);
    EXPECT_EQ(spec.strides, c.stride);
    EXPECT_EQ(spec.dilations, c.dil);
    EXPECT_EQ(spec.groups, c.groups);
    EXPECT_EQ(spec.transpose, c.mode == miopenTranspose);
    if (spec.transpose) EXPECT_EQ(spec.trans_output_pads, c.adj);
    EXPECT_EQ(spec.in_layout, c.layout);
    EXPECT_EQ(spec.forw, static_cast<int>(c.dir));
  }
}

TEST(ConvProblem, TransposeIsNormalisedToTheSwappedDirection) {
  const TensorDescriptor x(miopenFloat, {2, 8, 5, 5});
  const TensorDescriptor w(miopenFloat, {8, 3, 3, 3});
  ConvolutionDescriptor conv(miopenTranspose, {1, 1}, {2, 2}, {1, 1});
  const TensorDescriptor y(miopenFloat, conv.forward_output_lens(x, w));
  const ConvProblem p(ConvDirection::Forward, x, w, conv, y);
  EXPECT_TRUE(p.transposed());
  EXPECT_EQ(p.direction(), ConvDirection::BackwardData);
  EXPECT_EQ(p.x().lens(), y.lens());  // the solver's dx is the transposed output
  EXPECT_EQ(p.y().lens(), x.lens());
  EXPECT_NE(p.key().find("-m trans"), std::string::npos);
  EXPECT_NE(p.key().find("-F 1"), std::string::npos);
}

TEST(ConvProblem, RejectsMismatchedDescriptors) {
  const TensorDescriptor x(miopenFloat, {2, 4, 8, 8});
  const TensorDescriptor w(miopenFloat, {6, 4, 3, 3});
  const ConvolutionDescriptor conv(miopenConvolution, {0, 0}, {1, 1}, {1, 1});
  const auto status = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.status();
    }
    return miopenStatusSuccess;
  };
  EXPECT_EQ(status([&] {
              ConvProblem(ConvDirection::Forward, x, w, conv,
                          TensorDescriptor(miopenFloat, {2, 6, 7, 6}));
            }),
            miopenStatusBadParm);
  EXPECT_EQ(
      status([&] {
        ConvProblem(ConvDirection::Forward, x, w, conv, TensorDescriptor(miopenHalf, {2, 6, 6, 6}));
      }),
      miopenStatusBadParm);
  const TensorDescriptor x8(miopenInt8, {2, 4, 8, 8}), w8(miopenInt8, {6, 4, 3, 3});
  EXPECT_EQ(status([&] {
              ConvProblem(ConvDirection::Forward, x8, w8, conv,
                          TensorDescriptor(miopenInt8, {2, 6, 6, 6}));
            }),
            miopenStatusBadParm);  // int8 writes int32 or float
  EXPECT_EQ(status([&] {
              ConvProblem(ConvDirection::Forward, x8, w8, conv,
                          TensorDescriptor(miopenInt32, {2, 6, 6, 6}));
            }),
            miopenStatusSuccess);
  EXPECT_EQ(status([&] {
              ConvProblem(ConvDirection::BackwardData, x8, w8, conv,
                          TensorDescriptor(miopenInt32, {2, 6, 6, 6}));
            }),
            miopenStatusNotImplemented);
  EXPECT_EQ(status([&] {
              ConvProblem(ConvDirection::Forward, TensorDescriptor(miopenDouble, {2, 4, 8, 8}),
                          TensorDescriptor(miopenDouble, {6, 4, 3, 3}), conv,
                          TensorDescriptor(miopenDouble, {2, 6, 6, 6}));
            }),
            miopenStatusNotImplemented);
  EXPECT_EQ(status([&] { ConvProblem(ConvDirection::Forward, x, w, conv, TensorDescriptor()); }),
            miopenStatusBadParm);
}

}  // namespace
}  // namespace anydnn
