#include "core/tensor_descriptor.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string_view>

#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn {

namespace {

// Logical letters for a rank; weights use the same letters (K in the N slot, C in C).
std::string logical_letters(size_t rank) {
  switch (rank) {
    case 4:
      return "NCHW";
    case 5:
      return "NCDHW";
    default:
      return {};
  }
}

size_t checked_mul(size_t a, size_t b) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a)
    ANYDNN_THROW(miopenStatusBadParm, "tensor size overflows size_t");
  return a * b;
}

}  // namespace

TensorDescriptor::TensorDescriptor(miopenDataType_t type, std::vector<size_t> lens,
                                   std::vector<size_t> strides)
    : type_(type), lens_(std::move(lens)), strides_(std::move(strides)) {
  ANYDNN_CHECK_BADPARM(is_valid_data_type(type_), "invalid data type " << static_cast<int>(type_));
  ANYDNN_CHECK_BADPARM(!lens_.empty() && lens_.size() <= kMaxDims,
                       "number of dimensions must be 1.." << kMaxDims << ", got " << lens_.size());
  for (size_t i = 0; i < lens_.size(); ++i)
    ANYDNN_CHECK_BADPARM(lens_[i] > 0, "tensor length " << i << " must be > 0");
  if (strides_.empty()) {
    strides_.assign(lens_.size(), 1);
    for (size_t i = lens_.size() - 1; i > 0; --i)
      strides_[i - 1] = checked_mul(strides_[i], lens_[i]);
  }
  ANYDNN_CHECK_BADPARM(strides_.size() == lens_.size(),
                       "got " << strides_.size() << " strides for " << lens_.size() << " lengths");
  for (size_t i = 0; i < strides_.size(); ++i)
    ANYDNN_CHECK_BADPARM(strides_[i] > 0, "tensor stride " << i << " must be > 0");
  // The whole allocation and its byte size must be representable.
  size_t space = 1;
  for (size_t i = 0; i < lens_.size(); ++i) {
    const size_t span = checked_mul(lens_[i] - 1, strides_[i]);
    ANYDNN_CHECK_BADPARM(space <= std::numeric_limits<size_t>::max() - span,
                         "tensor size overflows size_t");
    space += span;
  }
  checked_mul(space, data_type_size(type_));
  checked_mul(element_count(), 1);
}

TensorDescriptor TensorDescriptor::with_layout(miopenDataType_t type, const std::string& layout,
                                               std::vector<size_t> lens) {
  auto strides = strides_for_layout(lens, layout);
  return TensorDescriptor(type, std::move(lens), std::move(strides));
}

size_t TensorDescriptor::element_count() const {
  size_t n = 1;
  for (size_t l : lens_)
    n = checked_mul(n, l);
  return lens_.empty() ? 0 : n;
}

size_t TensorDescriptor::element_space() const {
  if (lens_.empty()) return 0;
  size_t space = 1;
  for (size_t i = 0; i < lens_.size(); ++i)
    space += (lens_[i] - 1) * strides_[i];
  return space;
}

size_t TensorDescriptor::num_bytes() const {
  return element_space() * data_type_size(type_);
}

bool TensorDescriptor::is_packed_layout(const std::string& layout) const {
  // Without allocating: every convolution call's problem key asks this of three tensors.
  const std::string_view letters = lens_.size() == 4   ? std::string_view("NCHW")
                                   : lens_.size() == 5 ? std::string_view("NCDHW")
                                                       : std::string_view();
  if (letters.empty() || layout.size() != letters.size() ||
      !std::is_permutation(layout.begin(), layout.end(), letters.begin()))
    return false;
  size_t running = 1;
  for (size_t pos = layout.size(); pos-- > 0;) {
    const size_t dim = letters.find(layout[pos]);
    if (dim == std::string_view::npos) return false;
    // A length-1 dimension's stride never matters, so it matches any layout.
    if (lens_[dim] != 1 && strides_[dim] != running) return false;
    running *= lens_[dim];
  }
  return true;
}

std::string TensorDescriptor::layout(const std::string& fallback) const {
  const std::string letters = logical_letters(lens_.size());
  if (letters.empty()) return fallback;
  static const std::string k4[] = {"NCHW", "NHWC", "CHWN"};
  static const std::string k5[] = {"NCDHW", "NDHWC"};
  if (lens_.size() == 4) {
    for (const auto& l : k4)
      if (is_packed_layout(l)) return l;
  } else {
    for (const auto& l : k5)
      if (is_packed_layout(l)) return l;
  }
  // Not packed in a known order: name the order of decreasing strides (stable for ties).
  std::vector<size_t> order(lens_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return strides_[a] > strides_[b]; });
  std::string result;
  for (size_t i : order)
    result += letters[i];
  return result;
}

std::vector<size_t> strides_for_layout(const std::vector<size_t>& lens, const std::string& layout) {
  const std::string letters = logical_letters(lens.size());
  ANYDNN_CHECK_BADPARM(!letters.empty() && layout.size() == letters.size() &&
                           std::is_permutation(layout.begin(), layout.end(), letters.begin()),
                       "layout " << layout << " does not fit a " << lens.size() << "-D tensor");
  std::vector<size_t> strides(lens.size(), 1);
  size_t running = 1;
  for (size_t pos = layout.size(); pos-- > 0;) {
    const size_t dim = letters.find(layout[pos]);
    strides[dim] = running;
    running = checked_mul(running, lens[dim]);
  }
  return strides;
}

}  // namespace anydnn
