// The CPU convolution solvers, in priority order. Adding a solver = one file in conv/ that
// defines its factory, plus its declaration and one list line here with a new id. Ids are
// stable: never renumber or reuse one (docs/adding-a-solver.md).
#include "backend/cpu/conv_registry.hpp"

#include <memory>

#include "conv/conv_fallbacks.hpp"

namespace anydnn::cpu {

// Factories, one per file in conv/.
std::unique_ptr<ConvSolver> make_gemm_fwd_rest();              // conv/gemm_fwd_rest.cpp
std::unique_ptr<ConvSolver> make_gemm_fwd_1x1();               // conv/gemm_fwd_1x1.cpp
std::unique_ptr<ConvSolver> make_gemm_bwd_rest();              // conv/gemm_bwd_rest.cpp
std::unique_ptr<ConvSolver> make_gemm_bwd_1x1();               // conv/gemm_bwd_1x1.cpp
std::unique_ptr<ConvSolver> make_gemm_wrw_universal();         // conv/gemm_wrw_universal.cpp
std::unique_ptr<ConvSolver> make_gemm_wrw_1x1();               // conv/gemm_wrw_1x1.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_fwd();          // conv/implicit_gemm_fwd.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_shifted_fwd();  // conv/implicit_gemm_shifted_fwd.cpp
std::unique_ptr<ConvSolver> make_winograd_f4x3_fwd();          // conv/winograd_f4x3_fwd.cpp
std::unique_ptr<ConvSolver> make_winograd_f4x3_bwd();          // conv/winograd_f4x3_bwd.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_bwd();          // conv/implicit_gemm_bwd.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_shifted_wrw();  // conv/implicit_gemm_shifted_wrw.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_channel_fwd();  // conv/implicit_gemm_channel_fwd.cpp
std::unique_ptr<ConvSolver> make_implicit_gemm_wrw();          // conv/implicit_gemm_wrw.cpp
std::unique_ptr<ConvSolver> make_conv_depthwise_fwd();         // conv/depthwise_fwd.cpp
std::unique_ptr<ConvSolver> make_conv_depthwise_bwd();         // conv/depthwise_bwd.cpp
std::unique_ptr<ConvSolver> make_conv_depthwise_wrw();         // conv/depthwise_wrw.cpp
std::unique_ptr<ConvSolver> make_conv_fft_fwd();               // conv/fft_fwd.cpp
std::unique_ptr<ConvSolver> make_conv_fft_bwd();               // conv/fft_bwd.cpp
std::unique_ptr<ConvSolver> make_conv_fft_wrw();               // conv/fft_wrw.cpp

ConvSolverRegistry make_conv_registry() {
  std::vector<ConvSolverEntry> list;
  // Forward
  list.push_back({18, make_conv_depthwise_fwd()});
  list.push_back({12, make_winograd_f4x3_fwd()});
  list.push_back({11, make_implicit_gemm_shifted_fwd()});
  list.push_back({10, make_implicit_gemm_fwd()});
  list.push_back({16, make_implicit_gemm_channel_fwd()});
  list.push_back({21, make_conv_fft_fwd()});
  list.push_back({5, make_gemm_fwd_1x1()});
  list.push_back({2, make_gemm_fwd_rest()});
  // Backward data
  list.push_back({19, make_conv_depthwise_bwd()});
  list.push_back({13, make_winograd_f4x3_bwd()});
  list.push_back({14, make_implicit_gemm_bwd()});
  list.push_back({22, make_conv_fft_bwd()});
  list.push_back({7, make_gemm_bwd_1x1()});
  list.push_back({6, make_gemm_bwd_rest()});
  // Backward weights
  list.push_back({20, make_conv_depthwise_wrw()});
  list.push_back({15, make_implicit_gemm_shifted_wrw()});
  list.push_back({17, make_implicit_gemm_wrw()});
  list.push_back({23, make_conv_fft_wrw()});
  list.push_back({9, make_gemm_wrw_1x1()});
  list.push_back({8, make_gemm_wrw_universal()});
  // Any shape, layout and type: the naive fallbacks, ids 1, 3, 4 (conv/conv_fallbacks.hpp).
  append_conv_fallbacks<BackendKind::Cpu>(list);
  return ConvSolverRegistry(std::move(list));
}

}  // namespace anydnn::cpu

namespace anydnn {

const ConvSolver* find_cpu_conv_solver(uint64_t id) {
  static const ConvSolverRegistry registry = cpu::make_conv_registry();
  const auto* e = registry.find(id);
  return e != nullptr ? e->solver.get() : nullptr;
}

}  // namespace anydnn
