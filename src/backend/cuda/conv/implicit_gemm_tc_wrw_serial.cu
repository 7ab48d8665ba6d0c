// ImplicitGemmTensorCoreWrwSerial: backward-weights convolution as the CUTLASS 2.x wgrad kernel
// of ImplicitGemmTensorCoreWrw with serial split-K: the slices of the long reduction (N*P*Q) add
// into one fp32 sum in the workspace one after another, in slice order (CUTLASS's semaphores:
// deterministic), and one pass converts it to the output type. Against the parallel form (every
// slice writes its own fp32 partials, a reduction kernel sums them) it moves one copy of the sum
// instead of one per slice, which stays in L2 for most filters, and waits instead where slices of
// one tile finish together. Find times both. The shared machinery, and what is accepted, is in
// implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_wgrad.cuh"

namespace anydnn::cuda {
namespace {

struct WrwSerialTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreWrwSerial";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardWeights;
  static constexpr bool kSplitK = true;
  static constexpr bool kSerialSplitK = true;
  // The wgrad kernel of implicit_gemm_tc_wrw.cu (implicit_gemm_tc_wgrad.cuh).
  template <class E>
  using Op = tc::WgradOp<E>;
};

class ImplicitGemmTensorCoreWrwSerial final : public tc::TcSolver<WrwSerialTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_wrw_serial() {
  return std::make_unique<ImplicitGemmTensorCoreWrwSerial>();
}

}  // namespace anydnn::cuda
