// Tensor and convolution descriptors: layout inference, packing, MIOpen's output-size rules and
// the validation that rejects inconsistent shapes.
#include <gtest/gtest.h>

#include "core/conv_descriptor.hpp"
#include "core/errors.hpp"
#include "core/seq_tensor_descriptor.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {
namespace {

miopenStatus_t status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.status();
  }
  return miopenStatusSuccess;
}

TEST(TensorDescriptor, LayoutFromStrides) {
  EXPECT_EQ(TensorDescriptor(miopenFloat, {2, 3, 4, 5}).layout(), "NCHW");
  EXPECT_EQ(TensorDescriptor::with_layout(miopenFloat, "NHWC", {2, 3, 4, 5}).layout(), "NHWC");
  EXPECT_EQ(TensorDescriptor::with_layout(miopenFloat, "CHWN", {2, 3, 4, 5}).layout(), "CHWN");
  EXPECT_EQ(TensorDescriptor::with_layout(miopenHalf, "NDHWC", {2, 3, 4, 5, 6}).layout("NCDHW"),
            "NDHWC");
  EXPECT_EQ(TensorDescriptor(miopenFloat, {2, 3, 4, 5, 6}).layout("NCDHW"), "NCDHW");
  // C = 1: strides of NHWC and NCHW coincide where it matters; NCHW is reported.
  EXPECT_EQ(TensorDescriptor::with_layout(miopenFloat, "NHWC", {2, 1, 4, 5}).layout(), "NCHW");
  // Padded rows: not packed, named by decreasing strides.
  const TensorDescriptor padded(miopenFloat, {2, 3, 4, 5}, {96, 32, 8, 1});
  EXPECT_FALSE(padded.is_packed());
  EXPECT_EQ(padded.layout(), "NCHW");
  EXPECT_EQ(padded.element_space(), 1 + 96 + 2 * 32 + 3 * 8 + 4);
  EXPECT_EQ(padded.num_bytes(), padded.element_space() * 4);
}

TEST(TensorDescriptor, PackedStridesForLayouts) {
  EXPECT_EQ(strides_for_layout({2, 3, 4, 5}, "NCHW"), (std::vector<size_t>{60, 20, 5, 1}));
  EXPECT_EQ(strides_for_layout({2, 3, 4, 5}, "NHWC"), (std::vector<size_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_for_layout({2, 3, 4, 5, 6}, "NDHWC"), (std::vector<size_t>{360, 1, 90, 18, 3}));
  EXPECT_EQ(status_of([] { strides_for_layout({2, 3, 4, 5}, "NCDHW"); }), miopenStatusBadParm);
}

TEST(TensorDescriptor, RejectsInvalid) {
  EXPECT_EQ(status_of([] { TensorDescriptor(miopenFloat, {2, 0, 4}); }), miopenStatusBadParm);
  EXPECT_EQ(status_of([] { TensorDescriptor(miopenFloat, {}); }), miopenStatusBadParm);
  EXPECT_EQ(status_of([] { TensorDescriptor(static_cast<miopenDataType_t>(4), {1}); }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([] { TensorDescriptor(miopenFloat, {2, 2}, {1}); }), miopenStatusBadParm);
  EXPECT_EQ(status_of([] { TensorDescriptor(miopenFloat, {2, 2}, {0, 1}); }), miopenStatusBadParm);
  // Sizes whose byte count overflows size_t.
  EXPECT_EQ(status_of([] {
              TensorDescriptor(miopenFloat, {1ull << 32, 1ull << 32});
            }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([] { TensorDescriptor(miopenFloat, std::vector<size_t>(9, 1)); }),
            miopenStatusBadParm);
}

TEST(ConvolutionDescriptor, OutputSizes) {
  const TensorDescriptor x(miopenFloat, {4, 64, 56, 56});
  const TensorDescriptor w(miopenFloat, {64, 64, 3, 3});
  EXPECT_EQ(
      ConvolutionDescriptor(miopenConvolution, {1, 1}, {1, 1}, {1, 1}).forward_output_lens(x, w),
      (std::vector<size_t>{4, 64, 56, 56}));
  // o = (i + 2p - d(f-1) - 1) / s + 1
  EXPECT_EQ(
      ConvolutionDescriptor(miopenConvolution, {0, 2}, {2, 3}, {2, 1}).forward_output_lens(x, w),
      (std::vector<size_t>{4, 64, 26, 20}));
  // A filter larger than the padded input gives 1, as MIOpen clamps with max(1, ...).
  const TensorDescriptor tiny(miopenFloat, {1, 64, 2, 2});
  EXPECT_EQ(
      ConvolutionDescriptor(miopenConvolution, {0, 0}, {1, 1}, {1, 1}).forward_output_lens(tiny, w),
      (std::vector<size_t>{1, 64, 1, 1}));
  // Transposed: o = s(i-1) + 1 + d(f-1) - 2p + adj, channels w[1] * G.
  ConvolutionDescriptor t(miopenTranspose, {1, 0}, {2, 2}, {1, 1});
  t.set_trans_output_pads({1, 0});
  const TensorDescriptor wt(miopenFloat, {64, 8, 3, 3});
  t.set_group_count(2);
  EXPECT_EQ(t.forward_output_lens(x, wt), (std::vector<size_t>{4, 16, 112, 113}));
  // 3-D
  const TensorDescriptor x3(miopenFloat, {1, 2, 5, 6, 7});
  const TensorDescriptor w3(miopenFloat, {3, 2, 3, 3, 3});
  EXPECT_EQ(ConvolutionDescriptor(miopenConvolution, {1, 0, 0}, {1, 1, 2}, {1, 1, 1})
                .forward_output_lens(x3, w3),
            (std::vector<size_t>{1, 3, 5, 4, 3}));
}

TEST(ConvolutionDescriptor, Validation) {
  EXPECT_EQ(status_of([] {
              ConvolutionDescriptor(miopenConvolution, {-1, 0}, {1, 1}, {1, 1});
            }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([] {
              ConvolutionDescriptor(miopenConvolution, {0, 0}, {0, 1}, {1, 1});
            }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([] {
              ConvolutionDescriptor(miopenConvolution, {0, 0}, {1, 1}, {1, 0});
            }),
            miopenStatusBadParm);
  EXPECT_EQ(
      status_of([] {
        ConvolutionDescriptor(static_cast<miopenConvolutionMode_t>(7), {0, 0}, {1, 1}, {1, 1});
      }),
      miopenStatusBadParm);
  EXPECT_EQ(status_of([] { ConvolutionDescriptor(miopenConvolution, {0}, {1}, {1}); }),
            miopenStatusNotImplemented);
  ConvolutionDescriptor c;
  EXPECT_EQ(status_of([&] { c.set_group_count(0); }), miopenStatusBadParm);
  const TensorDescriptor x(miopenFloat, {1, 6, 8, 8});
  // channel mismatch, groups not dividing K, wrong rank, adj >= stride
  EXPECT_EQ(status_of([&] {
              c.forward_output_lens(x, TensorDescriptor(miopenFloat, {4, 5, 3, 3}));
            }),
            miopenStatusBadParm);
  c.set_group_count(3);
  EXPECT_EQ(status_of([&] {
              c.forward_output_lens(x, TensorDescriptor(miopenFloat, {4, 2, 3, 3}));
            }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([&] {
              c.forward_output_lens(x, TensorDescriptor(miopenFloat, {6, 2, 3}));
            }),
            miopenStatusBadParm);
  ConvolutionDescriptor t(miopenTranspose, {0, 0}, {2, 2}, {1, 1});
  t.set_trans_output_pads({2, 0});
  EXPECT_EQ(status_of([&] {
              t.forward_output_lens(x, TensorDescriptor(miopenFloat, {6, 2, 3, 3}));
            }),
            miopenStatusBadParm);
}

TEST(ConvolutionDescriptor, Attributes) {
  ConvolutionDescriptor c;
  EXPECT_EQ(c.get_attribute(MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL), -1);
  c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1);
  EXPECT_EQ(c.get_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC), 1);
  EXPECT_EQ(status_of([&] { c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 2); }),
            miopenStatusBadParm);
  EXPECT_EQ(status_of([&] { c.set_attribute(static_cast<miopenConvolutionAttrib_t>(9), 0); }),
            miopenStatusBadParm);
}

// Packed-layout rows per step (triaging fuzz_descriptors reports: a table over the steps took
// batch x max_len work, then gigabytes for a valid huge maxSequenceLen): against the per-step
// count, and huge lengths that must size nothing.
TEST(SeqTensorDescriptor, StepRowsCountSequencesLongerThanEachStep) {
  const std::vector<int> lens = {5, 5, 3, 3, 1, 0};
  SeqTensorDescriptor d;
  d.assign(miopenFloat, miopenRNNDataSeqMajorNotPadded, 6, static_cast<int>(lens.size()), 2,
           lens.data(), nullptr);
  size_t want = 0;
  for (int t = 0; t <= 8; ++t) {
    EXPECT_EQ(d.rows_before(t), want) << "t = " << t;
    for (int l : lens)
      want += l > t ? 1 : 0;
  }
  EXPECT_EQ(d.element_space(), 2u * 17);
  EXPECT_EQ(d.offset(1, 3), 2u * (d.rows_before(3) + 1));
  const std::vector<int> many(1 << 12, 3);
  SeqTensorDescriptor big;
  big.assign(miopenFloat, miopenRNNDataSeqMajorNotPadded, 1 << 20, static_cast<int>(many.size()), 1,
             many.data(), nullptr);
  EXPECT_EQ(big.element_space(), 3u * many.size());
  // A valid length near INT_MAX: no table sized by it.
  const std::vector<int> longest = {2'000'000'000, 3};
  SeqTensorDescriptor huge;
  huge.assign(miopenFloat, miopenRNNDataSeqMajorNotPadded, 2'000'000'000, 2, 1, longest.data(),
              nullptr);
  EXPECT_EQ(huge.len_prefix.size(), 3u);
  EXPECT_EQ(huge.element_space(), 2'000'000'003u);
  EXPECT_EQ(huge.offset(0, 1'999'999'999), 1'999'999'999u + 3);
  EXPECT_EQ(huge.offset(1, 2), 2u * 2 + 1);
}

}  // namespace
}  // namespace anydnn
