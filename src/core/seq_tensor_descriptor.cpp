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
  // Packed rows: prefix sums of the lengths (sorted by decreasing length in that layout), so
  // that rows_before(t) needs no table over the steps: one sized by maxSequenceLen, or by the
  // longest sequence, took gigabytes in a setter for a valid huge length (fuzz_descriptors).
  len_prefix.assign(lens.size() + 1, 0);
  for (size_t i = 0; i < lens.size(); ++i)
    len_prefix[i + 1] = len_prefix[i] + static_cast<size_t>(lens[i]);
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
      return (rows_before(t) + b) * vec;
  }
}

size_t SeqTensorDescriptor::rows_before(int t) const {
  // Steps 0..t-1 hold min(len, t) rows of each sequence: t for the k sequences longer than t
  // (the first k: decreasing lengths), all of each shorter one.
  const auto longer = std::partition_point(lens.begin(), lens.end(), [t](int l) { return l > t; });
  const auto k = static_cast<size_t>(longer - lens.begin());
  return static_cast<size_t>(t) * k + (len_prefix.back() - len_prefix[k]);
}

size_t SeqTensorDescriptor::element_space() const {
  if (layout == miopenRNNDataSeqMajorNotPadded) return len_prefix.back() * vec;
  return static_cast<size_t>(max_len) * batch * vec;
}

}  // namespace anydnn
