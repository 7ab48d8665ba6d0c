// MIOpen's sequence tensor descriptor (the RNN sequence API): a batch of sequences of vectors
// with per-sequence lengths, in one of three memory layouts:
//   SeqMajorNotPadded: packed rows, step by step, sequences sorted by decreasing length;
//   SeqMajorPadded:    [max_len][batch][vec];
//   BatchMajorPadded:  [batch][max_len][vec].
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <vector>

namespace anydnn {

struct SeqTensorDescriptor {
  bool set = false;
  miopenDataType_t type = miopenFloat;
  miopenRNNBaseLayout_t layout = miopenRNNDataSeqMajorNotPadded;
  int max_len = 0, batch = 0, vec = 0;
  std::vector<int> lens;
  std::vector<size_t> step_row;  // packed layout: first row of each step (derived from lens)
  bool has_marker = false;
  float marker = 0.0f;

  // Validates (BadParm with a reason); `layout` and `type` come as raw integers.
  void assign(long long type_raw, long long layout_raw, int max_seq, int batch_size, int vector,
              const int* seq_lens, const void* padding_marker);
  // Element offset of (sequence b, step t); sequences sorted by length for the packed layout.
  size_t offset(int b, int t) const;
  size_t element_space() const;
};

}  // namespace anydnn
