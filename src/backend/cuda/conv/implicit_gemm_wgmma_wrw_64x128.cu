// ImplicitGemmWgmmaWrw64x128: backward-weights convolution on CUTLASS's sm90 TMA + wgmma kernel
// with the 64x128 tile configuration of implicit_gemm_configs.hpp (the machinery, and what is
// accepted, in implicit_gemm_wgmma_util.cuh).
#include "backend/cuda/conv/implicit_gemm_wgmma_util.cuh"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_64x128() {
  return std::make_unique<wgmma::WgmmaSolver<wgmma::index_of("ImplicitGemmWgmmaWrw64x128")>>();
}

}  // namespace anydnn::cuda
