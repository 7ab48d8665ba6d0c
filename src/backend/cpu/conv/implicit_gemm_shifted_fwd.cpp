// ImplicitGemmShiftedFwd: forward 2-D convolution of packed NCHW fp32 tensors as a GEMM whose
// B rows are read in place (kernels/shifted_gemm.hpp). x is first copied into a zero-padded
// array split by stride phase, x̂[n][c][phase][i][j] = x[n][c][i*sh + a - ph][j*sw + b - pw]
// for the phases (a, b) some tap uses; then filter tap (c, r, s) is the constant shift
//   koff = ((c * phases + phase(r, s)) * Hq + (r*dh) / sh) * Wq + (s*dw) / sw
// and output (oh, ow) is column q = oh * Wq + ow, so im2col(x) row (c, r, s) is x̂ shifted by
// koff: nothing is packed per block. Columns with ow >= OW are computed and dropped (Wq - OW
// of each Wq: 2 of 58 for a 56x56 3x3 layer). 1x1 unit-stride unpadded layers skip the copy.
// Pays where packing is the cost: small output-channel counts (M) on large feature maps.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "backend/cpu/kernels/shifted_gemm.hpp"
#include "solver/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

struct ShiftedPlan {
  GemmShape shape;
  long H, W, OH, OW, R, S;
  int ph, pw, sh, sw, dh, dw;
  bool copy = true;                                           // build x̂ (else x is used as is)
  long Hq = 0, Wq = 0;                                        // phase image size
  std::vector<int> phase_of_row_offset, phase_of_col_offset;  // index among used phases
  long phases_h = 1, phases_w = 1;
  std::vector<int> used_a, used_b;  // used row / column phases
  std::vector<long> koff;           // per tap of one group
  long xhat_image = 0;              // floats of x̂ per image
  size_t xhat_floats = 0;           // all images, rounded to 16
  ShiftedGemmPlan gemm;

  static ShiftedGemmPlan make_gemm(const ExecutionContext& ctx, const ConvProblem& p,
                                   const GemmShape& s, long cols) {
    return ShiftedGemmPlan(ctx.config.cpu_isa, static_cast<long>(s.k_per_group),
                           static_cast<long>(s.rows), cols, static_cast<long>(p.batch()),
                           ctx.config.num_threads);
  }

  ShiftedPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : shape(p),
        H(static_cast<long>(p.in_size()[1])),
        W(static_cast<long>(p.in_size()[2])),
        OH(static_cast<long>(p.out_size()[1])),
        OW(static_cast<long>(p.out_size()[2])),
        R(static_cast<long>(p.filter_size()[1])),
        S(static_cast<long>(p.filter_size()[2])),
        ph(p.pads()[1]),
        pw(p.pads()[2]),
        sh(p.strides()[1]),
        sw(p.strides()[2]),
        dh(p.dilations()[1]),
        dw(p.dilations()[2]),
        gemm(make_gemm(ctx, p, shape, columns(p))) {
    copy = needs_copy(p);
    // Phases a tap uses: (r*dh) mod sh for rows, (s*dw) mod sw for columns.
    std::vector<int> row_phase_index(static_cast<size_t>(sh), -1);
    std::vector<int> col_phase_index(static_cast<size_t>(sw), -1);
    for (long r = 0; r < R; ++r) {
      const int a = static_cast<int>(r * dh % sh);
      if (row_phase_index[a] < 0) {
        row_phase_index[a] = static_cast<int>(used_a.size());
        used_a.push_back(a);
      }
    }
    for (long s = 0; s < S; ++s) {
      const int b = static_cast<int>(s * dw % sw);
      if (col_phase_index[b] < 0) {
        col_phase_index[b] = static_cast<int>(used_b.size());
        used_b.push_back(b);
      }
    }
    phases_h = static_cast<long>(used_a.size());
    phases_w = static_cast<long>(used_b.size());
    Hq = copy ? phase_extent(H, ph, sh, OH, R, dh) : H;
    Wq = copy ? phase_extent(W, pw, sw, OW, S, dw) : W;
    const long plane = Hq * Wq;
    const long phases = phases_h * phases_w;
    const long c_per_group = static_cast<long>(shape.c_per_group);
    for (long c = 0; c < c_per_group; ++c)
      for (long r = 0; r < R; ++r)
        for (long s = 0; s < S; ++s) {
          const long phase = row_phase_index[r * dh % sh] * phases_w + col_phase_index[s * dw % sw];
          koff.push_back(((c * phases + phase) * Hq + r * dh / sh) * Wq + s * dw / sw);
        }
    xhat_image = static_cast<long>(p.in_channels()) * phases * plane;
    xhat_floats =
        copy ? static_cast<size_t>((xhat_image * static_cast<long>(p.batch()) + 15) / 16 * 16) : 0;
  }

  // x can be read in place when no padding, stride or filter overhang needs a copy.
  static bool needs_copy(const ConvProblem& p) {
    const auto& f = p.filter_size();
    const auto& in = p.in_size();
    const auto& d = p.dilations();
    return p.pads()[1] != 0 || p.pads()[2] != 0 || p.strides()[1] != 1 || p.strides()[2] != 1 ||
           (static_cast<long>(f[1]) - 1) * d[1] >= static_cast<long>(in[1]) ||
           (static_cast<long>(f[2]) - 1) * d[2] >= static_cast<long>(in[2]);
  }
  // Rows (columns) of a phase image: the padded input, and at least what the last output
  // reads through the farthest tap (filters larger than the input read zeros there).
  static long phase_extent(long in, int pad, int stride, long out, long filter, int dilation) {
    return std::max(ceil_div(in + 2L * pad, stride), out + (filter - 1) * dilation / stride);
  }
  // Columns per image: the output grid up to the last kept column, q < (OH-1)*Wq + OW.
  static long columns(const ConvProblem& p) {
    const long W = static_cast<long>(p.in_size()[2]), OW = static_cast<long>(p.out_size()[2]);
    const long Wq = needs_copy(p)
                        ? phase_extent(W, p.pads()[2], p.strides()[2], OW,
                                       static_cast<long>(p.filter_size()[2]), p.dilations()[2])
                        : W;
    return (static_cast<long>(p.out_size()[1]) - 1) * Wq + OW;
  }

  size_t workspace_bytes() const {
    return xhat_floats * sizeof(float) + scratch_bytes(gemm.thread_floats(), gemm.threads());
  }

  // x̂ of image n, channel c (all phases), from x; zero where the source is padding.
  void fill(const float* x, long n, long c, float* xhat, long channels) const {
    const float* src = x + (n * channels + c) * H * W;
    float* dst = xhat + n * xhat_image + c * phases_h * phases_w * Hq * Wq;
    for (long pa = 0; pa < phases_h; ++pa)
      for (long pb = 0; pb < phases_w; ++pb) {
        float* plane = dst + (pa * phases_w + pb) * Hq * Wq;
        const long a = used_a[pa], b = used_b[pb];
        for (long i = 0; i < Hq; ++i) {
          float* __restrict row = plane + i * Wq;
          const long ih = i * sh + a - ph;
          if (ih < 0 || ih >= H) {
            for (long j = 0; j < Wq; ++j)
              row[j] = 0.0f;
            continue;
          }
          const float* __restrict in = src + ih * W;
          // Columns j with 0 <= j*sw + b - pw < W.
          const long lo = std::min(Wq, std::max(0L, ceil_div(pw - b, sw)));
          const long hi = std::max(lo, std::min(Wq, ceil_div(W + pw - b, sw)));
          for (long j = 0; j < lo; ++j)
            row[j] = 0.0f;
          if (sw == 1) {
            const float* s = in + lo + b - pw;
            for (long j = 0; j < hi - lo; ++j)
              row[lo + j] = s[j];
          } else {
            for (long j = lo; j < hi; ++j)
              row[j] = in[j * sw + b - pw];
          }
          for (long j = hi; j < Wq; ++j)
            row[j] = 0.0f;
        }
      }
  }
};

class ImplicitGemmShiftedFwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmShiftedFwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
    return gemm_problem_support(p);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return ShiftedPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const ShiftedPlan>(ctx, p);
    return [p, plan](const ConvBuffers& buf) {
      const ShiftedPlan& q = *plan;
      const GemmShape& s = q.shape;
      const float* x = static_cast<const float*>(buf.x);
      const float* w = static_cast<const float*>(buf.w);
      float* y = static_cast<float*>(buf.y);
      float* xhat = scratch_share(buf.workspace, 0, 0);
      float* gemm_scratch = xhat + q.xhat_floats;
      const long channels = static_cast<long>(p.in_channels());
      const long batch = static_cast<long>(p.batch());
      const long chan_floats = q.copy ? q.phases_h * q.phases_w * q.Hq * q.Wq : q.H * q.W;
#pragma omp parallel num_threads(q.gemm.threads())
      {
        const int t = omp_get_thread_num();
        if (q.copy) {
#pragma omp for schedule(static)
          for (long nc = 0; nc < batch * channels; ++nc)
            q.fill(x, nc / channels, nc % channels, xhat, channels);
        }
        float* scratch = scratch_share(gemm_scratch, q.gemm.thread_floats(), t);
        for (size_t g = 0; g < s.groups; ++g) {
          ShiftedB b;
          b.src = (q.copy ? xhat : x) + static_cast<long>(g * s.c_per_group) * chan_floats;
          b.image_stride = q.copy ? q.xhat_image : static_cast<long>(s.x_image);
          b.images = batch;
          b.cols = (q.OH - 1) * q.Wq + q.OW;
          b.koff = q.koff.data();
          b.rows = static_cast<long>(q.koff.size());
          ShiftedC c;
          c.dst = y + static_cast<long>(g * s.k_per_group * s.pixels);
          c.image_stride = static_cast<long>(s.y_image);
          c.row_stride = static_cast<long>(s.pixels);
          c.grid_w = q.Wq;
          c.out_w = q.OW;
          q.gemm.run(t, w + static_cast<long>(g * s.k_per_group * s.rows),
                     static_cast<long>(s.rows), b, c, scratch);
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_shifted_fwd() {
  return std::make_unique<ImplicitGemmShiftedFwd>();
}

}  // namespace anydnn::cpu
