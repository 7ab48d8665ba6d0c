// CudnnConvBwd: cuDNN's BackwardData convolution engines as one tuned solver (cudnn_conv.hpp).
#include <memory>

#include "backend/cuda/conv/cudnn_conv.hpp"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_cudnn_conv_bwd() {
  return std::make_unique<CudnnConvSolver<ConvDirection::BackwardData>>("CudnnConvBwd");
}

}  // namespace anydnn::cuda
