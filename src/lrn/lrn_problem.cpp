#include "lrn/lrn_problem.hpp"

#include <climits>
#include <sstream>
#include <string>

#include "core/data_type.hpp"
#include "core/elementwise_geometry.hpp"  // elements_disjoint
#include "core/errors.hpp"
#include "core/tensor_checks.hpp"

namespace anydnn {

namespace {

const TensorDescriptor& checked(const TensorDescriptor* d, const char* name,
                                const TensorDescriptor* like, const char* like_name) {
  return checked_4d(d, name, like, like_name, "LRN");
}

}  // namespace

std::string LrnProblem::driver_base(miopenDataType_t type) {
  return type == miopenHalf ? "lrnfp16" : "lrn";
}

size_t LrnProblem::workspace_size(const TensorDescriptor& y) {
  if (!y.is_set()) return 0;
  return y.lens()[0] * y.strides()[0] * sizeof(float);
}

double LrnProblem::alpha_over_area() const {
  const double n = params_.n;
  return cross_channel() ? params_.alpha / n : params_.alpha / (n * n);
}

double LrnProblem::backward_ratio() const {
  const double n = params_.n;
  return 2.0 * params_.alpha * params_.beta / (cross_channel() ? n : n * n);
}

LrnProblem::LrnProblem(LrnDirection direction, const LrnParams& params, const LrnDescriptors& d,
                       bool save_scale)
    : direction_(direction), params_(params), save_scale_(save_scale) {
  const int m = params.mode;
  ANYDNN_CHECK_BADPARM(m == miopenLRNWithinChannel || m == miopenLRNCrossChannel,
                       "LRN mode " << m << " is not valid");
  ANYDNN_CHECK_BADPARM(params.n >= 1, "lrnN is 0; the LRN window needs at least one element");
  // MIOpen reads lrnN as an int ("Wrong LRN kernel size" when its pads come out negative).
  ANYDNN_CHECK_BADPARM(params.n <= static_cast<unsigned>(INT_MAX),
                       "lrnN " << params.n << " is larger than an int; MIOpen's window is an int");
  ANYDNN_CHECK_BADPARM(params.k != 0.0, "lrnK is 0; LRN expects a non-zero bias/K");
  const TensorDescriptor* out = nullptr;
  const TensorDescriptor* y = nullptr;
  if (forward()) {
    const TensorDescriptor& xd = checked(d.x, "xDesc", nullptr, nullptr);
    y = &checked(d.y, "yDesc", &xd, "xDesc");
    x_ = nchw_strides(xd);
    out = y;
    packed_ = xd.is_packed_layout("NCHW") && y->is_packed_layout("NCHW");
  } else {
    y = &checked(d.y, "yDesc", nullptr, nullptr);
    const TensorDescriptor& dyd = checked(d.dy, "dyDesc", y, "yDesc");
    const TensorDescriptor& xd = checked(d.x, "xDesc", y, "yDesc");
    const TensorDescriptor& dxd = checked(d.dx, "dxDesc", y, "yDesc");
    x_ = nchw_strides(xd);
    dy_ = nchw_strides(dyd);
    dx_ = nchw_strides(dxd);
    out = &dxd;
    packed_ = y->is_packed_layout("NCHW") && dyd.is_packed_layout("NCHW") &&
              xd.is_packed_layout("NCHW") && dxd.is_packed_layout("NCHW");
  }
  y_ = nchw_strides(*y);
  ANYDNN_CHECK_BADPARM(elements_disjoint(*out), (forward() ? "yDesc" : "dxDesc")
                                                    << " has strides under which elements "
                                                       "overlap (or interleave)");
  type_ = out->type();
  ANYDNN_CHECK(type_ == miopenFloat || type_ == miopenHalf, miopenStatusNotImplemented,
               "LRN supports float and half data (as MIOpen), not " << data_type_name(type_));
  for (int i = 0; i < 4; ++i)
    lens_[i] = static_cast<long long>(out->lens()[i]);
  // The scale is written at y's strides; it must fit in MIOpen's workspace size.
  if (uses_workspace()) {
    ANYDNN_CHECK_BADPARM(elements_disjoint(*y),
                         "yDesc has strides under which elements overlap; the scale the "
                         "workspace keeps at its strides would collide");
    ANYDNN_CHECK_BADPARM(y->element_space() * data_type_size(type_) <= workspace_size(*y),
                         "yDesc's elements reach beyond miopenLRNGetWorkSpaceSize's n * n-stride "
                         "elements; the workspace could not hold the scale");
  }

  // MIOpen's LogCmdLRN (doubles through a default ostream).
  std::ostringstream k;
  k << driver_base(type_) << " -A " << params.alpha << " -B " << params.beta << " -F "
    << (forward() ? 1 : 2) << " -H " << lens_[2] << " -K " << params.k << " -N " << params.n
    << " -W " << lens_[3] << " -c " << lens_[1] << " -m " << m << " -n " << lens_[0];
  key_ = k.str();
}

}  // namespace anydnn
