#include "backend/cuda/conv/im2col.cuh"
#include "backend/cuda/cuda_check.hpp"

namespace anydnn::cuda {

namespace {

// One thread per col element; consecutive threads take consecutive output pixels of one row,
// so the writes are coalesced.
template <class T>
__global__ void im2col_kernel(ConvGeom g, const T* x, T* col) {
  const long long pixels = g.out_pixels();
  const long long taps = g.taps();
  const long long total = g.c * taps * pixels;
  for (long long i = thread_index(); i < total; i += thread_count()) {
    const long long px = i % pixels;
    const long long row = i / pixels;
    const long long tap = row % taps;
    const long long c = row / taps;
    const long long fx = tap % g.f[2];
    const long long fy = (tap / g.f[2]) % g.f[1];
    const long long fz = tap / (g.f[2] * g.f[1]);
    const long long ox = px % g.out[2];
    const long long oy = (px / g.out[2]) % g.out[1];
    const long long oz = px / (g.out[2] * g.out[1]);
    const long long iz = oz * g.st[0] + fz * g.dil[0] - g.pad[0];
    const long long iy = oy * g.st[1] + fy * g.dil[1] - g.pad[1];
    const long long ix = ox * g.st[2] + fx * g.dil[2] - g.pad[2];
    const bool inside =
        iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1] && ix >= 0 && ix < g.in[2];
    col[i] = inside ? x[c * g.xs[1] + iz * g.xs[2] + iy * g.xs[3] + ix * g.xs[4]] : store<T>(0.0f);
  }
}

// One thread per input element: the sum over the filter taps whose output position exists.
template <class T>
__global__ void col2im_kernel(ConvGeom g, const float* col, T* dx) {
  const long long pixels = g.out_pixels();
  const long long taps = g.taps();
  const long long total = g.c * g.in_pixels();
  for (long long i = thread_index(); i < total; i += thread_count()) {
    long long r = i;
    const long long ix = r % g.in[2];
    r /= g.in[2];
    const long long iy = r % g.in[1];
    r /= g.in[1];
    const long long iz = r % g.in[0];
    const long long c = r / g.in[0];
    const float* col_c = col + c * taps * pixels;
    float acc = 0.0f;
    for (long long fz = 0; fz < g.f[0]; ++fz) {
      const long long oz = conv_tap(iz, fz, g.pad[0], g.st[0], g.dil[0], g.out[0]);
      if (oz < 0) continue;
      for (long long fy = 0; fy < g.f[1]; ++fy) {
        const long long oy = conv_tap(iy, fy, g.pad[1], g.st[1], g.dil[1], g.out[1]);
        if (oy < 0) continue;
        for (long long fx = 0; fx < g.f[2]; ++fx) {
          const long long ox = conv_tap(ix, fx, g.pad[2], g.st[2], g.dil[2], g.out[2]);
          if (ox < 0) continue;
          const long long tap = (fz * g.f[1] + fy) * g.f[2] + fx;
          acc += col_c[tap * pixels + (oz * g.out[1] + oy) * g.out[2] + ox];
        }
      }
    }
    dx[c * g.xs[1] + iz * g.xs[2] + iy * g.xs[3] + ix * g.xs[4]] = store<T>(acc);
  }
}

}  // namespace

void im2col(const ConvGeom& g, miopenDataType_t type, const void* x_image, void* col,
            cudaStream_t stream) {
  const long long total = g.c * g.taps() * g.out_pixels();
  dispatch_float_type(type, [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<grid_for(total), 256, 0, stream>>>(g, static_cast<const T*>(x_image),
                                                          static_cast<T*>(col));
  });
  ANYDNN_CUDA_LAUNCHED("im2col");
}

void col2im(const ConvGeom& g, miopenDataType_t type, const float* col, void* dx_image,
            cudaStream_t stream) {
  const long long total = g.c * g.in_pixels();
  dispatch_float_type(type, [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<grid_for(total), 256, 0, stream>>>(g, col, static_cast<T*>(dx_image));
  });
  ANYDNN_CUDA_LAUNCHED("col2im");
}

}  // namespace anydnn::cuda
