// ImplicitGemmBwd: backward data of packed NCHW / NCDHW fp32 convolutions as implicit GEMMs
// (kernels/conv_gemm.hpp), without col2im. dx is split by stride phase: the pixels
// (a + sh*i, b + sw*j) of one phase only receive the filter taps r with
// (a + ph - r*dh) divisible by sh, each from dy[i + (a + ph - r*dh)/sh][...] - a small forward
// correlation over dy. Per phase and group:
//   dx_phase [C/G x N*pixels] = W_phase^T [C/G x K/G*taps] * B,  B((k, tap), (n, i, j)) = dy[...]
// with W_phase^T gathered from w once per call and B packed from dy block by block. Unit
// stride is one phase holding every tap (the forward convolution of dy with the flipped
// filters); a 1x1 stride-2 layer is one phase of one tap plus three phases of zeros.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/conv_gemm.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "backend/cpu/kernels/transpose.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

struct Phase {
  std::array<int, 3> offset{0, 0, 0};  // first dx position (d, h, w)
  std::array<long, 3> grid{0, 0, 0};   // dx positions of the phase per image
  std::vector<long> tap_index;         // filter taps (z*R + y)*S + x of this phase
  std::vector<GemmTap> taps;           // rows of B: (k, tap) k-major
  long lda = 0;                        // W_phase^T row length (padded_lda)
  size_t a_offset = 0;                 // W_phase^T of group 0 in the A area
  std::unique_ptr<ConvGemmPlan> plan;  // null when the phase has no taps or no pixels
};

struct BwdPlan {
  GemmShape shape;
  std::vector<Phase> phases;
  size_t a_floats = 0;       // all phases, all groups
  size_t thread_floats = 0;  // max over the phases
  int threads = 1;
  CpuIsa isa = CpuIsa::Generic;

  BwdPlan(const ExecutionContext& ctx, const ConvProblem& p) : shape(p) {
    const auto& f = p.filter_size();
    const auto& in = p.in_size();
    const auto& st = p.strides();
    const auto& pad = p.pads();
    const auto& dil = p.dilations();
    const long k_per_group = static_cast<long>(shape.k_per_group);
    threads = ctx.config.num_threads;
    isa = ctx.config.cpu_isa;
    for (int a = 0; a < st[0]; ++a)
      for (int b = 0; b < st[1]; ++b)
        for (int c = 0; c < st[2]; ++c) {
          Phase ph;
          ph.offset = {a, b, c};
          for (int d = 0; d < 3; ++d) {
            const long first = ph.offset[d];
            const long size = static_cast<long>(in[d]);
            ph.grid[d] = first < size ? ceil_div(size - first, st[d]) : 0;
          }
          // Taps of this phase and their dy offsets.
          std::vector<std::array<int, 3>> offs;
          for (long z = 0; z < static_cast<long>(f[0]); ++z)
            for (long y = 0; y < static_cast<long>(f[1]); ++y)
              for (long x = 0; x < static_cast<long>(f[2]); ++x) {
                const long t[3] = {z, y, x};
                std::array<int, 3> off{};
                bool hit = true;
                for (int d = 0; d < 3 && hit; ++d) {
                  const long v = ph.offset[d] + pad[d] - t[d] * dil[d];
                  if (((v % st[d]) + st[d]) % st[d] != 0) hit = false;
                  off[d] = static_cast<int>(v / st[d]);
                }
                if (!hit) continue;
                ph.tap_index.push_back((z * static_cast<long>(f[1]) + y) * static_cast<long>(f[2]) +
                                       x);
                offs.push_back(off);
              }
          for (long k = 0; k < k_per_group; ++k)
            for (const auto& o : offs)
              ph.taps.push_back({k, o[0], o[1], o[2]});
          const long pixels = ph.grid[0] * ph.grid[1] * ph.grid[2];
          if (!ph.taps.empty() && pixels > 0) {
            ph.lda = padded_lda(static_cast<long>(ph.taps.size()));
            ph.a_offset = a_floats;
            a_floats += shape.groups * shape.c_per_group * static_cast<size_t>(ph.lda);
            ph.plan = std::make_unique<ConvGemmPlan>(
                ctx.config.cpu_isa, static_cast<long>(shape.c_per_group),
                static_cast<long>(ph.taps.size()), static_cast<long>(p.batch()) * pixels, threads);
            thread_floats = std::max(thread_floats, ph.plan->thread_floats());
            threads = ph.plan->threads();
          }
          phases.push_back(std::move(ph));
        }
    a_floats = (a_floats + 15) / 16 * 16;
  }

  size_t workspace_bytes() const {
    return a_floats * sizeof(float) + scratch_bytes(thread_floats, threads);
  }
};

class ImplicitGemmBwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmBwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardData, "not a backward-data problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    return gemm_problem_support(p, kCblas);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return BwdPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const BwdPlan>(ctx, p);
    return [p, plan](const ConvBuffers& buf) {
      const BwdPlan& q = *plan;
      const GemmShape& s = q.shape;
      const float* dy = static_cast<const float*>(buf.y);
      const float* w = static_cast<const float*>(buf.w);
      float* dx = static_cast<float*>(buf.x);
      float* a_area = scratch_share(buf.workspace, 0, 0);
      float* gemm_scratch = a_area + q.a_floats;
      const auto& in = p.in_size();
      const auto& out = p.out_size();
      const long in_pixels = static_cast<long>(in[0] * in[1] * in[2]);
      const long out_pixels = static_cast<long>(s.pixels);
      const long cpg = static_cast<long>(s.c_per_group);
      const long kpg = static_cast<long>(s.k_per_group);
      const long taps_all = static_cast<long>(s.taps);
      const long batch = static_cast<long>(p.batch());
#pragma omp parallel num_threads(q.threads)
      {
        // W_phase^T for every phase and group: A[c][(k, tap)] = w[k][c][tap], transposed in
        // 16 x 16 (c, k) blocks so that both w and A are walked a cache line at a time.
        constexpr long kBlock = 16;
        const long c_blocks = (cpg + kBlock - 1) / kBlock;
        for (const Phase& ph : q.phases) {
          if (!ph.plan) continue;
          const long ntaps = static_cast<long>(ph.tap_index.size());
#pragma omp for schedule(static) nowait
          for (long gb = 0; gb < static_cast<long>(s.groups) * c_blocks; ++gb) {
            const long g = gb / c_blocks, c0 = gb % c_blocks * kBlock;
            const long c1 = std::min(cpg, c0 + kBlock);
            float* a = a_area + ph.a_offset + g * cpg * ph.lda;
            const float* wg = w + g * kpg * cpg * taps_all;
            const long* tap = ph.tap_index.data();
            for (long k0 = 0; k0 < kpg; k0 += kBlock) {
              const long k1 = std::min(kpg, k0 + kBlock);
              if (taps_all == 1) {  // 1x1: a plain transpose of the group's K x C weights
                transpose(q.isa, wg + k0 * cpg + c0, cpg, a + c0 * ph.lda + k0, ph.lda, k1 - k0,
                          c1 - c0);
                continue;
              }
              for (long c = c0; c < c1; ++c)
                for (long k = k0; k < k1; ++k) {
                  const float* src = wg + (k * cpg + c) * taps_all;
                  float* dst = a + c * ph.lda + k * ntaps;
                  for (long t = 0; t < ntaps; ++t)
                    dst[t] = src[tap[t]];
                }
            }
          }
        }
        // Phases without taps are zeros in dx.
        for (const Phase& ph : q.phases) {
          if (ph.plan) continue;
          const long planes = batch * static_cast<long>(p.in_channels());
#pragma omp for schedule(static) nowait
          for (long nc = 0; nc < planes; ++nc) {
            float* plane = dx + nc * in_pixels;
            for (long z = 0; z < ph.grid[0]; ++z)
              for (long y = 0; y < ph.grid[1]; ++y) {
                float* row =
                    plane + ((ph.offset[0] + z * p.strides()[0]) * static_cast<long>(in[1]) +
                             ph.offset[1] + y * p.strides()[1]) *
                                static_cast<long>(in[2]);
                for (long x = 0; x < ph.grid[2]; ++x)
                  row[ph.offset[2] + x * p.strides()[2]] = 0.0f;
              }
          }
        }
#pragma omp barrier
        const int t = omp_get_thread_num();
        float* scratch = scratch_share(gemm_scratch, q.thread_floats, t);
        for (const Phase& ph : q.phases) {
          if (!ph.plan) continue;
          const long rows = static_cast<long>(ph.taps.size());
          for (size_t g = 0; g < s.groups; ++g) {
            ImplicitB b;
            b.src = dy + static_cast<long>(g) * kpg * out_pixels;
            b.image_stride = static_cast<long>(s.y_image);
            b.channel_stride = out_pixels;
            b.dims = {static_cast<long>(out[0]), static_cast<long>(out[1]),
                      static_cast<long>(out[2])};
            b.grid = ph.grid;
            b.steps = {1, 1, 1};
            b.images = batch;
            b.taps = ph.taps.data();
            b.rows = rows;
            StridedC c;
            c.dst = dx + static_cast<long>(g) * cpg * in_pixels;
            c.image_stride = static_cast<long>(s.x_image);
            c.row_stride = in_pixels;
            c.dims = {static_cast<long>(in[0]), static_cast<long>(in[1]), static_cast<long>(in[2])};
            c.steps = p.strides();
            c.offsets = ph.offset;
            ph.plan->run(t, a_area + ph.a_offset + static_cast<long>(g) * cpg * ph.lda, ph.lda, b,
                         c, scratch, false);
          }
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_bwd() {
  return std::make_unique<ImplicitGemmBwd>();
}

}  // namespace anydnn::cpu
