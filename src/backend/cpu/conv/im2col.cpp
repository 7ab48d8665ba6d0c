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

// One run of consecutive output pixels of one column-matrix row that share an input row:
// columns [col, col + len) of row `row`; of these, [col + lo, col + hi) read input elements
// input + j * step (j = 0 .. hi - lo - 1); the others read padding.
struct Segment {
  size_t row;
  size_t col;
  long len;
  long lo;
  long hi;
  long input;  // element offset (from the image's channel 0) of the first valid column
  long step;
};

// Walks every segment of the column matrix of channels [c_begin, c_begin + c_count) and output
// pixels [p_begin, p_begin + tile). im2col and col2im are both this walk with a different body.
template <class Visit>
void for_each_segment(const ConvProblem& p, size_t c_begin, size_t c_count, size_t p_begin,
                      size_t tile, Visit&& visit) {
  const auto xs = strides_ncdhw(p.x());
  const auto& in = p.in_size();
  const auto& f = p.filter_size();
  const auto& out = p.out_size();
  const auto& pad = p.pads();
  const auto& st = p.strides();
  const auto& dil = p.dilations();
  const size_t plane = out[1] * out[2];
  const long in_w = static_cast<long>(in[2]);
  const long out_w = static_cast<long>(out[2]);
  size_t r = 0;
  for (size_t c = 0; c < c_count; ++c) {
    const long channel = static_cast<long>((c_begin + c) * xs[1]);
    for (size_t fz = 0; fz < f[0]; ++fz) {
      for (size_t fy = 0; fy < f[1]; ++fy) {
        for (size_t fx = 0; fx < f[2]; ++fx, ++r) {
          // Output columns whose input column is inside the image: ow in [ow_lo, ow_hi].
          const long off = static_cast<long>(fx) * dil[2] - pad[2];
          const long ow_lo = std::max(0L, ceil_div(-off, st[2]));
          const long ow_hi = std::min(out_w - 1, floor_div(in_w - 1 - off, st[2]));
          size_t q = p_begin;
          const size_t q_end = p_begin + tile;
          while (q < q_end) {
            const size_t od = q / plane;
            const size_t rem = q % plane;
            const size_t oh = rem / out[2];
            const long ow0 = static_cast<long>(rem % out[2]);
            const long seg = std::min<long>(out_w - ow0, static_cast<long>(q_end - q));
            const long iz = static_cast<long>(od * st[0] + fz * dil[0]) - pad[0];
            const long iy = static_cast<long>(oh * st[1] + fy * dil[1]) - pad[1];
            Segment s{r, q - p_begin, seg, 0, 0, 0, st[2] * static_cast<long>(xs[4])};
            if (iz >= 0 && iz < static_cast<long>(in[0]) && iy >= 0 &&
                iy < static_cast<long>(in[1])) {
              const long lo = std::clamp(ow_lo, ow0, ow0 + seg);
              const long hi = std::clamp(ow_hi + 1, lo, ow0 + seg);
              s.lo = lo - ow0;
              s.hi = hi - ow0;
              s.input = channel + iz * static_cast<long>(xs[2]) + iy * static_cast<long>(xs[3]) +
                        (lo * st[2] + off) * static_cast<long>(xs[4]);
            }
            visit(s);
            q += static_cast<size_t>(seg);
          }
        }
      }
    }
  }
}

}  // namespace

template <class T>
void im2col_tile(const ConvProblem& p, const T* x_image, size_t c_begin, size_t c_count,
                 size_t p_begin, size_t tile, float* col) {
  for_each_segment(p, c_begin, c_count, p_begin, tile, [&](const Segment& s) {
    float* dst = col + s.row * tile + s.col;
    std::fill(dst, dst + s.lo, 0.0f);
    const T* src = x_image + s.input;
    float* d = dst + s.lo;
    const long n = s.hi - s.lo;
    if constexpr (std::is_same_v<T, float>) {
      if (s.step == 1) {
        std::memcpy(d, src, static_cast<size_t>(n) * sizeof(float));
      } else {
        for (long j = 0; j < n; ++j)
          d[j] = src[j * s.step];
      }
    } else {
      for (long j = 0; j < n; ++j)
        d[j] = to_float(src[j * s.step]);
    }
    std::fill(dst + s.hi, dst + s.len, 0.0f);
  });
}

void col2im_add_tile(const ConvProblem& p, const float* col, size_t c_begin, size_t c_count,
                     size_t p_begin, size_t tile, float* dx_image) {
  for_each_segment(p, c_begin, c_count, p_begin, tile, [&](const Segment& s) {
    const float* src = col + s.row * tile + s.col + s.lo;
    float* dst = dx_image + s.input;
    for (long j = 0; j < s.hi - s.lo; ++j)
      dst[j * s.step] += src[j];
  });
}

template void im2col_tile<float>(const ConvProblem&, const float*, size_t, size_t, size_t, size_t,
                                 float*);
template void im2col_tile<Half>(const ConvProblem&, const Half*, size_t, size_t, size_t, size_t,
                                float*);
template void im2col_tile<BFloat16>(const ConvProblem&, const BFloat16*, size_t, size_t, size_t,
                                    size_t, float*);

}  // namespace anydnn::cpu
