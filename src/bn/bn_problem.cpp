#include "bn/bn_problem.hpp"

#include <cmath>
#include <sstream>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/tensor_checks.hpp"

namespace anydnn {

namespace {

bool is_float_type(miopenDataType_t t) {
  return t == miopenFloat || t == miopenHalf || t == miopenBFloat16;
}

void check_param(const char* name, const TensorDescriptor* d, const TensorDescriptor& want,
                 miopenDataType_t data_type) {
  ANYDNN_CHECK_BADPARM(d != nullptr && d->is_set(), name << " descriptor has not been set");
  ANYDNN_CHECK_BADPARM(d->lens() == want.lens(), name << " descriptor is " << lens_text(d->lens())
                                                      << ", the mode needs "
                                                      << lens_text(want.lens()));
  ANYDNN_CHECK_BADPARM(d->type() == miopenFloat || d->type() == data_type,
                       name << " descriptor type must be float or the data type");
}

}  // namespace

TensorDescriptor derive_bn_descriptor(const TensorDescriptor& x, miopenBatchNormMode_t mode) {
  ANYDNN_CHECK_BADPARM(x.is_set(), "xDesc has not been set");
  ANYDNN_CHECK_BADPARM(
      x.num_dims() == 4 || x.num_dims() == 5,
      "batch normalization needs a 4-D or 5-D xDesc, got " << x.num_dims() << "-D");
  ANYDNN_CHECK_BADPARM(mode == miopenBNSpatial || mode == miopenBNPerActivation,
                       "bn_mode " << static_cast<int>(mode) << " is not a miopenBatchNormMode_t");
  std::vector<size_t> lens = x.lens();
  lens[0] = 1;
  if (mode == miopenBNSpatial)
    for (size_t i = 2; i < lens.size(); ++i)
      lens[i] = 1;
  const miopenDataType_t t =
      (x.type() == miopenHalf || x.type() == miopenBFloat16) ? miopenFloat : x.type();
  return TensorDescriptor(t, lens);
}

std::string BnProblem::driver_base(miopenDataType_t data, miopenDataType_t param) {
  if (data == miopenHalf) return param == miopenHalf ? "bnormfp16" : "bnormfp16fp32";
  if (data == miopenBFloat16) return param == miopenBFloat16 ? "bnormbfp16" : "bnormbfp16fp32";
  return "bnorm";
}

BnProblem::BnProblem(BnDirection direction, miopenBatchNormMode_t mode, const BnDescriptors& d,
                     double epsilon, double exp_avg_factor, bool save, bool running)
    : direction_(direction),
      mode_(mode),
      epsilon_(epsilon),
      exp_avg_factor_(exp_avg_factor),
      save_(save),
      running_(running) {
  ANYDNN_CHECK_BADPARM(d.x != nullptr && d.x->is_set(), "xDesc has not been set");
  const TensorDescriptor want = derive_bn_descriptor(*d.x, mode);  // checks rank and mode
  x_ = *d.x;
  const char* y_name = direction == BnDirection::Backward ? "dyDesc" : "yDesc";
  ANYDNN_CHECK_BADPARM(d.y != nullptr && d.y->is_set(), y_name << " has not been set");
  ANYDNN_CHECK_BADPARM(d.y->lens() == x_.lens(), y_name << " is " << lens_text(d.y->lens())
                                                        << " but xDesc is "
                                                        << lens_text(x_.lens()));
  ANYDNN_CHECK_BADPARM(d.y->type() == x_.type(), y_name << " and xDesc have different data types");
  y_ = *d.y;
  if (direction == BnDirection::Backward) {
    ANYDNN_CHECK_BADPARM(d.dx != nullptr && d.dx->is_set(), "dxDesc has not been set");
    ANYDNN_CHECK_BADPARM(d.dx->lens() == x_.lens(), "dxDesc is " << lens_text(d.dx->lens())
                                                                 << " but xDesc is "
                                                                 << lens_text(x_.lens()));
    ANYDNN_CHECK_BADPARM(d.dx->type() == x_.type(), "dxDesc and xDesc have different data types");
    dx_ = *d.dx;
  }
  ANYDNN_CHECK(is_float_type(x_.type()), miopenStatusNotImplemented,
               "batch normalization supports float, half and bfloat16 data, not "
                   << data_type_name(x_.type()));
  check_param("scale", d.scale, want, x_.type());
  check_param("bias", d.bias, want, x_.type());
  check_param("mean", d.mean, want, x_.type());
  check_param("variance", d.var, want, x_.type());
  scale_ = *d.scale;
  bias_ = *d.bias;
  mean_ = *d.mean;
  var_ = *d.var;
  for (size_t i = 0; i < x_.lens().size(); ++i)
    ANYDNN_CHECK_BADPARM(x_.lens()[i] > 0, "xDesc has a zero length");
  ANYDNN_CHECK_BADPARM(!std::isnan(epsilon) && epsilon >= 0.0,
                       "epsilon = " << epsilon << " must be >= 0 (MIOpen: a positive value)");
  if (direction == BnDirection::ForwardTraining && running)
    ANYDNN_CHECK_BADPARM(std::isfinite(exp_avg_factor),
                         "expAvgFactor = " << exp_avg_factor << " is not finite");
  for (size_t i = 2; i < x_.lens().size(); ++i)
    spatial_ *= x_.lens()[i];
  layout_ = x_.layout(x_.num_dims() == 5 ? "NCDHW" : "NCHW");

  std::ostringstream k;
  const auto& l = x_.lens();
  k << driver_base(x_.type(), scale_.type()) << " -n " << l[0] << " -c " << l[1];
  if (l.size() == 5) k << " -D " << l[2];
  k << " -H " << l[l.size() - 2] << " -W " << l[l.size() - 1] << " -m " << static_cast<int>(mode);
  switch (direction) {
    case BnDirection::ForwardTraining:
      k << " --forw 1 -b 0";
      break;
    case BnDirection::ForwardInference:
      k << " --forw 2 -b 0";
      break;
    case BnDirection::Backward:
      k << " --forw 0 -b 1";
      break;
  }
  if (save && direction != BnDirection::ForwardInference) k << " -s 1";
  if (running && direction != BnDirection::Backward) k << " -r 1";
  k << " --layout " << layout_;
  key_ = k.str();
}

}  // namespace anydnn
