// ReduceColumns (CUDA): see reduce_kernels.hpp, ReduceWalk::Columns.
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/reduction/reduce_kernels.hpp"
#include "reduction/reduce_registry.hpp"
#include "reduction/reduce_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class ReduceColumns final : public ReduceColumnsSpec {
 public:
  void run(const ExecutionContext& ctx, const ReducePlan& p,
           const ReduceBuffers& b) const override {
    launch_reduce(p, b, ReduceWalk::Columns, backend_of(ctx).cuda_stream());
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {
template <>
std::unique_ptr<ReduceSolver> make_reduce_columns<BackendKind::Cuda>() {
  return std::make_unique<cuda::ReduceColumns>();
}
}  // namespace anydnn
