// The MHA solvers as far as they are not kernel code: name, fallback flag and applicability,
// written once for every backend. A backend's solver file derives from the spec and adds
// workspace_size() and run().
//
// MhaForward / MhaBackward carry the names of MIOpen's solvers of the same algorithm (GEMMs for
// Q K^T and the products with V / dO / dS around a row softmax kernel). MhaNaiveForward /
// MhaNaiveBackward are plain loops over any strides: fallbacks, and a second implementation the
// tests compare with.
#pragma once

#include <climits>
#include <string_view>

#include "mha/mha_solver.hpp"

namespace anydnn {

namespace mha {

// The BLAS calls take int sizes and leading dimensions.
inline Applicability blas_sizes_fit(const MhaProblem& p) {
  for (const long long v : {p.seq_q(), p.seq_k(), p.head_dim(), p.value_dim(), p.batch_heads()})
    ANYDNN_REJECT_IF(v > INT_MAX, "a length exceeds the BLAS's 32-bit sizes");
  for (const auto& [t, d] : p.descriptors())
    if (d.num_dims() == 4 && t != MhaTensor::Bias)
      ANYDNN_REJECT_IF(d.strides()[2] > static_cast<size_t>(INT_MAX),
                       "a row stride exceeds the BLAS's 32-bit leading dimensions");
  return Applicability::yes();
}

// The GEMM operands (Q, K, V; dO backward) are read in place: each row contiguous, rows at
// least a row apart (a BLAS leading dimension).
inline Applicability gemm_rows_contiguous(const MhaProblem& p) {
  for (const MhaTensor t : {MhaTensor::Q, MhaTensor::K, MhaTensor::V, MhaTensor::DO}) {
    if (!p.has(t)) continue;
    const TensorDescriptor& d = p.desc(t);
    ANYDNN_REJECT_IF(!p.rows_contiguous(t),
                     std::string(mha_tensor_name(t)) + "'s last dimension is not contiguous");
    ANYDNN_REJECT_IF(d.lens()[2] > 1 && d.strides()[2] < d.lens()[3],
                     std::string(mha_tensor_name(t)) + "'s rows overlap");
  }
  return Applicability::yes();
}

}  // namespace mha

// GEMMs around a row kernel. `strided_operands`: the backend stages GEMM operands with any
// strides (CPU); otherwise the operands' rows must be contiguous (cuBLAS reads them in place).
class MhaGemmSpec : public MhaSolver {
 public:
  MhaGemmSpec(MhaDirection direction, bool strided_operands)
      : direction_(direction), strided_operands_(strided_operands) {}
  std::string_view name() const final {
    return direction_ == MhaDirection::Forward ? "MhaForward" : "MhaBackward";
  }
  Applicability applicable(const ExecutionContext&, const MhaProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != direction_, direction_ == MhaDirection::Forward
                                                      ? "not a forward problem"
                                                      : "not a backward problem");
    if (const Applicability a = mha::blas_sizes_fit(p); !a) return a;
    if (!strided_operands_)
      if (const Applicability a = mha::gemm_rows_contiguous(p); !a) return a;
    return Applicability::yes();
  }

 private:
  MhaDirection direction_;
  bool strided_operands_;
};

// Loops over any strides; the fallback.
class MhaNaiveSpec : public MhaSolver {
 public:
  explicit MhaNaiveSpec(MhaDirection direction) : direction_(direction) {}
  std::string_view name() const final {
    return direction_ == MhaDirection::Forward ? "MhaNaiveForward" : "MhaNaiveBackward";
  }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const MhaProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != direction_, direction_ == MhaDirection::Forward
                                                      ? "not a forward problem"
                                                      : "not a backward problem");
    return Applicability::yes();
  }

 protected:
  MhaDirection direction() const { return direction_; }

 private:
  MhaDirection direction_;
};

}  // namespace anydnn
