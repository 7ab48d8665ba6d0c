// Every CUDA reduction solver, alone, on every case of tests/problems/reduce_problems.txt it
// declares applicable (one test each, named <solver>_<index>_<case>), on device buffers: inputs
// drawn fresh, C poisoned (or the drawn prior when beta reads it), the indices buffer poisoned,
// compared with the double reference with the CPU test's tolerances (indices exact), bytes of C
// outside its elements untouched, and a rerun from the same prior giving identical bytes.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "gpu/gpu_test_util.hpp"
#include "reduce_test_cases.hpp"
#include "reduction/reduce_solver.hpp"

namespace anydnn {
namespace {

using test::DeviceTensor;

using test::GpuBackend;

struct Param {
  std::string solver;
  size_t index;
  std::string name;
};

std::vector<Param> params() {
  if (!test::gpu_present()) return {{"NoCudaDevice", 0, "none"}};
  GpuBackend g;
  const auto all = test::reduce_cases();
  std::vector<Param> out;
  for (const auto& e : g.backend->solvers<ReduceSolver>().entries())
    for (size_t i = 0; i < all.size(); ++i)
      if (e.solver->applicable(g.ctx(), test::make_reduce_problem(all[i])))
        out.push_back({std::string(e.solver->name()), i, all[i].name});
  return out;
}

class ReduceSolverGpu : public ::testing::TestWithParam<Param> {};

TEST_P(ReduceSolverGpu, MatchesReferenceAndRepeats) {
  REQUIRE_GPU();
  const Param& prm = GetParam();
  const test::ReduceCase k = test::reduce_cases()[prm.index];
  SCOPED_TRACE(k.line);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* e = g.backend->solvers<ReduceSolver>().find(prm.solver);
  ASSERT_NE(e, nullptr);
  std::vector<uint8_t> first;
  std::vector<int> first_idx;
  for (int rep = 0; rep < 2; ++rep) {
    test::check_reduce_case(
        k, seed,
        [&](const ReduceProblem& p, const driver::HostTensor& a, driver::HostTensor& c,
            std::vector<int>& idx) {
          DeviceTensor da(a), dc(c), di(idx.size() * sizeof(int) + 1);
          ASSERT_NE(dc.data(), nullptr);
          cudaMemset(di.data(), 0xff, idx.size() * sizeof(int) + 1);
          e->solver->run(
              ctx, p.plan(),
              {da.data(), dc.data(), idx.empty() ? nullptr : static_cast<int*>(di.data())});
          dc.download(c);
          if (!idx.empty())
            cudaMemcpy(idx.data(), di.data(), idx.size() * sizeof(int), cudaMemcpyDeviceToHost);
          if (rep == 0) {
            first = c.bytes;
            first_idx = idx;
          } else {
            EXPECT_EQ(first, c.bytes) << "a rerun gave different bytes";
            EXPECT_EQ(first_idx, idx) << "a rerun gave different indices";
          }
        });
  }
}

INSTANTIATE_TEST_SUITE_P(List, ReduceSolverGpu, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           std::string n = i.param.solver + "_" + std::to_string(i.param.index) +
                                           "_" + i.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace anydnn
