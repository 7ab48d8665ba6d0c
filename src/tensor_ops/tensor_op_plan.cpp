#include "tensor_ops/tensor_op_plan.hpp"

#include <algorithm>
#include <numeric>

namespace anydnn {

const char* elementwise_op_name(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::Add:
      return "add";
    case ElementwiseOp::Mul:
      return "mul";
    case ElementwiseOp::Min:
      return "min";
    case ElementwiseOp::Max:
      return "max";
    case ElementwiseOp::Copy:
      return "transform";
    case ElementwiseOp::Fill:
      return "set";
    case ElementwiseOp::Scale:
      return "scale";
  }
  return "?";
}

TensorOpPlan plan_tensor_op(ElementwiseOp op, miopenDataType_t type, int rank, const size_t* lens,
                            const size_t* c_strides, const PlanOperand* a, const PlanOperand* b) {
  TensorOpPlan p;
  p.op = op;
  p.type = type;
  // Keep the dimensions of length > 1 (a stride of a length-1 dimension is never used).
  struct Dim {
    size_t len, a, b, c;
  };
  Dim dims[TensorOpPlan::kMaxDims];
  int n = 0;
  for (int i = 0; i < rank; ++i) {
    if (lens[i] == 1) continue;
    Dim d{lens[i], 0, 0, c_strides[i]};
    if (a != nullptr) d.a = a->strides[i];
    if (b != nullptr) d.b = b->lens[i] == 1 ? 0 : b->strides[i];
    dims[n++] = d;
  }
  // Output order: largest output stride first. Stable, so equal strides (an output that
  // overlaps itself) keep the logical order.
  std::stable_sort(dims, dims + n, [](const Dim& x, const Dim& y) { return x.c > y.c; });
  // Merge (outer, inner) pairs that every tensor walks as one run: outer stride = inner stride
  // times inner length, for a broadcast B both strides 0.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      Dim& o = dims[m - 1];
      const Dim& d = dims[i];
      const auto joins = [&](size_t so, size_t si) { return so == si * d.len; };
      if (joins(o.c, d.c) && joins(o.a, d.a) && joins(o.b, d.b)) {
        o.len *= d.len;
        o.a = d.a;
        o.b = d.b;
        o.c = d.c;
        continue;
      }
    }
    dims[m++] = dims[i];
  }
  if (m == 0) dims[m++] = Dim{1, 0, 0, 0};  // a single element
  p.ndim = m;
  p.count = 1;
  for (int i = 0; i < m; ++i) {
    p.lens[i] = dims[i].len;
    p.a[i] = dims[i].a;
    p.b[i] = dims[i].b;
    p.c[i] = dims[i].c;
    p.count *= dims[i].len;
  }
  // A one-element run is contiguous whatever its stride says.
  if (p.lens[m - 1] == 1) p.a[m - 1] = p.b[m - 1] = p.c[m - 1] = 1;
  return p;
}

}  // namespace anydnn
