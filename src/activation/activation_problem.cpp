#include "activation/activation_problem.hpp"

#include <limits>
#include <sstream>
#include <vector>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/tensor_checks.hpp"

namespace anydnn {

namespace {

const TensorDescriptor& checked(const TensorDescriptor* d, const char* name,
                                const TensorDescriptor* like, const char* like_name) {
  ANYDNN_CHECK_BADPARM(d != nullptr && d->is_set(), name << " has not been set");
  if (like != nullptr) {
    ANYDNN_CHECK_BADPARM(d->element_count() == like->element_count(),
                         name << " is " << lens_text(d->lens()) << " but " << like_name << " is "
                              << lens_text(like->lens()) << " (element counts differ)");
    ANYDNN_CHECK_BADPARM(d->type() == like->type(), name << " is " << data_type_name(d->type())
                                                         << " but " << like_name << " is "
                                                         << data_type_name(like->type()));
  }
  return *d;
}

void check_output(const TensorDescriptor& d, const char* name) {
  ANYDNN_CHECK_BADPARM(elements_disjoint(d), name << " has strides under which elements overlap "
                                                     "(or interleave, which is not supported)");
}

// MIOpen's LogCmdActivation lengths: n, c, h, w (and our d for 5-D).
std::vector<size_t> driver_lens(const TensorDescriptor& x) {
  std::vector<size_t> l = x.lens();
  while (l.size() < 4)
    l.insert(l.begin(), 1);
  if (l.size() > 5) {  // fold the extra leading dimensions into n
    size_t n = 1;
    while (l.size() > 5) {
      n *= l.front();
      l.erase(l.begin());
    }
    l[0] *= n;
  }
  return l;
}

// A double descriptor parameter in fp32: out-of-range values become infinities (a plain cast
// of a double beyond float's range is undefined behaviour).
float to_float_saturated(double v) {
  if (v > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
  if (v < -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);  // NaN stays NaN
}

}  // namespace

std::string ActivationProblem::driver_base(miopenDataType_t type) {
  if (type == miopenHalf) return "activfp16";
  if (type == miopenBFloat16) return "activbfp16";
  return "activ";
}

ActivationProblem::ActivationProblem(ActivDirection direction, const ActivMode& mode,
                                     const ActivDescriptors& d)
    : direction_(direction), mode_(mode) {
  ANYDNN_CHECK_BADPARM(mode.mode >= miopenActivationPASTHRU && mode.mode <= miopenActivationELU,
                       "activation mode " << static_cast<int>(mode.mode) << " is not valid");
  x_ = checked(d.x, "xDesc", nullptr, nullptr);
  y_ = checked(d.y, "yDesc", &x_, "xDesc");
  std::vector<const TensorDescriptor*> walk = {&x_, &y_};
  int primary = kY;
  if (direction == ActivDirection::Backward) {
    dx_ = checked(d.dx, "dxDesc", &x_, "xDesc");
    dy_ = checked(d.dy, "dyDesc", &x_, "xDesc");
    walk.push_back(&dx_);
    walk.push_back(&dy_);
    primary = kDx;
    check_output(dx_, "dxDesc");
  } else {
    check_output(y_, "yDesc");
  }
  ANYDNN_CHECK(
      x_.type() == miopenFloat || x_.type() == miopenHalf || x_.type() == miopenBFloat16,
      miopenStatusNotImplemented,
      "activation supports float, half and bfloat16 data, not " << data_type_name(x_.type()));
  geometry_ = make_activ_geometry(walk, primary);

  params_.alpha = to_float_saturated(mode.alpha);
  params_.beta = to_float_saturated(mode.beta);
  params_.gamma = to_float_saturated(mode.gamma);
  params_.eps = x_.type() == miopenFloat ? 1e-6f : 1e-4f;
  params_.diff_scale = to_float_saturated(mode.beta * mode.gamma);

  // MIOpen's LogCmdActivation, with the extensions the header describes.
  const std::vector<size_t> l = driver_lens(x_);
  std::ostringstream k;
  k << driver_base(x_.type()) << " -n " << l[0] << " -c " << l[1];
  if (l.size() == 5) k << " -D " << l[2];
  k << " -H " << l[l.size() - 2] << " -W " << l[l.size() - 1] << " -m "
    << static_cast<int>(mode.mode) << " --forw " << (forward() ? 1 : 2) << " -A " << mode.alpha
    << " -B " << mode.beta << " -G " << mode.gamma;
  if (x_.num_dims() == 4 || x_.num_dims() == 5) {
    const std::string layout = x_.layout(x_.num_dims() == 5 ? "NCDHW" : "NCHW");
    if (layout == "NHWC" || layout == "NDHWC") k << " --layout " << layout;
  }
  key_ = k.str();
}

}  // namespace anydnn
