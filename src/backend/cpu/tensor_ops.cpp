#include "backend/cpu/tensor_ops.hpp"

#include "backend/cpu/cpu_types.hpp"
#include "core/errors.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void blend(const TensorDescriptor& d, const T* src, T* dst, float alpha, float beta, int threads) {
  const auto& lens = d.lens();
  const auto& strides = d.strides();
  const size_t inner = lens.back();
  const size_t inner_stride = strides.back();
  const long rows = static_cast<long>(d.element_count() / inner);
#pragma omp parallel for num_threads(threads)
  for (long r = 0; r < rows; ++r) {
    // Offset of row r: decompose it over the outer dimensions.
    size_t rem = static_cast<size_t>(r), off = 0;
    for (size_t i = lens.size() - 1; i-- > 0;) {
      off += (rem % lens[i]) * strides[i];
      rem /= lens[i];
    }
    for (size_t j = 0; j < inner; ++j) {
      const size_t o = off + j * inner_stride;
      const float v = alpha * to_float(src[o]);
      dst[o] = from_float<T>(beta == 0.0f ? v : v + beta * to_float(dst[o]));
    }
  }
}

}  // namespace

void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha, float beta,
                 int threads) {
  dispatch_float_type(desc.type(), [&](auto tag) {
    using T = decltype(tag);
    blend<T>(desc, static_cast<const T*>(src), static_cast<T*>(dst), alpha, beta, threads);
  });
}

}  // namespace anydnn::cpu
