// GemmWrwUniversal: backward weights as im2col + GEMM, for packed NCHW / NCDHW tensors of any
// filter, stride, dilation, padding and group count.
//
// For each image, group and L2-sized tile of output pixels: im2col the tile (threads take
// disjoint channels), then dW_g += dY_tile x col^T with the GEMM split by dW's columns over the
// threads. The sum runs in a fixed order, so results are deterministic. 16-bit tensors are
// staged in fp32 and dW is accumulated in fp32.
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

void gemm_wrw(const ConvProblem& p, const Plan& plan, const FloatTensors& f, float* col, int t,
              int nt) {
  const GemmShape& s = plan.s;
  for (size_t n = 0; n < p.batch(); ++n) {
    for (size_t g = 0; g < s.groups; ++g) {
      const float* dyg = f.y + n * s.y_image + g * s.k_per_group * s.pixels;
      float* dwg = f.out + g * s.k_per_group * s.rows;
      for (size_t tile = 0; tile < plan.tiles; ++tile) {
        const size_t p0 = tile * plan.tile;
        const size_t width = std::min(plan.tile, s.pixels - p0);
#pragma omp for schedule(static)
        for (long c = 0; c < static_cast<long>(s.c_per_group); ++c) {
          im2col_tile<float>(p, f.x + n * s.x_image, g * s.c_per_group + static_cast<size_t>(c), 1,
                             p0, width, col + static_cast<size_t>(c) * s.taps * width);
        }
        const float beta = (n == 0 && tile == 0) ? 0.0f : 1.0f;
        sgemm_column_share(t, nt, false, /*b_trans=*/true, static_cast<int>(s.k_per_group),
                           static_cast<int>(s.rows), static_cast<int>(width), 1.0f, dyg + p0,
                           static_cast<int>(s.pixels), col, static_cast<int>(width), beta, dwg,
                           static_cast<int>(s.rows));
#pragma omp barrier
      }
    }
  }
}

class GemmWrwUniversal final : public GemmWrwUniversalSpec {
 public:
  GemmWrwUniversal() : GemmWrwUniversalSpec(kCblas) {}
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
            [&](const FloatTensors& f, int t, int nt) { gemm_wrw(p, plan, f, col, t, nt); });
      });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_wrw_universal() {
  return std::make_unique<GemmWrwUniversal>();
}

}  // namespace anydnn::cpu
