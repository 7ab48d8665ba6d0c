// The iteration space of an elementwise call over several tensors, computed once per problem
// by the problems of every family that walks tensors elementwise (activation, softmax, LRN,
// pooling, CTC, attention) and shared by both backends' solvers: the tensors' common shape with
// unit-length dimensions dropped, dimensions ordered by the primary tensor's strides (so NHWC data
// is walked in memory order) and merged wherever every tensor is contiguous across them. Two packed
// tensors of one layout become a single dimension of stride 1 (contiguous()).
//
// MIOpen pairs the elements of tensors with different lengths but equal counts by their
// row-major logical index; the common shape is then the coarsest shape both lengths refine to
// (x 2x6 and y 12 -> 2x6; x 2x3 and y 3x2 have none, NotImplemented).
#pragma once

#include <vector>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

struct ActivGeometry {
  static constexpr int kMaxRank = 8;
  static constexpr int kMaxTensors = 4;
  int rank = 1;  // >= 1; a single element is one dimension of length 1
  int tensors = 0;
  long long count = 1;
  long long lens[kMaxRank] = {};                  // outermost first
  long long strides[kMaxTensors][kMaxRank] = {};  // per tensor, in elements

  // One dimension in which every tensor has stride 1: a flat loop over `count` elements.
  bool contiguous() const {
    if (rank != 1) return false;
    for (int t = 0; t < tensors; ++t)
      if (strides[t][0] != 1) return false;
    return true;
  }
  // The innermost dimension has stride 1 in every tensor (rows a vector loop can take).
  bool unit_inner_stride() const {
    for (int t = 0; t < tensors; ++t)
      if (strides[t][rank - 1] != 1) return false;
    return true;
  }
};

// `tensors` have equal element counts (checked by the caller). Throws NotImplemented when their
// lengths have no common shape of at most kMaxRank dimensions. `primary` indexes the tensor
// whose memory order the walk follows (the output).
ActivGeometry make_activ_geometry(const std::vector<const TensorDescriptor*>& tensors, int primary);

// True when no two elements of `d` share an address (checked for outputs: a write must not
// land on another element). Conservative: an interleaving of dimensions is reported as overlap.
bool elements_disjoint(const TensorDescriptor& d);

}  // namespace anydnn
