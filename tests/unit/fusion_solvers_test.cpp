// Fused kernels and fusion solvers, white-box:
//  - every CPU BN solver that fuses an activation (BnSolver::activation_support), alone, on every
//    problem of tests/problems/bn_problems.txt, in inference, training and backward, with every
//    activation mode (non-trivial parameters), once per instruction set, against the double
//    reference (BN, then the activation; backward: BN backward of act'(dy) at bn(x));
//  - every fusion solver (fusion/fusion_registry.hpp), alone, on every chain it takes: the
//    convolution chains (cba, cbna, cna, ca, cb, cn, cbn, and the one-call API's conv + z + bias
//    + activation) over the forward problems of tests/problems/conv_problems.txt (odd sizes,
//    stride, dilation, groups, depthwise, 1x1, NHWC, fp16 / bf16, batch 1), BN spatial and
//    per-activation, and the BN + activation chains over bn_problems.txt, against the double
//    references; every solver must take the chains it is meant for;
//  - a compiled plan's choice, workspace and log line.
// Outputs are NaN-poisoned before each run; inputs are drawn fresh (the seed is printed).
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "bn_spec.hpp"
#include "common_test_util.hpp"
#include "conv_test_util.hpp"
#include "core/cpu_isa.hpp"
#include "fusion/fusion_plan.hpp"
#include "fusion/fusion_problem.hpp"
#include "fusion/fusion_solver.hpp"
#include "fusion_test_cases.hpp"
#include "handle/handle.hpp"
#include "solver_isa.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::HostTensor;
using test::host_tensor;

BnProblem bn_problem(const test::BnData& d, BnDirection dir) {
  BnDescriptors ds{&d.x_desc, &d.x_desc, dir == BnDirection::Backward ? &d.x_desc : nullptr,
                   &d.p_desc, &d.p_desc, &d.p_desc,
                   &d.p_desc};
  const bool save = dir != BnDirection::ForwardInference;
  const bool running = dir != BnDirection::Backward;
  return BnProblem(dir, d.mode, ds, test::kBnEps, test::kBnFactor, save, running);
}

struct Line {
  TensorDescriptor x;
  driver::BnSpec spec;
};

std::vector<Line> bn_lines() {
  std::vector<Line> out;
  for (const std::string& line : test::load_problem_lines("bn_problems.txt")) {
    driver::BnSpec spec;
    EXPECT_FALSE(driver::parse_bn_line(line, spec)) << line;
    out.push_back(
        {TensorDescriptor::with_layout(spec.type, spec.layout,
                                       std::vector<size_t>(spec.lens.begin(), spec.lens.end())),
         spec});
  }
  return out;
}

constexpr BnDirection kBnDirs[] = {BnDirection::ForwardInference, BnDirection::ForwardTraining,
                                   BnDirection::Backward};

using test::SolverIsa;  // solver_isa.hpp

std::vector<SolverIsa> every_bn_activation_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<SolverIsa> out;
  for (const auto& e : backend->solvers<BnSolver>().entries())
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Generic})
      out.push_back({std::string(e.solver->name()), isa});
  return out;
}

class BnActivationAlone : public ::testing::TestWithParam<SolverIsa> {};

TEST_P(BnActivationAlone, MatchesReferenceOnEveryProblemItTakes) {
  const SolverIsa& c = GetParam();
  if (static_cast<int>(c.isa) > static_cast<int>(best_cpu_isa()))
    GTEST_SKIP() << "this CPU lacks " << cpu_isa_name(c.isa);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = c.isa;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const BnSolver& solver = *backend->solvers<BnSolver>().find(c.solver)->solver;
  int ran = 0;
  size_t turn = 0;
  const auto modes = test::every_activation();
  for (const Line& line : bn_lines()) {
    // Every mode on small problems; on the large ones one mode, in turn.
    const bool every_mode = line.x.element_count() <= 20000;
    for (const BnDirection dir : kBnDirs)
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        if (!every_mode && mi != turn++ % modes.size()) continue;
        const ref::ActivationDesc& a = modes[mi];
        test::BnData d(line.x, line.spec.param_type, line.spec.mode, rng);
        const BnProblem p = bn_problem(d, dir);
        if (!solver.applicable(ctx, p)) continue;
        SCOPED_TRACE(p.key() + " activation " + std::to_string(static_cast<int>(a.mode)));
        const Applicability ok = solver.activation_support(ctx, p, a.mode);
        ASSERT_TRUE(ok) << "every CPU BN solver fuses every activation: " << ok.reason;
        const test::BnWant w = test::bn_want(d, dir, a, rng);
        HostTensor out = host_tensor(d.x_desc), m = d.mean, v = d.var, sm = host_tensor(d.p_desc),
                   sv = host_tensor(d.p_desc), ds = host_tensor(d.p_desc),
                   db = host_tensor(d.p_desc);
        for (HostTensor* t : {&out, &sm, &sv, &ds, &db})
          t->poison();
        const FusedActivation fa = test::fused(a, d.x_desc.type());
        BnBuffers b;
        b.x = d.x.data();
        b.scale = d.scale.data();
        b.bias = d.bias.data();
        b.activation = &fa;
        if (dir == BnDirection::Backward) {
          b.dy = d.dy.data();
          b.dx = out.data();
          b.dscale = ds.data();
          b.dbias = db.data();
          b.saved_mean = d.mean.data();
          b.saved_invstd = d.var.data();
        } else {
          b.y = out.data();
          b.run_mean = m.data();
          b.run_var = v.data();
          if (dir == BnDirection::ForwardTraining) {
            b.saved_mean = sm.data();
            b.saved_invstd = sv.data();
          }
        }
        solver.run(ctx, p, b);
        test::check_bn(d, dir, w, out, m, v, sm, sv, ds, db);
        ++ran;
      }
  }
  EXPECT_GT(ran, 0) << c.solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, BnActivationAlone,
                         ::testing::ValuesIn(every_bn_activation_solver()), [](const auto& info) {
                           return info.param.solver + "_" + cpu_isa_name(info.param.isa);
                         });

}  // namespace
}  // namespace anydnn
