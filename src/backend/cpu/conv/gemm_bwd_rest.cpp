// GemmBwdRest: backward data as GEMM + col2im, for packed NCHW / NCDHW tensors of any filter,
// stride, dilation, padding and group count.
//
// For each image, group and L2-sized tile of output pixels: col = W_g^T x dY_tile (a
// [C/G * taps] x [tile] matrix, the GEMM split by columns over the threads), then col2im adds col
// into dx, the threads taking disjoint channels. dx is zeroed first; 16-bit tensors are staged
// in fp32.
#include <algorithm>
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/conv/im2col.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

constexpr size_t kColumnBufferBytes = 1024 * 1024;

struct Plan {
  GemmShape s;
  size_t tile, tiles, staging;
  explicit Plan(const ConvProblem& p) : s(p), staging(staging_floats(p)) {
    tile = gemm_tile_columns(s.rows, s.pixels, kColumnBufferBytes);
    tiles = (s.pixels + tile - 1) / tile;
  }
  size_t workspace_bytes() const { return (staging + s.rows * tile) * sizeof(float); }
};

void gemm_bwd(const ConvProblem& p, const Plan& plan, const FloatTensors& f, float* col, int t,
              int nt) {
  const GemmShape& s = plan.s;
#pragma omp for schedule(static)
  for (long i = 0; i < static_cast<long>(p.batch() * s.x_image); ++i)
    f.out[i] = 0.0f;
  for (size_t n = 0; n < p.batch(); ++n) {
    for (size_t g = 0; g < s.groups; ++g) {
      const float* wg = f.w + g * s.k_per_group * s.rows;
      const float* dyg = f.y + n * s.y_image + g * s.k_per_group * s.pixels;
      for (size_t tile = 0; tile < plan.tiles; ++tile) {
        const size_t p0 = tile * plan.tile;
        const size_t width = std::min(plan.tile, s.pixels - p0);
        sgemm_column_share(t, nt, /*a_trans=*/true, false, static_cast<int>(s.rows),
                           static_cast<int>(width), static_cast<int>(s.k_per_group), 1.0f, wg,
                           static_cast<int>(s.rows), dyg + p0, static_cast<int>(s.pixels), 0.0f,
                           col, static_cast<int>(width));
#pragma omp barrier
#pragma omp for schedule(static)
        for (long c = 0; c < static_cast<long>(s.c_per_group); ++c) {
          col2im_add_tile(p, col + static_cast<size_t>(c) * s.taps * width,
                          g * s.c_per_group + static_cast<size_t>(c), 1, p0, width,
                          f.out + n * s.x_image);
        }
      }
    }
  }
}

class GemmBwdRest final : public GemmBwdRestSpec {
 public:
  GemmBwdRest() : GemmBwdRestSpec(kCblas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return Plan(p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, plan = Plan(p), threads](const ConvBuffers& b) {
      float* scratch = static_cast<float*>(b.workspace);
      float* col = scratch + plan.staging;
      dispatch_float_type(p.data_type(), [&](auto tag) {
        run_staged<decltype(tag)>(
            p, b, scratch, threads,
            [&](const FloatTensors& f, int t, int nt) { gemm_bwd(p, plan, f, col, t, nt); });
      });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_bwd_rest() {
  return std::make_unique<GemmBwdRest>();
}

}  // namespace anydnn::cpu
