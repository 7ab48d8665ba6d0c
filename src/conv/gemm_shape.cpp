// GEMM shapes and BLAS support checks shared by the backends' GEMM solvers (gemm_shape.hpp).
#include "conv/gemm_shape.hpp"

#include <array>
#include <string>

#include "core/data_type.hpp"

namespace anydnn {

GemmShape::GemmShape(const ConvProblem& p) {
  const auto& f = p.filter_size();
  const auto& o = p.out_size();
  const auto& i = p.in_size();
  groups = p.groups();
  c_per_group = p.in_channels() / groups;
  k_per_group = p.out_channels() / groups;
  taps = f[0] * f[1] * f[2];
  rows = c_per_group * taps;
  pixels = o[0] * o[1] * o[2];
  x_image = p.in_channels() * i[0] * i[1] * i[2];
  y_image = p.out_channels() * pixels;
}

Applicability gemm_problem_support(const ConvProblem& p, const GemmBlas& blas) {
  ANYDNN_REJECT_IF(!is_float_like(p.data_type()), "needs float, half or bfloat16 data");
  const std::string layout = p.spatial_dims() == 2 ? "NCHW" : "NCDHW";
  ANYDNN_REJECT_IF(!p.x().is_packed_layout(layout) || !p.w().is_packed_layout(layout) ||
                       !p.y().is_packed_layout(layout),
                   "needs packed " + layout + " tensors");
  const GemmShape s(p);
  constexpr size_t kIntMax = 0x7fffffff;
  ANYDNN_REJECT_IF(s.rows > kIntMax || s.pixels > kIntMax || s.k_per_group > kIntMax ||
                       (blas.batch_is_int && (p.batch() > kIntMax || s.groups > kIntMax)),
                   std::string("GEMM dimensions exceed the int range of ") + blas.name);
  return Applicability::yes();
}

Applicability gemm_1x1_support(const ConvProblem& p, const GemmBlas& blas) {
  ANYDNN_REJECT_IF(p.filter_size() != (std::array<size_t, 3>{1, 1, 1}), "filter is not 1x1");
  ANYDNN_REJECT_IF(p.strides() != (std::array<int, 3>{1, 1, 1}), "stride is not 1");
  ANYDNN_REJECT_IF(p.pads() != (std::array<int, 3>{0, 0, 0}), "padding is not 0");
  return gemm_problem_support(p, blas);
}

}  // namespace anydnn
