// The CUDA convolution solvers, in priority order (mirrors backend/cpu/conv_registry.cpp).
// Adding a solver = one file in conv/ that defines its factory, plus its declaration and one
// list line here. Ids are stable: a solver named like a CPU one keeps the CPU id (find records
// and MIOpenDriver -S mean the same thing on both backends); CUDA-only solvers take ids from 100
// up. Never renumber or reuse one (docs/adding-a-solver.md).
#include "backend/cuda/conv_registry.hpp"

#include <memory>

#include "conv/conv_fallbacks.hpp"

namespace anydnn::cuda {

// Factories, one per file in conv/.
std::unique_ptr<ConvSolver> make_gemm_fwd_rest();         // conv/gemm_fwd_rest.cu
std::unique_ptr<ConvSolver> make_gemm_fwd_1x1();          // conv/gemm_fwd_1x1.cu
std::unique_ptr<ConvSolver> make_gemm_bwd_rest();         // conv/gemm_bwd_rest.cu
std::unique_ptr<ConvSolver> make_gemm_bwd_1x1();          // conv/gemm_bwd_1x1.cu
std::unique_ptr<ConvSolver> make_gemm_wrw_universal();    // conv/gemm_wrw_universal.cu
std::unique_ptr<ConvSolver> make_gemm_wrw_1x1();          // conv/gemm_wrw_1x1.cu
std::unique_ptr<ConvSolver> make_gemm_fwd_1x1_nhwc();     // conv/gemm_fwd_1x1_nhwc.cu
std::unique_ptr<ConvSolver> make_gemm_bwd_1x1_nhwc();     // conv/gemm_bwd_1x1_nhwc.cu
std::unique_ptr<ConvSolver> make_gemm_wrw_1x1_nhwc();     // conv/gemm_wrw_1x1_nhwc.cu
std::unique_ptr<ConvSolver> make_conv_direct_fwd_cuda();  // conv/conv_direct_fwd.cu
std::unique_ptr<ConvSolver> make_cudnn_conv_fwd();        // conv/cudnn_conv_fwd.cpp
std::unique_ptr<ConvSolver> make_cudnn_conv_bwd();        // conv/cudnn_conv_bwd.cpp
std::unique_ptr<ConvSolver> make_cudnn_conv_wrw();        // conv/cudnn_conv_wrw.cpp
#if ANYDNN_HAVE_CUTLASS  // CUTLASS tensor-core solvers (built when the headers are found)
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_fwd();  // conv/implicit_gemm_tc_fwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_fwd_fixed_channels();  // ..._fixed_channels.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd();         // conv/implicit_gemm_tc_bwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd_s1();      // conv/implicit_gemm_tc_bwd_s1.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd_narrow();  // implicit_gemm_tc_bwd_narrow.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_wrw();         // conv/implicit_gemm_tc_wrw.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_tc_wrw_serial();  // implicit_gemm_tc_wrw_serial.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_fwd();     // conv/implicit_gemm_3xtf32_fwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_bwd();     // conv/implicit_gemm_3xtf32_bwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_wrw();     // conv/implicit_gemm_3xtf32_wrw.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_simt_fwd();       // conv/implicit_gemm_simt_fwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_simt_bwd();       // conv/implicit_gemm_simt_bwd.cu
std::unique_ptr<ConvSolver> make_implicit_gemm_simt_wrw();       // conv/implicit_gemm_simt_wrw.cu
#endif
#if ANYDNN_HAVE_WGMMA  // CUTLASS sm90 (TMA + wgmma) solvers, sm_90a code (src/CMakeLists.txt)
// One per line of wgmma::kConfigs (conv/implicit_gemm_configs.hpp), in
// conv/implicit_gemm_wgmma_*.cu.
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_128x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_128x128c2();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_128x64();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_64x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_bwd_128x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_bwd_128x64();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_bwd_64x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_128x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_64x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_128x64();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_fwd_3d_128x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_bwd_3d_128x128();
std::unique_ptr<ConvSolver> make_implicit_gemm_wgmma_wrw_3d_128x128();
#endif

ConvSolverRegistry make_conv_registry() {
  std::vector<ConvSolverEntry> list;
  // Forward
#if ANYDNN_HAVE_WGMMA
  list.push_back({118, make_implicit_gemm_wgmma_fwd_128x128()});
  list.push_back({119, make_implicit_gemm_wgmma_fwd_128x128c2()});
  list.push_back({120, make_implicit_gemm_wgmma_fwd_128x64()});
  list.push_back({121, make_implicit_gemm_wgmma_fwd_64x128()});
  list.push_back({129, make_implicit_gemm_wgmma_fwd_3d_128x128()});
#endif
#if ANYDNN_HAVE_CUTLASS
  // At most 4 input channels (the stem): ahead of the general kernel, which it beats there.
  list.push_back({135, make_implicit_gemm_tc_fwd_fixed_channels()});
  list.push_back({110, make_implicit_gemm_tc_fwd()});
  // fp32 near fp32 accuracy (3xTF32), opt-in (ANYDNN_CONV_3XTF32=1): after the TF32 kernel,
  // which is faster where TF32 is allowed.
  list.push_back({115, make_implicit_gemm_3xtf32_fwd()});
  // Strict fp32 on CUDA cores (no switch): ranked with the cuBLAS and direct fp32 solvers below
  // by the cost model.
  list.push_back({132, make_implicit_gemm_simt_fwd()});
#endif
  // 1x1 stride 1 on channels-last data: one cuBLAS GEMM over every image.
  list.push_back({137, make_gemm_fwd_1x1_nhwc()});
  list.push_back({5, make_gemm_fwd_1x1()});
  list.push_back({2, make_gemm_fwd_rest()});
  list.push_back({100, make_conv_direct_fwd_cuda()});
  // cuDNN's engines (found at run time): last of the regular solvers, so our own keep the
  // registry-order ties; Find times them all the same.
  list.push_back({140, make_cudnn_conv_fwd()});
  // Backward data
#if ANYDNN_HAVE_WGMMA
  list.push_back({122, make_implicit_gemm_wgmma_bwd_128x128()});
  list.push_back({123, make_implicit_gemm_wgmma_bwd_128x64()});
  list.push_back({124, make_implicit_gemm_wgmma_bwd_64x128()});
  list.push_back({130, make_implicit_gemm_wgmma_bwd_3d_128x128()});
#endif
#if ANYDNN_HAVE_CUTLASS
  list.push_back({114, make_implicit_gemm_tc_bwd_narrow()});
  list.push_back({113, make_implicit_gemm_tc_bwd_s1()});
  list.push_back({111, make_implicit_gemm_tc_bwd()});
  list.push_back({116, make_implicit_gemm_3xtf32_bwd()});
  list.push_back({133, make_implicit_gemm_simt_bwd()});
#endif
  list.push_back({138, make_gemm_bwd_1x1_nhwc()});
  list.push_back({7, make_gemm_bwd_1x1()});
  list.push_back({6, make_gemm_bwd_rest()});
  list.push_back({141, make_cudnn_conv_bwd()});
  // Backward weights
#if ANYDNN_HAVE_WGMMA
  list.push_back({125, make_implicit_gemm_wgmma_wrw_128x128()});
  list.push_back({126, make_implicit_gemm_wgmma_wrw_64x128()});
  list.push_back({127, make_implicit_gemm_wgmma_wrw_128x64()});
  list.push_back({136, make_implicit_gemm_wgmma_wrw_3d_128x128()});
#endif
#if ANYDNN_HAVE_CUTLASS
  list.push_back({112, make_implicit_gemm_tc_wrw()});
  list.push_back({128, make_implicit_gemm_tc_wrw_serial()});
  list.push_back({117, make_implicit_gemm_3xtf32_wrw()});
  list.push_back({134, make_implicit_gemm_simt_wrw()});
#endif
  list.push_back({139, make_gemm_wrw_1x1_nhwc()});
  list.push_back({9, make_gemm_wrw_1x1()});
  list.push_back({8, make_gemm_wrw_universal()});
  list.push_back({142, make_cudnn_conv_wrw()});
  // Any shape, layout and type: the naive fallbacks, ids 1, 3, 4 (conv/conv_fallbacks.hpp).
  append_conv_fallbacks<BackendKind::Cuda>(list);
  return ConvSolverRegistry(std::move(list));
}

}  // namespace anydnn::cuda

namespace anydnn {

const ConvSolver* find_cuda_conv_solver(uint64_t id) {
  static const ConvSolverRegistry registry = cuda::make_conv_registry();
  const auto* e = registry.find(id);
  return e != nullptr ? e->solver.get() : nullptr;
}

}  // namespace anydnn
