// A tensor descriptor: data type, lengths and strides (in elements). Lengths are always in
// logical order (N, C, [D,] H, W for activations; K, C, [Z,] Y, X for weights); the memory
// layout lives in the strides, and a layout name (NCHW, NHWC, ...) is inferred from them.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace anydnn {

class TensorDescriptor {
 public:
  static constexpr size_t kMaxDims = 8;

  TensorDescriptor() = default;
  // Validates everything (BadParm on failure). Empty strides mean packed in logical order.
  TensorDescriptor(miopenDataType_t type, std::vector<size_t> lens,
                   std::vector<size_t> strides = {});
  // Lengths in logical order, strides computed for `layout` (NCHW, NHWC, CHWN, NCDHW, NDHWC).
  static TensorDescriptor with_layout(miopenDataType_t type, const std::string& layout,
                                      std::vector<size_t> lens);

  bool is_set() const { return !lens_.empty(); }
  miopenDataType_t type() const { return type_; }
  const std::vector<size_t>& lens() const { return lens_; }
  const std::vector<size_t>& strides() const { return strides_; }
  size_t num_dims() const { return lens_.size(); }
  size_t element_count() const;
  // 1 + the largest offset the tensor touches, in elements: the size of its allocation.
  size_t element_space() const;
  size_t num_bytes() const;
  // Packed: the elements fill the allocation exactly (no gaps), in some dimension order.
  bool is_packed() const { return element_space() == element_count(); }
  // Inferred layout name for 4-D/5-D tensors ("NCHW", "NHWC", "CHWN", "NCDHW", "NDHWC"), or
  // the dimension letters ordered by decreasing stride otherwise; `fallback` for other ranks.
  std::string layout(const std::string& fallback = "NCHW") const;
  // Packed in one of the given layout's orders.
  bool is_packed_layout(const std::string& layout) const;

  bool operator==(const TensorDescriptor& o) const {
    return type_ == o.type_ && lens_ == o.lens_ && strides_ == o.strides_;
  }

 private:
  miopenDataType_t type_ = miopenFloat;
  std::vector<size_t> lens_;
  std::vector<size_t> strides_;
};

// Packed strides for lengths given in logical order and a layout string naming the memory
// order of the same letters (e.g. lens N,C,H,W with "NHWC").
std::vector<size_t> strides_for_layout(const std::vector<size_t>& lens, const std::string& layout);

}  // namespace anydnn
