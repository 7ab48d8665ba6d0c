// ReduceRows (CUDA): see reduce_kernels.hpp, ReduceWalk::Rows.
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/reduction/reduce_kernels.hpp"
#include "reduction/reduce_registry.hpp"
#include "reduction/reduce_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class ReduceRows final : public ReduceRowsSpec {
 public:
  void run(const ExecutionContext& ctx, const ReducePlan& p,
           const ReduceBuffers& b) const override {
    launch_reduce(p, b, ReduceWalk::Rows, backend_of(ctx).cuda_stream());
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {
template <>
std::unique_ptr<ReduceSolver> make_reduce_rows<BackendKind::Cuda>() {
  return std::make_unique<cuda::ReduceRows>();
}
}  // namespace anydnn
