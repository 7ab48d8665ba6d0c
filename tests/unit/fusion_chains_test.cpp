// Every fusion solver (fusion/fusion_registry.hpp), alone, on every chain it takes, against the
// double references: the convolution chains (MIOpenDriver CBAInfer's cbna, cna, cba, ca, cb, cn,
// plus cbn and the one-call API's alpha1 * conv + alpha2 * z + bias + activation) over the
// forward problems of tests/problems/conv_problems.txt (odd sizes, stride, dilation, groups,
// depthwise, 1x1, NHWC, fp16 / bf16, batch 1), BN spatial and per-activation, every activation
// mode in turn; the BN + activation chains (inference, training, backward) over
// tests/problems/bn_problems.txt. Each solver must take the chains it is meant for. Then what a
// compiled plan chooses, the workspace it reports and the line it logs.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bn_spec.hpp"
#include "common_test_util.hpp"
#include "conv/conv_ops.hpp"
#include "conv_test_util.hpp"
#include "core/cpu_isa.hpp"
#include "fusion/fusion_plan.hpp"
#include "fusion/fusion_problem.hpp"
#include "fusion/fusion_solver.hpp"
#include "fusion_test_cases.hpp"
#include "handle/handle.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;
using test::host_tensor;

std::vector<double> vals(const HostTensor& t) {
  return ref::to_logical(t.view());
}

Config test_config() {
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = best_cpu_isa();
  cfg.find_db_disabled = true;
  return cfg;
}

// A conv chain: which steps follow the convolution.
struct ConvChain {
  const char* name;
  bool z, bias, bn, act;
  miopenBatchNormMode_t bn_mode = miopenBNSpatial;
};
constexpr ConvChain kConvChains[] = {
    {"cba", false, true, false, true},
    {"cbna", false, true, true, true},
    {"cna_per_activation", false, false, true, true, miopenBNPerActivation},
    {"ca", false, false, false, true},
    {"cb", false, true, false, false},
    {"cn", false, false, true, false},
    {"cbn", false, true, true, false},
    {"cbna_per_activation", false, true, true, true, miopenBNPerActivation},
    {"czba", true, true, false, true},  // miopenConvolutionBiasActivationForward with z
};

// The forward problems of the shared conv list (transposed ones run as backward data: only the
// sequence takes them, and they are in the list too).
std::vector<std::pair<ConvSpec, test::BuiltConv>> conv_lines() {
  std::vector<std::pair<ConvSpec, test::BuiltConv>> out;
  for (const std::string& line : test::load_problem_lines("conv_problems.txt")) {
    ConvSpec spec;
    EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
    if (spec.forw != 0 && (spec.forw & 1) == 0) continue;
    out.emplace_back(spec, test::build_conv(spec));
  }
  return out;
}

// A plan's operators for a conv chain on x (its output: the first operator's).
FusionPlan conv_plan(const TensorDescriptor& x, const TensorDescriptor& w,
                     const ConvolutionDescriptor& conv, const ConvChain& c,
                     miopenActivationMode_t mode) {
  FusionPlan plan(miopenVerticalFusion, x);
  FusionOp op;
  op.kind = FusionOpKind::ConvForward;
  op.conv = conv;
  op.w = w;
  const TensorDescriptor y = plan.add(op).out;
  std::vector<size_t> plens(y.num_dims(), 1);
  plens[1] = y.lens()[1];
  if (c.z) {
    FusionOp o;
    o.kind = FusionOpKind::TensorScaleAdd;
    o.param = y;
    plan.add(o);
  }
  if (c.bias) {
    FusionOp o;
    o.kind = FusionOpKind::BiasForward;
    o.param = TensorDescriptor(y.type(), plens);
    plan.add(o);
  }
  if (c.bn) {
    FusionOp o;
    o.kind = FusionOpKind::BnInference;
    o.bn_mode = c.bn_mode;
    o.param = derive_bn_descriptor(y, c.bn_mode);
    plan.add(o);
  }
  if (c.act) {
    FusionOp o;
    o.kind = FusionOpKind::ActivForward;
    o.activ_mode = mode;
    plan.add(o);
  }
  return plan;
}

std::vector<FusionOp> ops_of(const FusionPlan& plan) {
  std::vector<FusionOp> ops;
  for (int i = 0; i < plan.size(); ++i)
    ops.push_back(plan.op(i));
  return ops;
}

// One conv problem's data, shared by its chains: x, w, z and the convolution in double.
struct ConvData {
  HostTensor x, w, z;
  std::vector<double> conv;
  ConvData(const ConvSpec& spec, const test::BuiltConv& b, std::mt19937& rng)
      : x(host_tensor(b.x)), w(host_tensor(b.w)), z(host_tensor(b.y)) {
    for (HostTensor* t : {&x, &w, &z})
      test::fill_random(*t, rng, -0.5, 0.5);
    // A transposed convolution is normalised to backward data: x and y swap roles.
    const ConvProblem p(ConvDirection::Forward, b.x, b.w, b.conv, b.y);
    const HostTensor out0 = host_tensor(b.y);
    conv = p.direction() == ConvDirection::Forward
               ? test::conv_reference(p, test::conv_params(spec), x, w, out0)
               : test::conv_reference(p, test::conv_params(spec), out0, w, x);
  }
};

// One conv chain on one problem: its operators, parameters, output and expected output.
struct ConvCase {
  std::vector<FusionOp> ops;
  HostTensor bias, scale, shift, mean, var, y;
  FusionOpArgs conv_args, z_args, bias_args, bn_args, act_args;
  std::vector<double> want;

  ConvCase(ConvData& d, const test::BuiltConv& b, const ConvChain& c, const ref::ActivationDesc& a,
           std::mt19937& rng)
      : ops(ops_of(conv_plan(b.x, b.w, b.conv, c, a.mode))) {
    const TensorDescriptor& y_desc = ops.front().out;
    std::vector<size_t> plens(y_desc.num_dims(), 1);
    plens[1] = y_desc.lens()[1];
    const TensorDescriptor bn_desc = derive_bn_descriptor(y_desc, c.bn_mode);
    y = host_tensor(y_desc);
    bias = host_tensor(TensorDescriptor(y_desc.type(), plens));
    scale = host_tensor(bn_desc);
    shift = host_tensor(bn_desc);
    mean = host_tensor(bn_desc);
    var = host_tensor(bn_desc);
    for (HostTensor* t : {&bias, &shift, &mean})
      test::fill_random(*t, rng, -0.5, 0.5);
    scale.fill_uniform(rng, 0.5, 1.5, 1.0);
    var.fill_uniform(rng, 0.5, 1.5, 1.0);
    conv_args.w = d.w.data();
    conv_args.conv_alpha = c.z ? 0.75f : 1.0f;
    z_args.z = d.z.data();
    z_args.z_alpha = 1.25f;
    bias_args.bias = bias.data();
    bn_args.scale = scale.data();
    bn_args.shift = shift.data();
    bn_args.mean = mean.data();
    bn_args.var = var.data();
    bn_args.epsilon = 1e-4;
    act_args.activ_alpha = a.alpha;
    act_args.activ_beta = a.beta;
    act_args.activ_gamma = a.gamma;

    // The reference, step by step in double.
    const test::LogicalMap m(y);
    const auto zs = vals(d.z), bs = vals(bias), sc = vals(scale), sh = vals(shift), me = vals(mean),
               va = vals(var);
    want = d.conv;
    for (size_t i = 0; i < want.size(); ++i) {
      double v = want[i];
      if (c.z) v = 0.75 * v + 1.25 * zs[i];
      if (c.bias) v += bs[m.channel(i)];
      if (c.bn) {
        const size_t g = test::bn_group(m, c.bn_mode, i);
        v = sc[g] * (v - me[g]) / std::sqrt(va[g] + 1e-4) + sh[g];
      }
      want[i] = c.act ? ref::activation_forward(a, v) : v;
    }
  }

  FusionBuffers buffers(ConvData& d, const ConvChain& c) {
    FusionBuffers b;
    b.in = d.x.data();
    b.out = y.data();
    b.args.conv = &conv_args;
    b.args.residual = c.z ? &z_args : nullptr;
    b.args.bias = c.bias ? &bias_args : nullptr;
    b.args.bn = c.bn ? &bn_args : nullptr;
    b.args.activ = c.act ? &act_args : nullptr;
    return b;
  }
};

std::vector<std::string> every_fusion_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<FusionSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

// Whether `solver` must take a chain: the sequence every one (but BN backward with parameters
// of another type), the epilogue solver every forward convolution without per-activation BN,
// the BN solvers every chain of their kind.
bool meant_for(const std::string& solver, const FusionProblem& p) {
  if (solver == "FusionSequence")
    return p.chain() != FusionChain::BnBackwardActiv ||
           p.input_op().param.type() == p.input().type();
  if (solver == "ConvEpilogueFused") {
    const FusionOp* bn = p.find(FusionOpKind::BnInference);
    return p.chain() == FusionChain::Conv && p.conv().direction() == ConvDirection::Forward &&
           !(bn && bn->bn_mode == miopenBNPerActivation);
  }
  if (solver == "BnFwdInferActivationFused") return p.chain() == FusionChain::BnInferenceActiv;
  if (solver == "BnFwdTrgActivationFused") return p.chain() == FusionChain::BnTrainingActiv;
  if (solver == "BnBwdTrgActivationFused") return p.chain() == FusionChain::BnBackwardActiv;
  return false;
}

class FusionSolverAlone : public ::testing::TestWithParam<std::string> {};

TEST_P(FusionSolverAlone, MatchesReferenceOnEveryChainItTakes) {
  const std::string& name = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Handle handle(test_config(), nullptr);
  const ExecutionContext ctx = handle.context();
  const FusionSolver& solver = *handle.backend().solvers<FusionSolver>().find(name)->solver;
  const auto modes = test::every_activation();
  size_t turn = 0;
  int ran = 0;
  // The convolution chains: each problem's data drawn once, for the chains the solver takes.
  for (const auto& [spec, built] : conv_lines()) {
    std::optional<ConvData> data;
    for (const ConvChain& c : kConvChains) {
      const ref::ActivationDesc& a = modes[turn++ % modes.size()];
      const FusionProblem p(ops_of(conv_plan(built.x, built.w, built.conv, c, a.mode)), {}, true,
                            c.z);
      SCOPED_TRACE(p.key() + " (" + c.name + ")");
      const Applicability ok = solver.applicable(ctx, p);
      if (!ok) {
        EXPECT_FALSE(ok.reason.empty());
        EXPECT_FALSE(meant_for(name, p)) << "meant for this chain, rejects it: " << ok.reason;
        continue;
      }
      if (!data) data.emplace(spec, built, rng);
      ConvCase cc(*data, built, c, a, rng);
      const FusionInvoker inv = solver.compile(handle, p);
      std::vector<uint8_t> ws(inv.workspace_size);
      FusionBuffers b = cc.buffers(*data, c);
      b.workspace = ws.data();
      b.workspace_size = ws.size();
      cc.y.poison();
      inv.run(handle, b);
      EXPECT_LE(test::epilogue_error(cc.want, vals(cc.y), data->conv),
                test::fusion_tolerance(p.data_type()));
      ++ran;
    }
  }
  // The BN + activation chains.
  for (const std::string& line : test::load_problem_lines("bn_problems.txt")) {
    driver::BnSpec spec;
    ASSERT_FALSE(driver::parse_bn_line(line, spec)) << line;
    const TensorDescriptor x = TensorDescriptor::with_layout(
        spec.type, spec.layout, std::vector<size_t>(spec.lens.begin(), spec.lens.end()));
    for (const BnDirection dir :
         {BnDirection::ForwardInference, BnDirection::ForwardTraining, BnDirection::Backward}) {
      const ref::ActivationDesc& a = modes[turn++ % modes.size()];
      // Inference takes the user's parameter descriptor; training and backward derive theirs.
      const TensorDescriptor derived = derive_bn_descriptor(x, spec.mode);
      test::BnData d(x, dir == BnDirection::ForwardInference ? spec.param_type : derived.type(),
                     spec.mode, rng);
      FusionPlan plan(miopenVerticalFusion, x);
      FusionOp n;
      n.kind = dir == BnDirection::ForwardInference  ? FusionOpKind::BnInference
               : dir == BnDirection::ForwardTraining ? FusionOpKind::BnForwardTraining
                                                     : FusionOpKind::BnBackward;
      n.bn_mode = spec.mode;
      n.param = d.p_desc;
      n.running = true;
      plan.add(n);
      FusionOp act;
      act.kind =
          dir == BnDirection::Backward ? FusionOpKind::ActivBackward : FusionOpKind::ActivForward;
      act.activ_mode = a.mode;
      plan.add(act);
      const FusionProblem p(ops_of(plan));
      SCOPED_TRACE(p.key());
      const Applicability ok = solver.applicable(ctx, p);
      if (!ok) {
        EXPECT_FALSE(ok.reason.empty());
        EXPECT_FALSE(meant_for(name, p)) << "meant for this chain, rejects it: " << ok.reason;
        continue;
      }
      const test::BnWant w = test::bn_want(d, dir, a, rng);
      HostTensor out = host_tensor(x), m = d.mean, v = d.var, sm = host_tensor(d.p_desc),
                 sv = host_tensor(d.p_desc), ds = host_tensor(d.p_desc), db = host_tensor(d.p_desc);
      for (HostTensor* t : {&out, &sm, &sv, &ds, &db})
        t->poison();
      FusionOpArgs na, aa;
      na.scale = d.scale.data();
      na.shift = d.bias.data();
      na.epsilon = test::kBnEps;
      na.exp_avg_factor = test::kBnFactor;
      if (dir == BnDirection::ForwardInference) {
        na.mean = d.mean.data();
        na.var = d.var.data();
      } else if (dir == BnDirection::ForwardTraining) {
        na.saved_mean = sm.data();
        na.saved_invvar = sv.data();
        na.run_mean = m.data();
        na.run_var = v.data();
      } else {
        na.x = d.x.data();
        na.mean = d.mean.data();
        na.var = d.var.data();
        na.dscale = ds.data();
        na.dbias = db.data();
      }
      aa.activ_alpha = a.alpha;
      aa.activ_beta = a.beta;
      aa.activ_gamma = a.gamma;
      const FusionInvoker inv = solver.compile(handle, p);
      std::vector<uint8_t> ws(inv.workspace_size);
      FusionBuffers b;
      b.in = dir == BnDirection::Backward ? d.dy.data() : d.x.data();
      b.out = out.data();
      b.args.bn = &na;
      b.args.activ = &aa;
      b.workspace = ws.data();
      b.workspace_size = ws.size();
      inv.run(handle, b);
      test::check_bn(d, dir, w, out, m, v, sm, sv, ds, db);
      ++ran;
    }
  }
  EXPECT_GT(ran, 0) << name << " takes no chain";
}

INSTANTIATE_TEST_SUITE_P(Solvers, FusionSolverAlone, ::testing::ValuesIn(every_fusion_solver()),
                         [](const auto& info) { return info.param; });

// What a compiled plan chooses, the workspace it reports (the chosen solver's own need) and the
// line it logs: the fused solver and its convolution solution, or the sequence.
TEST(FusionPlanChoice, FusedSolversWhereTheyApplyTheSequenceElsewhere) {
  Config cfg = test_config();
  cfg.log_level = LogLevel::Info;
  Handle handle(cfg, nullptr);
  const TensorDescriptor x(miopenFloat, {2, 16, 14, 14}), w(miopenFloat, {32, 16, 3, 3});
  const ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  struct Expect {
    ConvChain chain;
    std::optional<miopenConvFwdAlgorithm_t> algo;
    const char* solver;
    const char* log;
  };
  const Expect cases[] = {
      {kConvChains[0], {}, "ConvEpilogueFused", "ConvEpilogueFused (conv solution "},
      {kConvChains[1], {}, "ConvEpilogueFused", "ConvEpilogueFused (conv solution "},
      {kConvChains[2],
       {},
       "FusionSequence",
       "FusionSequence (no fused kernel, its 3 operators run in sequence"},
      // FFT has no epilogue: the plan's algorithm is a requirement, so the sequence runs it.
      {kConvChains[0], miopenConvolutionFwdAlgoFFT, "FusionSequence",
       "FusionSequence (no fused kernel, its 3 operators run in sequence, conv solution 21 "},
  };
  for (const Expect& e : cases) {
    SCOPED_TRACE(e.chain.name);
    FusionPlan plan = conv_plan(x, w, conv, e.chain, miopenActivationRELU);
    if (e.algo) plan.set_conv_algorithm(*e.algo);
    const size_t before = plan.workspace_size(handle);
    testing::internal::CaptureStderr();
    plan.compile(handle);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(plan.solver_name(), e.solver);
    EXPECT_NE(log.find("Info [compile] fusion plan " + plan.key()), std::string::npos) << log;
    EXPECT_NE(log.find(e.log), std::string::npos) << log;
    // The reported need is the chosen solver's own, before and after compiling.
    std::vector<FusionOp> ops;
    for (int i = 0; i < plan.size(); ++i)
      ops.push_back(plan.op(i));
    const FusionProblem p(ops, e.algo);
    const auto* entry = handle.backend().solvers<FusionSolver>().find(e.solver);
    ASSERT_NE(entry, nullptr);
    const size_t need = entry->solver->compile(handle, p).workspace_size;
    EXPECT_EQ(plan.workspace_size(handle), need);
    EXPECT_EQ(before, need);
  }
  // BN + activation chains: the BN solvers with the activation fused.
  const TensorDescriptor bx(miopenFloat, {2, 8, 5, 5});
  const struct {
    FusionOpKind bn, act;
    const char* solver;
  } bn_cases[] = {
      {FusionOpKind::BnInference, FusionOpKind::ActivForward, "BnFwdInferActivationFused"},
      {FusionOpKind::BnForwardTraining, FusionOpKind::ActivForward, "BnFwdTrgActivationFused"},
      {FusionOpKind::BnBackward, FusionOpKind::ActivBackward, "BnBwdTrgActivationFused"}};
  for (const auto& c : bn_cases) {
    FusionPlan plan(miopenVerticalFusion, bx);
    FusionOp n;
    n.kind = c.bn;
    n.param = derive_bn_descriptor(bx, miopenBNSpatial);
    plan.add(n);
    FusionOp a;
    a.kind = c.act;
    a.activ_mode = miopenActivationRELU;
    plan.add(a);
    testing::internal::CaptureStderr();
    plan.compile(handle);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(plan.solver_name(), c.solver);
    EXPECT_NE(log.find(std::string(c.solver) + " (BN solver BnSpatialChannelMajor)"),
              std::string::npos)
        << log;
    EXPECT_EQ(plan.workspace_size(handle), 0u);
  }
}

// The canonical keys: MIOpen's LogCmdFusion lines with the modes CBAInfer reads.
TEST(FusionPlanChoice, KeysAreCbaInferLines) {
  const TensorDescriptor x(miopenFloat, {4, 64, 56, 56}), w(miopenFloat, {64, 64, 3, 3});
  const ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  Handle handle(test_config(), nullptr);
  const std::string args =
      " -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1";
  const struct {
    int chain;
    std::string key;
  } cases[] = {{0, "CBAInfer -F 4" + args + " -m 3"},
               {1, "CBAInfer -F 0" + args + " -m 3 -M 1"},
               {2, "CBAInfer -F 1" + args + " -m 3 -M 0"},
               {3, "CBAInfer -F 5" + args + " -m 3"},
               {4, "CBAInfer -F 6" + args},
               {5, "CBAInfer -F 3" + args + " -M 1"},
               {6, "CBAInfer -F 0" + args + " -m 0 -M 1"}};
  for (const auto& c : cases) {
    FusionPlan plan = conv_plan(x, w, conv, kConvChains[c.chain], miopenActivationRELU);
    plan.compile(handle);
    EXPECT_EQ(plan.key(), c.key);
  }
  // BN chains: mode 2 of CBAInfer; training and backward under the bnorm line's base + _activ.
  const TensorDescriptor bx(miopenHalf, {2, 8, 5, 5});
  const struct {
    FusionOpKind bn, act;
    std::string key;
  } bn_cases[] = {
      {FusionOpKind::BnInference, FusionOpKind::ActivForward,
       "CBAInferfp16 -F 2 -n 2 -c 8 -H 5 -W 5 -M 1 -m 7"},
      {FusionOpKind::BnForwardTraining, FusionOpKind::ActivForward,
       "bnormfp16fp32_activ -n 2 -c 8 -H 5 -W 5 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW "
       "--activ 7"},
      {FusionOpKind::BnBackward, FusionOpKind::ActivBackward,
       "bnormfp16fp32_activ -n 2 -c 8 -H 5 -W 5 -m 1 --forw 0 -b 1 -s 1 --layout NCHW --activ 7"}};
  for (const auto& c : bn_cases) {
    FusionPlan plan(miopenVerticalFusion, bx);
    FusionOp n;
    n.kind = c.bn;
    n.param = derive_bn_descriptor(bx, miopenBNSpatial);
    n.running = true;
    plan.add(n);
    FusionOp a;
    a.kind = c.act;
    a.activ_mode = miopenActivationCLIPPEDRELU;
    plan.add(a);
    plan.compile(handle);
    EXPECT_EQ(plan.key(), c.key);
  }
}

}  // namespace
}  // namespace anydnn
