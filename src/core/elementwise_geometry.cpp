#include "core/elementwise_geometry.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/errors.hpp"

namespace anydnn {

namespace {

struct Dim {
  long long len, stride;
};

// Dimensions of length > 1, innermost first.
std::vector<Dim> squeezed_inner_first(const TensorDescriptor& d) {
  std::vector<Dim> out;
  for (size_t i = d.num_dims(); i-- > 0;)
    if (d.lens()[i] > 1)
      out.push_back({static_cast<long long>(d.lens()[i]), static_cast<long long>(d.strides()[i])});
  return out;
}

}  // namespace

ActivGeometry make_activ_geometry(const std::vector<const TensorDescriptor*>& tensors,
                                  int primary) {
  ActivGeometry g;
  g.tensors = static_cast<int>(tensors.size());
  ANYDNN_CHECK(g.tensors >= 1 && g.tensors <= ActivGeometry::kMaxTensors, miopenStatusInternalError,
               "activation geometry of " << g.tensors << " tensors");
  // Every tensor's dimension boundaries, as products of its inner lengths.
  std::vector<std::vector<Dim>> dims;
  std::set<long long> bounds;
  for (const TensorDescriptor* t : tensors) {
    dims.push_back(squeezed_inner_first(*t));
    long long p = 1;
    for (const Dim& d : dims.back())
      bounds.insert(p *= d.len);
  }
  // The common refinement: consecutive boundaries must divide each other.
  struct Refined {
    long long len;
    long long strides[ActivGeometry::kMaxTensors];
  };
  std::vector<Refined> refined;  // innermost first
  long long lo = 1;
  for (long long hi : bounds) {
    ANYDNN_CHECK(hi % lo == 0, miopenStatusNotImplemented,
                 "the tensors' lengths have no common shape (their elements pair up by "
                 "row-major index, but no dimension split fits every tensor)");
    Refined r{hi / lo, {}};
    for (int t = 0; t < g.tensors; ++t) {
      // The tensor dimension holding inner products [lo, hi): its stride, stepped by the
      // part of it that lies inside.
      long long q = 1;
      for (const Dim& d : dims[static_cast<size_t>(t)]) {
        if (q * d.len >= hi) {
          r.strides[t] = d.stride * (lo / q);
          break;
        }
        q *= d.len;
      }
    }
    refined.push_back(r);
    lo = hi;
  }
  g.count = lo;
  // Outermost first, in the primary tensor's memory order (largest stride first).
  std::reverse(refined.begin(), refined.end());
  std::stable_sort(refined.begin(), refined.end(), [&](const Refined& a, const Refined& b) {
    return a.strides[primary] > b.strides[primary];
  });
  // Merge an outer dimension into the next inner one where every tensor is contiguous.
  std::vector<Refined> merged;
  for (const Refined& r : refined) {
    if (!merged.empty()) {
      Refined& outer = merged.back();
      bool contiguous = true;
      for (int t = 0; t < g.tensors; ++t)
        contiguous = contiguous && outer.strides[t] == r.strides[t] * r.len;
      if (contiguous) {
        outer.len *= r.len;
        for (int t = 0; t < g.tensors; ++t)
          outer.strides[t] = r.strides[t];
        continue;
      }
    }
    merged.push_back(r);
  }
  if (merged.empty()) {  // a single element
    Refined one{1, {}};
    for (int t = 0; t < g.tensors; ++t)
      one.strides[t] = 1;
    merged.push_back(one);
  }
  ANYDNN_CHECK(merged.size() <= static_cast<size_t>(ActivGeometry::kMaxRank),
               miopenStatusNotImplemented,
               "the tensors' strides leave " << merged.size() << " dimensions, more than "
                                             << ActivGeometry::kMaxRank);
  g.rank = static_cast<int>(merged.size());
  for (int k = 0; k < g.rank; ++k) {
    g.lens[k] = merged[static_cast<size_t>(k)].len;
    for (int t = 0; t < g.tensors; ++t)
      g.strides[t][k] = merged[static_cast<size_t>(k)].strides[t];
  }
  return g;
}

bool elements_disjoint(const TensorDescriptor& d) {
  std::vector<Dim> dims = squeezed_inner_first(d);
  std::sort(dims.begin(), dims.end(),
            [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  // Innermost (smallest stride) first: each stride must step past everything inside it.
  long long span = 1;  // 1 + the largest offset of the dimensions so far
  for (const Dim& dim : dims) {
    if (dim.stride < span) return false;
    span += (dim.len - 1) * dim.stride;
  }
  return true;
}

}  // namespace anydnn
