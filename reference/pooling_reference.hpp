// Naive pooling reference in double: the test oracle (and the driver's -V 1 check). It follows
// MIOpen's host check (driver/mloPoolingHost.hpp) and naive kernel (MIOpenPoolingForwardNaive.cl)
// and shares no code with the library's kernels. Values are in packed logical order
// (n, c, [d,] h, w), whatever the tensors' layout.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <vector>

namespace anydnn::ref {

struct PoolingRefDesc {
  miopenPoolingMode_t mode = miopenPoolingMax;
  std::vector<int> lens, pads, strides;  // per spatial dimension (2 or 3)
  miopenPoolingWorkspaceIndexMode_t index_mode = miopenPoolingWorkspaceIndexMask;
};

struct PoolingRefForward {
  std::vector<double> y;
  // The index MIOpen stores for each output (max only; 0 where no element won).
  std::vector<uint64_t> index;
  // Where the winner is in x (packed logical offset), or -1 (max only).
  std::vector<long long> source;
};

// in_lens / out_lens: n, c and the spatial lengths. Max starts from the data type's lowest
// finite value `lowest` (MIOpen's -MAX_VAL) and keeps the first strictly greater element.
PoolingRefForward pooling_forward(const PoolingRefDesc& d, const std::vector<size_t>& in_lens,
                                  const std::vector<size_t>& out_lens, const std::vector<double>& x,
                                  double lowest);

// dx for dy; max routes each dy to the element `fwd.source` names (MIOpen's host check).
std::vector<double> pooling_backward(const PoolingRefDesc& d, const std::vector<size_t>& in_lens,
                                     const std::vector<size_t>& out_lens,
                                     const std::vector<double>& dy, const PoolingRefForward& fwd);

}  // namespace anydnn::ref
