// Helpers of the Find 2.0 API tests: RAII owners of problems, options and solutions, argument
// arrays, and a convolution set up from a problem-list line through the C API alone.
#pragma once

#define MIOPEN_BETA_API 1
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "api_test_util.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "conv_spec.hpp"
#include "host_buffer.hpp"
#include "verify.hpp"

namespace anydnn::test {

// MIOpen's API has no call that frees a softmax or MHA descriptor: every client leaks them, so
// these tests do too, and tell LeakSanitizer so.
inline void leaked_by_design(const void* descriptor) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_ignore_object(descriptor);
#else
  (void)descriptor;
#endif
}

struct Find2Problem {
  miopenProblem_t p = nullptr;
  Find2Problem() = default;
  explicit Find2Problem(miopenProblem_t raw) : p(raw) {}
  Find2Problem(const Find2Problem&) = delete;
  Find2Problem& operator=(const Find2Problem&) = delete;
  Find2Problem(Find2Problem&& o) noexcept : p(o.p) { o.p = nullptr; }
  ~Find2Problem() {
    if (p != nullptr) miopenDestroyProblem(p);
  }
  operator miopenProblem_t() const { return p; }
  void set(miopenTensorArgumentId_t id, miopenTensorDescriptor_t d) {
    EXPECT_EQ(miopenSetProblemTensorDescriptor(p, id, d), miopenStatusSuccess) << id;
  }
};

struct FindOptions {
  miopenFindOptions_t o = nullptr;
  FindOptions() { EXPECT_EQ(miopenCreateFindOptions(&o), miopenStatusSuccess); }
  FindOptions(const FindOptions&) = delete;
  ~FindOptions() { miopenDestroyFindOptions(o); }
  operator miopenFindOptions_t() const { return o; }
};

// The solutions of one miopenFindSolutions call, destroyed together.
struct Solutions {
  std::vector<miopenSolution_t> s;
  Solutions() = default;
  Solutions(const Solutions&) = delete;
  Solutions(Solutions&& o) noexcept : s(std::move(o.s)) { o.s.clear(); }
  ~Solutions() {
    for (auto x : s)
      miopenDestroySolution(x);
  }
  size_t size() const { return s.size(); }
  miopenSolution_t operator[](size_t i) const { return s[i]; }
};

inline Solutions find_solutions(miopenHandle_t h, miopenProblem_t p,
                                miopenFindOptions_t options = nullptr, size_t max = 64) {
  Solutions out;
  std::vector<miopenSolution_t> raw(max, nullptr);
  size_t n = 0;
  EXPECT_EQ(miopenFindSolutions(h, p, options, raw.data(), &n, max), miopenStatusSuccess);
  EXPECT_LE(n, max);
  raw.resize(n);
  out.s = raw;
  return out;
}

struct SolutionInfo {
  uint64_t id = 0;
  float time = 0.0f;
  size_t workspace = 0;
};
inline SolutionInfo info_of(miopenSolution_t s) {
  SolutionInfo i;
  EXPECT_EQ(miopenGetSolutionSolverId(s, &i.id), miopenStatusSuccess);
  EXPECT_EQ(miopenGetSolutionTime(s, &i.time), miopenStatusSuccess);
  EXPECT_EQ(miopenGetSolutionWorkspaceSize(s, &i.workspace), miopenStatusSuccess);
  return i;
}

// A solution's blob.
inline std::vector<char> save(miopenSolution_t s) {
  size_t size = 0;
  EXPECT_EQ(miopenGetSolutionSize(s, &size), miopenStatusSuccess);
  std::vector<char> blob(size);
  EXPECT_EQ(miopenSaveSolution(s, blob.data()), miopenStatusSuccess);
  return blob;
}

// The blob's FNV-1a 64 checksum, recomputed after a test edits a field (the layout is
// docs/find-and-heuristics.md's).
inline void reseal(std::vector<char>& blob) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < blob.size(); ++i) {
    h ^= static_cast<unsigned char>(blob[i]);
    h *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i)
    blob[blob.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xff);
}

// Arguments of a run: id -> buffer, descriptors not overridden.
inline std::vector<miopenTensorArgument_t> arguments(
    const std::vector<std::pair<miopenTensorArgumentId_t, void*>>& list) {
  std::vector<miopenTensorArgument_t> out;
  for (const auto& [id, buf] : list)
    out.push_back({id, nullptr, buf});
  return out;
}

inline miopenStatus_t run(miopenHandle_t h, miopenSolution_t s,
                          const std::vector<miopenTensorArgument_t>& args,
                          std::vector<uint8_t>* ws = nullptr) {
  size_t need = 0;
  EXPECT_EQ(miopenGetSolutionWorkspaceSize(s, &need), miopenStatusSuccess);
  std::vector<uint8_t> own(need);
  std::vector<uint8_t>& w = ws != nullptr ? *ws : own;
  if (w.size() < need) w.resize(need);
  return miopenRunSolution(h, s, args.size(), args.data(), w.empty() ? nullptr : w.data(),
                           w.size());
}

// A convolution from a problem-list line, set up through the C API as MIOpenDriver sets it up,
// with random host data in x, w and y (y doubles as dy).
struct ConvSetup {
  driver::ConvSpec spec;
  Tensor x, w, y;
  miopenConvolutionDescriptor_t conv = nullptr;
  driver::HostTensor hx, hw, hy;
  unsigned seed = fresh_seed();

  explicit ConvSetup(const std::string& line) {
    EXPECT_FALSE(driver::parse_conv_line(line, spec).has_value()) << line;
    const int dims = spec.spatial_dims;
    EXPECT_EQ(miopenSetNdTensorDescriptorWithLayout(
                  x.d, spec.type, *driver::layout_enum(spec.in_layout), spec.in_lens.data(),
                  static_cast<int>(spec.in_lens.size())),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetNdTensorDescriptorWithLayout(
                  w.d, spec.type, *driver::layout_enum(spec.fil_layout), spec.wei_lens.data(),
                  static_cast<int>(spec.wei_lens.size())),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCreateConvolutionDescriptor(&conv), miopenStatusSuccess);
    EXPECT_EQ(miopenInitConvolutionNdDescriptor(
                  conv, dims, spec.pads.data(), spec.strides.data(), spec.dilations.data(),
                  spec.transpose ? miopenTranspose : miopenConvolution),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetConvolutionGroupCount(conv, spec.groups), miopenStatusSuccess);
    if (spec.transpose)
      EXPECT_EQ(miopenSetTransposeConvNdOutputPadding(conv, dims, spec.trans_output_pads.data()),
                miopenStatusSuccess);
    std::vector<int> out(static_cast<size_t>(dims + 2));
    int nd = 0;
    EXPECT_EQ(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &nd, out.data()),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetNdTensorDescriptorWithLayout(
                  y.d, spec.output_type(), *driver::layout_enum(spec.out_layout), out.data(), nd),
              miopenStatusSuccess);
    hx = driver::HostTensor::from_descriptor(x);
    hw = driver::HostTensor::from_descriptor(w);
    hy = driver::HostTensor::from_descriptor(y);
    std::mt19937 rng(seed);
    for (driver::HostTensor* t : {&hx, &hw, &hy})
      fill_random(*t, rng);
  }
  ~ConvSetup() { miopenDestroyConvolutionDescriptor(conv); }

  ref::ConvParams params() const { return {spec.pads, spec.strides, spec.dilations, spec.groups}; }

  // The tensor written in `dir` and its double reference (a transposed convolution is the
  // plain one with x and y exchanged and forward and backward data exchanged).
  driver::HostTensor& output(miopenProblemDirection_t dir) {
    return dir == miopenProblemDirectionForward    ? hy
           : dir == miopenProblemDirectionBackward ? hx
                                                   : hw;
  }
  std::vector<double> reference(miopenProblemDirection_t dir) const {
    const bool t = spec.transpose;
    switch (dir) {
      case miopenProblemDirectionForward:
        return t ? ref::conv_backward_data(hx.view(), hw.view(), params(), hy.lens)
                 : ref::conv_forward(hx.view(), hw.view(), params(), hy.lens);
      case miopenProblemDirectionBackward:
        return t ? ref::conv_forward(hy.view(), hw.view(), params(), hx.lens)
                 : ref::conv_backward_data(hy.view(), hw.view(), params(), hx.lens);
      default:
        return t ? ref::conv_backward_weights(hy.view(), hx.view(), params(), hw.lens)
                 : ref::conv_backward_weights(hx.view(), hy.view(), params(), hw.lens);
    }
  }
  double tolerance(miopenProblemDirection_t dir) const {
    const double base = ref::conv_default_tolerance(spec.type);
    return dir == miopenProblemDirectionBackwardWeights ? 2 * base : base;
  }

  Find2Problem problem(miopenProblemDirection_t dir) {
    miopenProblem_t raw = nullptr;
    EXPECT_EQ(miopenCreateConvProblem(&raw, conv, dir), miopenStatusSuccess);
    Find2Problem p(raw);
    p.set(miopenTensorConvolutionX, x);
    p.set(miopenTensorConvolutionW, w);
    p.set(miopenTensorConvolutionY, y);
    return p;
  }
  std::vector<miopenTensorArgument_t> args() {
    return arguments({{miopenTensorConvolutionX, hx.data()},
                      {miopenTensorConvolutionW, hw.data()},
                      {miopenTensorConvolutionY, hy.data()}});
  }
};

inline std::vector<miopenProblemDirection_t> directions_of(const driver::ConvSpec& s) {
  std::vector<miopenProblemDirection_t> d;
  if (s.forward()) d.push_back(miopenProblemDirectionForward);
  if (s.backward_data()) d.push_back(miopenProblemDirectionBackward);
  if (s.backward_weights()) d.push_back(miopenProblemDirectionBackwardWeights);
  return d;
}

inline const char* direction_label(miopenProblemDirection_t d) {
  return d == miopenProblemDirectionForward    ? "forward"
         : d == miopenProblemDirectionBackward ? "backward data"
                                               : "backward weights";
}

}  // namespace anydnn::test
