// PoolFwdDirect (CUDA): one thread per output element (grid-stride); consecutive threads take
// consecutive ow (coalesced for NCHW). Each element runs pooling_math.hpp's window loop, the code
// the CPU solvers run.
#include "backend/cuda/pooling/pool_forward.cuh"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class PoolFwdDirect final : public PoolFwdDirectSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    launch_pool_forward<false>(ctx, p, b);
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_fwd_direct<BackendKind::Cuda>() {
  return std::make_unique<cuda::PoolFwdDirect>();
}

}  // namespace anydnn
