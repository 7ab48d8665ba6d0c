// ImplicitGemmWgmmaFwd128x128c2: forward convolution on CUTLASS's sm90 TMA + wgmma kernel with the
// 128x128c2 tile configuration of implicit_gemm_configs.hpp (the machinery, and what is accepted,
// in implicit_gemm_wgmma_util.cuh).
#include "backend/cuda/conv/implicit_gemm_wgmma_util.cuh"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_128x128c2() {
  return std::make_unique<wgmma::WgmmaSolver<wgmma::index_of("ImplicitGemmWgmmaFwd128x128c2")>>();
}

}  // namespace anydnn::cuda
