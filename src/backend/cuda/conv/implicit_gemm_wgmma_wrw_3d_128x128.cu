// ImplicitGemmWgmmaWrw3d128x128: 3-D backward weights (NDHWC, filters KTRSC) on CUTLASS's
// sm90 TMA + wgmma kernel with 128x128 tiles (implicit_gemm_configs.hpp; the machinery, and what
// is accepted, in implicit_gemm_wgmma_util.cuh).
#include "backend/cuda/conv/implicit_gemm_wgmma_util.cuh"

namespace anydnn::cuda {

std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_3d_128x128() {
  return std::make_unique<wgmma::WgmmaSolver<wgmma::index_of("ImplicitGemmWgmmaWrw3d128x128")>>();
}

}  // namespace anydnn::cuda
