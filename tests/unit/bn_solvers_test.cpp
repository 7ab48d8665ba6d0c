// Every CPU batch-normalization solver, alone, on every problem of tests/problems/bn_problems.txt
// and every direction and null-pointer combination, against the double reference with MIOpen's
// rms tolerances (1e-4 fp32, 5e-4 fp16, 4e-3 bf16). Outputs are poisoned with NaN first.
#include <gtest/gtest.h>

#include <ostream>
#include <string_view>

#include <cmath>
#include <set>

#include "backend/backend.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "bn_reference.hpp"
#include "bn_solver_promises.hpp"
#include "bn_spec.hpp"
#include "common_test_util.hpp"
#include "core/cpu_isa.hpp"
#include "solver_isa.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::BnSpec;
using driver::HostTensor;

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

// relative_rms, but measured against at least `floor`: the inputs are of order 1, and a mean
// near zero (or an all-zero dx when a group has one value) would turn rounding into a failure.
// dscale / dbias are sums of M terms of order 1 (dy uniform in [-1, 1]): their fp32 rounding
// error grows with the terms, ~sqrt(M) in size, not with the sum, which for a single channel
// (C = 1) lands near zero now and then by chance. They are measured against 0.5 sqrt(M) (at
// least 1): with a floor of 1, C = 1 and M = 14700 failed in one CI run
// (1.2e-4 against 1e-4, seed 3925866032 in the ASan build).
double error(const std::vector<double>& want, const std::vector<double>& got, double floor = 0.1) {
  double peak = floor;
  for (double v : want)
    peak = std::max(peak, std::abs(v));
  for (double v : got)
    peak = std::max(peak, std::abs(v));
  if (want.size() != got.size()) return INFINITY;
  double sum = 0.0;
  for (size_t i = 0; i < want.size(); ++i)
    sum += (want[i] - got[i]) * (want[i] - got[i]);
  return std::sqrt(sum / std::max<size_t>(1, want.size())) / peak;
}

double tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 1e-4 : t == miopenHalf ? 5e-4 : 4e-3;
}

// One case: direction plus which optional pointer pairs are set, and the blend factors.
struct Case {
  BnDirection dir;
  bool save, running;
  float alpha = 1.0f, beta = 0.0f;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  for (bool s : {false, true})
    for (bool r : {false, true})
      c.push_back({BnDirection::ForwardTraining, s, r});
  c.push_back({BnDirection::ForwardInference, false, false});
  c.push_back({BnDirection::ForwardInference, false, true});
  c.push_back({BnDirection::Backward, false, false});
  c.push_back({BnDirection::Backward, true, false});
  c.push_back({BnDirection::ForwardTraining, true, true, 0.75f, 0.5f});
  c.push_back({BnDirection::ForwardInference, false, true, 0.75f, 0.5f});
  c.push_back({BnDirection::Backward, true, false, 0.75f, 0.5f});
  return c;
}

const char* dir_name(BnDirection d) {
  return d == BnDirection::ForwardTraining    ? "training"
         : d == BnDirection::ForwardInference ? "inference"
                                              : "backward";
}

// Runs every applicable solver of the backend on (x_desc, mode, case) and checks all outputs.
// Returns the names of the solvers that ran.
std::set<std::string> check_all_solvers(const TensorDescriptor& x_desc, miopenDataType_t ptype,
                                        miopenBatchNormMode_t mode, const Case& k,
                                        const ExecutionContext& ctx, Backend& backend,
                                        std::mt19937& rng, double x_offset = 0.0,
                                        std::string_view only = {}) {
  const TensorDescriptor pd(ptype, derive_bn_descriptor(x_desc, mode).lens());
  BnDescriptors d{&x_desc, &x_desc, k.dir == BnDirection::Backward ? &x_desc : nullptr, &pd, &pd,
                  &pd,     &pd};
  const double eps = 1e-3, factor = 0.1;
  const BnProblem p(k.dir, mode, d, eps, factor, k.save, k.running);
  SCOPED_TRACE(p.key() + " alpha " + std::to_string(k.alpha) + " beta " + std::to_string(k.beta));
  HostTensor x = host_tensor(x_desc), y = host_tensor(x_desc), dy = host_tensor(x_desc);
  HostTensor scale = host_tensor(pd), bias = host_tensor(pd), m = host_tensor(pd),
             v = host_tensor(pd);
  HostTensor dscale = host_tensor(pd), dbias = host_tensor(pd);
  x.fill_uniform(rng, -1.0, 1.0, 1.0);
  if (x_offset != 0.0)
    for (size_t i = 0; i < x.elements(); ++i)
      x.set(i, x_offset + x.get(i));
  dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  scale.fill_uniform(rng, 0.5, 1.5, 1.0);
  bias.fill_uniform(rng, -0.5, 0.5, 1.0);
  m.fill_uniform(rng, -0.2, 0.2, 1.0);
  v.fill_uniform(rng, 0.5, 1.5, 1.0);  // running variance, estimate or saved inverse std
  const HostTensor m0 = m, v0 = v;
  HostTensor prior = host_tensor(x_desc), prior_p = host_tensor(pd);
  prior.fill_uniform(rng, -1.0, 1.0, 1.0);
  prior_p.fill_uniform(rng, -1.0, 1.0, 1.0);

  // Expected values.
  const auto xs = values(x), sc = values(scale), bi = values(bias);
  std::vector<double> want_out, want_m, want_v, want_ds, want_db;
  switch (k.dir) {
    case BnDirection::ForwardTraining: {
      const auto r =
          ref::bn_forward_training(x.view(), mode, sc, bi, eps, factor, values(m0), values(v0));
      want_out = r.y;
      if (k.running) {
        want_m = r.running_mean;
        want_v = r.running_var;
      } else if (k.save) {
        want_m = r.mean;
        want_v = r.invstd;
      }
      break;
    }
    case BnDirection::ForwardInference:
      want_out =
          k.running ? ref::bn_forward_inference(x.view(), mode, sc, bi, values(m0), values(v0), eps)
                    : ref::bn_forward_inference(x.view(), mode, sc, bi, {}, {}, eps);
      break;
    case BnDirection::Backward: {
      const auto r =
          k.save ? ref::bn_backward(x.view(), dy.view(), mode, sc, eps, values(m0), values(v0))
                 : ref::bn_backward(x.view(), dy.view(), mode, sc, eps, {}, {});
      want_out = r.dx;
      want_ds = r.dscale;
      want_db = r.dbias;
      break;
    }
  }
  const bool blend = k.alpha != 1.0f || k.beta != 0.0f;
  if (blend) {
    const auto pr = values(prior), pp = values(prior_p);
    for (size_t i = 0; i < want_out.size(); ++i)
      want_out[i] = k.alpha * want_out[i] + k.beta * pr[i];
    for (auto* w : {&want_ds, &want_db})
      for (size_t i = 0; i < w->size(); ++i)
        (*w)[i] = 0.5 * (*w)[i] + 0.25 * pp[i];
  }

  std::set<std::string> ran;
  for (const auto& e : backend.solvers<BnSolver>().entries()) {
    if (!only.empty() && e.solver->name() != only) continue;
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      EXPECT_FALSE(a.reason.empty()) << e.solver->name() << " rejects without a reason";
      continue;
    }
    SCOPED_TRACE(std::string(e.solver->name()) + " " + dir_name(k.dir));
    ran.insert(std::string(e.solver->name()));
    HostTensor out = blend ? prior : host_tensor(x_desc);
    if (!blend) out.poison();
    HostTensor mm = m0, vv = v0;
    if (k.dir == BnDirection::ForwardTraining && !k.running) {
      mm.poison();
      vv.poison();
    }
    HostTensor ds = blend ? prior_p : dscale, db = blend ? prior_p : dbias;
    if (!blend) {
      ds.poison();
      db.poison();
    }
    BnBuffers b;
    b.x = x.data();
    b.scale = scale.data();
    b.bias = bias.data();
    b.alpha = k.alpha;
    b.beta = k.beta;
    b.alpha_param = 0.5f;
    b.beta_param = blend ? 0.25f : 0.0f;
    if (!blend) b.alpha_param = 1.0f;
    HostTensor sm = mm, sv = vv;  // separate saved buffers when both pairs are set
    if (k.dir == BnDirection::ForwardTraining) {
      b.y = out.data();
      if (k.running) {
        b.run_mean = mm.data();
        b.run_var = vv.data();
      }
      if (k.save) {
        sm.poison();
        sv.poison();
        b.saved_mean = k.running ? sm.data() : mm.data();
        b.saved_invstd = k.running ? sv.data() : vv.data();
      }
    } else if (k.dir == BnDirection::ForwardInference) {
      b.y = out.data();
      if (k.running) {
        b.run_mean = mm.data();
        b.run_var = vv.data();
      }
    } else {
      b.dy = dy.data();
      b.dx = out.data();
      b.dscale = ds.data();
      b.dbias = db.data();
      if (k.save) {
        b.saved_mean = mm.data();
        b.saved_invstd = vv.data();
      }
    }
    e.solver->run(ctx, p, b);
    const double tol = tolerance(x_desc.type());
    EXPECT_LE(error(want_out, values(out)), tol) << "data output";
    if (k.dir == BnDirection::ForwardTraining && (k.save || k.running)) {
      EXPECT_LE(error(want_m, values(mm)), tol) << "mean output";
      EXPECT_LE(error(want_v, values(vv)), tol) << "variance output";
      if (k.save && k.running) {
        const auto r = ref::bn_forward_training(x.view(), mode, sc, bi, eps, factor, {}, {});
        EXPECT_LE(error(r.mean, values(sm)), tol) << "saved mean";
        EXPECT_LE(error(r.invstd, values(sv)), tol) << "saved inverse std";
      }
    }
    if (k.dir == BnDirection::ForwardInference)
      EXPECT_EQ(mm.bytes, m0.bytes) << "inference must not write the estimates";
    if (k.dir == BnDirection::Backward) {
      const double terms =
          static_cast<double>(want_out.size()) / std::max<size_t>(1, want_ds.size());
      const double sum_floor = std::max(1.0, 0.5 * std::sqrt(terms));
      EXPECT_LE(error(want_ds, values(ds), sum_floor), tol) << "dscale";
      EXPECT_LE(error(want_db, values(db), sum_floor), tol) << "dbias";
    }
  }
  return ran;
}

// One test per solver and instruction set, named after the solver (--gtest_filter='*BnStrided*'
// runs one): every problem of the list and every direction / flag case it accepts, against the
// reference; it must accept every problem its promise covers (bn_solver_promises.hpp).
using test::SolverIsa;  // solver_isa.hpp

std::vector<SolverIsa> every_cpu_bn_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<SolverIsa> out;
  for (const auto& e : backend->solvers<BnSolver>().entries())
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Generic})
      out.push_back({std::string(e.solver->name()), isa});
  return out;
}

class BnSolverAlone : public ::testing::TestWithParam<SolverIsa> {};

TEST_P(BnSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
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
  int ran = 0, promised = 0;
  for (const std::string& line : test::load_problem_lines("bn_problems.txt")) {
    SCOPED_TRACE(line);
    BnSpec spec;
    ASSERT_FALSE(driver::parse_bn_line(line, spec)) << line;
    const TensorDescriptor x = TensorDescriptor::with_layout(
        spec.type, spec.layout, std::vector<size_t>(spec.lens.begin(), spec.lens.end()));
    const bool meant = test::bn_solver_meant_for(c.solver, spec.mode, spec.layout).value_or(false);
    for (const Case& k : cases()) {
      const auto r =
          check_all_solvers(x, spec.param_type, spec.mode, k, ctx, *backend, rng, 0.0, c.solver);
      if (meant) {
        ++promised;
        EXPECT_EQ(r.size(), 1u) << c.solver << " is meant for this problem and rejects it";
      }
      ran += static_cast<int>(r.size());
    }
  }
  EXPECT_GT(ran, 0) << c.solver << " takes no problem of the list";
  EXPECT_GT(promised, 0) << "no problem of the list is one " << c.solver << " is meant for";
}

INSTANTIATE_TEST_SUITE_P(Solvers, BnSolverAlone, ::testing::ValuesIn(every_cpu_bn_solver()),
                         [](const auto& info) {
                           return info.param.solver + "_" + cpu_isa_name(info.param.isa);
                         });

// A padded, permuted layout (CHWN with gaps) only the fallback walks.
TEST(BnSolversExtra, PaddedStridesUseTheFallback) {
  std::mt19937 rng(test::fresh_seed());
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = best_cpu_isa();
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  // lens N=3, C=4, H=5, W=6 stored as C, H, W, N with a padded N (stride 2 between images
  // would overlap, so pad the innermost run to 4).
  const TensorDescriptor x(miopenFloat, {3, 4, 5, 6}, {1, 5 * 6 * 4, 6 * 4, 4});
  for (auto mode : {miopenBNSpatial, miopenBNPerActivation})
    for (const Case& k : cases()) {
      const auto r = check_all_solvers(x, miopenFloat, mode, k, ctx, *backend, rng);
      EXPECT_EQ(r, std::set<std::string>{"BnStrided"});
    }
}

// Large mean, small spread, big batch: Σx² - mean² in float would lose every digit.
TEST(BnSolversExtra, NoCancellationOnLargeMean) {
  std::mt19937 rng(test::fresh_seed());
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = best_cpu_isa();
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  for (const char* layout : {"NCHW", "NHWC"}) {
    const TensorDescriptor x = TensorDescriptor::with_layout(miopenFloat, layout, {64, 3, 32, 32});
    for (auto mode : {miopenBNSpatial, miopenBNPerActivation})
      for (BnDirection dir : {BnDirection::ForwardTraining, BnDirection::Backward})
        check_all_solvers(x, miopenFloat, mode, {dir, dir == BnDirection::ForwardTraining, true},
                          ctx, *backend, rng, 1000.0);
  }
}

}  // namespace
}  // namespace anydnn
