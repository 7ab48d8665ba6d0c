// ImplicitGemmWgmmaBwd128x128: backward-data (unit stride) convolution on CUTLASS's sm90 TMA +
// wgmma kernel with the 128x128 tile configuration of implicit_gemm_configs.hpp (the machinery, and
// what is accepted, in implicit_gemm_wgmma_util.cuh).
#include "backend/cuda/conv/implicit_gemm_wgmma_util.cuh"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_bwd_128x128() {
  return std::make_unique<wgmma::WgmmaSolver<wgmma::index_of("ImplicitGemmWgmmaBwd128x128")>>();
}

}  // namespace anydnn::cuda
