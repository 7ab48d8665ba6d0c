// BN + activation in one pass (BnBuffers::activation, activation/fused_epilogue.hpp) on every CUDA
// batch-normalization solver, alone: every problem of tests/problems/bn_problems.txt it takes,
// forward training (saved and running statistics), inference (estimates) and backward (from the
// saved statistics), every activation mode (fusion_test_cases.hpp, shared with the CPU twin
// unit/fusion_solvers_test.cpp), on device memory with the outputs poisoned (NaN), against the
// double references: the BN reference then the activation (forward); backward, the BN backward
// reference run on dy' = act'(dy) at bn(x), bn(x) recomputed in double from the saved
// statistics, with x drawn away from the activation's kinks. One test per solver, named after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "activation_reference.hpp"
#include "backend/backend.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "bn_reference.hpp"
#include "bn_spec.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "fusion_test_cases.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::BnSpec;
using driver::HostTensor;
using test::DeviceTensor;

const std::vector<std::string> kBnSolvers = {"BnSpatialChannelMajor", "BnSpatialChannelLast",
                                             "BnPerActivation", "BnStrided"};

HostTensor host_tensor(const TensorDescriptor& d) {
  HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

std::vector<double> values(const HostTensor& t) {
  return ref::to_logical(t.view());
}

// As bn_solvers_gpu_test.cpp: relative rms against at least `floor`, MIOpen's BN tolerances.
double error(const std::vector<double>& want, const std::vector<double>& got, double floor = 0.1) {
  if (want.size() != got.size()) return INFINITY;
  double peak = floor, sum = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    peak = std::max({peak, std::abs(want[i]), std::abs(got[i])});
    sum += (want[i] - got[i]) * (want[i] - got[i]);
  }
  return std::sqrt(sum / std::max<size_t>(1, want.size())) / peak;
}

double tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 1e-4 : t == miopenHalf ? 5e-4 : 4e-3;
}

DeviceTensor on_device(const HostTensor& h, bool poison = false) {
  DeviceTensor d(h.bytes.size());
  if (poison)
    d.poison();
  else
    d.upload(h);
  return d;
}

enum class Dir { Training, Inference, Backward };

// One solver, one problem, one direction, one activation. Returns whether the solver took it.
bool run_case(const BnSolver& s, const ExecutionContext& ctx, const TensorDescriptor& x_desc,
              miopenDataType_t ptype, miopenBatchNormMode_t mode, Dir dir,
              const ref::ActivationDesc& act, std::mt19937& rng) {
  const TensorDescriptor pd(ptype, derive_bn_descriptor(x_desc, mode).lens());
  const bool bwd = dir == Dir::Backward;
  BnDescriptors d{&x_desc, &x_desc, bwd ? &x_desc : nullptr, &pd, &pd, &pd, &pd};
  const double eps = 1e-3, factor = 0.1;
  const BnDirection bd = dir == Dir::Training    ? BnDirection::ForwardTraining
                         : dir == Dir::Inference ? BnDirection::ForwardInference
                                                 : BnDirection::Backward;
  // Training: saved and running statistics; inference: estimates; backward: saved statistics.
  const BnProblem p(bd, mode, d, eps, factor, dir != Dir::Inference, dir != Dir::Backward);
  if (!s.applicable(ctx, p)) return false;
  const Applicability a = s.activation_support(ctx, p, act.mode);
  EXPECT_TRUE(a) << s.name() << " declines the activation: " << a.reason;
  if (!a) return false;
  SCOPED_TRACE(p.key() + " activation mode " + std::to_string(act.mode));

  HostTensor x = host_tensor(x_desc), dy = host_tensor(x_desc);
  HostTensor scale = host_tensor(pd), bias = host_tensor(pd), m = host_tensor(pd),
             v = host_tensor(pd);
  dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  scale.fill_uniform(rng, 0.5, 1.5, 1.0);
  bias.fill_uniform(rng, -0.5, 0.5, 1.0);
  m.fill_uniform(rng, -0.2, 0.2, 1.0);
  v.fill_uniform(rng, 0.5, 1.5, 1.0);  // running variance, estimate or saved inverse std
  const auto sc = values(scale), bi = values(bias), m0 = values(m), v0 = values(v);
  // Backward: bn(x) away from the activation's kinks (a derivative that jumps would turn one
  // rounding into a wrong element); forward needs no care (the activations are continuous).
  if (dir == Dir::Backward)
    test::draw_backward_x(x, mode, sc, bi, m0, v0, act, rng);
  else
    x.fill_uniform(rng, -1.0, 1.0, 1.0);

  std::vector<double> want_out, want_m, want_v, want_sm, want_si, want_ds, want_db;
  if (dir == Dir::Training) {
    const auto r = ref::bn_forward_training(x.view(), mode, sc, bi, eps, factor, m0, v0);
    want_out = ref::activation_forward(act, r.y);
    want_m = r.running_mean;
    want_v = r.running_var;
    want_sm = r.mean;
    want_si = r.invstd;
  } else if (dir == Dir::Inference) {
    want_out = ref::activation_forward(
        act, ref::bn_forward_inference(x.view(), mode, sc, bi, m0, v0, eps));
  } else {
    const auto r = test::bn_activation_backward_reference(x, dy, mode, sc, bi, m0, v0, act);
    want_out = r.dx;
    want_ds = r.dscale;
    want_db = r.dbias;
  }

  const DeviceTensor dev_x = on_device(x), dev_dy = on_device(dy), dev_scale = on_device(scale),
                     dev_bias = on_device(bias);
  DeviceTensor out = on_device(x, true), mm = on_device(m), vv = on_device(v);
  DeviceTensor sm = on_device(m, true), si = on_device(v, true);
  DeviceTensor ds = on_device(scale, true), db = on_device(scale, true);
  const FusedActivation fa = test::fused(act, x_desc.type());
  BnBuffers b;
  b.x = dev_x.data();
  b.scale = dev_scale.data();
  b.bias = dev_bias.data();
  b.activation = &fa;
  if (dir == Dir::Training) {
    b.y = out.data();
    b.run_mean = mm.data();
    b.run_var = vv.data();
    b.saved_mean = sm.data();
    b.saved_invstd = si.data();
  } else if (dir == Dir::Inference) {
    b.y = out.data();
    b.run_mean = mm.data();
    b.run_var = vv.data();
  } else {
    b.dy = dev_dy.data();
    b.dx = out.data();
    b.dscale = ds.data();
    b.dbias = db.data();
    b.saved_mean = mm.data();
    b.saved_invstd = vv.data();
  }
  try {
    s.run(ctx, p, b);
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name() << " threw: " << e.what();
    return true;
  }
  const cudaError_t err = cudaDeviceSynchronize();
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorString(err);
  if (err != cudaSuccess) return true;
  const double tol = tolerance(x_desc.type());
  HostTensor h_out = host_tensor(x_desc);
  out.download(h_out);
  EXPECT_LE(error(want_out, values(h_out)), tol) << "data output";
  if (dir == Dir::Training) {
    HostTensor h = m;
    for (auto [dev, want, what] :
         {std::tuple{&mm, &want_m, "running mean"}, std::tuple{&vv, &want_v, "running variance"},
          std::tuple{&sm, &want_sm, "saved mean"},
          std::tuple{&si, &want_si, "saved inverse std"}}) {
      dev->download(h);
      EXPECT_LE(error(*want, values(h)), tol) << what;
    }
  }
  if (dir == Dir::Backward) {
    HostTensor h_ds = scale, h_db = scale;
    ds.download(h_ds);
    db.download(h_db);
    const double terms = static_cast<double>(want_out.size()) / std::max<size_t>(1, want_ds.size());
    const double sum_floor = std::max(1.0, 0.5 * std::sqrt(terms));
    EXPECT_LE(error(want_ds, values(h_ds), sum_floor), tol) << "dscale";
    EXPECT_LE(error(want_db, values(h_db), sum_floor), tol) << "dbias";
  }
  return true;
}

class CudaBnActivation : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaBnActivation, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const BnSolverEntry* e = backend->solvers<BnSolver>().find(GetParam());
  ASSERT_NE(e, nullptr);
  int ran = 0;
  for (const std::string& line : test::load_problem_lines("bn_problems.txt")) {
    SCOPED_TRACE(line);
    BnSpec spec;
    ASSERT_FALSE(driver::parse_bn_line(line, spec)) << line;
    const TensorDescriptor x = TensorDescriptor::with_layout(
        spec.type, spec.layout, std::vector<size_t>(spec.lens.begin(), spec.lens.end()));
    for (const Dir dir : {Dir::Training, Dir::Inference, Dir::Backward})
      for (const auto& act : test::every_activation())
        ran += run_case(*e->solver, ctx, x, spec.param_type, spec.mode, dir, act, rng) ? 1 : 0;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(ran, 0) << GetParam() << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, CudaBnActivation, ::testing::ValuesIn(kBnSolvers),
                         [](const auto& info) { return info.param; });

// Backward with a fused activation needs the saved statistics: every solver says so.
TEST(CudaBnActivationLimits, BackwardNeedsSavedStatistics) {
  REQUIRE_GPU();
  Config cfg;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const TensorDescriptor x(miopenFloat, {2, 3, 4, 5});
  const TensorDescriptor pd(miopenFloat, {1, 3, 1, 1});
  BnDescriptors d{&x, &x, &x, &pd, &pd, &pd, &pd};
  const BnProblem p(BnDirection::Backward, miopenBNSpatial, d, 1e-5, 0.1, false, false);
  for (const auto& e : backend->solvers<BnSolver>().entries()) {
    if (!e.solver->applicable(ctx, p)) continue;
    const Applicability a = e.solver->activation_support(ctx, p, miopenActivationRELU);
    EXPECT_FALSE(a) << e.solver->name();
    EXPECT_FALSE(a.reason.empty()) << e.solver->name();
  }
}

}  // namespace
}  // namespace anydnn
