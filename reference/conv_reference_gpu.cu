// The naive convolution reference on a CUDA device (conv_reference_gpu.hpp): conv_reference.cpp's
// loops, one thread per output element, double accumulation in the same order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "conv_reference_gpu.hpp"

namespace anydnn::ref::gpu {

namespace {

struct View5 {
  const void* data;
  miopenDataType_t type;
  long long len[5];
  long long stride[5];
};

struct Geom {
  long long pad[3], stride[3], dil[3];
  long long groups;
};

View5 view5(const DeviceView& t) {
  View5 v{t.data, t.type, {}, {}};
  if (t.lens.size() == 4) {
    const size_t l[5] = {t.lens[0], t.lens[1], 1, t.lens[2], t.lens[3]};
    const size_t s[5] = {t.strides[0], t.strides[1], 0, t.strides[2], t.strides[3]};
    for (int i = 0; i < 5; ++i)
      v.len[i] = static_cast<long long>(l[i]), v.stride[i] = static_cast<long long>(s[i]);
  } else if (t.lens.size() == 5) {
    for (int i = 0; i < 5; ++i)
      v.len[i] = static_cast<long long>(t.lens[i]),
      v.stride[i] = static_cast<long long>(t.strides[i]);
  } else {
    throw std::invalid_argument("reference convolution needs 4-D or 5-D tensors");
  }
  return v;
}

std::array<long long, 5> lens5(const std::vector<size_t>& l) {
  if (l.size() == 4)
    return {static_cast<long long>(l[0]), static_cast<long long>(l[1]), 1,
            static_cast<long long>(l[2]), static_cast<long long>(l[3])};
  return {static_cast<long long>(l[0]), static_cast<long long>(l[1]), static_cast<long long>(l[2]),
          static_cast<long long>(l[3]), static_cast<long long>(l[4])};
}

Geom geom(const ConvParams& p) {
  Geom g{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, p.groups};
  const size_t first = 3 - p.pads.size();
  for (size_t i = 0; i < p.pads.size(); ++i) {
    g.pad[first + i] = p.pads[i];
    g.stride[first + i] = p.strides[i];
    g.dil[first + i] = p.dilations[i];
  }
  return g;
}

__device__ double load(const View5& v, long long a, long long b, long long d, long long h,
                       long long w) {
  const long long off =
      a * v.stride[0] + b * v.stride[1] + d * v.stride[2] + h * v.stride[3] + w * v.stride[4];
  switch (v.type) {
    case miopenHalf:
      return __half2float(static_cast<const __half*>(v.data)[off]);
    case miopenBFloat16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(v.data)[off]);
    case miopenInt8:
      return static_cast<const signed char*>(v.data)[off];
    case miopenInt32:
      return static_cast<const int*>(v.data)[off];
    default:
      return static_cast<const float*>(v.data)[off];
  }
}

struct Out5 {
  long long len[5];
  __host__ __device__ long long count() const { return len[0] * len[1] * len[2] * len[3] * len[4]; }
};

__device__ void unflat(const Out5& o, long long i, long long* idx) {
  for (int d = 4; d >= 0; --d) {
    idx[d] = i % o.len[d];
    i /= o.len[d];
  }
}

__global__ void forward_kernel(View5 x, View5 w, Out5 y, Geom g, double* out) {
  const long long total = y.count();
  const long long cg = x.len[1] / g.groups, kg = y.len[1] / g.groups;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long o[5];
    unflat(y, i, o);
    const long long n = o[0], k = o[1], c_base = (k / kg) * cg;
    double acc = 0.0;
    for (long long c = 0; c < cg; ++c)
      for (long long fd = 0; fd < w.len[2]; ++fd) {
        const long long id = o[2] * g.stride[0] + fd * g.dil[0] - g.pad[0];
        if (id < 0 || id >= x.len[2]) continue;
        for (long long fh = 0; fh < w.len[3]; ++fh) {
          const long long ih = o[3] * g.stride[1] + fh * g.dil[1] - g.pad[1];
          if (ih < 0 || ih >= x.len[3]) continue;
          for (long long fw = 0; fw < w.len[4]; ++fw) {
            const long long iw = o[4] * g.stride[2] + fw * g.dil[2] - g.pad[2];
            if (iw < 0 || iw >= x.len[4]) continue;
            acc += load(x, n, c_base + c, id, ih, iw) * load(w, k, c, fd, fh, fw);
          }
        }
      }
    out[i] = acc;
  }
}

__global__ void backward_data_kernel(View5 dy, View5 w, Out5 dx, Geom g, double* out) {
  const long long total = dx.count();
  const long long cg = dx.len[1] / g.groups, kg = dy.len[1] / g.groups;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long x[5];
    unflat(dx, i, x);
    const long long n = x[0], c = x[1], grp = c / cg;
    double acc = 0.0;
    for (long long kk = 0; kk < kg; ++kk) {
      const long long k = grp * kg + kk;
      for (long long fd = 0; fd < w.len[2]; ++fd) {
        const long long td = x[2] + g.pad[0] - fd * g.dil[0];
        if (td < 0 || td % g.stride[0] != 0) continue;
        const long long od = td / g.stride[0];
        if (od >= dy.len[2]) continue;
        for (long long fh = 0; fh < w.len[3]; ++fh) {
          const long long th = x[3] + g.pad[1] - fh * g.dil[1];
          if (th < 0 || th % g.stride[1] != 0) continue;
          const long long oh = th / g.stride[1];
          if (oh >= dy.len[3]) continue;
          for (long long fw = 0; fw < w.len[4]; ++fw) {
            const long long tw = x[4] + g.pad[2] - fw * g.dil[2];
            if (tw < 0 || tw % g.stride[2] != 0) continue;
            const long long ow = tw / g.stride[2];
            if (ow >= dy.len[4]) continue;
            acc += load(dy, n, k, od, oh, ow) * load(w, k, c % cg, fd, fh, fw);
          }
        }
      }
    }
    out[i] = acc;
  }
}

// Weight gradients sum over every image and output pixel: few outputs, long sums. Each thread
// sums one slice of the (n, od, oh) rows for one weight into `partial`; a second kernel adds the
// slices in order (the same bits every run).
__global__ void backward_weights_kernel(View5 x, View5 dy, Out5 dw, Geom g, long long slices,
                                        double* partial) {
  const long long total = dw.count() * slices;
  const long long cg = dw.len[1], kg = dw.len[0] / g.groups;
  const long long rows = x.len[0] * dy.len[2] * dy.len[3];
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long i = t / slices, slice = t % slices;
    long long f[5];
    unflat(dw, i, f);
    const long long k = f[0], xc = (k / kg) * cg + f[1];
    const long long first = rows * slice / slices, last = rows * (slice + 1) / slices;
    double acc = 0.0;
    for (long long r = first; r < last; ++r) {
      const long long oh = r % dy.len[3], od = (r / dy.len[3]) % dy.len[2];
      const long long n = r / (dy.len[3] * dy.len[2]);
      const long long id = od * g.stride[0] + f[2] * g.dil[0] - g.pad[0];
      if (id < 0 || id >= x.len[2]) continue;
      const long long ih = oh * g.stride[1] + f[3] * g.dil[1] - g.pad[1];
      if (ih < 0 || ih >= x.len[3]) continue;
      for (long long ow = 0; ow < dy.len[4]; ++ow) {
        const long long iw = ow * g.stride[2] + f[4] * g.dil[2] - g.pad[2];
        if (iw < 0 || iw >= x.len[4]) continue;
        acc += load(x, n, xc, id, ih, iw) * load(dy, n, k, od, oh, ow);
      }
    }
    partial[t] = acc;
  }
}

__global__ void sum_slices_kernel(const double* partial, long long count, long long slices,
                                  double* out) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
    for (long long s = 0; s < slices; ++s)
      acc += partial[i * slices + s];
    out[i] = acc;
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("GPU reference: ") + what + ": " + cudaGetErrorString(e));
}

// Runs `launch(out)` into a device buffer of the output's size and copies the doubles back.
template <class Launch>
std::vector<double> run(const std::array<long long, 5>& lens, Launch launch) {
  const Out5 o{{lens[0], lens[1], lens[2], lens[3], lens[4]}};
  const size_t n = static_cast<size_t>(o.count());
  std::vector<double> host(n);
  if (n == 0) return host;
  double* dev = nullptr;
  check(cudaMalloc(&dev, n * sizeof(double)), "cudaMalloc");
  // A grid-stride loop: a bounded grid covers any count.
  const long long blocks = std::min<long long>((static_cast<long long>(n) + 255) / 256, 1 << 20);
  launch(o, dev, static_cast<unsigned>(blocks));
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess)
    e = cudaMemcpy(host.data(), dev, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(dev);
  check(e, "kernel");
  return host;
}

}  // namespace

std::vector<double> conv_forward(const DeviceView& x, const DeviceView& w, const ConvParams& p,
                                 const std::vector<size_t>& y_lens) {
  const View5 xv = view5(x), wv = view5(w);
  const Geom g = geom(p);
  return run(lens5(y_lens), [&](const Out5& o, double* out, unsigned blocks) {
    forward_kernel<<<blocks, 256>>>(xv, wv, o, g, out);
  });
}

std::vector<double> conv_backward_data(const DeviceView& dy, const DeviceView& w,
                                       const ConvParams& p, const std::vector<size_t>& dx_lens) {
  const View5 dyv = view5(dy), wv = view5(w);
  const Geom g = geom(p);
  return run(lens5(dx_lens), [&](const Out5& o, double* out, unsigned blocks) {
    backward_data_kernel<<<blocks, 256>>>(dyv, wv, o, g, out);
  });
}

std::vector<double> conv_backward_weights(const DeviceView& x, const DeviceView& dy,
                                          const ConvParams& p, const std::vector<size_t>& dw_lens) {
  const View5 xv = view5(x), dyv = view5(dy);
  const Geom g = geom(p);
  return run(lens5(dw_lens), [&](const Out5& o, double* out, unsigned blocks) {
    // Enough slices for about a million threads, each at least one row long.
    const long long rows = xv.len[0] * dyv.len[2] * dyv.len[3];
    const long long slices = std::max(1LL, std::min(rows, (1LL << 20) / std::max(1LL, o.count())));
    double* partial = nullptr;
    check(cudaMalloc(&partial, static_cast<size_t>(o.count() * slices) * sizeof(double)),
          "cudaMalloc");
    const long long threads = o.count() * slices;
    const unsigned grid =
        static_cast<unsigned>(std::min<long long>((threads + 255) / 256, 1 << 20));
    backward_weights_kernel<<<grid, 256>>>(xv, dyv, o, g, slices, partial);
    sum_slices_kernel<<<blocks, 256>>>(partial, o.count(), slices, out);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    cudaFree(partial);
    check(e, "weights kernel");
  });
}

}  // namespace anydnn::ref::gpu
