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
  std::vector<size_t> len_prefix;  // sums of the first i lengths; back() = the packed row count
  bool has_marker = false;
  float marker = 0.0f;

  // Validates (BadParm with a reason); `layout` and `type` come as raw integers.
  void assign(long long type_raw, long long layout_raw, int max_seq, int batch_size, int vector,
              const int* seq_lens, const void* padding_marker);
  // Element offset of (sequence b, step t); sequences sorted by length for the packed layout.
  size_t offset(int b, int t) const;
  // Packed layout: rows of steps 0..t-1 (sequences sorted by decreasing length), O(log batch).
  size_t rows_before(int t) const;
  size_t element_space() const;
};

}  // namespace anydnn
