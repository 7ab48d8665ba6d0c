// The pooling descriptor's contents and the arithmetic MIOpen derives from it before any kernel
// runs: output lengths (miopenGetPooling[Nd]ForwardOutputDim), workspace sizes and the index
// range check. Written once for the C API, the problem and the driver.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// As MIOpen's PoolingDescriptor: a new descriptor is max pooling with no window (unset), uint8
// indices and mask indices; Set2d / SetNd reset the index mode to mask for 2-D windows and to
// image for 3-D ones (MIOpen's constructor does this; its Nd backward has no mask mode).
struct PoolingDesc {
  miopenPoolingMode_t mode = miopenPoolingMax;
  std::vector<int> lens, pads, strides;  // window, padding, stride per spatial dimension
  miopenIndexType_t index_type = miopenIndexUint8;
  miopenPoolingWorkspaceIndexMode_t index_mode = miopenPoolingWorkspaceIndexMask;

  bool is_set() const { return !lens.empty(); }
  int spatial_dims() const { return static_cast<int>(lens.size()); }
};

size_t pooling_index_size(miopenIndexType_t t);
// The largest value an index of type t holds; MIOpen reserves it and refuses windows / images
// with as many positions.
uint64_t pooling_index_max(miopenIndexType_t t);

// Output lengths for input `x`: n and c copied, each spatial length
// max(1, (in + 2 * pad - window) / stride + 1) (MIOpen's default padding mode). Throws BadParm
// when x's rank is not the window's rank + 2.
std::vector<size_t> pooling_output_lens(const PoolingDesc& d, const TensorDescriptor& x);

// miopenPoolingGetWorkSpaceSizeV2: max pooling stores one index per output element.
size_t pooling_workspace_size(const PoolingDesc& d, const TensorDescriptor& y);

}  // namespace anydnn
