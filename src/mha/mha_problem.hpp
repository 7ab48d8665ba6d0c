// A multi-head-attention problem: what one Find 2.0 MHA problem (miopenCreateMhaProblem plus its
// miopenSetProblemTensorDescriptor calls) describes, validated, with its canonical key.
//
// Tensors are named by MIOpen's miopenTensorArgumentId_t values (MhaTensor mirrors them: the
// Find 2.0 adapter converts, mha/mha_args.hpp). Shapes, with Q's sequence length Sq and K's Sk
// (MIOpen's solvers assume Sq = Sk; CK's and cuDNN's take both, so do we) and V's head size Dv:
//   Q, dQ [N, H, Sq, D]; K, dK [N, H, Sk, D]; V, dV [N, H, Sk, Dv]; O, dO [N, H, Sq, Dv];
//   M, ZInv [N, H, Sq, 1] (row max and 1 / row sum of the softmax, saved for backward);
//   Bias [N, H, Sq, Sk], where any of the four lengths may be 1 (broadcast);
//   every scale, descale, dropout rate and amax is one float element, seed and offset one int64.
// Q, K, V, O, dO, dQ, dK, dV share one type: float, half or bfloat16 (fp8 is NotImplemented);
// M, ZInv are float; Bias is float or the data type. Any strides.
//
// The causal mask is not part of the problem: MIOpen passes it at run time (the scalar argument
// miopenTensorMhaMask of miopenRunSolution), so it travels with the buffers (MhaBuffers).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// MIOpen's miopenTensorArgumentId_t values of the MHA tensors (4 ... 36).
enum class MhaTensor : int {
  K = 4,
  Q = 5,
  V = 6,
  DescaleK = 7,
  DescaleQ = 8,
  DescaleV = 9,
  DescaleS = 10,
  ScaleS = 11,
  ScaleO = 12,
  DropoutProbability = 13,
  DropoutSeed = 14,
  DropoutOffset = 15,
  O = 16,
  AmaxO = 17,
  AmaxS = 18,
  M = 19,
  ZInv = 20,
  DO = 21,
  DescaleO = 22,
  DescaleDO = 23,
  DescaleDS = 24,
  ScaleDS = 25,
  ScaleDQ = 26,
  ScaleDK = 27,
  ScaleDV = 28,
  DQ = 29,
  DK = 30,
  DV = 31,
  AmaxDQ = 32,
  AmaxDK = 33,
  AmaxDV = 34,
  AmaxDS = 35,
  Bias = 36,
};
inline constexpr int kMhaTensorFirst = 4;
inline constexpr int kMhaTensorCount = 33;
inline constexpr size_t mha_slot(MhaTensor t) {
  return static_cast<size_t>(static_cast<int>(t) - kMhaTensorFirst);
}
// MIOpen's name of the argument ("miopenTensorMhaK").
const char* mha_tensor_name(MhaTensor t);
// The MHA tensor with MIOpen's id `id`, if it is one.
std::optional<MhaTensor> mha_tensor_from_id(long long id);

// miopenMhaMask_t's values.
enum class MhaMask : int { None = 0, Causal = 1 };

enum class MhaDirection { Forward, Backward };

// A tensor's role in a direction.
enum class MhaRole {
  None,      // not a tensor of this direction
  Required,  // MIOpen's Problem::AsMha requires its descriptor
  Optional,  // Bias (MIOpen reads it in forward; we also in backward, docs/mha.md)
};
MhaRole mha_role(MhaDirection dir, MhaTensor t);
// Written by a run of this direction (O, M, ZInv, amaxes; dQ, dK, dV, amaxes).
bool mha_is_output(MhaDirection dir, MhaTensor t);

// Strides of a 4-D [N, H, rows, cols] tensor; a plain struct so that kernels take it by value.
// A length-1 dimension of a broadcast bias has stride 0.
struct MhaStrides {
  long long n = 0, h = 0, r = 0, c = 0;
};

class MhaProblem {
 public:
  using Descriptors = std::map<MhaTensor, TensorDescriptor>;

  // Throws InvalidValue "Problem is missing <id> tensor descriptor." (MIOpen's status and
  // words) for a required tensor that is not set; BadParm with a one-line reason for a problem
  // that does not describe one MHA call (a tensor of the other direction, lengths, ranks or
  // types that do not fit together, overlapping output elements, a non-finite scale); and
  // NotImplemented for data types other than float, half and bfloat16 (fp8 included).
  MhaProblem(MhaDirection direction, float scale, Descriptors descriptors);

  MhaDirection direction() const { return direction_; }
  bool forward() const { return direction_ == MhaDirection::Forward; }
  float scale() const { return scale_; }
  miopenDataType_t data_type() const { return type_; }
  long long batch() const { return n_; }
  long long heads() const { return h_; }
  long long seq_q() const { return sq_; }
  long long seq_k() const { return sk_; }
  long long head_dim() const { return d_; }    // D of Q and K
  long long value_dim() const { return dv_; }  // Dv of V and O
  long long batch_heads() const { return n_ * h_; }
  bool has_bias() const { return has(MhaTensor::Bias); }

  bool has(MhaTensor t) const { return descs_.count(t) != 0; }
  // The descriptor of `t` (which must be set: has(t)).
  const TensorDescriptor& desc(MhaTensor t) const;
  // Strides of a 4-D tensor of the problem (zero for a broadcast bias dimension).
  MhaStrides strides(MhaTensor t) const;
  // The 4-D tensor's last dimension is contiguous (stride 1, or length 1).
  bool rows_contiguous(MhaTensor t) const;
  const Descriptors& descriptors() const { return descs_; }

  // MIOpenDriver-style line (MIOpen has no MHA driver command; docs/mha.md):
  //   "mha -F 1 -n 2 -H 4 -s 8 -S 8 -d 16 -D 16 -c 0.250000 -B 0"  (mhafp16, mhabfp16)
  // -F 1 forward / 2 backward, -s / -S query / key sequence lengths, -d / -D Q-K / V head sizes,
  // -c the descriptor's scale (std::to_string), -B 1 with a bias.
  const std::string& key() const { return key_; }
  // key() plus what solvers' applicability may depend on beyond it: the strides of every
  // tensor that is not packed, a broadcast or float bias.
  const std::string& config() const { return config_; }

 private:
  MhaDirection direction_;
  float scale_;
  Descriptors descs_;
  miopenDataType_t type_ = miopenFloat;
  long long n_ = 0, h_ = 0, sq_ = 0, sk_ = 0, d_ = 0, dv_ = 0;
  std::string key_, config_;
};

}  // namespace anydnn
