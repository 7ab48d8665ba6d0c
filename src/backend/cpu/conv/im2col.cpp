#include "backend/cpu/conv/im2col.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace anydnn::cpu {

namespace {

// floor(a / b) and ceil(a / b) for b > 0 and any sign of a.
long floor_div(long a, long b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
long ceil_div(long a, long b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

}  // namespace

template <class T>
void im2col_tile(const ConvProblem& p, const T* x_image, size_t c_begin, size_t c_count,
                 size_t p_begin, size_t tile, float* col) {
  const auto xs = strides_ncdhw(p.x());
  const auto& in = p.in_size();
  const auto& f = p.filter_size();
  const auto& out = p.out_size();
  const auto& pad = p.pads();
  const auto& st = p.strides();
  const auto& dil = p.dilations();
  const size_t plane = out[1] * out[2];
  const long in_w = static_cast<long>(in[2]);

  size_t r = 0;
  for (size_t c = 0; c < c_count; ++c) {
    const T* xc = x_image + (c_begin + c) * xs[1];
    for (size_t fz = 0; fz < f[0]; ++fz) {
      for (size_t fy = 0; fy < f[1]; ++fy) {
        for (size_t fx = 0; fx < f[2]; ++fx, ++r) {
          float* dst = col + r * tile;
          // Output columns whose input column is inside the image: ow in [ow_lo, ow_hi].
          const long off = static_cast<long>(fx) * dil[2] - pad[2];
          const long ow_lo = std::max(0L, ceil_div(-off, st[2]));
          const long ow_hi =
              std::min(static_cast<long>(out[2]) - 1, floor_div(in_w - 1 - off, st[2]));
          size_t q = p_begin;
          const size_t q_end = p_begin + tile;
          while (q < q_end) {
            const size_t od = q / plane;
            const size_t rem = q % plane;
            const size_t oh = rem / out[2];
            const long ow0 = static_cast<long>(rem % out[2]);
            const long seg =
                std::min<long>(static_cast<long>(out[2]) - ow0, static_cast<long>(q_end - q));
            const long iz = static_cast<long>(od * st[0] + fz * dil[0]) - pad[0];
            const long iy = static_cast<long>(oh * st[1] + fy * dil[1]) - pad[1];
            if (iz < 0 || iz >= static_cast<long>(in[0]) || iy < 0 ||
                iy >= static_cast<long>(in[1])) {
              std::fill(dst, dst + seg, 0.0f);
            } else {
              const T* row = xc + iz * xs[2] + iy * xs[3];
              const long lo = std::clamp(ow_lo, ow0, ow0 + seg);
              const long hi = std::clamp(ow_hi + 1, lo, ow0 + seg);
              std::fill(dst, dst + (lo - ow0), 0.0f);
              const long step = st[2] * static_cast<long>(xs[4]);
              const T* src = row + (lo * st[2] + off) * static_cast<long>(xs[4]);
              float* d = dst + (lo - ow0);
              if constexpr (std::is_same_v<T, float>) {
                if (step == 1) {
                  std::memcpy(d, src, static_cast<size_t>(hi - lo) * sizeof(float));
                } else {
                  for (long j = 0; j < hi - lo; ++j)
                    d[j] = src[j * step];
                }
              } else {
                for (long j = 0; j < hi - lo; ++j)
                  d[j] = to_float(src[j * step]);
              }
              std::fill(dst + (hi - ow0), dst + seg, 0.0f);
            }
            dst += seg;
            q += static_cast<size_t>(seg);
          }
        }
      }
    }
  }
}

template void im2col_tile<float>(const ConvProblem&, const float*, size_t, size_t, size_t, size_t,
                                 float*);
template void im2col_tile<Half>(const ConvProblem&, const Half*, size_t, size_t, size_t, size_t,
                                float*);
template void im2col_tile<BFloat16>(const ConvProblem&, const BFloat16*, size_t, size_t, size_t,
                                    size_t, float*);

}  // namespace anydnn::cpu
