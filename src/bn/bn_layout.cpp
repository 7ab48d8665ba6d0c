// Layout predicates of batch-norm tensors (bn_layout.hpp).
#include "bn/bn_layout.hpp"

namespace anydnn {

bool image_packed(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  size_t expect = 1;
  for (size_t k = l.size(); k-- > 1;) {
    if (l[k] != 1 && s[k] != expect) return false;
    expect *= l[k];
  }
  return true;
}

bool image_channel_last(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  if (l[1] != 1 && s[1] != 1) return false;
  size_t expect = l[1];
  for (size_t k = l.size(); k-- > 2;) {
    if (l[k] != 1 && s[k] != expect) return false;
    expect *= l[k];
  }
  return true;
}

bool spatial_contiguous(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  size_t expect = 1;
  for (size_t k = l.size(); k-- > 2;) {
    if (l[k] != 1 && s[k] != expect) return false;
    expect *= l[k];
  }
  return true;
}

size_t pixel_stride(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  if (s[1] != 1 && l[1] != 1) return 0;
  size_t expect = 0;
  for (size_t k = l.size(); k-- > 2;) {
    if (expect == 0) expect = s[k];
    if (l[k] != 1 && s[k] != expect) return 0;
    expect *= l[k];
  }
  const size_t ps = s[l.size() - 1];
  return ps >= l[1] ? ps : 0;
}

}  // namespace anydnn
