// Convolution helpers shared by the per-solver tests (CPU: unit/conv_solvers_test.cpp; CUDA:
// gpu/conv_solvers_gpu_test.cpp, gpu/implicit_gemm_tc_gpu_test.cpp): descriptors from a driver
// line, host tensors shaped like a descriptor, the double reference of a problem's direction and
// MIOpen's tolerance for it.
#pragma once

#include <vector>

#include "conv/conv_problem.hpp"
#include "conv_reference.hpp"
#include "conv_spec.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"
#include "verify.hpp"

namespace anydnn::test {

inline std::vector<size_t> to_sizes(const std::vector<int>& v) {
  return {v.begin(), v.end()};
}

// A zeroed host tensor with the descriptor's type, lengths and strides.
inline driver::HostTensor host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

struct BuiltConv {
  TensorDescriptor x, w, y;
  ConvolutionDescriptor conv;
};

// The descriptors a driver line describes (the output sized by the convolution).
inline BuiltConv build_conv(const driver::ConvSpec& s) {
  BuiltConv b;
  b.x = TensorDescriptor::with_layout(s.type, s.in_layout, to_sizes(s.in_lens));
  b.w = TensorDescriptor::with_layout(s.type, s.fil_layout, to_sizes(s.wei_lens));
  b.conv = ConvolutionDescriptor(s.transpose ? miopenTranspose : miopenConvolution, s.pads,
                                 s.strides, s.dilations);
  b.conv.set_group_count(s.groups);
  if (s.transpose) b.conv.set_trans_output_pads(s.trans_output_pads);
  b.y = TensorDescriptor::with_layout(s.type, s.out_layout, b.conv.forward_output_lens(b.x, b.w));
  return b;
}

inline ref::ConvParams conv_params(const driver::ConvSpec& s) {
  return {s.pads, s.strides, s.dilations, s.groups};
}

// Reference result of the problem's (normalised) direction: the solver's output tensor.
inline std::vector<double> conv_reference(const ConvProblem& p, const ref::ConvParams& params,
                                          const driver::HostTensor& x, const driver::HostTensor& w,
                                          const driver::HostTensor& y) {
  switch (p.direction()) {
    case ConvDirection::Forward:
      return ref::conv_forward(x.view(), w.view(), params, y.lens);
    case ConvDirection::BackwardData:
      return ref::conv_backward_data(y.view(), w.view(), params, x.lens);
    case ConvDirection::BackwardWeights:
      return ref::conv_backward_weights(x.view(), y.view(), params, w.lens);
  }
  return {};
}

// MIOpen's tolerance `base` for the direction (backward weights: twice it).
inline double direction_tolerance(const ConvProblem& p, double base) {
  return p.direction() == ConvDirection::BackwardWeights ? 2 * base : base;
}
inline double conv_tolerance(const ConvProblem& p) {
  return direction_tolerance(p, ref::conv_default_tolerance(p.data_type()));
}

}  // namespace anydnn::test
