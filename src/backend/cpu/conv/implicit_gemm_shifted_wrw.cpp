// ImplicitGemmShiftedWrw: backward weights of a 2-D convolution of packed NCHW fp32 tensors as
//   dW^T [C/G*R*S x K/G] = im2col(x) [C/G*R*S x pixels] * dy^T [pixels x K/G]
// summed over the images. im2col(x) row (c, r, s) is the padded, phase-split copy x̂ shifted by
// koff(c, r, s) (shifted_input.hpp), so the tiles read it in place through per-row offsets; dy
// is packed transposed block by block (pixel-major panels of output channels, zeros in the
// junk columns ow >= OW). Threads split either the rows of dW^T (every thread reads all pixels:
// many rows, few pixels) or the pixels (each thread sums its images into its own dW^T, added in
// thread order at the end: few rows, many pixels); both are deterministic for a given thread
// count. Rows are processed in blocks whose dW^T stays in L2 while all pixels stream past.
#include <omp.h>

#include <limits>
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/conv/shifted_input.hpp"
#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "backend/cpu/kernels/transpose.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

constexpr long kPixelsPerBlock = 256;     // dy^T panel (pixels x nr) stays in L1
constexpr long kRowBlockFloats = 131072;  // dW^T block (rows x k_pad) stays in L2
constexpr double kPackCost = 16.0;        // packing one dy element ~ 16 multiply-adds

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

struct WrwPlan {
  GemmShape shape;
  ShiftedInput in;
  GemmTileShape tile;
  int threads = 1;
  CpuIsa isa = CpuIsa::Generic;
  bool split_pixels = false;  // else split rows
  long rows = 0, kout = 0, k_pad = 0, row_share = 0, row_block = 0, kc = 0;

  WrwPlan(const ExecutionContext& ctx, const ConvProblem& p) : shape(p), in(p) {
    rows = static_cast<long>(shape.rows);
    kout = static_cast<long>(shape.k_per_group);
    threads = std::max(1, ctx.config.num_threads);
    isa = ctx.config.cpu_isa;
    const GemmTiles& tiles = gemm_tiles(isa);
    double best = std::numeric_limits<double>::max();
    for (int s = 0; s < tiles.count; ++s) {
      const GemmTileShape& sh = tiles.shapes[s];
      const double mt = static_cast<double>(ceil_div(ceil_div(rows, sh.mr), threads) * sh.mr);
      const double nt = static_cast<double>(ceil_div(kout, sh.nr) * sh.nr);
      const double cost = mt * nt / sh.speed;
      if (cost < best) {
        best = cost;
        tile = sh;
      }
    }
    k_pad = ceil_div(kout, tile.nr) * tile.nr;
    // Splitting rows packs all of dy^T in every thread; splitting pixels adds a reduction of
    // one dW^T per thread.
    const double pixels = static_cast<double>(p.batch()) * static_cast<double>(in.columns());
    const double dup_packing =
        kPackCost * static_cast<double>(k_pad) * pixels * (1.0 - 1.0 / threads);
    const double reduction = 2.0 * static_cast<double>(rows * k_pad) * threads;
    split_pixels = threads > 1 && dup_packing > reduction;
    row_share = split_pixels ? ceil_div(rows, tile.mr) * tile.mr
                             : ceil_div(ceil_div(rows, tile.mr), threads) * tile.mr;
    row_block =
        std::min(row_share, std::max<long>(tile.mr, kRowBlockFloats / k_pad / tile.mr * tile.mr));
    kc = std::min(kPixelsPerBlock, std::max(1L, in.columns()));
  }

  // Per thread: dW^T rows (row_share x k_pad), then the dy^T block (kc x k_pad).
  size_t thread_floats() const { return static_cast<size_t>(row_share * k_pad + kc * k_pad); }
  size_t workspace_bytes() const {
    return in.xhat_floats * sizeof(float) + scratch_bytes(thread_floats(), threads);
  }
};

// dy^T for pixels [q0, q0 + count) of one image: panel p holds channels p*nr.. as rows of nr.
void pack_dy_t(CpuIsa isa, const float* dy, long kout, long out_h, long out_w, long grid_w, long q0,
               long count, int nr, long panels, float* panel) {
  const long plane = out_h * out_w;
  for (long p = 0; p < panels; ++p) {
    float* dst = panel + p * count * nr;
    const long k0 = p * nr;
    const long valid = std::min<long>(nr, kout - k0);
    // Runs of pixels within one output row: a (channels x run) block of dy, transposed.
    for (long q = q0; q < q0 + count;) {
      const long oh = q / grid_w, ow = q % grid_w;
      const long run = std::min(q0 + count - q, grid_w - ow);
      const long keep = std::max(0L, std::min(run, out_w - ow));
      float* d = dst + (q - q0) * nr;
      if (keep > 0) transpose(isa, dy + k0 * plane + oh * out_w + ow, plane, d, nr, valid, keep);
      if (valid < nr)
        for (long i = 0; i < keep; ++i)
          std::fill(d + i * nr + valid, d + (i + 1) * nr, 0.0f);
      std::fill(d + keep * nr, d + run * nr, 0.0f);  // junk columns ow >= OW
      q += run;
    }
  }
}

class ImplicitGemmShiftedWrw final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmShiftedWrw"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardWeights,
                     "not a backward-weights problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
    return gemm_problem_support(p, kCblas);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return WrwPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const WrwPlan>(ctx, p);
    return [p, plan](const ConvBuffers& buf) {
      const WrwPlan& q = *plan;
      const GemmShape& s = q.shape;
      const float* x = static_cast<const float*>(buf.x);
      const float* dy = static_cast<const float*>(buf.y);
      float* dw = static_cast<float*>(buf.w);
      float* xhat = scratch_share(buf.workspace, 0, 0);
      float* thread_area = xhat + q.in.xhat_floats;
      const long channels = static_cast<long>(p.in_channels());
      const long batch = static_cast<long>(p.batch());
      const long cols = q.in.columns();
      const int mr = q.tile.mr, nr = q.tile.nr;
      const long panels = q.k_pad / nr;
#pragma omp parallel num_threads(q.threads)
      {
        if (q.in.copy) {
#pragma omp for schedule(static)
          for (long nc = 0; nc < batch * channels; ++nc)
            q.in.fill(x, nc / channels, nc % channels, channels, xhat);
        }
        const int t = omp_get_thread_num();
        float* acc = scratch_share(thread_area, q.thread_floats(), t);  // dW^T rows
        float* dyt = acc + q.row_share * q.k_pad;
        // This thread's rows [r0, r1) and (image, pixel block) items [it0, it1).
        const long blocks = ceil_div(cols, q.kc);
        const long items = batch * blocks;
        long r0 = 0, r1 = q.rows, it0 = 0, it1 = items;
        if (q.split_pixels) {
          it0 = items * t / q.threads;
          it1 = items * (t + 1) / q.threads;
        } else {
          r0 = std::min(q.rows, t * q.row_share);
          r1 = std::min(q.rows, r0 + q.row_share);
        }
        const float* src = q.in.copy ? xhat : x;
        long aoff[32];
        for (size_t g = 0; g < s.groups; ++g) {
          std::fill(acc, acc + q.row_share * q.k_pad, 0.0f);
          for (long b0 = r0; b0 < r1; b0 += q.row_block) {
            const long b1 = std::min(r1, b0 + q.row_block);
            for (long it = it0; it < it1; ++it) {
              const long n = it / blocks, q0 = it % blocks * q.kc;
              const long count = std::min(q.kc, cols - q0);
              const float* img = src + n * q.in.image_floats +
                                 static_cast<long>(g * s.c_per_group) * q.in.channel_floats;
              const float* dy_img = dy + n * static_cast<long>(s.y_image) +
                                    static_cast<long>(g * s.k_per_group * s.pixels);
              pack_dy_t(q.isa, dy_img, q.kout, q.in.OH, q.in.OW, q.in.Wq, q0, count, nr, panels,
                        dyt);
              for (long i0 = b0; i0 < b1; i0 += mr) {
                const int m = static_cast<int>(std::min<long>(mr, b1 - i0));
                for (int i = 0; i < m; ++i)
                  aoff[i] = q.in.koff[i0 + i] + q0;
                for (long pn = 0; pn < panels; ++pn)
                  q.tile.arows_fn(static_cast<int>(count), img, aoff, dyt + pn * count * nr,
                                  acc + (i0 - r0) * q.k_pad + pn * nr, q.k_pad, m,
                                  static_cast<int>(std::min<long>(nr, q.kout - pn * nr)), true);
              }
            }
          }
          // dW[k][row] = dW^T[row][k]: this thread's rows, or (pixel split) every thread's
          // partial sums added in thread order, rows shared out.
          float* dwg = dw + static_cast<long>(g * s.k_per_group) * q.rows;
          if (!q.split_pixels) {
            if (r0 < r1) transpose(q.isa, acc, q.k_pad, dwg + r0, q.rows, r1 - r0, q.kout);
            continue;
          }
          // Sum the threads' partial dW^T into thread 0's, 16 rows at a time, then transpose.
#pragma omp barrier
          float* total = scratch_share(thread_area, q.thread_floats(), 0);
          const long row_blocks = ceil_div(q.rows, 16);
#pragma omp for schedule(static)
          for (long rb = 0; rb < row_blocks; ++rb) {
            const long ra = rb * 16, rz = std::min(q.rows, ra + 16);
            for (int u = 1; u < q.threads; ++u) {
              const float* part = scratch_share(thread_area, q.thread_floats(), u);
              for (long i = ra * q.k_pad; i < rz * q.k_pad; ++i)
                total[i] += part[i];
            }
            transpose(q.isa, total + ra * q.k_pad, q.k_pad, dwg + ra, q.rows, rz - ra, q.kout);
          }
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_shifted_wrw() {
  return std::make_unique<ImplicitGemmShiftedWrw>();
}

}  // namespace anydnn::cpu
