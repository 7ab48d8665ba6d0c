// The CPU reduction loops the solvers share (reduce_loops.cpp): a plan
// (reduction/reduce_plan.hpp) walked one of three ways, with the arithmetic of
// reduction/reduce_math.hpp. Every walk is deterministic: an output's elements are combined in
// an order fixed by the shape alone (never by the thread count), so a result is bit-identical
// from run to run and across MIOPEN_NUM_THREADS settings.
#pragma once

#include "reduction/reduce_solver.hpp"

namespace anydnn::cpu {

enum class ReduceWalk {
  // Each output's reduced elements are one unit-stride run: the run is cut into fixed-size
  // chunks, each summed in 8 interleaved lanes (vectorised; lanes added in a fixed tree), the
  // chunks combined in order; threads take outputs or, with fewer outputs than threads, chunks.
  Rows,
  // The innermost output dimension is unit-stride in A and C: a block of neighbouring outputs
  // is accumulated together, the reduced multi-index outermost (vectorised across outputs).
  Columns,
  // Any strides: each output walks its reduced multi-index in row-major order.
  Strided,
};

void reduce_cpu(const ReducePlan& plan, const ReduceBuffers& b, ReduceWalk walk, int threads);

}  // namespace anydnn::cpu
