// A CTC loss problem: one miopenCTCLoss (or miopenGetCTCLossWorkspaceSize) call, validated, with
// its canonical string: the MIOpenDriver command MIOpen's miopenCTCLoss logs,
//   "ctc -a 0 -b 0 -c 9 -m 1 -n 4 -l 5,5,5,5 -k 20,20,20,20"
// (-c is the class count without the blank, -l / -k the per-batch label and input lengths).
// MIOpen's conventions: probs and gradients are [max time step, batch, classes] (any strides),
// labels are the batch's label sequences concatenated, all three integer arrays are host
// memory and are copied here (the call may return before the device work ends).
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// miopenSetCTCLossDescriptor's arguments; a new descriptor is MIOpen's default (float, blank 0,
// softmax applied).
struct CtcLossDesc {
  miopenDataType_t data_type = miopenFloat;
  int blank_label_id = 0;
  bool apply_softmax_layer = true;
};

// Strides of one [T, N, C] tensor; a plain struct so that kernels take it by value.
struct CtcStrides {
  long long t = 0, n = 0, c = 0;
};

class CtcLossProblem {
 public:
  // Throws BadParm with a one-line reason where MIOpen's GetCTCLossWorkspaceSize / CTCLoss throw
  // (probs and gradients lengths differ, an input length over the time steps, a label id not
  // below the class count, a label sequence (with its repeats) longer than its input) and where
  // MIOpen would read out of bounds (null arrays, tensors not 3-D, non-positive input lengths,
  // negative label lengths or ids); NotImplemented for half and bfloat16 data and BadParm for
  // other types than float (MIOpen: half runs an fp16 kernel, bfloat16 is NotImplemented, other
  // types BadParm; see docs/api-status.md).
  CtcLossProblem(const TensorDescriptor& probs, const TensorDescriptor& gradients,
                 const int* labels, const int* label_lengths, const int* input_lengths,
                 miopenCTCLossAlgo_t algo, const CtcLossDesc& desc);

  miopenCTCLossAlgo_t algo() const { return algo_; }
  const CtcLossDesc& desc() const { return desc_; }
  bool apply_softmax() const { return desc_.apply_softmax_layer; }
  // The blank label MIOpen's kernel uses: the descriptor's, clamped to [0, classes - 1].
  int blank() const { return blank_; }
  int max_time() const { return dims_[0]; }
  int batch() const { return dims_[1]; }
  int classes() const { return dims_[2]; }
  const CtcStrides& probs_strides() const { return probs_; }
  const CtcStrides& grad_strides() const { return grads_; }

  const std::vector<int>& labels() const { return labels_; }
  const std::vector<int>& label_lengths() const { return label_lengths_; }
  const std::vector<int>& input_lengths() const { return input_lengths_; }
  // Start of each batch element's labels in labels(), and its count of adjacent repeats.
  const std::vector<int>& label_offsets() const { return label_offsets_; }
  const std::vector<int>& repeats() const { return repeats_; }
  int max_label_length() const { return max_label_; }
  int total_label_length() const { return total_label_; }
  // 2 * max label length + 1: the extended (blank-interleaved) label of the longest sequence.
  int max_s() const { return 2 * max_label_ + 1; }

  // MIOpen's GetCTCLossWorkspaceSize: ints (4 per batch element, the labels, the extended
  // labels) then floats (log-softmax [T, N, C], alphas [N, T, max_s], betas [N, 2, max_s]).
  size_t workspace_size() const;
  // Offsets of those regions in elements of 4 bytes from the workspace start.
  size_t ws_int_labels() const { return 4 * static_cast<size_t>(batch()); }
  size_t ws_float_logp() const;
  size_t ws_float_alpha() const;
  size_t ws_float_beta() const;

  const std::string& key() const { return key_; }
  // MIOpen's logged text byte for byte (" ctc  -a 0 ..."), what follows "./bin/MIOpenDriver ".
  const std::string& log_args() const { return log_args_; }

 private:
  miopenCTCLossAlgo_t algo_;
  CtcLossDesc desc_;
  int blank_ = 0;
  std::array<int, 3> dims_{};
  CtcStrides probs_{}, grads_{};
  std::vector<int> labels_, label_lengths_, input_lengths_, label_offsets_, repeats_;
  int max_label_ = 0, total_label_ = 0;
  std::string key_, log_args_;
};

}  // namespace anydnn
