#include "core/seq_tensor_descriptor.hpp"

#include "core/float_types.hpp"

#include <algorithm>
#include <cstring>

#include "core/errors.hpp"

namespace anydnn {

void SeqTensorDescriptor::assign(long long type_raw, long long layout_raw, int max_seq,
                                 int batch_size, int vector, const int* seq_lens,
                                 const void* padding_marker) {
  ANYDNN_CHECK_BADPARM(type_raw == miopenFloat || type_raw == miopenHalf,
                       "sequence data type must be float or half");
  ANYDNN_CHECK_BADPARM(
      layout_raw >= miopenRNNDataSeqMajorNotPadded && layout_raw <= miopenRNNDataBatchMajorPadded,
      "layout " << layout_raw << " is not a known miopenRNNBaseLayout_t");
  ANYDNN_CHECK_BADPARM(max_seq > 0 && batch_size > 0 && vector > 0,
                       "maxSequenceLen, batchSize and vectorSize must be positive");
  ANYDNN_CHECK_BADPARM(seq_lens != nullptr, "sequenceLenArray is a null pointer");
  std::vector<int> l(seq_lens, seq_lens + batch_size);
  for (int v : l)
    ANYDNN_CHECK_BADPARM(v >= 0 && v <= max_seq,
                         "sequence length " << v << " is outside 0.." << max_seq);
  if (layout_raw == miopenRNNDataSeqMajorNotPadded)
    ANYDNN_CHECK_BADPARM(std::is_sorted(l.rbegin(), l.rend()),
                         "miopenRNNDataSeqMajorNotPadded needs sequences sorted by decreasing "
                         "length");
  type = static_cast<miopenDataType_t>(type_raw);
  layout = static_cast<miopenRNNBaseLayout_t>(layout_raw);
  max_len = max_seq;
  batch = batch_size;
  vec = vector;
  lens = std::move(l);
  // Rows of step t = sequences longer than t: from a histogram of the lengths, O(batch +
  // max_len) (counting per step was O(batch * max_len): minutes for hostile sizes).
  std::vector<size_t> with_length(static_cast<size_t>(max_len) + 1, 0);
  for (int len : lens)
    ++with_length[static_cast<size_t>(len)];
  size_t running = lens.size();  // sequences longer than t, starting at t = 0
  step_row.assign(static_cast<size_t>(max_len) + 1, 0);
  for (int t = 0; t < max_len; ++t) {
    running -= with_length[static_cast<size_t>(t)];
    step_row[t + 1] = step_row[t] + running;
  }
  has_marker = padding_marker != nullptr;
  // The marker is one value of the tensor's type (fp32 or half), kept as fp32.
  if (has_marker && type == miopenFloat) std::memcpy(&marker, padding_marker, sizeof(float));
  if (has_marker && type == miopenHalf) {
    uint16_t h = 0;
    std::memcpy(&h, padding_marker, sizeof h);
    marker = half_to_float(h);
  }
  set = true;
}

size_t SeqTensorDescriptor::offset(int b, int t) const {
  switch (layout) {
    case miopenRNNDataSeqMajorPadded:
      return (static_cast<size_t>(t) * batch + b) * vec;
    case miopenRNNDataBatchMajorPadded:
      return (static_cast<size_t>(b) * max_len + t) * vec;
    default:
      // Packed: rows of step t are the sequences still running, in sorted order.
      return (step_row[t] + b) * vec;
  }
}

size_t SeqTensorDescriptor::element_space() const {
  if (layout == miopenRNNDataSeqMajorNotPadded) return step_row.back() * vec;
  return static_cast<size_t>(max_len) * batch * vec;
}

}  // namespace anydnn
