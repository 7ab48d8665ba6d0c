#include "backend/cpu/dropout.hpp"

#include "backend/cpu/cpu_types.hpp"
#include "core/dropout_descriptor.hpp"

namespace anydnn::cpu {

namespace {

// Offset of logical element i of a tensor.
size_t offset_of(const TensorDescriptor& d, size_t i) {
  size_t off = 0;
  for (size_t k = d.num_dims(); k-- > 0;) {
    off += (i % d.lens()[k]) * d.strides()[k];
    i /= d.lens()[k];
  }
  return off;
}

}  // namespace

void dropout_apply(const TensorDescriptor& in_desc, const void* in,
                   const TensorDescriptor& out_desc, void* out, uint8_t* mask, bool generate,
                   uint64_t seed, uint64_t counter, float dropout, int threads) {
  const long n = static_cast<long>(in_desc.element_count());
  const float scale = 1.0f / (1.0f - dropout);
  // Both tensors packed in logical order: element i at offset i.
  size_t expect = 1;
  bool logical = true;
  for (size_t k = in_desc.num_dims(); k-- > 0;) {
    logical = logical && (in_desc.lens()[k] == 1 || in_desc.strides()[k] == expect);
    expect *= in_desc.lens()[k];
  }
  const bool linear = logical && in_desc.strides() == out_desc.strides();
  dispatch_float_type(in_desc.type(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
#pragma omp parallel for num_threads(threads)
    for (long i = 0; i < n; ++i) {
      if (generate)
        mask[i] = DropoutDescriptor::keep(seed, counter, static_cast<uint64_t>(i), dropout) ? 1 : 0;
      const size_t si = linear ? static_cast<size_t>(i) : offset_of(in_desc, i);
      const size_t di = linear ? static_cast<size_t>(i) : offset_of(out_desc, i);
      dst[di] = from_float<T>(mask[i] ? to_float(src[si]) * scale : 0.0f);
    }
  });
}

}  // namespace anydnn::cpu
