#include "tensor_ops/tensor_op_problem.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/float_types.hpp"

namespace anydnn {

namespace {

// MIOpen throws these without a status, which its try_ turns into UnknownError.
#define ANYDNN_CHECK_UNKNOWN(cond, msg) ANYDNN_CHECK(cond, miopenStatusUnknownError, msg)

std::string lens_text(const TensorDescriptor& d) {
  std::ostringstream ss;
  for (size_t i = 0; i < d.num_dims(); ++i)
    ss << (i ? "x" : "") << d.lens()[i];
  return ss.str();
}

void require_set(const TensorDescriptor& d, const char* name) {
  ANYDNN_CHECK_BADPARM(d.is_set(), name << " has not been set");
}

float read_float(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The compute precision of the kernels: fp32 for the float types, so the plan's scalars are
// what a kernel multiplies by.
double for_compute(double v, miopenDataType_t t) {
  return is_float_like(t) ? static_cast<double>(static_cast<float>(v)) : v;
}

// std::to_string(float), as MIOpen's LogCmdTensorOp prints the scalars.
std::string scalar_text(double v) {
  return std::to_string(static_cast<float>(v));
}

}  // namespace

double read_host_value(const void* p, miopenDataType_t type) {
  switch (type) {
    case miopenFloat: {
      float v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case miopenHalf:
    case miopenBFloat16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return type == miopenHalf ? half_to_float(v) : bf16_to_float(v);
    }
    case miopenDouble: {
      double v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case miopenInt32: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case miopenInt64: {
      int64_t v;
      std::memcpy(&v, p, sizeof v);
      return static_cast<double>(v);
    }
    case miopenInt8:
      return *static_cast<const int8_t*>(p);
    default:
      return 0.0;  // fp8: only its bytes matter (SetTensor)
  }
}

void TensorOpProblem::make_key(const TensorDescriptor& first, int o, const double* abg) {
  std::ostringstream k;
  k << (first.type() == miopenHalf ? "tensoropfp16" : "tensorop");
  if (abg != nullptr)
    k << " -A " << scalar_text(abg[0]) << " -B " << scalar_text(abg[1]) << " -G "
      << scalar_text(abg[2]);
  // n, c, H, W: missing dimensions are 1, extra ones fold into W (the element count stays).
  size_t l[4] = {1, 1, 1, 1};
  const auto& lens = first.lens();
  for (size_t i = 0; i < lens.size(); ++i)
    l[i < 4 ? i : 3] *= lens[i];
  k << " -n " << l[0] << " -c " << l[1] << " -H " << l[2] << " -W " << l[3] << " -o " << o;
  if (o <= 1) k << " -v " << scalar_text(value_);
  key_ = k.str();
}

TensorOpProblem TensorOpProblem::op_tensor(miopenTensorOp_t op, const TensorDescriptor& a,
                                           const TensorDescriptor& b, const TensorDescriptor& c,
                                           const void* alpha1, const void* alpha2,
                                           const void* beta) {
  require_set(a, "aDesc");
  require_set(b, "bDesc");
  require_set(c, "cDesc");
  ANYDNN_CHECK_BADPARM(op >= miopenTensorOpAdd && op <= miopenTensorOpMax,
                       "tensorOp " << static_cast<int>(op) << " is not a miopenTensorOp_t");
  TensorOpProblem p;
  p.kind_ = TensorOpKind::Op;
  p.a_ = a;
  p.b_ = b;
  p.c_ = c;
  // MIOpen's checks, in its order and with its messages.
  ANYDNN_CHECK_UNKNOWN(a.element_count() == c.element_count(), "A and C Tensors do not match ("
                                                                   << lens_text(a) << " and "
                                                                   << lens_text(c) << ")");
  ANYDNN_CHECK_UNKNOWN(b.type() == c.type(), "Datatypes for B and C tensors do not match !");
  ANYDNN_CHECK_UNKNOWN(c.num_dims() <= 5, "Tensor dimension larger than 5: " << c.num_dims());
  ANYDNN_CHECK_UNKNOWN(b.num_dims() == c.num_dims(),
                       "Number of dims in B and C Tensors do not "
                       "match: "
                           << b.num_dims() << ", " << c.num_dims());
  for (size_t i = 0; i < c.num_dims(); ++i)
    ANYDNN_CHECK_UNKNOWN(b.lens()[i] == 1 || b.lens()[i] == c.lens()[i],
                         "BTensor dim != 1 && BTensor dim != CTensor dim: "
                             << i << " (B " << lens_text(b) << ", C " << lens_text(c) << ")");
  // MIOpen reads A in B's type and walks it with C's indices: anything else it gets wrong.
  ANYDNN_CHECK_BADPARM(a.type() == c.type(), "A's data type " << data_type_name(a.type())
                                                              << " differs from C's "
                                                              << data_type_name(c.type()));
  ANYDNN_CHECK_BADPARM(a.lens() == c.lens(), "A is " << lens_text(a) << " but C is " << lens_text(c)
                                                     << " (only B may broadcast)");
  ANYDNN_CHECK(
      is_float_like(c.type()), miopenStatusNotImplemented,
      "miopenOpTensor supports float, half and bfloat16 data, not " << data_type_name(c.type()));
  const ElementwiseOp ops[] = {ElementwiseOp::Add, ElementwiseOp::Mul, ElementwiseOp::Min,
                               ElementwiseOp::Max};
  const PlanOperand pa{a.lens().data(), a.strides().data()};
  const PlanOperand pb{b.lens().data(), b.strides().data()};
  p.plan_ = plan_tensor_op(ops[op], c.type(), static_cast<int>(c.num_dims()), c.lens().data(),
                           c.strides().data(), &pa, &pb);
  p.plan_.alpha1 = read_float(alpha1, "alpha1");
  p.plan_.alpha2 = read_float(alpha2, "alpha2");
  p.plan_.beta = read_float(beta, "beta");
  const double abg[] = {p.plan_.alpha1, p.plan_.alpha2, p.plan_.beta};
  p.make_key(a, static_cast<int>(op) + 2, abg);
  return p;
}

TensorOpProblem TensorOpProblem::set_tensor(const TensorDescriptor& y, const void* value) {
  require_set(y, "yDesc");
  ANYDNN_CHECK_BADPARM(value != nullptr, "alpha (the fill value) is a null pointer");
  TensorOpProblem p;
  p.kind_ = TensorOpKind::Set;
  p.c_ = y;
  p.plan_ = plan_tensor_op(ElementwiseOp::Fill, y.type(), static_cast<int>(y.num_dims()),
                           y.lens().data(), y.strides().data(), nullptr, nullptr);
  // The value is in y's data type (MIOpen reads it so); the kernels store its bytes.
  std::memcpy(&p.plan_.fill_bits, value, data_type_size(y.type()));
  p.value_ = read_host_value(value, y.type());
  p.make_key(y, 0, nullptr);
  return p;
}

TensorOpProblem TensorOpProblem::scale_tensor(const TensorDescriptor& y, const void* alpha) {
  require_set(y, "yDesc");
  ANYDNN_CHECK_BADPARM(alpha != nullptr, "alpha is a null pointer");
  const miopenDataType_t t = y.type();
  ANYDNN_CHECK_BADPARM(t == miopenHalf || t == miopenFloat || t == miopenInt32 || t == miopenDouble,
                       "ScaleTensor: unsupported data type "
                           << data_type_name(t) << " (MIOpen scales half, float, int32, double)");
  TensorOpProblem p;
  p.kind_ = TensorOpKind::Scale;
  p.c_ = y;
  p.plan_ = plan_tensor_op(ElementwiseOp::Scale, t, static_cast<int>(y.num_dims()), y.lens().data(),
                           y.strides().data(), nullptr, nullptr);
  p.value_ = read_host_value(alpha, t);
  p.plan_.alpha1 = for_compute(p.value_, t);
  p.make_key(y, 1, nullptr);
  return p;
}

TensorOpProblem TensorOpProblem::transform_tensor(const TensorDescriptor& x,
                                                  const TensorDescriptor& y, const void* alpha,
                                                  const void* beta) {
  require_set(x, "xDesc");
  require_set(y, "yDesc");
  // MIOpen compares the scalars with 1 and 0 as floats whatever the data type. For double data
  // that would take any double whose low word is 0 (2.0, 0.5, ...) for 0: compare the double.
  const bool dbl = x.type() == miopenDouble && y.type() == miopenDouble;
  const bool alpha_one =
      dbl ? (read_float(alpha, "alpha"), read_host_value(alpha, miopenDouble) == 1.0)
          : read_float(alpha, "alpha") == 1.0f;
  const bool beta_zero =
      dbl ? (read_float(beta, "beta"), read_host_value(beta, miopenDouble) == 0.0)
          : read_float(beta, "beta") == 0.0f;
  auto xl = x.lens(), yl = y.lens();
  ANYDNN_CHECK_UNKNOWN(xl.size() == yl.size(), "Tensor dimension must be the same ("
                                                   << lens_text(x) << " and " << lens_text(y)
                                                   << ")");
  ANYDNN_CHECK_UNKNOWN(xl[0] == yl[0], "Tensor x and y batch sizes do not match");
  TensorOpProblem p;
  p.kind_ = TensorOpKind::Transform;
  p.a_ = x;
  p.c_ = y;
  TensorDescriptor xv = x, yv = y;  // the part copied
  const miopenDataType_t t = y.type();
  if (x.type() == miopenInt8 && t == miopenInt8 && xl.size() >= 3) {
    // MIOpen's int8 <-> int8x4 channel (de)vectorisation: pad C up to a multiple of 4 with
    // zeros, or drop the channels beyond y's.
    if (xl[1] <= yl[1]) {
      ANYDNN_CHECK_UNKNOWN(yl[1] >= 4 && xl[1] + 4 > yl[1] && yl[1] % 4 == 0,
                           "Invalid y channel size " << yl[1] << " for x channels " << xl[1]
                                                     << " (needs the next multiple of 4)");
      p.zero_first_ = xl[1] < yl[1];
    } else {
      ANYDNN_CHECK_UNKNOWN(xl[1] % 4 == 0,
                           "Invalid x channel size " << xl[1] << " (not a multiple of 4)");
    }
    for (size_t i = 2; i < xl.size(); ++i)
      ANYDNN_CHECK_UNKNOWN(xl[i] == yl[i], "Tensor x and y spatial sizes do not match ("
                                               << lens_text(x) << " and " << lens_text(y) << ")");
    ANYDNN_CHECK(alpha_one && beta_zero, miopenStatusNotImplemented,
                 "y=alpha*x+beta*y is not supported for int8 yet (alpha must be 1, beta 0)");
    auto common = xl;
    common[1] = std::min(xl[1], yl[1]);
    xv = TensorDescriptor(miopenInt8, common, x.strides());
    yv = TensorDescriptor(miopenInt8, common, y.strides());
  } else {
    ANYDNN_CHECK_UNKNOWN(xl == yl, "Tensor x and y spatial sizes do not match ("
                                       << lens_text(x) << " and " << lens_text(y) << ")");
    const auto supported = [](miopenDataType_t d) {
      return d == miopenHalf || d == miopenFloat || d == miopenInt32 || d == miopenBFloat16 ||
             d == miopenDouble;
    };
    ANYDNN_CHECK_UNKNOWN(supported(x.type()), "Tensor x is a unsupported data type ("
                                                  << data_type_name(x.type()) << ")");
    ANYDNN_CHECK_UNKNOWN(supported(t),
                         "Tensor y is a unsupported data type (" << data_type_name(t) << ")");
    ANYDNN_CHECK_UNKNOWN(x.type() == t, "Tensor x and y have different data types ("
                                            << data_type_name(x.type()) << " and "
                                            << data_type_name(t) << ")");
  }
  const PlanOperand px{xv.lens().data(), xv.strides().data()};
  p.plan_ = plan_tensor_op(ElementwiseOp::Copy, t, static_cast<int>(yv.num_dims()),
                           yv.lens().data(), yv.strides().data(), &px, nullptr);
  // Otherwise the kernel reads them in the data type (MIOpen's visit_float).
  p.plan_.alpha1 = alpha_one ? 1.0 : for_compute(read_host_value(alpha, t), t);
  p.plan_.alpha2 = 0.0;
  p.plan_.beta = beta_zero ? 0.0 : for_compute(read_host_value(beta, t), t);
  // MIOpen logs a transform as an add of alpha x and beta y (LogCmdTensorOp with beta 0).
  const double abg[] = {p.plan_.alpha1, p.plan_.beta, 0.0};
  p.make_key(x, 2, abg);
  return p;
}

}  // namespace anydnn
