// Applicability of the batch-normalization solvers, for every backend (bn_solver_specs.hpp).
#include "bn/bn_solver_specs.hpp"

#include "bn/bn_layout.hpp"

namespace anydnn {

Applicability BnSpatialChannelMajorSpec::applicable(const ExecutionContext&,
                                                    const BnProblem& p) const {
  ANYDNN_REJECT_IF(!p.spatial(), "per-activation mode");
  ANYDNN_REJECT_IF(!spatial_contiguous(p.x()) || !spatial_contiguous(p.y()) ||
                       (p.direction() == BnDirection::Backward && !spatial_contiguous(p.dx())),
                   "spatial dimensions are not contiguous (not NCHW / NCDHW)");
  return Applicability::yes();
}

Applicability BnSpatialChannelLastSpec::applicable(const ExecutionContext&,
                                                   const BnProblem& p) const {
  ANYDNN_REJECT_IF(!p.spatial(), "per-activation mode");
  ANYDNN_REJECT_IF(pixel_stride(p.x()) == 0 || pixel_stride(p.y()) == 0 ||
                       (p.direction() == BnDirection::Backward && pixel_stride(p.dx()) == 0),
                   "channels are not contiguous within packed pixels (not NHWC / NDHWC)");
  return Applicability::yes();
}

Applicability BnPerActivationSpec::applicable(const ExecutionContext&, const BnProblem& p) const {
  ANYDNN_REJECT_IF(p.spatial(), "spatial mode");
  const bool bwd = p.direction() == BnDirection::Backward;
  const bool major = image_packed(p.x()) && image_packed(p.y()) && (!bwd || image_packed(p.dx()));
  const bool last = image_channel_last(p.x()) && image_channel_last(p.y()) &&
                    (!bwd || image_channel_last(p.dx()));
  ANYDNN_REJECT_IF(!major && !last,
                   "an image is not packed as C, D, H, W or D, H, W, C (NCHW, NCDHW, NHWC, NDHWC)");
  return Applicability::yes();
}

}  // namespace anydnn
