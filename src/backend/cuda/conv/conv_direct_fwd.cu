// ConvDirectFwdCuda: direct fp32 forward convolution with shared-memory tiling, for packed NCHW
// 2-D problems of any filter, stride, dilation, padding and group count.
//
// A block of 32 x 8 threads computes an 8-row x 64-column output tile of one image for 8 output
// channels of one group: each thread owns two pixels (columns tx and tx + 32, so stores stay
// coalesced) times 8 channels in registers. Input channels are walked in chunks: the chunk's
// input patch under the tile and its filter slices for the 8 channels are staged in shared
// memory, so each input value loaded from global memory feeds 8 channels and every tap that
// covers it, and each filter value feeds 512 pixels. Accumulation is fp32 in the order
// channel, filter row, filter column, like the naive kernel. A fused chain's epilogue
// (activation/fused_epilogue.hpp) is applied to the accumulators as they are stored, so bias, BN
// inference and the activation cost no pass over memory (a second instantiation, kEpilogue,
// keeps the plain kernel as it was).
#include <memory>

#include "backend/cuda/conv/conv_epilogue.hpp"
#include "backend/cuda/conv/conv_geom.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cuda {

namespace {

constexpr int kTileH = 8;     // output rows per block (= blockDim.y)
constexpr int kTileW = 64;    // output columns per block (2 per thread, blockDim.x = 32)
constexpr int kChannels = 8;  // output channels per block
constexpr size_t kSharedBytes = 48 * 1024;  // no opt-in needed below this

struct DirectPlan {
  long long n, cpg, kpg, groups;
  long long in_h, in_w, out_h, out_w;
  long long fy, fx, pad_h, pad_w, st_h, st_w, dil_h, dil_w;
  long long xs[5], ws[5], ys[5];
  int patch_h, patch_w, patch_floats;  // one channel's input patch; patch_floats: 16-byte rounded
  int chunk;                           // input channels staged per round
  long long tiles_w, tiles_h, k_chunks;

  size_t shared_bytes() const {
    return static_cast<size_t>(chunk) *
           (static_cast<size_t>(patch_floats) + kChannels * static_cast<size_t>(fy * fx)) *
           sizeof(float);
  }
};

DirectPlan make_plan(const ConvProblem& p) {
  const ConvGeom g = conv_geom(p);
  DirectPlan d{};
  d.n = g.n;
  d.cpg = g.cpg;
  d.kpg = g.kpg;
  d.groups = static_cast<long long>(p.groups());
  d.in_h = g.in[1];
  d.in_w = g.in[2];
  d.out_h = g.out[1];
  d.out_w = g.out[2];
  d.fy = g.f[1];
  d.fx = g.f[2];
  d.pad_h = g.pad[1];
  d.pad_w = g.pad[2];
  d.st_h = g.st[1];
  d.st_w = g.st[2];
  d.dil_h = g.dil[1];
  d.dil_w = g.dil[2];
  for (int i = 0; i < 5; ++i) {
    d.xs[i] = g.xs[i];
    d.ws[i] = g.ws[i];
    d.ys[i] = g.ys[i];
  }
  const long long ph = (kTileH - 1) * d.st_h + (d.fy - 1) * d.dil_h + 1;
  const long long pw = (kTileW - 1) * d.st_w + (d.fx - 1) * d.dil_w + 1;
  // Clamped so that absurd strides or dilations cannot overflow int; such plans fail the fit.
  d.patch_h = static_cast<int>(ph < (1 << 20) ? ph : (1 << 20));
  d.patch_w = static_cast<int>(pw < (1 << 20) ? pw : (1 << 20));
  const long long floats = ph * pw;
  d.patch_floats = static_cast<int>(floats < (1 << 24) ? (floats + 3) / 4 * 4 : (1 << 24));
  d.chunk = 1;
  for (int c : {8, 4, 2}) {
    d.chunk = c;
    if (d.shared_bytes() <= kSharedBytes) break;
    d.chunk = 1;
  }
  d.tiles_w = (d.out_w + kTileW - 1) / kTileW;
  d.tiles_h = (d.out_h + kTileH - 1) / kTileH;
  d.k_chunks = (d.kpg + kChannels - 1) / kChannels;
  return d;
}

template <bool kEpilogue>
__global__ void __launch_bounds__(256)
    direct_fwd_kernel(DirectPlan d, const float* x, const float* w, float* y, EpilogueArgs ep) {
  extern __shared__ float4 shared4[];                // float4: the filter slices are read as float4
  float* patch = reinterpret_cast<float*>(shared4);  // [chunk][patch_h][patch_w]
  float* filt = patch + d.chunk * d.patch_floats;    // [chunk][fy][fx][kChannels]

  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int tid = ty * 32 + tx;
  const long long n = blockIdx.z;
  const long long group = blockIdx.y / d.k_chunks;
  const long long k_first = group * d.kpg + (blockIdx.y % d.k_chunks) * kChannels;
  const long long k_count = min(static_cast<long long>(kChannels), group * d.kpg + d.kpg - k_first);
  const long long c_first = group * d.cpg;
  const long long oh0 = (blockIdx.x / d.tiles_w) * kTileH;
  const long long ow0 = (blockIdx.x % d.tiles_w) * kTileW;
  const long long ih0 = oh0 * d.st_h - d.pad_h;  // input row of patch row 0
  const long long iw0 = ow0 * d.st_w - d.pad_w;
  const int fy = static_cast<int>(d.fy), fx = static_cast<int>(d.fx);
  const int plane = d.patch_h * d.patch_w;
  const int taps = fy * fx;

  float acc0[kChannels], acc1[kChannels];
#pragma unroll
  for (int j = 0; j < kChannels; ++j) {
    acc0[j] = 0.0f;
    acc1[j] = 0.0f;
  }
  const float* xn = x + n * d.xs[0];
  for (long long c0 = 0; c0 < d.cpg; c0 += d.chunk) {
    const int cc = static_cast<int>(min(static_cast<long long>(d.chunk), d.cpg - c0));
    // Stage the patch (zeros in the padding) and the filter slices (zeros past the group).
    for (int i = tid; i < cc * plane; i += 256) {
      const int ci = i / plane;
      const int r = i % plane;
      const long long ih = ih0 + r / d.patch_w;
      const long long iw = iw0 + r % d.patch_w;
      float v = 0.0f;
      if (ih >= 0 && ih < d.in_h && iw >= 0 && iw < d.in_w)
        v = xn[(c_first + c0 + ci) * d.xs[1] + ih * d.xs[3] + iw * d.xs[4]];
      patch[ci * d.patch_floats + r] = v;
    }
    for (int i = tid; i < cc * taps * kChannels; i += 256) {
      const int kk = i % kChannels;
      const int tap = (i / kChannels) % taps;
      const int ci = i / (kChannels * taps);
      float v = 0.0f;
      if (kk < k_count)
        v = w[(k_first + kk) * d.ws[0] + (c0 + ci) * d.ws[1] + (tap / fx) * d.ws[3] +
              (tap % fx) * d.ws[4]];
      filt[i] = v;  // i = (ci * taps + tap) * kChannels + kk
    }
    __syncthreads();
    for (int ci = 0; ci < cc; ++ci) {
      const float* pc = patch + ci * d.patch_floats;
      for (int a = 0; a < fy; ++a) {
        const float* row =
            pc + (ty * static_cast<int>(d.st_h) + a * static_cast<int>(d.dil_h)) * d.patch_w;
        for (int b = 0; b < fx; ++b) {
          const int col = b * static_cast<int>(d.dil_w);
          const float v0 = row[tx * static_cast<int>(d.st_w) + col];
          const float v1 = row[(tx + 32) * static_cast<int>(d.st_w) + col];
          const float4* f4 =
              reinterpret_cast<const float4*>(filt + ((ci * taps) + a * fx + b) * kChannels);
#pragma unroll
          for (int q = 0; q < kChannels / 4; ++q) {
            const float4 f = f4[q];
            acc0[4 * q + 0] += v0 * f.x;
            acc0[4 * q + 1] += v0 * f.y;
            acc0[4 * q + 2] += v0 * f.z;
            acc0[4 * q + 3] += v0 * f.w;
            acc1[4 * q + 0] += v1 * f.x;
            acc1[4 * q + 1] += v1 * f.y;
            acc1[4 * q + 2] += v1 * f.z;
            acc1[4 * q + 3] += v1 * f.w;
          }
        }
      }
    }
    __syncthreads();  // before the next chunk overwrites the stage
  }
  const long long oh = oh0 + ty;
  if (oh >= d.out_h) return;
  const long long ow_a = ow0 + tx, ow_b = ow0 + tx + 32;
#pragma unroll
  for (int kk = 0; kk < kChannels; ++kk) {
    if (kk >= k_count) break;
    const long long k = k_first + kk;
    const long long off = n * d.ys[0] + oh * d.ys[3] + k * d.ys[1];
    float* yk = y + off;
    if constexpr (kEpilogue) {
      // z is laid out like y: its element sits at the same offset.
      const float* zk = ep.residual ? static_cast<const float*>(ep.residual) + off : nullptr;
      if (ow_a < d.out_w)
        yk[ow_a * d.ys[4]] = apply_epilogue(ep, acc0[kk], k, zk ? zk[ow_a * d.ys[4]] : 0.0f);
      if (ow_b < d.out_w)
        yk[ow_b * d.ys[4]] = apply_epilogue(ep, acc1[kk], k, zk ? zk[ow_b * d.ys[4]] : 0.0f);
    } else {
      if (ow_a < d.out_w) yk[ow_a * d.ys[4]] = acc0[kk];
      if (ow_b < d.out_w) yk[ow_b * d.ys[4]] = acc1[kk];
    }
  }
}

class ConvDirectFwdCuda final : public ConvSolver {
 public:
  std::string_view name() const override { return "ConvDirectFwdCuda"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoDirect; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "needs float data");
    ANYDNN_REJECT_IF(p.spatial_dims() != 2, "needs a 2-D problem");
    ANYDNN_REJECT_IF(!p.x().is_packed_layout("NCHW") || !p.w().is_packed_layout("NCHW") ||
                         !p.y().is_packed_layout("NCHW"),
                     "needs packed NCHW tensors");
    const DirectPlan d = make_plan(p);
    ANYDNN_REJECT_IF(d.shared_bytes() > kSharedBytes,
                     "input patch of one channel does not fit in shared memory");
    ANYDNN_REJECT_IF(
        d.n > 65535 || d.groups * d.k_chunks > 65535 || d.tiles_w * d.tiles_h > 0x7fffffffLL,
        "grid too large");
    return Applicability::yes();
  }
  // Per block (the grid's tiles: partly filled ones cost as much as full ones) and input
  // channel: staging the input patch, then each filter tap's FMAs.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DirectPlan d = make_plan(p);
    const double blocks = static_cast<double>(d.tiles_w * d.tiles_h) *
                          static_cast<double>(d.groups * d.k_chunks) * static_cast<double>(d.n);
    return calibrated_ms(
        name(), p.data_type(), ctx.config.conv_allow_tf32,
        direct_fp32_ms(backend_of(ctx).rates(), blocks, static_cast<double>(d.cpg),
                       static_cast<double>(d.patch_h) * static_cast<double>(d.patch_w),
                       static_cast<double>(d.fy * d.fx)));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const DirectPlan d = make_plan(p);
    return [be, d](const ConvBuffers& b) {
      const dim3 grid(static_cast<unsigned>(d.tiles_w * d.tiles_h),
                      static_cast<unsigned>(d.groups * d.k_chunks), static_cast<unsigned>(d.n));
      const auto* x = static_cast<const float*>(b.x);
      const auto* w = static_cast<const float*>(b.w);
      auto* y = static_cast<float*>(b.y);
      const dim3 block(32, kTileH);
      if (b.epilogue)
        direct_fwd_kernel<true><<<grid, block, d.shared_bytes(), be->cuda_stream()>>>(
            d, x, w, y, epilogue_args(*b.epilogue));
      else
        direct_fwd_kernel<false>
            <<<grid, block, d.shared_bytes(), be->cuda_stream()>>>(d, x, w, y, EpilogueArgs{});
      ANYDNN_CUDA_LAUNCHED("ConvDirectFwdCuda");
    };
  }
  // Every epilogue: the kernel holds each output in a register before its store (fp32 only,
  // so the contract's "before narrowing" holds trivially).
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cuda_epilogue_support(p, needs);
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_conv_direct_fwd_cuda() {
  return std::make_unique<ConvDirectFwdCuda>();
}

}  // namespace anydnn::cuda
