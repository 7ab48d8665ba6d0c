#include "tensor_op_reference.hpp"

#include <cmath>
#include <stdexcept>

namespace anydnn::ref {

namespace {

size_t count(const std::vector<size_t>& lens) {
  size_t n = 1;
  for (size_t l : lens)
    n *= l;
  return n;
}

// Calls f(i, idx) for every logical index in packed order.
template <class F>
void for_each_index(const std::vector<size_t>& lens, F&& f) {
  std::vector<size_t> idx(lens.size(), 0);
  const size_t n = count(lens);
  for (size_t i = 0; i < n; ++i) {
    f(i, idx);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < lens[d]) break;
      idx[d] = 0;
    }
  }
}

// Element at a logical index; length-1 dimensions of t broadcast.
double at(const TensorView& t, const std::vector<size_t>& idx) {
  size_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d)
    off += (t.lens[d] == 1 ? 0 : idx[d]) * t.strides[d];
  return load_element(t.data, t.type, off);
}

// What the output type stores: integer types truncate (MIOpen's kernels compute in them).
double stored(double v, miopenDataType_t t) {
  if (t == miopenInt32 || t == miopenInt8) return std::trunc(v);
  return v;
}

}  // namespace

std::vector<double> op_tensor(miopenTensorOp_t op, const TensorView& a, const TensorView& b,
                              const TensorView& c, double alpha1, double alpha2, double beta) {
  if (a.lens != c.lens || b.lens.size() != c.lens.size())
    throw std::invalid_argument("op_tensor: A must have C's lengths and B C's rank");
  std::vector<double> out(count(c.lens));
  for_each_index(c.lens, [&](size_t i, const std::vector<size_t>& idx) {
    const double x = alpha1 * at(a, idx), y = alpha2 * at(b, idx);
    double r = 0.0;
    switch (op) {
      case miopenTensorOpAdd:
        r = x + y;
        break;
      case miopenTensorOpMul:
        r = x * y;
        break;
      case miopenTensorOpMin:
        r = x < y ? x : y;
        break;
      case miopenTensorOpMax:
        r = x > y ? x : y;
        break;
    }
    if (beta != 0.0) r += beta * at(c, idx);
    out[i] = r;
  });
  return out;
}

std::vector<double> transform_tensor(const TensorView& x, const TensorView& y, double alpha,
                                     double beta) {
  if (x.lens != y.lens) throw std::invalid_argument("transform_tensor: lengths differ");
  std::vector<double> out(count(y.lens));
  for_each_index(y.lens, [&](size_t i, const std::vector<size_t>& idx) {
    double r = alpha * at(x, idx);
    if (beta != 0.0) r += beta * at(y, idx);
    out[i] = stored(r, y.type);
  });
  return out;
}

std::vector<double> transform_int8_channels(const TensorView& x,
                                            const std::vector<size_t>& y_lens) {
  std::vector<double> out(count(y_lens));
  for_each_index(y_lens, [&](size_t i, const std::vector<size_t>& idx) {
    out[i] = idx[1] < x.lens[1] ? at(x, idx) : 0.0;
  });
  return out;
}

std::vector<double> scale_tensor(const TensorView& y, double alpha) {
  std::vector<double> out(count(y.lens));
  for_each_index(y.lens, [&](size_t i, const std::vector<size_t>& idx) {
    out[i] = stored(alpha * at(y, idx), y.type);
  });
  return out;
}

}  // namespace anydnn::ref
