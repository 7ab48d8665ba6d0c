#include "mha/mha_problem.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/data_type.hpp"
#include "core/elementwise_geometry.hpp"  // elements_disjoint
#include "core/errors.hpp"
#include "core/tensor_checks.hpp"

namespace anydnn {

namespace {

constexpr const char* kNames[kMhaTensorCount] = {
    "miopenTensorMhaK",           "miopenTensorMhaQ",
    "miopenTensorMhaV",           "miopenTensorMhaDescaleK",
    "miopenTensorMhaDescaleQ",    "miopenTensorMhaDescaleV",
    "miopenTensorMhaDescaleS",    "miopenTensorMhaScaleS",
    "miopenTensorMhaScaleO",      "miopenTensorMhaDropoutProbability",
    "miopenTensorMhaDropoutSeed", "miopenTensorMhaDropoutOffset",
    "miopenTensorMhaO",           "miopenTensorMhaAmaxO",
    "miopenTensorMhaAmaxS",       "miopenTensorMhaM",
    "miopenTensorMhaZInv",        "miopenTensorMhaDO",
    "miopenTensorMhaDescaleO",    "miopenTensorMhaDescaleDO",
    "miopenTensorMhaDescaleDS",   "miopenTensorMhaScaleDS",
    "miopenTensorMhaScaleDQ",     "miopenTensorMhaScaleDK",
    "miopenTensorMhaScaleDV",     "miopenTensorMhaDQ",
    "miopenTensorMhaDK",          "miopenTensorMhaDV",
    "miopenTensorMhaAmaxDQ",      "miopenTensorMhaAmaxDK",
    "miopenTensorMhaAmaxDV",      "miopenTensorMhaAmaxDS",
    "miopenTensorMhaBias"};

using T = MhaTensor;

// MIOpen's Problem::AsMha: the descriptors each direction requires.
constexpr MhaTensor kForwardRequired[] = {T::K,           T::Q,
                                          T::V,           T::DescaleK,
                                          T::DescaleQ,    T::DescaleV,
                                          T::DescaleS,    T::ScaleS,
                                          T::ScaleO,      T::DropoutProbability,
                                          T::DropoutSeed, T::DropoutOffset,
                                          T::O,           T::AmaxO,
                                          T::AmaxS,       T::M,
                                          T::ZInv};
constexpr MhaTensor kBackwardRequired[] = {T::K,           T::Q,
                                           T::V,           T::O,
                                           T::DO,          T::M,
                                           T::ZInv,        T::DescaleK,
                                           T::DescaleQ,    T::DescaleV,
                                           T::DescaleS,    T::DescaleO,
                                           T::DescaleDO,   T::DescaleDS,
                                           T::ScaleS,      T::ScaleDS,
                                           T::ScaleDQ,     T::ScaleDK,
                                           T::ScaleDV,     T::DropoutProbability,
                                           T::DropoutSeed, T::DropoutOffset,
                                           T::DQ,          T::DK,
                                           T::DV,          T::AmaxDQ,
                                           T::AmaxDK,      T::AmaxDV,
                                           T::AmaxDS};

std::string base_name(miopenDataType_t t) {
  if (t == miopenHalf) return "mhafp16";
  if (t == miopenBFloat16) return "mhabfp16";
  return "mha";
}

}  // namespace

const char* mha_tensor_name(MhaTensor t) {
  return kNames[mha_slot(t)];
}

std::optional<MhaTensor> mha_tensor_from_id(long long id) {
  if (id < kMhaTensorFirst || id >= kMhaTensorFirst + kMhaTensorCount) return std::nullopt;
  return static_cast<MhaTensor>(id);
}

MhaRole mha_role(MhaDirection dir, MhaTensor t) {
  if (t == T::Bias) return MhaRole::Optional;
  if (dir == MhaDirection::Forward) {
    for (const MhaTensor r : kForwardRequired)
      if (r == t) return MhaRole::Required;
  } else {
    for (const MhaTensor r : kBackwardRequired)
      if (r == t) return MhaRole::Required;
  }
  return MhaRole::None;
}

bool mha_is_output(MhaDirection dir, MhaTensor t) {
  if (dir == MhaDirection::Forward)
    return t == T::O || t == T::AmaxO || t == T::AmaxS || t == T::M || t == T::ZInv;
  return t == T::DQ || t == T::DK || t == T::DV || t == T::AmaxDQ || t == T::AmaxDK ||
         t == T::AmaxDV || t == T::AmaxDS;
}

const TensorDescriptor& MhaProblem::desc(MhaTensor t) const {
  const auto it = descs_.find(t);
  ANYDNN_CHECK(it != descs_.end(), miopenStatusInternalError,
               mha_tensor_name(t) << " is not part of this MHA problem");
  return it->second;
}

MhaStrides MhaProblem::strides(MhaTensor t) const {
  const TensorDescriptor& d = desc(t);
  const auto& l = d.lens();
  const auto& s = d.strides();
  auto st = [&](int i) { return l[i] == 1 ? 0LL : static_cast<long long>(s[i]); };
  return {st(0), st(1), st(2), st(3)};
}

bool MhaProblem::rows_contiguous(MhaTensor t) const {
  const TensorDescriptor& d = desc(t);
  return d.lens()[3] == 1 || d.strides()[3] == 1;
}

MhaProblem::MhaProblem(MhaDirection direction, float scale, Descriptors descriptors)
    : direction_(direction), scale_(scale), descs_(std::move(descriptors)) {
  const bool fwd = forward();
  const char* dir_name = fwd ? "forward" : "backward";
  ANYDNN_CHECK_BADPARM(std::isfinite(scale),
                       "the MHA descriptor's scale " << scale << " is not finite");
  for (const auto& [t, d] : descs_) {
    ANYDNN_CHECK_BADPARM(mha_role(direction, t) != MhaRole::None,
                         mha_tensor_name(t)
                             << " is not a tensor of a " << dir_name << " MHA problem");
    ANYDNN_CHECK_BADPARM(d.is_set(), mha_tensor_name(t) << " has not been set");
  }
  for (const MhaTensor t :
       fwd ? std::vector<MhaTensor>(std::begin(kForwardRequired), std::end(kForwardRequired))
           : std::vector<MhaTensor>(std::begin(kBackwardRequired), std::end(kBackwardRequired)))
    ANYDNN_CHECK(has(t), miopenStatusInvalidValue,  // MIOpen's GetTensorDescriptorChecked
                 "Problem is missing " << mha_tensor_name(t) << " tensor descriptor.");

  // Shapes: Q fixes N, H, Sq, D; K fixes Sk; V fixes Dv.
  auto four_d = [&](MhaTensor t) -> const std::vector<size_t>& {
    const TensorDescriptor& d = desc(t);
    ANYDNN_CHECK_BADPARM(d.num_dims() == 4, mha_tensor_name(t)
                                                << " has " << d.num_dims()
                                                << " dimensions; MHA tensors are 4-D [N, H, S, D]");
    return d.lens();
  };
  const auto& q = four_d(T::Q);
  const auto& k = four_d(T::K);
  const auto& v = four_d(T::V);
  n_ = static_cast<long long>(q[0]);
  h_ = static_cast<long long>(q[1]);
  sq_ = static_cast<long long>(q[2]);
  d_ = static_cast<long long>(q[3]);
  sk_ = static_cast<long long>(k[2]);
  dv_ = static_cast<long long>(v[3]);
  auto expect = [&](MhaTensor t, long long rows, long long cols, const char* shape) {
    const auto& l = four_d(t);
    const std::vector<size_t> want = {static_cast<size_t>(n_), static_cast<size_t>(h_),
                                      static_cast<size_t>(rows), static_cast<size_t>(cols)};
    ANYDNN_CHECK_BADPARM(l == want, mha_tensor_name(t) << " is " << lens_text(l) << " but must be "
                                                       << shape << " = " << lens_text(want));
  };
  expect(T::K, sk_, d_, "[N, H, Sk, D] (N, H, D of miopenTensorMhaQ)");
  expect(T::V, sk_, dv_, "[N, H, Sk, Dv] (N, H of miopenTensorMhaQ, Sk of miopenTensorMhaK)");
  expect(T::O, sq_, dv_, "[N, H, Sq, Dv]");
  expect(T::M, sq_, 1, "[N, H, Sq, 1]");
  expect(T::ZInv, sq_, 1, "[N, H, Sq, 1]");
  if (!fwd) {
    expect(T::DO, sq_, dv_, "[N, H, Sq, Dv]");
    expect(T::DQ, sq_, d_, "[N, H, Sq, D]");
    expect(T::DK, sk_, d_, "[N, H, Sk, D]");
    expect(T::DV, sk_, dv_, "[N, H, Sk, Dv]");
  }
  bool bias_broadcast = false;
  if (has_bias()) {
    const auto& b = four_d(T::Bias);
    const long long full[4] = {n_, h_, sq_, sk_};
    for (int i = 0; i < 4; ++i) {
      const auto l = static_cast<long long>(b[i]);
      ANYDNN_CHECK_BADPARM(l == full[i] || l == 1, "miopenTensorMhaBias is "
                                                       << lens_text(b)
                                                       << " but must be [N, H, Sq, Sk] = " << n_
                                                       << "x" << h_ << "x" << sq_ << "x" << sk_
                                                       << " (any length may be 1: broadcast)");
      bias_broadcast = bias_broadcast || l != full[i];
    }
  }

  // Types.
  type_ = desc(T::Q).type();
  std::vector<MhaTensor> data = {T::Q, T::K, T::V, T::O};
  if (!fwd) data.insert(data.end(), {T::DO, T::DQ, T::DK, T::DV});
  for (const MhaTensor t : data)
    ANYDNN_CHECK_BADPARM(desc(t).type() == type_,
                         mha_tensor_name(t) << " is " << data_type_name(desc(t).type()) << " but "
                                            << "miopenTensorMhaQ is " << data_type_name(type_));
  ANYDNN_CHECK(type_ != miopenFloat8 && type_ != miopenBFloat8, miopenStatusNotImplemented,
               "fp8 multi-head attention is not implemented (float, half and bfloat16 are)");
  ANYDNN_CHECK(
      type_ == miopenFloat || type_ == miopenHalf || type_ == miopenBFloat16,
      miopenStatusNotImplemented,
      "multi-head attention supports float, half and bfloat16 data, not " << data_type_name(type_));
  for (const MhaTensor t : {T::M, T::ZInv})
    ANYDNN_CHECK_BADPARM(desc(t).type() == miopenFloat,
                         mha_tensor_name(t)
                             << " is " << data_type_name(desc(t).type()) << "; it must be float");
  if (has_bias()) {
    const miopenDataType_t bt = desc(T::Bias).type();
    ANYDNN_CHECK_BADPARM(bt == miopenFloat || bt == type_,
                         "miopenTensorMhaBias is " << data_type_name(bt)
                                                   << "; it must be float or the data type ("
                                                   << data_type_name(type_) << ")");
  }
  for (const auto& [t, d] : descs_) {
    if (t == T::Bias || std::find(data.begin(), data.end(), t) != data.end() || t == T::M ||
        t == T::ZInv)
      continue;
    // A 1-element scalar tensor: scales, descales, the dropout rate, amaxes (float), the
    // dropout seed and offset (int64, as MIOpen's kernels read them).
    ANYDNN_CHECK_BADPARM(d.element_count() == 1, mha_tensor_name(t)
                                                     << " is " << lens_text(d.lens())
                                                     << "; it must hold one element");
    const bool integer = t == T::DropoutSeed || t == T::DropoutOffset;
    const miopenDataType_t want = integer ? miopenInt64 : miopenFloat;
    ANYDNN_CHECK_BADPARM(d.type() == want, mha_tensor_name(t)
                                               << " is " << data_type_name(d.type())
                                               << "; it must be " << data_type_name(want));
  }

  // Outputs must not alias within themselves.
  for (const MhaTensor t : fwd ? std::vector<MhaTensor>{T::O, T::M, T::ZInv}
                               : std::vector<MhaTensor>{T::DQ, T::DK, T::DV})
    ANYDNN_CHECK_BADPARM(elements_disjoint(desc(t)),
                         mha_tensor_name(t) << " has strides under which elements overlap");

  std::ostringstream key;
  key << base_name(type_) << " -F " << (fwd ? 1 : 2) << " -n " << n_ << " -H " << h_ << " -s "
      << sq_ << " -S " << sk_ << " -d " << d_ << " -D " << dv_ << " -c " << std::to_string(scale_)
      << " -B " << (has_bias() ? 1 : 0);
  key_ = key.str();
  std::ostringstream c;
  c << key_;
  if (bias_broadcast) c << " bias:" << lens_text(desc(T::Bias).lens());
  if (has_bias() && desc(T::Bias).type() != type_) c << " bias_type:float";
  for (const auto& [t, d] : descs_) {
    if (d.num_dims() != 4 || d.is_packed_layout("NCHW")) continue;
    c << " " << mha_tensor_name(t) + 15 << ":";  // the name after "miopenTensorMha"
    for (size_t i = 0; i < 4; ++i)
      c << (i ? "," : "") << d.strides()[i];
  }
  config_ = c.str();
}

}  // namespace anydnn
