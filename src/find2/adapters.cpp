// The Find 2.0 adapters, one per operator kind (find2/operator_adapter.hpp says how to add one).
#include <string>

#include "core/errors.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

const OperatorAdapter& convolution_adapter();  // conv_adapter.cpp
const OperatorAdapter& activation_adapter();   // activation_adapter.cpp
const OperatorAdapter& bias_adapter();         // bias_adapter.cpp
const OperatorAdapter& softmax_adapter();      // softmax_adapter.cpp
const OperatorAdapter& batchnorm_adapter();    // batchnorm_adapter.cpp
const OperatorAdapter& fusion_adapter();       // fused_adapter.cpp
const OperatorAdapter& mha_adapter();          // mha_adapter.cpp

const OperatorAdapter& operator_adapter(OperatorKind kind) {
  switch (kind) {
    case OperatorKind::Convolution:
      return convolution_adapter();
    case OperatorKind::Activation:
      return activation_adapter();
    case OperatorKind::Bias:
      return bias_adapter();
    case OperatorKind::Softmax:
      return softmax_adapter();
    case OperatorKind::Mha:
      return mha_adapter();
    case OperatorKind::Batchnorm:
      return batchnorm_adapter();
  }
  ANYDNN_THROW(miopenStatusInternalError,
               "no Find 2.0 adapter for operator kind " << static_cast<int>(kind));
}

const OperatorAdapter& fused_adapter() {
  return fusion_adapter();
}

void* RunBuffers::get(miopenTensorArgumentId_t id) const {
  const auto it = ptrs_.find(id);
  ANYDNN_CHECK(it != ptrs_.end(), miopenStatusInternalError,
               "no buffer for " << tensor_argument_name(id));
  return it->second;
}

}  // namespace anydnn::find2
