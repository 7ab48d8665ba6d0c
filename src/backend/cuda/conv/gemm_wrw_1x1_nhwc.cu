// GemmWrw1x1Nhwc: backward weights of a 1x1 convolution (stride 1, no padding) on packed NHWC /
// NDHWC as one cuBLAS GEMM over every image (the GEMM and what is accepted: gemm_1x1_nhwc.hpp).
#include <memory>

#include "backend/cuda/conv/gemm_1x1_nhwc.hpp"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_gemm_wrw_1x1_nhwc() {
  return std::make_unique<Gemm1x1NhwcSolver<ConvDirection::BackwardWeights>>("GemmWrw1x1Nhwc");
}

}  // namespace anydnn::cuda
