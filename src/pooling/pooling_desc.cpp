#include "pooling/pooling_desc.hpp"

#include <algorithm>
#include <limits>

#include "core/errors.hpp"

namespace anydnn {

size_t pooling_index_size(miopenIndexType_t t) {
  switch (t) {
    case miopenIndexUint8:
      return 1;
    case miopenIndexUint16:
      return 2;
    case miopenIndexUint32:
      return 4;
    case miopenIndexUint64:
      return 8;
  }
  ANYDNN_THROW(miopenStatusBadParm, "invalid pooling index type " << static_cast<int>(t));
}

uint64_t pooling_index_max(miopenIndexType_t t) {
  const size_t bytes = pooling_index_size(t);
  return bytes == 8 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << (8 * bytes)) - 1;
}

std::vector<size_t> pooling_output_lens(const PoolingDesc& d, const TensorDescriptor& x) {
  ANYDNN_CHECK_BADPARM(d.is_set(), "the pooling descriptor has not been set");
  ANYDNN_CHECK_BADPARM(x.is_set(), "the input tensor descriptor has not been set");
  const size_t sd = d.lens.size();
  ANYDNN_CHECK_BADPARM(x.num_dims() == sd + 2, "a " << sd << "-D pooling window needs a " << sd + 2
                                                    << "-D tensor, not " << x.num_dims() << "-D");
  std::vector<size_t> out = {x.lens()[0], x.lens()[1]};
  for (size_t i = 0; i < sd; ++i) {
    // Signed: MIOpen's formula, with a window wider than the padded input giving 1, not a
    // wrapped unsigned length.
    const long long in = static_cast<long long>(x.lens()[i + 2]);
    const long long o = (in + 2LL * d.pads[i] - d.lens[i]) / d.strides[i] + 1;
    out.push_back(static_cast<size_t>(std::max(1LL, o)));
  }
  return out;
}

size_t pooling_workspace_size(const PoolingDesc& d, const TensorDescriptor& y) {
  // MIOpen adds room for an NHWC -> NCHW transpose of x and y (its NHWC solvers transpose);
  // ours read NHWC in place, so only the indices are needed.
  return d.mode == miopenPoolingMax ? y.element_count() * pooling_index_size(d.index_type) : 0;
}

}  // namespace anydnn
