#include "reduction/reduce_plan.hpp"

#include <algorithm>

namespace anydnn {

ReducePlan plan_reduce(miopenReduceTensorOp_t op, miopenDataType_t type, bool propagate_nan,
                       bool indices, int rank, const size_t* a_lens, const size_t* a_strides,
                       const size_t* c_lens, const size_t* c_strides) {
  ReducePlan p;
  p.op = op;
  p.type = type;
  p.propagate_nan = propagate_nan;
  p.indices = indices;
  struct Dim {
    size_t len, a, c;
  };
  Dim out[ReducePlan::kMaxDims], red[ReducePlan::kMaxDims];
  int no = 0, nr = 0;
  for (int i = 0; i < rank; ++i) {
    if (a_lens[i] == 1) continue;  // contributes nothing to an offset or an index
    if (c_lens[i] == 1)
      red[nr++] = Dim{a_lens[i], a_strides[i], 0};
    else
      out[no++] = Dim{a_lens[i], a_strides[i], c_strides[i]};
  }
  // Outputs: largest C stride first (stable: equal strides keep the logical order), then merge
  // pairs both tensors walk as one run.
  std::stable_sort(out, out + no, [](const Dim& x, const Dim& y) { return x.c > y.c; });
  const auto merge = [](Dim* d, int n, bool with_c) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
      if (m > 0) {
        Dim& o = d[m - 1];
        if (o.a == d[i].a * d[i].len && (!with_c || o.c == d[i].c * d[i].len)) {
          o.len *= d[i].len;
          o.a = d[i].a;
          o.c = d[i].c;
          continue;
        }
      }
      d[m++] = d[i];
    }
    return m;
  };
  no = merge(out, no, true);
  // Reduced: logical order kept (the flattened index is row-major over it), so only merged.
  nr = merge(red, nr, false);
  if (no == 0) out[no++] = Dim{1, 0, 0};
  if (nr == 0) red[nr++] = Dim{1, 1, 0};
  p.out_ndim = no;
  p.out_count = 1;
  for (int i = 0; i < no; ++i) {
    p.out_lens[i] = out[i].len;
    p.out_a[i] = out[i].a;
    p.out_c[i] = out[i].c;
    p.out_count *= out[i].len;
  }
  p.red_ndim = nr;
  p.red_count = 1;
  for (int i = 0; i < nr; ++i) {
    p.red_lens[i] = red[i].len;
    p.red_a[i] = red[i].a;
    p.red_count *= red[i].len;
  }
  return p;
}

}  // namespace anydnn
