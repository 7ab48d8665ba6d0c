// ReduceRows (CPU): see reduce_loops.hpp, ReduceWalk::Rows.
#include "backend/cpu/reduction/reduce_loops.hpp"
#include "reduction/reduce_registry.hpp"
#include "reduction/reduce_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class ReduceRows final : public ReduceRowsSpec {
 public:
  void run(const ExecutionContext& ctx, const ReducePlan& p,
           const ReduceBuffers& b) const override {
    reduce_cpu(p, b, ReduceWalk::Rows, ctx.config.num_threads);
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {
template <>
std::unique_ptr<ReduceSolver> make_reduce_rows<BackendKind::Cpu>() {
  return std::make_unique<cpu::ReduceRows>();
}
}  // namespace anydnn
