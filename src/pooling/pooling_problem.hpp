// A pooling problem: the descriptor and the tensors of one miopenPoolingForward / Backward call,
// validated, with its canonical string: the MIOpenDriver `pool` command MIOpen's
// Pooling_logging_cmd prints (LogCmdPooling), byte for byte:
//   "pool -M 0 --input 32x64x56x56,200704x3136x56x1 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 -m max -F 1 -t 1"
// (3-D adds -Z / -o / -s; poolfp16 for half data; -F 0 for backward). MIOpen prints "???" as the
// base for bfloat16; we print poolbfp16, which our driver runs. The index type is not on MIOpen's
// line (a replay uses uint8), so it is not on ours either.
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "core/call_tensors.hpp"
#include "core/tensor_descriptor.hpp"
#include "pooling/pooling_desc.hpp"
#include "pooling/pooling_math.hpp"

namespace anydnn {

enum class PoolDirection { Forward, Backward };

using PoolDescriptors = CallDescriptors;  // core/call_tensors.hpp

class PoolingProblem {
 public:
  // Throws BadParm (one-line reason) for descriptors that do not describe one call (unset,
  // ranks or batch / channel counts that differ, data types that differ, overlapping outputs,
  // an index type too narrow for the window or image when max pooling saves indices) and
  // NotImplemented for valid but unsupported ones (not 4-D / 5-D, non-float data).
  // save_index: forward with do_backward (indices written to the workspace; max only).
  PoolingProblem(PoolDirection direction, const PoolingDesc& desc, const PoolDescriptors& d,
                 bool save_index);

  PoolDirection direction() const { return direction_; }
  bool forward() const { return direction_ == PoolDirection::Forward; }
  const PoolingDesc& desc() const { return desc_; }
  miopenPoolingMode_t mode() const { return desc_.mode; }
  // Forward with max pooling and do_backward: the indices go to the workspace.
  bool saves_index() const { return save_index_; }
  // Backward with max pooling: the indices come from the workspace.
  bool reads_index() const { return !forward() && desc_.mode == miopenPoolingMax; }
  const TensorDescriptor& x() const { return x_; }
  const TensorDescriptor& y() const { return y_; }
  const TensorDescriptor& dx() const { return dx_; }
  const TensorDescriptor& dy() const { return dy_; }
  miopenDataType_t data_type() const { return x_.type(); }
  // Forward: x, y strides; backward: dx, dy strides (pooling_math.hpp).
  const pool::PoolGeometry& geometry() const { return geometry_; }
  // The output tensor of the call (y forward, dx backward) is NDHWC / NHWC packed.
  bool channels_last() const;

  const std::string& key() const { return key_; }
  static std::string driver_base(miopenDataType_t type);

 private:
  PoolDirection direction_;
  PoolingDesc desc_;
  bool save_index_;
  TensorDescriptor x_, y_, dx_, dy_;
  pool::PoolGeometry geometry_;
  std::string key_;
};

}  // namespace anydnn
