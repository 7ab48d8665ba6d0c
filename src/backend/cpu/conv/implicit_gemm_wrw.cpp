// ImplicitGemmWrw: backward weights of packed NCHW / NCDHW fp32 convolutions as one GEMM over
// all pixels of the batch,
//   dW_g [K/G x C/G*taps] = dY_g [K/G x N*P] * im2col(X_g)^T [N*P x C/G*taps]
// dY_g is copied once into rows that run across the images (so the reduction never stops at an
// image boundary), im2col^T is gathered from x panel by panel (columns of dW as vector lanes),
// and dW is accumulated in place: no transposed copy of dW, no per-image passes over it.
// Threads split the columns of dW (each packs only its own panels): deterministic. Pays on
// small feature maps with many channels, where ImplicitGemmShiftedWrw's per-image passes and
// its dW^T transpose dominate.
#include <omp.h>

#include <limits>
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/implicit_pack.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

constexpr int kMaxKc = 256;  // pixels per block: the im2col^T panel (kc x nr) stays in L1/L2

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

struct WrwGemmPlan {
  GemmShape shape;
  GemmTileShape tile;
  std::vector<GemmTap> taps;
  int threads = 1;
  long rows = 0, kout = 0, pixels = 0, lda = 0, kc = 0, col_panels = 0;
  size_t dy_floats = 0;  // dY rows of every group, lda apart

  WrwGemmPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : shape(p),
        taps(forward_taps(static_cast<long>(shape.c_per_group), p.filter_size(), p.pads(),
                          p.dilations())) {
    rows = static_cast<long>(shape.rows);
    kout = static_cast<long>(shape.k_per_group);
    pixels = static_cast<long>(p.batch() * shape.pixels);
    threads = std::max(1, ctx.config.num_threads);
    const GemmTiles& tiles = gemm_tiles(ctx.config.cpu_isa);
    double best = std::numeric_limits<double>::max();
    for (int s = 0; s < tiles.count; ++s) {
      const GemmTileShape& sh = tiles.shapes[s];
      // M = output channels (broadcast), N = dW columns (vector lanes), split over threads.
      const double mt = static_cast<double>(ceil_div(kout, sh.mr) * sh.mr);
      const double nt = static_cast<double>(ceil_div(ceil_div(rows, sh.nr), threads) * sh.nr);
      const double cost = mt * nt / sh.speed;
      if (cost < best) {
        best = cost;
        tile = sh;
      }
    }
    lda = padded_lda(pixels);
    kc = ceil_div(std::max(1L, pixels), ceil_div(std::max(1L, pixels), kMaxKc));
    col_panels = ceil_div(rows, tile.nr);
    dy_floats = (shape.groups * kout * lda + 15) / 16 * 16;
  }
  size_t thread_floats() const { return static_cast<size_t>(kc * tile.nr); }
  size_t workspace_bytes() const {
    return dy_floats * sizeof(float) + scratch_bytes(thread_floats(), threads);
  }
};

class ImplicitGemmWrw final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmWrw"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardWeights,
                     "not a backward-weights problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    return gemm_problem_support(p, kCblas);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return WrwGemmPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const WrwGemmPlan>(ctx, p);
    return [p, plan](const ConvBuffers& buf) {
      const WrwGemmPlan& q = *plan;
      const GemmShape& s = q.shape;
      const auto& in = p.in_size();
      const auto& out = p.out_size();
      const long in_pixels = static_cast<long>(in[0] * in[1] * in[2]);
      const long out_pixels = static_cast<long>(s.pixels);
      const long batch = static_cast<long>(p.batch());
      const float* x = static_cast<const float*>(buf.x);
      const float* dy = static_cast<const float*>(buf.y);
      float* dw = static_cast<float*>(buf.w);
      float* dy_rows = scratch_share(buf.workspace, 0, 0);
      float* thread_area = dy_rows + q.dy_floats;
      const int mr = q.tile.mr, nr = q.tile.nr;
#pragma omp parallel num_threads(q.threads)
      {
        // dY_g rows across the images: row k = dy[0][k][:], dy[1][k][:], ...
        const long copies = static_cast<long>(s.groups) * q.kout * batch;
#pragma omp for schedule(static)
        for (long i = 0; i < copies; ++i) {
          const long n = i % batch, gk = i / batch;
          std::copy(dy + n * static_cast<long>(s.y_image) + gk * out_pixels,
                    dy + n * static_cast<long>(s.y_image) + (gk + 1) * out_pixels,
                    dy_rows + gk * q.lda + n * out_pixels);
        }
        const int t = omp_get_thread_num();
        float* panel = scratch_share(thread_area, q.thread_floats(), t);
        const long p0 = q.col_panels * t / q.threads, p1 = q.col_panels * (t + 1) / q.threads;
        for (size_t g = 0; g < s.groups; ++g) {
          ImplicitB b;  // im2col of x: rows (c, taps), columns the pixels of the batch
          b.src = x + static_cast<long>(g * s.c_per_group) * in_pixels;
          b.image_stride = static_cast<long>(s.x_image);
          b.channel_stride = in_pixels;
          b.dims = {static_cast<long>(in[0]), static_cast<long>(in[1]), static_cast<long>(in[2])};
          b.grid = {static_cast<long>(out[0]), static_cast<long>(out[1]),
                    static_cast<long>(out[2])};
          b.steps = p.strides();
          b.images = batch;
          b.taps = q.taps.data();
          b.rows = q.rows;
          ImplicitPacker packer(b);
          const float* a = dy_rows + static_cast<long>(g) * q.kout * q.lda;
          float* dwg = dw + static_cast<long>(g * s.k_per_group) * q.rows;
          for (long pn = p0; pn < p1; ++pn) {
            const long c0 = pn * nr;
            const int cols = static_cast<int>(std::min<long>(nr, q.rows - c0));
            for (long k0 = 0; k0 < q.pixels; k0 += q.kc) {
              const int kc = static_cast<int>(std::min(q.kc, q.pixels - k0));
              packer.pack_transposed(c0, cols, k0, kc, nr, panel);
              for (long i0 = 0; i0 < q.kout; i0 += mr)
                q.tile.fn(kc, a + i0 * q.lda + k0, q.lda, panel, dwg + i0 * q.rows + c0, q.rows,
                          static_cast<int>(std::min<long>(mr, q.kout - i0)), cols, k0 > 0);
            }
          }
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_wrw() {
  return std::make_unique<ImplicitGemmWrw>();
}

}  // namespace anydnn::cpu
