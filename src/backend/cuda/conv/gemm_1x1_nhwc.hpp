// What the channels-last 1x1 GEMM solvers (GemmFwd1x1Nhwc, GemmBwd1x1Nhwc, GemmWrw1x1Nhwc) share:
// a 1x1 convolution with unit stride and no padding on packed NHWC / NDHWC activations is one
// GEMM over all images at once, the pixels of every image being the rows of one [N*H*W x C]
// matrix (NCHW needs one GEMM per image, as GemmFwd1x1_0_1 does). The filter of a 1x1 layer is
// [K x C] in either filter layout.
#pragma once

#include <climits>
#include <cstddef>

#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"

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

}  // namespace anydnn::cuda
