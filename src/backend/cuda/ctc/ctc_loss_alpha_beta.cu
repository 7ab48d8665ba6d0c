// CtcLossAlphaBeta (CUDA): MIOpen's CTCLossGPU steps and workspace layout, one thread block per
// batch element; the kernels and their host-side preparation are ctc_kernels.cuh's.
#include <vector>

#include "backend/cuda/ctc/ctc_kernels.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "ctc/ctc_registry.hpp"
#include "ctc/ctc_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class CtcLossAlphaBeta final : public CtcLossAlphaBetaSpec {
 public:
  void run(const ExecutionContext& ctx, const CtcLossProblem& p,
           const CtcLossBuffers& b) const override {
    CudaBackend& be = backend_of(ctx);
    // The labels are host memory (as in MIOpen): copied in on the stream, ahead of the kernels.
    const std::vector<int> ints = ctc_kernels::int_region(p);
    be.copy(b.workspace, ints.data(), ints.size() * sizeof(int), CopyKind::HostToDevice);
    ctc_kernels::launch(be.cuda_stream(), p, b);
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<CtcLossSolver> make_ctc_loss_alpha_beta<BackendKind::Cuda>() {
  return std::make_unique<cuda::CtcLossAlphaBeta>();
}

}  // namespace anydnn
