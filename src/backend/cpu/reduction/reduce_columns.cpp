// ReduceColumns (CPU): see reduce_loops.hpp, ReduceWalk::Columns.
#include "backend/cpu/reduction/reduce_loops.hpp"
#include "reduction/reduce_registry.hpp"
#include "reduction/reduce_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class ReduceColumns final : public ReduceColumnsSpec {
 public:
  void run(const ExecutionContext& ctx, const ReducePlan& p,
           const ReduceBuffers& b) const override {
    reduce_cpu(p, b, ReduceWalk::Columns, ctx.config.num_threads);
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {
template <>
std::unique_ptr<ReduceSolver> make_reduce_columns<BackendKind::Cpu>() {
  return std::make_unique<cpu::ReduceColumns>();
}
}  // namespace anydnn
