// ReduceStrided (CPU): see reduce_loops.hpp, ReduceWalk::Strided.
#include "backend/cpu/reduction/reduce_loops.hpp"
#include "reduction/reduce_registry.hpp"
#include "reduction/reduce_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class ReduceStrided final : public ReduceStridedSpec {
 public:
  void run(const ExecutionContext& ctx, const ReducePlan& p,
           const ReduceBuffers& b) const override {
    reduce_cpu(p, b, ReduceWalk::Strided, ctx.config.num_threads);
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {
template <>
std::unique_ptr<ReduceSolver> make_reduce_strided<BackendKind::Cpu>() {
  return std::make_unique<cpu::ReduceStrided>();
}
}  // namespace anydnn
