#include "reduce_reference.hpp"

#include <cmath>

namespace anydnn::ref {

ReduceResult reduce_tensor(miopenReduceTensorOp_t op, bool propagate_nan, bool indices,
                           const TensorView& a, const TensorView& c, double alpha, double beta,
                           double comp_max) {
  const size_t rank = a.lens.size();
  std::vector<size_t> red, inv;
  for (size_t d = 0; d < rank; ++d)
    (c.lens[d] == 1 ? red : inv).push_back(d);
  size_t n_out = 1, n_red = 1;
  for (size_t d : inv)
    n_out *= a.lens[d];
  for (size_t d : red)
    n_red *= a.lens[d];
  const bool idx_op = op == MIOPEN_REDUCE_TENSOR_MIN || op == MIOPEN_REDUCE_TENSOR_MAX ||
                      op == MIOPEN_REDUCE_TENSOR_AMAX;
  ReduceResult r;
  r.c.resize(n_out);
  if (indices && idx_op) r.indices.resize(n_out);
  std::vector<size_t> index(rank, 0);
  for (size_t o = 0; o < n_out; ++o) {
    // C's logical index o over the invariant dimensions (row-major; reduced ones are 0 in C).
    size_t rest = o;
    for (size_t k = inv.size(); k-- > 0;) {
      index[inv[k]] = rest % a.lens[inv[k]];
      rest /= a.lens[inv[k]];
    }
    double acc = 0.0;
    if (op == MIOPEN_REDUCE_TENSOR_MUL) acc = 1.0;
    if (op == MIOPEN_REDUCE_TENSOR_MIN) acc = comp_max;
    if (op == MIOPEN_REDUCE_TENSOR_MAX) acc = -comp_max;
    int acc_index = 0;
    for (size_t q = 0; q < n_red; ++q) {
      size_t rq = q;
      for (size_t k = red.size(); k-- > 0;) {
        index[red[k]] = rq % a.lens[red[k]];
        rq /= a.lens[red[k]];
      }
      size_t off = 0;
      for (size_t d = 0; d < rank; ++d)
        off += index[d] * a.strides[d];
      double x = load_element(a.data, a.type, off);
      if (op == MIOPEN_REDUCE_TENSOR_NORM1 || op == MIOPEN_REDUCE_TENSOR_AMAX) x = std::fabs(x);
      if (op == MIOPEN_REDUCE_TENSOR_NORM2) x = x * x;
      if (idx_op) {
        bool take = op == MIOPEN_REDUCE_TENSOR_MIN ? acc > x : acc < x;
        if (propagate_nan && std::isnan(x)) take = true;
        if (take) {
          acc = x;
          acc_index = static_cast<int>(q);
        }
      } else if (op == MIOPEN_REDUCE_TENSOR_MUL) {
        acc *= x;
      } else {
        acc += x;
      }
    }
    if (op == MIOPEN_REDUCE_TENSOR_AVG) acc /= static_cast<double>(n_red);
    if (op == MIOPEN_REDUCE_TENSOR_NORM2) acc = std::sqrt(acc);
    if (alpha != 1.0) acc *= alpha;
    if (beta != 0.0) {
      size_t c_off = 0;
      for (size_t d : inv)
        c_off += index[d] * c.strides[d];
      acc += beta * load_element(c.data, c.type, c_off);
    }
    r.c[o] = acc;
    if (!r.indices.empty()) r.indices[o] = acc_index;
  }
  return r;
}

}  // namespace anydnn::ref
