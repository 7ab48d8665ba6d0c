// fp16 RNN calls run the fp32 kernels: the caller's half tensors are converted into an fp32
// area at the end of the workspace (RnnShape::staging_offset_floats), the call runs on those
// copies, and its outputs are converted back (round to nearest even). The activations the
// backward passes need stay in fp32 in the reserve, so fp16 training loses precision only at
// the call's boundary; the reserve and workspace sizes of an fp16 call say so.
// For fp32 descriptors every function passes the caller's pointers straight through, so the
// shims build their buffers the same way for both types. Conversions run on the handle's
// backend (threads on the CPU, kernels on the handle's stream on CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rnn/rnn_shape.hpp"

namespace anydnn {

class Backend;

class RnnHalfStaging {
 public:
  RnnHalfStaging(const RnnShape& s, void* workspace, Backend& backend);
  RnnHalfStaging(const RnnHalfStaging&) = delete;
  RnnHalfStaging& operator=(const RnnHalfStaging&) = delete;

  bool half() const { return half_; }
  // An input of n values: the caller's fp32 pointer, or its fp32 copy (null stays null).
  const float* in(const void* src, size_t n);
  // An output of n values: the caller's fp32 pointer, or a slot that finish() converts back.
  float* out(void* dst, size_t n);
  // Converts every output slot into the caller's half tensor.
  void finish();

  // Floats of the staging area an fp16 call of this shape needs (0 for fp32): every tensor a
  // forward or backward call converts, x/dx, w/dw, y/dy and six state tensors.
  static size_t area_floats(const RnnShape& s);

 private:
  float* take(size_t n);
  bool half_;
  Backend& backend_;
  float* next_ = nullptr;
  float* end_ = nullptr;
  struct Pending {
    float* from;
    uint16_t* to;
    size_t n;
  };
  std::vector<Pending> pending_;
};

}  // namespace anydnn
