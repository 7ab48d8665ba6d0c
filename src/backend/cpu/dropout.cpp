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

void CpuDropoutKernels::apply(const DropoutApply& a) {
  const TensorDescriptor& in_desc = *a.in_desc;
  const TensorDescriptor& out_desc = *a.out_desc;
  const long n = static_cast<long>(in_desc.element_count());
  dispatch_float_type(in_desc.type(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(a.in);
    T* dst = static_cast<T*>(a.out);
    uint8_t* mask = a.mask;
#pragma omp parallel for num_threads(threads_)
    for (long i = 0; i < n; ++i) {
      if (a.generate)
        mask[i] =
            DropoutDescriptor::keep(a.seed, a.counter, static_cast<uint64_t>(i), a.dropout) ? 1 : 0;
      const size_t si = a.linear ? static_cast<size_t>(i) : offset_of(in_desc, i);
      const size_t di = a.linear ? static_cast<size_t>(i) : offset_of(out_desc, i);
      dst[di] = from_float<T>(mask[i] ? to_float(src[si]) * a.scale : 0.0f);
    }
  });
}

}  // namespace anydnn::cpu
