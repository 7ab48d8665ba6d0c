// GemmFwdRest: forward convolution as im2col + SGEMM (OpenBLAS), for packed NCHW / NCDHW
// tensors of any filter, stride, dilation, padding and group count.
//
// Work is split into (image, group, tile of output pixels) items spread over OpenMP threads.
// Each thread expands only its tile into a [C/G * F] x [tile] column buffer sized to stay in
// L2, then multiplies it by the group's weights with a single-threaded SGEMM (the OpenMP build
// of OpenBLAS stays single-threaded inside a parallel region). fp32 results go straight into y;
// half/bfloat16 weights are widened once per call and results narrowed per tile. A fused
// epilogue (conv_epilogue.hpp) runs on each tile right after its SGEMM.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/conv/im2col.hpp"
#include "backend/cpu/cpu_types.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

constexpr size_t kColumnBufferBytes = 1024 * 1024;  // per-thread im2col tile, half an L2

struct GemmFwdPlan {
  size_t rows = 0;         // C/G * filter elements: the GEMM's K
  size_t k_per_group = 0;  // the GEMM's M
  size_t pixels = 0;       // output pixels per image
  size_t tile = 0;         // output pixels per work item: the GEMM's N
  size_t tiles = 0;
  int threads = 1;
  bool fp32 = true;

  explicit GemmFwdPlan(const ConvProblem& p, int num_threads) : threads(num_threads) {
    const auto& f = p.filter_size();
    const auto& o = p.out_size();
    rows = p.in_channels() / p.groups() * f[0] * f[1] * f[2];
    k_per_group = p.out_channels() / p.groups();
    pixels = o[0] * o[1] * o[2];
    tile = gemm_tile_columns(rows, pixels, kColumnBufferBytes);
    tiles = (pixels + tile - 1) / tile;
    fp32 = p.data_type() == miopenFloat;
  }

  // Per-thread: column tile, plus an fp32 output tile for 16-bit types. Shared: fp32 weights.
  size_t column_floats() const { return rows * tile; }
  size_t out_tile_floats() const { return fp32 ? 0 : k_per_group * tile; }
  size_t weight_floats(const ConvProblem& p) const { return fp32 ? 0 : p.out_channels() * rows; }
  size_t workspace_bytes(const ConvProblem& p) const {
    return (static_cast<size_t>(threads) * (column_floats() + out_tile_floats()) +
            weight_floats(p)) *
           sizeof(float);
  }
};

template <class T>
void gemm_fwd(const ConvProblem& p, const GemmFwdPlan& plan, const ConvBuffers& b, CpuIsa isa) {
  const T* x = static_cast<const T*>(b.x);
  T* y = static_cast<T*>(b.y);
  float* ws = static_cast<float*>(b.workspace);
  const size_t groups = p.groups();
  const size_t c_per_group = p.in_channels() / groups;
  const size_t x_image = p.in_channels() * p.in_size()[0] * p.in_size()[1] * p.in_size()[2];
  const size_t y_image = p.out_channels() * plan.pixels;
  // fp32 outputs are written in place (residual offsets from y); 16-bit ones take no residual.
  const CpuEpilogue ep(b.epilogue, isa,
                       std::is_same_v<T, float> ? reinterpret_cast<const float*>(y) : nullptr);

  const float* weights;
  float* per_thread = ws;
  if constexpr (std::is_same_v<T, float>) {
    weights = static_cast<const float*>(b.w);
  } else {
    float* wf = ws;
    const T* w = static_cast<const T*>(b.w);
    const long count = static_cast<long>(plan.weight_floats(p));
#pragma omp parallel for num_threads(plan.threads)
    for (long i = 0; i < count; ++i)
      wf[i] = to_float(w[i]);
    weights = wf;
    per_thread = ws + count;
  }

  const long items = static_cast<long>(p.batch() * groups * plan.tiles);
#pragma omp parallel num_threads(plan.threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    float* col = per_thread + t * (plan.column_floats() + plan.out_tile_floats());
    float* out_tile = col + plan.column_floats();
#pragma omp for schedule(static)
    for (long item = 0; item < items; ++item) {
      const size_t tile_index = static_cast<size_t>(item) % plan.tiles;
      const size_t ng = static_cast<size_t>(item) / plan.tiles;
      const size_t g = ng % groups;
      const size_t n = ng / groups;
      const size_t p0 = tile_index * plan.tile;
      const size_t width = std::min(plan.tile, plan.pixels - p0);
      im2col_tile<T>(p, x + n * x_image, g * c_per_group, c_per_group, p0, width, col);
      const float* wg = weights + g * plan.k_per_group * plan.rows;
      const int m = static_cast<int>(plan.k_per_group);
      const int nn = static_cast<int>(width);
      const int kk = static_cast<int>(plan.rows);
      if constexpr (std::is_same_v<T, float>) {
        float* dst = y + n * y_image + g * plan.k_per_group * plan.pixels + p0;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, kk, 1.0f, wg, kk, col, nn,
                    0.0f, dst, static_cast<int>(plan.pixels));
        if (ep.active())
          ep.rows(dst, static_cast<long>(plan.pixels), m, nn,
                  static_cast<long>(g * plan.k_per_group), 1);
      } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, kk, 1.0f, wg, kk, col, nn,
                    0.0f, out_tile, nn);
        if (ep.active())
          ep.rows_with(out_tile, nullptr, nn, m, nn, static_cast<long>(g * plan.k_per_group), 1);
        T* dst = y + n * y_image + g * plan.k_per_group * plan.pixels + p0;
        for (size_t k = 0; k < plan.k_per_group; ++k)
          for (size_t j = 0; j < width; ++j)
            dst[k * plan.pixels + j] = from_float<T>(out_tile[k * width + j]);
      }
    }
  }
}

class GemmFwdRest final : public GemmFwdRestSpec {
 public:
  GemmFwdRest() : GemmFwdRestSpec(kCblas) {}
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return GemmFwdPlan(p, ctx.config.num_threads).workspace_bytes(p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const GemmFwdPlan plan(p, ctx.config.num_threads);
    return [p, plan, isa = ctx.config.cpu_isa](const ConvBuffers& b) {
      dispatch_float_type(p.data_type(),
                          [&](auto tag) { gemm_fwd<decltype(tag)>(p, plan, b, isa); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_fwd_rest() {
  return std::make_unique<GemmFwdRest>();
}

}  // namespace anydnn::cpu
