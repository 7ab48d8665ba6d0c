// The channels-last 1x1 GEMM solvers (GemmFwd1x1Nhwc, GemmBwd1x1Nhwc, GemmWrw1x1Nhwc, one file
// each naming its direction): a 1x1 convolution with unit stride and no padding on packed NHWC /
// NDHWC activations is one cuBLAS GEMM over every image at once, the pixels of all images being
// the rows of one [N*H*W x C] matrix (NCHW needs one GEMM per image, as GemmFwd1x1_0_1 does).
// The filter of a 1x1 layer is [K x C] in either filter layout:
//   forward          Y  [NHW x K] = X [NHW x C] x W^T
//   backward data    dX [NHW x C] = dY [NHW x K] x W
//   backward weights dW [K x C]   = dY^T x X  (the N*H*W reduction split by cuBLAS itself)
// fp32 accumulation, rounded once to the tensors' type; no workspace, no staging. cuBLAS picks
// its kernel per shape (Hopper's persistent GEMMs), which the implicit-GEMM convolutions'
// one-tile-per-block kernels trail on large 1x1 layers.
#pragma once

#include <climits>
#include <cstddef>

#include <string_view>

#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

struct Nhwc1x1Shape {
  long long rows;  // N * (D *) H * W
  long long c, k;
  explicit Nhwc1x1Shape(const ConvProblem& p)
      : rows(static_cast<long long>(p.batch() * p.out_size()[0] * p.out_size()[1] *
                                    p.out_size()[2])),
        c(static_cast<long long>(p.in_channels())),
        k(static_cast<long long>(p.out_channels())) {}
};

inline Applicability gemm_1x1_nhwc_support(const ConvProblem& p) {
  const miopenDataType_t t = p.data_type();
  ANYDNN_REJECT_IF(t != miopenFloat && t != miopenHalf && t != miopenBFloat16,
                   "cuBLAS GEMMs take float, half or bfloat16 data");
  ANYDNN_REJECT_IF(p.groups() != 1, "groups > 1");
  for (int i = 0; i < 3; ++i) {
    ANYDNN_REJECT_IF(p.filter_size()[i] != 1, "not a 1x1 filter");
    ANYDNN_REJECT_IF(p.strides()[i] != 1, "stride > 1");
    ANYDNN_REJECT_IF(p.pads()[i] != 0, "padding");
  }
  const char* layout = p.spatial_dims() == 3 ? "NDHWC" : "NHWC";
  ANYDNN_REJECT_IF(!p.x().is_packed_layout(layout) || !p.y().is_packed_layout(layout),
                   "x and y not packed channels-last (NHWC / NDHWC)");
  ANYDNN_REJECT_IF(!p.w().is_packed(), "the filter is not packed");
  const Nhwc1x1Shape s(p);
  ANYDNN_REJECT_IF(s.rows > INT_MAX || s.c > INT_MAX || s.k > INT_MAX,
                   "a GEMM dimension beyond cuBLAS's int");
  return Applicability::yes();
}

template <ConvDirection kDir>
class Gemm1x1NhwcSolver final : public ConvSolver {
 public:
  explicit Gemm1x1NhwcSolver(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != kDir, "another direction");
    return gemm_1x1_nhwc_support(p);
  }
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const Gemm g = gemm(Nhwc1x1Shape(p));
    const double e = static_cast<double>(data_type_size(p.data_type()));
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         cublas_gemm_ms(backend_of(ctx).rates(),
                                        gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                        static_cast<double>(g.m), static_cast<double>(g.n),
                                        static_cast<double>(g.k), 1, e, e));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const Gemm g = gemm(Nhwc1x1Shape(p));
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    return [be, g, t, math](const ConvBuffers& b) {
      const void* a = kDir == ConvDirection::Forward ? b.x : b.y;
      const void* bm = kDir == ConvDirection::BackwardWeights ? b.x : b.w;
      void* c = kDir == ConvDirection::Forward        ? b.y
                : kDir == ConvDirection::BackwardData ? b.x
                                                      : b.w;
      gemm_rm(be->cublas(), g.a_trans, g.b_trans, static_cast<int>(g.m), static_cast<int>(g.n),
              static_cast<int>(g.k), GemmOperand{a, t, g.lda, 0}, GemmOperand{bm, t, g.ldb, 0},
              0.0f, c, t, g.n, 0, 1, math);
    };
  }

 private:
  // The row-major GEMM of the table above: C [m x n] = op(A) x op(B).
  struct Gemm {
    long long m, n, k, lda, ldb;
    bool a_trans, b_trans;
  };
  static Gemm gemm(const Nhwc1x1Shape& s) {
    switch (kDir) {
      case ConvDirection::Forward:  // A = X [rows x c], B = W stored [k x c], transposed
        return {s.rows, s.k, s.c, s.c, s.c, false, true};
      case ConvDirection::BackwardData:  // A = dY [rows x k], B = W [k x c]
        return {s.rows, s.c, s.k, s.k, s.c, false, false};
      default:  // A = dY stored [rows x k], transposed; B = X [rows x c]
        return {s.k, s.c, s.rows, s.k, s.c, true, false};
    }
  }
  std::string_view name_;
};

}  // namespace anydnn::cuda
