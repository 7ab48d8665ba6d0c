#include "tensor_ops/tensor_op_ops.hpp"

#include <cstdint>
#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/registry.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const TensorOpSolverEntry& select_tensor_op_solver(Handle& handle, const TensorOpProblem& p) {
  return select_first_applicable(handle.backend().solvers<TensorOpSolver>(), handle.context(), p,
                                 "tensor-op");
}

namespace {

void run_one(Handle& handle, const TensorOpProblem& p, const TensorOpBuffers& buffers, float& ms) {
  const TensorOpSolverEntry& e = select_tensor_op_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "tensor op " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  ms += handle.run_primitive([&] { e.solver->run(ctx, p.plan(), buffers); });
}

}  // namespace

void tensor_op_run(Handle& handle, const TensorOpProblem& p, const TensorOpBuffers& buffers) {
  if (p.plan().count == 0) return;
  float ms = 0.0f;
  if (p.zero_output_first()) {
    const uint64_t zero = 0;
    const TensorOpProblem clear = TensorOpProblem::set_tensor(p.c(), &zero);
    run_one(handle, clear, TensorOpBuffers{nullptr, nullptr, buffers.c}, ms);
  }
  run_one(handle, p, buffers, ms);
  handle.record_kernel_time(ms);
}

}  // namespace anydnn
