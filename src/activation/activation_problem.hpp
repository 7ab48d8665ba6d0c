// An activation problem: the descriptor's mode and parameters and the tensors of one
// miopenActivationForward / Backward call, validated, with its canonical string in MIOpenDriver
// `activ` syntax (log field, test name, repro line). For a 4-D tensor it is exactly the line
// MIOpen's LogCmdActivation prints:
//   "activ -n 32 -c 64 -H 56 -W 56 -m 3 --forw 1 -A 1 -B 1 -G 1"
// (activfp16 for half data; --forw 2 for backward). MIOpen's line has no room for other ranks
// (it reads four lengths whatever the rank): 1-D..3-D tensors print as MIOpen's strided kernel
// sees them (W, HxW, CxHxW, the rest 1), a 5-D one adds the anydnn flag -D depth, bfloat16 data
// the base activbfp16 and a layout other than NCHW / NCDHW --layout. Padded strides do not show.
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "activation/activation_math.hpp"
#include "core/call_tensors.hpp"
#include "core/elementwise_geometry.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

enum class ActivDirection { Forward, Backward };

using ActivDescriptors = CallDescriptors;  // core/call_tensors.hpp

// The activation descriptor's contents.
struct ActivMode {
  miopenActivationMode_t mode = miopenActivationPASTHRU;
  double alpha = 0.0, beta = 0.0, gamma = 0.0;
};

class ActivationProblem {
 public:
  // Geometry indices of the tensors (ActivGeometry::strides[...]).
  static constexpr int kX = 0, kY = 1, kDx = 2, kDy = 3;

  // Throws BadParm (one-line reason) for descriptors that do not describe one call (unset,
  // different element counts or data types, overlapping output elements, invalid mode) and
  // NotImplemented for valid but unsupported ones (integer data).
  ActivationProblem(ActivDirection direction, const ActivMode& mode, const ActivDescriptors& d);

  ActivDirection direction() const { return direction_; }
  bool forward() const { return direction_ == ActivDirection::Forward; }
  miopenActivationMode_t mode() const { return mode_.mode; }
  const ActivMode& descriptor() const { return mode_; }
  // alpha, beta, gamma in fp32 with MIOpen's derived values (epsilon by data type).
  const activ::ActivParams& params() const { return params_; }
  const TensorDescriptor& x() const { return x_; }
  const TensorDescriptor& y() const { return y_; }
  const TensorDescriptor& dx() const { return dx_; }  // backward only
  const TensorDescriptor& dy() const { return dy_; }  // backward only
  miopenDataType_t data_type() const { return x_.type(); }
  size_t element_count() const { return x_.element_count(); }
  // x, y (and dx, dy) walked together; the output's memory order first.
  const ActivGeometry& geometry() const { return geometry_; }

  const std::string& key() const { return key_; }
  // The driver base for a data type: activ, activfp16, activbfp16.
  static std::string driver_base(miopenDataType_t type);

 private:
  ActivDirection direction_;
  ActivMode mode_;
  activ::ActivParams params_;
  TensorDescriptor x_, y_, dx_, dy_;
  ActivGeometry geometry_;
  std::string key_;
};

}  // namespace anydnn
