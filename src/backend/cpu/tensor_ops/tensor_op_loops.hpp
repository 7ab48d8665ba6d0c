// The CPU tensor-op loops the solvers share: a plan (tensor_ops/tensor_op_plan.hpp) applied to a
// block of rows (the plan's last dimension) and columns. The row loop steps a multi-index
// instead of dividing per row, so short rows (an NHWC transform with three channels) stay
// cheap; the column loop is instantiated for unit strides (vectorisable; B either unit-stride
// or one broadcast value) and for any strides, and never reads the output when beta is 0.
#pragma once

#include <cstddef>

#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn::cpu {

// Rows [row0, row1) of the plan, columns [col0, col1) of each. `contiguous` selects the
// unit-stride column loop; it requires plan.inner_contiguous().
void tensor_op_block(const TensorOpPlan& plan, const TensorOpBuffers& b, size_t row0, size_t row1,
                     size_t col0, size_t col1, bool contiguous);

// Below this many elements a call runs on one thread: a fork/join costs more than the loop.
constexpr size_t kTensorOpParallelMin = size_t{1} << 15;

// The thread count for `elements` elements: 1 for small calls, else the handle's.
inline int tensor_op_threads(size_t elements, int threads) {
  return elements < kTensorOpParallelMin || threads < 1 ? 1 : threads;
}

// The whole plan on `threads` threads: blocks of rows, or of each row's columns when there are
// fewer rows than threads (a few long rows), in chunks of whole cache lines.
void tensor_op_parallel(const TensorOpPlan& plan, const TensorOpBuffers& b, int threads,
                        bool contiguous);

// The CPU's three tensor-op solvers run these same loops and differ only in the column loop
// their plans allow: TensorOpPacked (one unit-stride run) and TensorOpRows (rows unit-stride in
// every tensor) the unit-stride one, TensorOpStrided the any-stride one. Each solver file
// instantiates this with its spec (name, applicability) and defines its factory.
template <class Spec, bool Contiguous>
class TensorOpLoopSolver final : public Spec {
 public:
  void run(const ExecutionContext& ctx, const TensorOpPlan& p,
           const TensorOpBuffers& b) const override {
    tensor_op_parallel(p, b, tensor_op_threads(p.count, ctx.config.num_threads), Contiguous);
  }
};

}  // namespace anydnn::cpu
