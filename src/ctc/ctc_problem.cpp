#include "ctc/ctc_problem.hpp"

#include <algorithm>
#include <sstream>

#include "core/data_type.hpp"
#include "core/elementwise_geometry.hpp"  // elements_disjoint
#include "core/errors.hpp"

namespace anydnn {

namespace {

CtcStrides strides_of(const TensorDescriptor& d) {
  const auto& s = d.strides();
  return {static_cast<long long>(s[0]), static_cast<long long>(s[1]), static_cast<long long>(s[2])};
}

std::string joined(const std::vector<int>& v) {
  std::ostringstream ss;
  for (size_t i = 0; i < v.size(); ++i)
    ss << (i ? "," : "") << v[i];
  return ss.str();
}

}  // namespace

CtcLossProblem::CtcLossProblem(const TensorDescriptor& probs, const TensorDescriptor& gradients,
                               const int* labels, const int* label_lengths,
                               const int* input_lengths, miopenCTCLossAlgo_t algo,
                               const CtcLossDesc& desc)
    : algo_(algo), desc_(desc) {
  ANYDNN_CHECK_BADPARM(static_cast<int>(algo) == MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC,
                       "CTC loss algorithm " << static_cast<int>(algo) << " is not valid");
  ANYDNN_CHECK_BADPARM(probs.is_set() && gradients.is_set(), "probsDesc or gradientsDesc is unset");
  ANYDNN_CHECK_BADPARM(probs.num_dims() == 3 && gradients.num_dims() == 3,
                       "CTC loss takes 3-D [time, batch, classes] tensors, not "
                           << probs.num_dims() << "-D probs and " << gradients.num_dims()
                           << "-D gradients");
  // MIOpen's own wording.
  ANYDNN_CHECK_BADPARM(probs.lens() == gradients.lens(),
                       "The probability tensor's dimensions do not match the gradient tensor's "
                       "dimensions");
  // MIOpen: bfloat16 NotImplemented, half runs its fp16 kernel (NotImplemented here), any other
  // type BadParm.
  for (const TensorDescriptor* d : {&probs, &gradients}) {
    const miopenDataType_t t = d->type();
    ANYDNN_CHECK(t != miopenHalf && t != miopenBFloat16, miopenStatusNotImplemented,
                 "CTC loss supports float data, not " << data_type_name(t));
    ANYDNN_CHECK_BADPARM(t == miopenFloat, "CTC loss takes float data, not " << data_type_name(t));
  }
  ANYDNN_CHECK_BADPARM(elements_disjoint(gradients),
                       "gradientsDesc has strides under which elements overlap");
  for (int i = 0; i < 3; ++i) {
    ANYDNN_CHECK_BADPARM(probs.lens()[i] >= 1 && probs.lens()[i] <= (1u << 30),
                         "probsDesc length " << probs.lens()[i] << " is out of range");
    dims_[i] = static_cast<int>(probs.lens()[i]);
  }
  probs_ = strides_of(probs);
  grads_ = strides_of(gradients);
  ANYDNN_CHECK_BADPARM(label_lengths != nullptr, "labelLengths is a null pointer");
  ANYDNN_CHECK_BADPARM(input_lengths != nullptr, "inputLengths is a null pointer");
  const int n = batch(), classes_ = classes();
  blank_ = std::clamp(desc.blank_label_id, 0, classes_ - 1);
  label_lengths_.assign(label_lengths, label_lengths + n);
  input_lengths_.assign(input_lengths, input_lengths + n);
  label_offsets_.assign(n, 0);
  repeats_.assign(n, 0);
  long long total = 0;
  for (int b = 0; b < n; ++b) {
    ANYDNN_CHECK_BADPARM(label_lengths_[b] >= 0,
                         "labelLengths[" << b << "] = " << label_lengths_[b] << " is negative");
    ANYDNN_CHECK_BADPARM(input_lengths_[b] >= 1,
                         "inputLengths[" << b << "] = " << input_lengths_[b] << " is not positive");
    ANYDNN_CHECK_BADPARM(input_lengths_[b] <= max_time(), "Wrong input time step: inputLengths["
                                                              << b << "] = " << input_lengths_[b]
                                                              << " exceeds the " << max_time()
                                                              << " time steps of probsDesc");
    // Needed before the labels are read: their count is the lengths' sum.
    ANYDNN_CHECK_BADPARM(label_lengths_[b] <= input_lengths_[b],
                         "Error: label length exceeds input time step: batch "
                             << b << " has " << label_lengths_[b] << " labels but "
                             << input_lengths_[b] << " time steps");
    label_offsets_[b] = static_cast<int>(total);
    total += label_lengths_[b];
    ANYDNN_CHECK_BADPARM(total <= (1 << 30), "the label lengths' sum is out of range");
    max_label_ = std::max(max_label_, label_lengths_[b]);
  }
  total_label_ = static_cast<int>(total);
  // The workspace's size must fit size_t (lengths of up to 2^30 each could overflow it).
  const double s_max = 2.0 * max_label_ + 1, tn = static_cast<double>(dims_[0]) * dims_[1];
  ANYDNN_CHECK_BADPARM(4.0 * (tn * dims_[2] + tn * s_max + 3.0 * dims_[1] * s_max + total) <
                           static_cast<double>(1ull << 62),
                       "the CTC loss workspace size overflows");
  ANYDNN_CHECK_BADPARM(labels != nullptr || total == 0, "labels is a null pointer");
  labels_.assign(labels, labels + total);
  for (int b = 0; b < n; ++b) {
    const int* l = labels_.data() + label_offsets_[b];
    for (int j = 0; j < label_lengths_[b]; ++j) {
      ANYDNN_CHECK_BADPARM(l[j] >= 0 && l[j] < classes_,
                           "Wrong label id at batch " << b << ": label " << j << " is " << l[j]
                                                      << ", the classes are 0 to " << classes_ - 1);
      if (j > 0 && l[j] == l[j - 1]) ++repeats_[b];
    }
    // A repeated label needs a blank between its copies: L + repeats time steps at least.
    ANYDNN_CHECK_BADPARM(label_lengths_[b] + repeats_[b] <= input_lengths_[b],
                         "Error: label length exceeds input time step: batch "
                             << b << " has " << label_lengths_[b] << " labels with " << repeats_[b]
                             << " repeats but " << input_lengths_[b] << " time steps");
  }

  // MIOpen's miopenCTCLoss log line: " ctc " then " -a " (two spaces), bool -m as 0/1.
  std::ostringstream k;
  k << "-a " << static_cast<int>(algo) << " -b " << desc.blank_label_id << " -c " << classes_ - 1
    << " -m " << (desc.apply_softmax_layer ? 1 : 0) << " -n " << n << " -l "
    << joined(label_lengths_) << " -k " << joined(input_lengths_);
  key_ = "ctc " + k.str();
  log_args_ = " ctc  " + k.str();
}

size_t CtcLossProblem::ws_float_logp() const {
  return 4 * static_cast<size_t>(batch()) + static_cast<size_t>(total_label_) +
         static_cast<size_t>(batch()) * max_s();
}
size_t CtcLossProblem::ws_float_alpha() const {
  return ws_float_logp() + static_cast<size_t>(max_time()) * batch() * classes();
}
size_t CtcLossProblem::ws_float_beta() const {
  return ws_float_alpha() + static_cast<size_t>(max_time()) * batch() * max_s();
}

size_t CtcLossProblem::workspace_size() const {
  // Everything is 4 bytes (int and float): MIOpen's sum of the two regions.
  return (ws_float_beta() + 2 * static_cast<size_t>(batch()) * max_s()) * 4;
}

}  // namespace anydnn
