// Every CPU convolution solver that takes a fused epilogue (ConvSolver::epilogue_support,
// activation/fused_epilogue.hpp), alone, on every forward problem of
// tests/problems/conv_problems.txt it accepts, once per instruction set, with epilogues of every
// shape (shift only as a bias, scale + shift as BN folded, a residual z, none) and every activation
// mode with non-trivial parameters, against the double reference of the convolution followed by the
// epilogue, with MIOpen's fusion tolerance (fusion_test_cases.hpp). Outputs are poisoned with NaN
// first. Also: with only a shift (conv + bias) the epilogue's bits equal the solver's output plus
// the bias call's.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_bias.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_test_util.hpp"
#include "core/cpu_isa.hpp"
#include "fusion_test_cases.hpp"
#include "solver_isa.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

using test::SolverIsa;  // solver_isa.hpp

// The forward problems of the shared list.
std::vector<std::pair<ConvSpec, ConvProblem>> forward_problems() {
  std::vector<std::pair<ConvSpec, ConvProblem>> out;
  for (const std::string& line : test::load_problem_lines("conv_problems.txt")) {
    ConvSpec spec;
    EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
    if (spec.forw != 0 && (spec.forw & 1) == 0) continue;
    const test::BuiltConv b = test::build_conv(spec);
    const ConvProblem p(ConvDirection::Forward, b.x, b.w, b.conv, b.y);
    if (p.direction() != ConvDirection::Forward) continue;  // transposed: backward data
    out.emplace_back(spec, p);
  }
  return out;
}

// Every solver of the registry that takes an epilogue on some problem of the list.
std::vector<SolverIsa> every_epilogue_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto problems = forward_problems();
  std::vector<SolverIsa> out;
  for (const auto& e : backend->solvers<ConvSolver>().entries()) {
    bool takes = false;
    for (const auto& [spec, p] : problems)
      takes = takes || (e.solver->applicable(ctx, p) &&
                        e.solver->epilogue_support(ctx, p, {true, true, false}).ok);
    if (!takes) continue;
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Generic})
      out.push_back({std::string(e.solver->name()), isa});
  }
  return out;
}

// Epilogue shapes: {scale, shift, residual}.
constexpr ConvEpilogueNeeds kShapes[] = {
    {false, true, false},   // conv + bias
    {true, true, false},    // conv (+ bias) + BN inference folded
    {false, false, false},  // activation only
    {true, true, true},     // alpha1 * conv + alpha2 * z + bias (the one-call API)
};

class ConvEpilogueAlone : public ::testing::TestWithParam<SolverIsa> {};

TEST_P(ConvEpilogueAlone, MatchesReferenceOnEveryProblemItTakes) {
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
  const ConvSolver& solver = *backend->solvers<ConvSolver>().find(c.solver)->solver;
  const auto modes = test::every_activation();
  int ran = 0;
  size_t turn = 0;
  for (const auto& [spec, p] : forward_problems()) {
    if (!solver.applicable(ctx, p)) continue;
    SCOPED_TRACE(p.key());
    HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
               y = test::host_tensor(p.y()), z = test::host_tensor(p.y());
    test::fill_random(x, rng);
    test::fill_random(w, rng);
    test::fill_random(z, rng);
    const auto conv = test::conv_reference(p, test::conv_params(spec), x, w, y);
    const test::LogicalMap map(y);
    const size_t k = p.out_channels();
    std::vector<float> scale(k), shift(k);
    for (size_t i = 0; i < k; ++i) {
      scale[i] = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
      shift[i] = std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng);
    }
    const std::vector<uint8_t> ws0(solver.workspace_size(ctx, p));
    const ConvInvoker invoker = solver.make_invoker(ctx, p);
    for (const ConvEpilogueNeeds& shape : kShapes) {
      const Applicability a = solver.epilogue_support(ctx, p, shape);
      if (!a) {
        EXPECT_FALSE(a.reason.empty());
        // Only a residual on 16-bit data may be refused by a solver that takes epilogues.
        EXPECT_TRUE(shape.residual && p.data_type() != miopenFloat) << a.reason;
        continue;
      }
      // Every mode on the first two shapes of small problems; one mode per problem otherwise
      // (turn by turn, so every mode runs over the list).
      const bool every_mode = !shape.residual && shape.shift && p.y().element_count() <= 20000;
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        if (!every_mode && mi != turn % modes.size()) continue;
        const ref::ActivationDesc& act = modes[mi];
        SCOPED_TRACE(testing::Message()
                     << "scale " << shape.scale << " shift " << shape.shift << " residual "
                     << shape.residual << " mode " << static_cast<int>(act.mode));
        ConvEpilogue ep;
        ep.scale = shape.scale ? scale.data() : nullptr;
        ep.shift = shape.shift ? shift.data() : nullptr;
        ep.residual = shape.residual ? z.data() : nullptr;
        ep.residual_alpha = 0.75f;
        ep.activation = test::fused(act, p.y().type());
        std::vector<uint8_t> ws = ws0;
        y.poison();
        ConvBuffers b{x.data(), w.data(), y.data(), ws.data(), ws.size()};
        b.epilogue = &ep;
        invoker(b);
        const std::vector<double> sd(scale.begin(), scale.end()), td(shift.begin(), shift.end());
        const auto want = test::epilogue_reference(
            conv, k, map.spatial, shape.scale ? sd : std::vector<double>{},
            shape.shift ? td : std::vector<double>{},
            shape.residual ? ref::to_logical(z.view()) : std::vector<double>{}, 0.75, act);
        EXPECT_LE(test::epilogue_error(want, ref::to_logical(y.view()), conv),
                  test::fusion_tolerance(p.data_type()));
        ++ran;
      }
    }
    ++turn;
  }
  EXPECT_GT(ran, 0) << c.solver << " takes no epilogue on the shared list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, ConvEpilogueAlone, ::testing::ValuesIn(every_epilogue_solver()),
                         [](const auto& info) {
                           return info.param.solver + "_" + cpu_isa_name(info.param.isa);
                         });

// conv + bias (+ ReLU) as an epilogue gives the bits of the solver's plain output followed by
// the bias kernel (and the activation's formula): the same fp32 additions in the same order.
TEST(ConvEpilogue, BiasShiftIsBitIdenticalToTheSeparateBiasCall) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = best_cpu_isa();
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  int ran = 0;
  for (const auto& [spec, p] : forward_problems()) {
    if (p.data_type() != miopenFloat) continue;
    HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
               y = test::host_tensor(p.y());
    test::fill_random(x, rng);
    test::fill_random(w, rng);
    const size_t k = p.out_channels();
    std::vector<float> bias(k);
    for (float& v : bias)
      v = std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng);
    const TensorDescriptor bias_desc(miopenFloat, p.y().num_dims() == 5
                                                      ? std::vector<size_t>{1, k, 1, 1, 1}
                                                      : std::vector<size_t>{1, k, 1, 1});
    for (const auto& e : backend->solvers<ConvSolver>().entries()) {
      const ConvSolver& s = *e.solver;
      if (!s.applicable(ctx, p) || !s.epilogue_support(ctx, p, {false, true, false})) continue;
      SCOPED_TRACE(std::string(s.name()) + " " + p.key());
      std::vector<uint8_t> ws(s.workspace_size(ctx, p));
      const ConvInvoker inv = s.make_invoker(ctx, p);
      HostTensor plain = y, fused = y;
      plain.poison();
      fused.poison();
      inv(ConvBuffers{x.data(), w.data(), plain.data(), ws.data(), ws.size()});
      backend->kernels<const ConvKernels>().bias_forward(bias_desc, bias.data(), p.y(),
                                                         plain.data(), 1.0f, 0.0f);
      ConvEpilogue ep;
      ep.shift = bias.data();
      ConvBuffers b{x.data(), w.data(), fused.data(), ws.data(), ws.size()};
      b.epilogue = &ep;
      inv(b);
      EXPECT_EQ(0, std::memcmp(plain.data(), fused.data(), plain.bytes.size()));
      ++ran;
    }
  }
  EXPECT_GT(ran, 5);
}

}  // namespace
}  // namespace anydnn
