#include "backend/cpu/conv/depthwise_util.hpp"

#include <algorithm>

#include "core/data_type.hpp"

namespace anydnn::cpu {

Applicability depthwise_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(!is_float_like(p.data_type()), "needs float, half or bfloat16 data");
  ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
  ANYDNN_REJECT_IF(p.groups() < 2 || p.groups() != p.in_channels(),
                   "not depthwise (groups != input channels)");
  ANYDNN_REJECT_IF(!p.x().is_packed_layout("NCHW") || !p.w().is_packed_layout("NCHW") ||
                       !p.y().is_packed_layout("NCHW"),
                   "needs packed NCHW tensors");
  return Applicability::yes();
}

DepthwiseShape::DepthwiseShape(const ConvProblem& p)
    : N(static_cast<long>(p.batch())),
      C(static_cast<long>(p.in_channels())),
      K(static_cast<long>(p.out_channels())),
      mult(K / C),
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
      dw(p.dilations()[2]) {}

void DepthwiseShape::valid_columns(long s, long* lo, long* hi) const {
  // 0 <= ow*sw + s*dw - pw < W
  const long first = pw - s * dw;     // ow*sw >= first
  const long last = W + pw - s * dw;  // ow*sw < last
  *lo = first <= 0 ? 0 : (first + sw - 1) / sw;
  *hi = last <= 0 ? 0 : std::min(OW, (last + sw - 1) / sw);
  *lo = std::min(*lo, *hi);
}

}  // namespace anydnn::cpu
