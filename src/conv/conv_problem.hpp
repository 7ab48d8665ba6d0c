// A convolution problem: the descriptors of one convolution call, validated, plus its single
// canonical string in MIOpenDriver syntax. That string is the find-db key, the log field, the
// test name and the repro line (docs/databases.md, docs/log-formats.md).
//
// Solvers see a normalised view: tensors are named in the forward sense (x input activations,
// w weights, y output activations) whatever the direction, and a transposed convolution is
// rewritten as the swapped non-transposed one (forward-transpose = backward-data with x and y
// exchanged, and vice versa), as MIOpen does. The canonical string keeps the user's view.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <ostream>
#include <string>

#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

// The values are MIOpenDriver's -F bits.
enum class ConvDirection : int { Forward = 1, BackwardData = 2, BackwardWeights = 4 };

const char* direction_name(ConvDirection d);  // "Forward", "BackwardData", "BackwardWeights"

class ConvProblem {
 public:
  static constexpr int kMaxSpatial = 3;

  // The descriptors as the user passed them to the API call for `direction`:
  //   Forward:         x = xDesc,  w = wDesc,  y = yDesc
  //   BackwardData:    x = dxDesc, w = wDesc,  y = dyDesc
  //   BackwardWeights: x = xDesc,  w = dwDesc, y = dyDesc
  // Throws BadParm (with the reason) when they do not describe one valid convolution and
  // NotImplemented for valid but unsupported combinations (e.g. mixed or integer data types).
  ConvProblem(ConvDirection direction, const TensorDescriptor& x, const TensorDescriptor& w,
              const ConvolutionDescriptor& conv, const TensorDescriptor& y);

  // --- normalised view for solvers (transpose already swapped away) ---
  ConvDirection direction() const { return direction_; }
  const TensorDescriptor& x() const { return x_; }
  const TensorDescriptor& w() const { return w_; }
  const TensorDescriptor& y() const { return y_; }
  miopenDataType_t data_type() const { return x_.type(); }
  int spatial_dims() const { return spatial_; }
  size_t batch() const { return x_.lens()[0]; }
  size_t in_channels() const { return x_.lens()[1]; }
  size_t out_channels() const { return y_.lens()[1]; }
  size_t groups() const { return static_cast<size_t>(groups_); }
  // Per spatial dimension, padded to 3 with the *leading* entries (so 2-D has D = 1).
  const std::array<size_t, 3>& in_size() const { return in_; }
  const std::array<size_t, 3>& filter_size() const { return filter_; }
  const std::array<size_t, 3>& out_size() const { return out_; }
  const std::array<int, 3>& pads() const { return pad_; }
  const std::array<int, 3>& strides() const { return stride_; }
  const std::array<int, 3>& dilations() const { return dilation_; }
  const ConvAttributes& attributes() const { return attributes_; }
  bool transposed() const { return transposed_; }  // user asked for a transposed convolution

  // Multiply-adds x 2 of the direct algorithm (MIOpenDriver's flop count).
  double flop_count() const;

  // --- identity ---
  // Canonical problem string: MIOpenDriver arguments, e.g.
  //   "conv -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1"
  const std::string& key() const { return key_; }
  // key() plus the strides of any tensor that is not packed: invokers depend on strides.
  std::string network_config() const;
  // key() with every character outside [A-Za-z0-9_] replaced, for test and file names.
  std::string identifier() const;

  bool operator==(const ConvProblem& o) const {
    return key_ == o.key_ && x_ == o.x_ && w_ == o.w_ && y_ == o.y_;
  }

 private:
  std::string make_key(const TensorDescriptor& ux, const TensorDescriptor& uw,
                       const ConvolutionDescriptor& conv, const TensorDescriptor& uy) const;

  ConvDirection direction_;
  TensorDescriptor x_, w_, y_;
  int spatial_ = 2;
  int groups_ = 1;
  bool transposed_ = false;
  std::array<size_t, 3> in_{1, 1, 1}, filter_{1, 1, 1}, out_{1, 1, 1};
  std::array<int, 3> pad_{0, 0, 0}, stride_{1, 1, 1}, dilation_{1, 1, 1};
  ConvAttributes attributes_;
  std::string key_;
};

// The convolution's geometry as MIOpenDriver flags in LogCmdConvolution's order (" -n ... -j",
// 3-D flags for a 3-D convolution, -k the true output channel count), then --in_layout /
// --fil_layout / --out_layout for the tensors not in NCHW / NCDHW: what the convolution key and
// the fusion plans' CBAInfer key share.
void write_conv_flags(std::ostream& ss, const TensorDescriptor& x, const TensorDescriptor& w,
                      const ConvolutionDescriptor& conv, const TensorDescriptor& y);

}  // namespace anydnn
