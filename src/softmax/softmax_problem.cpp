#include "softmax/softmax_problem.hpp"

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
  return checked_4d(d, name, like, like_name, "softmax");
}

}  // namespace

std::string SoftmaxProblem::driver_base(miopenDataType_t type) {
  if (type == miopenHalf) return "softmaxfp16";
  if (type == miopenBFloat16) return "softmaxbfp16";
  return "softmax";
}

SoftmaxProblem::SoftmaxProblem(SoftmaxDirection direction, miopenSoftmaxAlgorithm_t algorithm,
                               miopenSoftmaxMode_t mode, const SoftmaxDescriptors& d, float alpha,
                               float beta)
    : direction_(direction), algorithm_(algorithm), mode_(mode), alpha_(alpha), beta_(beta) {
  ANYDNN_CHECK_BADPARM(algorithm >= MIOPEN_SOFTMAX_FAST && algorithm <= MIOPEN_SOFTMAX_LOG,
                       "softmax algorithm " << static_cast<int>(algorithm) << " is not valid");
  ANYDNN_CHECK_BADPARM(mode == MIOPEN_SOFTMAX_MODE_INSTANCE || mode == MIOPEN_SOFTMAX_MODE_CHANNEL,
                       "softmax mode " << static_cast<int>(mode) << " is not valid");
  const TensorDescriptor* out = nullptr;
  if (forward()) {
    const TensorDescriptor& x = checked(d.x, "xDesc", nullptr, nullptr);
    const TensorDescriptor& y = checked(d.y, "yDesc", &x, "xDesc");
    in_ = nchw_strides(x);
    out_ = nchw_strides(y);
    out = &y;
    packed_ = x.is_packed_layout("NCHW") && y.is_packed_layout("NCHW");
  } else {
    const TensorDescriptor& y = checked(d.y, "yDesc", nullptr, nullptr);
    const TensorDescriptor& dy = checked(d.dy, "dyDesc", &y, "yDesc");
    const TensorDescriptor& dx = checked(d.dx, "dxDesc", &y, "yDesc");
    in_ = nchw_strides(y);
    grad_ = nchw_strides(dy);
    out_ = nchw_strides(dx);
    out = &dx;
    packed_ =
        y.is_packed_layout("NCHW") && dy.is_packed_layout("NCHW") && dx.is_packed_layout("NCHW");
  }
  ANYDNN_CHECK_BADPARM(elements_disjoint(*out), (forward() ? "yDesc" : "dxDesc")
                                                    << " has strides under which elements "
                                                       "overlap (or interleave)");
  type_ = out->type();
  ANYDNN_CHECK(type_ == miopenFloat || type_ == miopenHalf || type_ == miopenBFloat16,
               miopenStatusNotImplemented,
               "softmax supports float, half and bfloat16 data, not " << data_type_name(type_));
  for (int i = 0; i < 4; ++i)
    lens_[i] = static_cast<long long>(out->lens()[i]);
  const long long hw = lens_[2] * lens_[3];
  inner_ = mode == MIOPEN_SOFTMAX_MODE_INSTANCE ? 1 : hw;
  vector_ = mode == MIOPEN_SOFTMAX_MODE_INSTANCE ? lens_[1] * hw : lens_[1];

  // MIOpen's LogCmdSoftmax (alpha and beta through std::to_string).
  std::ostringstream k;
  k << driver_base(type_) << " -n " << lens_[0] << " -c " << lens_[1] << " -H " << lens_[2]
    << " -W " << lens_[3] << " -F " << (forward() ? 1 : 2) << " -a " << static_cast<int>(algorithm)
    << " -m " << static_cast<int>(mode) << " -A " << std::to_string(alpha) << " -B "
    << std::to_string(beta);
  key_ = k.str();
}

}  // namespace anydnn
