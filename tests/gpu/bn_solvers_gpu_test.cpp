// Every CUDA batch-normalization solver, alone, on every problem of
// tests/problems/bn_problems.txt and every direction and null-pointer combination, on device
// buffers (outputs poisoned with NaN on the device first), against the double reference with the
// CPU solver test's tolerances (1e-4 fp32, 5e-4 fp16, 4e-3 bf16). Then the public C API (V1 and
// V2) with a handle on the CUDA backend and device buffers.
#include <gtest/gtest.h>

#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <string_view>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "backend/backend.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "bn_reference.hpp"
#include "bn_solver_promises.hpp"
#include "bn_spec.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::BnSpec;
using driver::HostTensor;
using test::DeviceTensor;

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

// As tests/unit/bn_solvers_test.cpp: relative rms against at least `floor`.
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

// A device copy of h, or (poison) a NaN-filled device buffer of its size.
DeviceTensor on_device(const HostTensor& h, bool poison = false) {
  DeviceTensor d(h.bytes.size());
  if (poison)
    d.poison();
  else
    d.upload(h);
  return d;
}

// Runs every applicable CUDA solver on (x_desc, mode, case) and checks all outputs. Returns the
// names of the solvers that ran.
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
  HostTensor x = host_tensor(x_desc), dy = host_tensor(x_desc);
  HostTensor scale = host_tensor(pd), bias = host_tensor(pd), m = host_tensor(pd),
             v = host_tensor(pd);
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

  // Inputs on the device once per case; outputs fresh (poisoned or primed) per solver.
  const DeviceTensor dev_x = on_device(x), dev_dy = on_device(dy), dev_scale = on_device(scale),
                     dev_bias = on_device(bias);
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
    const bool train_no_running = k.dir == BnDirection::ForwardTraining && !k.running;
    DeviceTensor out = on_device(blend ? prior : x, !blend);
    DeviceTensor mm = on_device(m0, train_no_running), vv = on_device(v0, train_no_running);
    DeviceTensor ds = on_device(prior_p, !blend), db = on_device(prior_p, !blend);
    DeviceTensor sm = on_device(m0, true), sv = on_device(v0, true);
    BnBuffers b;
    b.x = dev_x.data();
    b.scale = dev_scale.data();
    b.bias = dev_bias.data();
    b.alpha = k.alpha;
    b.beta = k.beta;
    b.alpha_param = blend ? 0.5f : 1.0f;
    b.beta_param = blend ? 0.25f : 0.0f;
    if (k.dir == BnDirection::ForwardTraining) {
      b.y = out.data();
      if (k.running) {
        b.run_mean = mm.data();
        b.run_var = vv.data();
      }
      if (k.save) {
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
      b.dy = dev_dy.data();
      b.dx = out.data();
      b.dscale = ds.data();
      b.dbias = db.data();
      if (k.save) {
        b.saved_mean = mm.data();
        b.saved_invstd = vv.data();
      }
    }
    e.solver->run(ctx, p, b);
    const cudaError_t err = cudaDeviceSynchronize();
    EXPECT_EQ(err, cudaSuccess) << cudaGetErrorString(err);
    if (err != cudaSuccess) return ran;  // the context is unusable after a kernel fault
    HostTensor h_out = host_tensor(x_desc), h_m = m0, h_v = v0;
    out.download(h_out);
    mm.download(h_m);
    vv.download(h_v);
    const double tol = tolerance(x_desc.type());
    EXPECT_LE(error(want_out, values(h_out)), tol) << "data output";
    if (k.dir == BnDirection::ForwardTraining && (k.save || k.running)) {
      EXPECT_LE(error(want_m, values(h_m)), tol) << "mean output";
      EXPECT_LE(error(want_v, values(h_v)), tol) << "variance output";
      if (k.save && k.running) {
        HostTensor h_sm = m0, h_sv = v0;
        sm.download(h_sm);
        sv.download(h_sv);
        const auto r = ref::bn_forward_training(x.view(), mode, sc, bi, eps, factor, {}, {});
        EXPECT_LE(error(r.mean, values(h_sm)), tol) << "saved mean";
        EXPECT_LE(error(r.invstd, values(h_sv)), tol) << "saved inverse std";
      }
    }
    if (k.dir == BnDirection::ForwardInference) {
      EXPECT_EQ(h_m.bytes, m0.bytes) << "inference must not write the estimates";
      EXPECT_EQ(h_v.bytes, v0.bytes) << "inference must not write the estimates";
    }
    if (k.dir == BnDirection::Backward) {
      HostTensor h_ds = prior_p, h_db = prior_p;
      ds.download(h_ds);
      db.download(h_db);
      const double terms =
          static_cast<double>(want_out.size()) / std::max<size_t>(1, want_ds.size());
      const double sum_floor = std::max(1.0, 0.5 * std::sqrt(terms));
      EXPECT_LE(error(want_ds, values(h_ds), sum_floor), tol) << "dscale";
      EXPECT_LE(error(want_db, values(h_db), sum_floor), tol) << "dbias";
      if (k.save) EXPECT_EQ(h_m.bytes, m0.bytes) << "backward must not write the saved mean";
    }
  }
  return ran;
}

using test::GpuBackend;

// One test per solver, named after it (--gtest_filter='*BnSpatialChannelLast*' runs one): every
// problem of the list and every direction / flag case it accepts, against the reference; it
// must accept every problem its promise covers (bn_solver_promises.hpp).
std::vector<std::string> every_cuda_bn_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<BnSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

class BnSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(BnSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  int ran = 0, promised = 0;
  for (const std::string& line : test::load_problem_lines("bn_problems.txt")) {
    SCOPED_TRACE(line);
    BnSpec spec;
    ASSERT_FALSE(driver::parse_bn_line(line, spec)) << line;
    const TensorDescriptor x = TensorDescriptor::with_layout(
        spec.type, spec.layout, std::vector<size_t>(spec.lens.begin(), spec.lens.end()));
    const bool meant = test::bn_solver_meant_for(solver, spec.mode, spec.layout).value_or(false);
    for (const Case& k : cases()) {
      const auto r =
          check_all_solvers(x, spec.param_type, spec.mode, k, ctx, *g.backend, rng, 0.0, solver);
      if (meant) {
        ++promised;
        EXPECT_EQ(r.size(), 1u) << solver << " is meant for this problem and rejects it";
      }
      ran += static_cast<int>(r.size());
    }
  }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
  EXPECT_GT(promised, 0) << "no problem of the list is one " << solver << " is meant for";
}

INSTANTIATE_TEST_SUITE_P(Solvers, BnSolverAloneGpu, ::testing::ValuesIn(every_cuda_bn_solver()),
                         [](const auto& info) { return info.param; });

// A padded, permuted layout (CHWN with gaps) only the fallback walks.
TEST(BnSolversGpuExtra, PaddedStridesUseTheFallback) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  GpuBackend g;
  const TensorDescriptor x(miopenFloat, {3, 4, 5, 6}, {1, 5 * 6 * 4, 6 * 4, 4});
  for (auto mode : {miopenBNSpatial, miopenBNPerActivation})
    for (const Case& k : cases()) {
      const auto r = check_all_solvers(x, miopenFloat, mode, k, g.ctx(), *g.backend, rng);
      EXPECT_EQ(r, std::set<std::string>{"BnStrided"});
    }
}

// Large mean, small spread, big batch: sum x^2 - mean^2 in float would lose every digit.
TEST(BnSolversGpuExtra, NoCancellationOnLargeMean) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  GpuBackend g;
  for (const char* layout : {"NCHW", "NHWC"}) {
    const TensorDescriptor x = TensorDescriptor::with_layout(miopenFloat, layout, {64, 3, 32, 32});
    for (auto mode : {miopenBNSpatial, miopenBNPerActivation})
      for (BnDirection dir : {BnDirection::ForwardTraining, BnDirection::Backward})
        check_all_solvers(x, miopenFloat, mode, {dir, dir == BnDirection::ForwardTraining, true},
                          g.ctx(), *g.backend, rng, 1000.0);
  }
}

// Many blocks per channel (and per channel tile) combine in a fixed order: two runs agree
// bit for bit.
TEST(BnSolversGpuExtra, ResultsAreDeterministic) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  for (const char* layout : {"NCHW", "NHWC"}) {
    const TensorDescriptor xd =
        TensorDescriptor::with_layout(miopenFloat, layout, {32, 40, 17, 19});
    const TensorDescriptor pd = derive_bn_descriptor(xd, miopenBNSpatial);
    for (BnDirection dir : {BnDirection::ForwardTraining, BnDirection::Backward}) {
      const bool bwd = dir == BnDirection::Backward;
      BnDescriptors d{&xd, &xd, bwd ? &xd : nullptr, &pd, &pd, &pd, &pd};
      const BnProblem p(dir, miopenBNSpatial, d, 1e-5, 0.1, !bwd, !bwd);
      const auto& e = *std::find_if(
          g.backend->solvers<BnSolver>().entries().begin(),
          g.backend->solvers<BnSolver>().entries().end(),
          [&](const BnSolverEntry& s) { return static_cast<bool>(s.solver->applicable(ctx, p)); });
      SCOPED_TRACE(std::string(layout) + " " + dir_name(dir) + " " + std::string(e.solver->name()));
      HostTensor x = host_tensor(xd), dy = host_tensor(xd), sc = host_tensor(pd);
      x.fill_uniform(rng, -1.0, 1.0, 1.0);
      dy.fill_uniform(rng, -1.0, 1.0, 1.0);
      sc.fill_uniform(rng, 0.5, 1.5, 1.0);
      const DeviceTensor dx_ = on_device(x), ddy = on_device(dy), dsc = on_device(sc),
                         dbi = on_device(sc);
      std::vector<HostTensor> outs;
      for (int rep = 0; rep < 2; ++rep) {
        DeviceTensor out = on_device(x, true), a = on_device(sc), v = on_device(sc),
                     s1 = on_device(sc, true), s2 = on_device(sc, true);
        BnBuffers b;
        b.x = dx_.data();
        b.scale = dsc.data();
        b.bias = dbi.data();
        if (bwd) {
          b.dy = ddy.data();
          b.dx = out.data();
          b.saved_mean = nullptr;
          b.dscale = s1.data();
          b.dbias = s2.data();
        } else {
          b.y = out.data();
          b.run_mean = a.data();
          b.run_var = v.data();
          b.saved_mean = s1.data();
          b.saved_invstd = s2.data();
        }
        e.solver->run(ctx, p, b);
        ASSERT_CUDA_OK(cudaDeviceSynchronize());
        HostTensor ho = host_tensor(xd), h1 = host_tensor(pd), h2 = host_tensor(pd);
        out.download(ho);
        s1.download(h1);
        s2.download(h2);
        outs.push_back(ho);
        outs.push_back(h1);
        outs.push_back(h2);
      }
      for (size_t i = 0; i < 3; ++i)
        EXPECT_EQ(outs[i].bytes, outs[i + 3].bytes) << "output " << i;
    }
  }
}

// The 16-byte vector paths of the spatial solvers (planes or channel rows a multiple of the
// vector width: 4 fp32, 8 fp16 / bf16), with one to 32 threads across a channel-last row, C = 1,
// and many blocks per channel, against the reference; the fallback runs alongside.
TEST(BnSolversGpuExtra, VectorPathsMatchReference) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  GpuBackend g;
  struct Shape {
    miopenDataType_t type;
    const char* layout;
    std::vector<size_t> lens;
  };
  const std::vector<Shape> shapes = {
      {miopenFloat, "NCHW", {3, 5, 8, 8}},    {miopenHalf, "NCHW", {2, 3, 4, 6}},
      {miopenBFloat16, "NCHW", {3, 2, 8, 8}}, {miopenFloat, "NCHW", {4, 1, 16, 16}},
      {miopenFloat, "NCHW", {64, 2, 32, 32}}, {miopenHalf, "NHWC", {3, 16, 5, 7}},
      {miopenFloat, "NHWC", {2, 96, 3, 5}},   {miopenBFloat16, "NHWC", {4, 8, 6, 6}},
      {miopenFloat, "NHWC", {64, 40, 9, 9}},  {miopenHalf, "NHWC", {2, 264, 3, 3}},
  };
  for (const Shape& sh : shapes) {
    const TensorDescriptor x = TensorDescriptor::with_layout(sh.type, sh.layout, sh.lens);
    for (const Case& k : cases()) {
      const auto r =
          check_all_solvers(x, miopenFloat, miopenBNSpatial, k, g.ctx(), *g.backend, rng);
      EXPECT_GE(r.size(), 2u);
    }
  }
}

// --- the public C API on the CUDA backend, device buffers ---

struct ApiProblem {
  test::Handle h;
  test::Tensor x, p;
  std::vector<int> lens;
  miopenBatchNormMode_t mode;
  HostTensor hx, hdy, scale, bias, rm, rv;
  float one = 1.0f, zero = 0.0f;
  ApiProblem(miopenBatchNormMode_t m, std::vector<int> l, std::mt19937& rng)
      : x(miopenFloat, l), lens(std::move(l)), mode(m) {
    EXPECT_EQ(miopenDeriveBNTensorDescriptor(p, x, mode), miopenStatusSuccess);
    hx = HostTensor::from_descriptor(x);
    hdy = HostTensor::from_descriptor(x);
    scale = HostTensor::from_descriptor(p);
    hx.fill_uniform(rng, -1.0, 1.0, 1.0);
    hdy.fill_uniform(rng, -1.0, 1.0, 1.0);
    scale.fill_uniform(rng, 0.5, 1.5, 1.0);
    bias = rm = rv = scale;
    bias.fill_uniform(rng, -0.5, 0.5, 1.0);
    rm.fill_uniform(rng, -0.1, 0.1, 1.0);
    rv.fill_uniform(rng, 0.5, 1.5, 1.0);
  }
};

TEST(BnApiGpu, HandleIsOnTheCudaBackend) {
  REQUIRE_GPU();
  test::Handle h;
  anydnnBackend_t kind = anydnnBackendCpu;
  ASSERT_EQ(anydnnGetBackend(h, &kind), miopenStatusSuccess);
  EXPECT_EQ(kind, anydnnBackendCuda) << "the GPU suite runs with MIOPEN_BACKEND=cuda";
}

TEST(BnApiGpu, TrainingInferenceBackwardV1AndV2MatchTheReference) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  for (auto mode : {miopenBNSpatial, miopenBNPerActivation})
    for (bool v2 : {false, true}) {
      SCOPED_TRACE(std::string(mode == miopenBNSpatial ? "spatial" : "per-activation") +
                   (v2 ? " V2" : " V1"));
      ApiProblem t(mode, {3, 4, 5, 6}, rng);
      const double eps = 1e-5, factor = 0.1;
      const DeviceTensor x = on_device(t.hx), dy = on_device(t.hdy), scale = on_device(t.scale),
                         bias = on_device(t.bias);
      DeviceTensor y = on_device(t.hx, true), rm = on_device(t.rm), rv = on_device(t.rv),
                   sm = on_device(t.rm, true), sv = on_device(t.rv, true);
      miopenStatus_t s;
      if (v2)
        s = miopenBatchNormalizationForwardTraining_V2(
            t.h, mode, &t.one, &t.zero, t.x, x.data(), t.x, y.data(), t.p, t.p, t.p, t.p,
            scale.data(), bias.data(), factor, rm.data(), rv.data(), eps, sm.data(), sv.data());
      else
        s = miopenBatchNormalizationForwardTraining(
            t.h, mode, &t.one, &t.zero, t.x, x.data(), t.x, y.data(), t.p, scale.data(),
            bias.data(), factor, rm.data(), rv.data(), eps, sm.data(), sv.data());
      ASSERT_EQ(s, miopenStatusSuccess);
      HostTensor hy = t.hx, hrm = t.rm, hrv = t.rv, hsm = t.rm, hsv = t.rv;
      y.download(hy);
      rm.download(hrm);
      rv.download(hrv);
      sm.download(hsm);
      sv.download(hsv);
      const auto r = ref::bn_forward_training(t.hx.view(), mode, values(t.scale), values(t.bias),
                                              eps, factor, values(t.rm), values(t.rv));
      EXPECT_LT(ref::relative_rms(r.y, values(hy)), 1e-5);
      EXPECT_LT(ref::relative_rms(r.mean, values(hsm)), 1e-5);
      EXPECT_LT(ref::relative_rms(r.invstd, values(hsv)), 1e-5);
      EXPECT_LT(ref::relative_rms(r.running_mean, values(hrm)), 1e-5);
      EXPECT_LT(ref::relative_rms(r.running_var, values(hrv)), 1e-5);

      // Inference with the updated estimates.
      DeviceTensor yi = on_device(t.hx, true);
      if (v2)
        s = miopenBatchNormalizationForwardInference_V2(
            t.h, mode, &t.one, &t.zero, t.x, x.data(), t.x, yi.data(), t.p, t.p, t.p, t.p,
            scale.data(), bias.data(), rm.data(), rv.data(), eps);
      else
        s = miopenBatchNormalizationForwardInference(t.h, mode, &t.one, &t.zero, t.x, x.data(), t.x,
                                                     yi.data(), t.p, scale.data(), bias.data(),
                                                     rm.data(), rv.data(), eps);
      ASSERT_EQ(s, miopenStatusSuccess);
      yi.download(hy);
      const auto yr = ref::bn_forward_inference(t.hx.view(), mode, values(t.scale), values(t.bias),
                                                values(hrm), values(hrv), eps);
      EXPECT_LT(ref::relative_rms(yr, values(hy)), 1e-5);

      // Backward with the saved statistics.
      DeviceTensor dx = on_device(t.hx, true), ds = on_device(t.scale, true),
                   db = on_device(t.scale, true);
      if (v2)
        s = miopenBatchNormalizationBackward_V2(t.h, mode, &t.one, &t.zero, &t.one, &t.zero, t.x,
                                                x.data(), t.x, dy.data(), t.x, dx.data(), t.p, t.p,
                                                t.p, t.p, scale.data(), ds.data(), db.data(), eps,
                                                sm.data(), sv.data());
      else
        s = miopenBatchNormalizationBackward(
            t.h, mode, &t.one, &t.zero, &t.one, &t.zero, t.x, x.data(), t.x, dy.data(), t.x,
            dx.data(), t.p, scale.data(), ds.data(), db.data(), eps, sm.data(), sv.data());
      ASSERT_EQ(s, miopenStatusSuccess);
      HostTensor hdx = t.hx, hds = t.scale, hdb = t.scale;
      dx.download(hdx);
      ds.download(hds);
      db.download(hdb);
      const auto br = ref::bn_backward(t.hx.view(), t.hdy.view(), mode, values(t.scale), eps,
                                       values(hsm), values(hsv));
      EXPECT_LT(ref::relative_rms(br.dx, values(hdx)), 1e-5);
      EXPECT_LT(ref::relative_rms(br.dscale, values(hds)), 1e-5);
      EXPECT_LT(ref::relative_rms(br.dbias, values(hdb)), 1e-5);
    }
}

TEST(BnApiGpu, NullPointerPairsAndBlending) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  ApiProblem t(miopenBNSpatial, {2, 5, 7, 3}, rng);
  const double eps = 1e-3;
  const DeviceTensor x = on_device(t.hx), dy = on_device(t.hdy), scale = on_device(t.scale),
                     bias = on_device(t.bias);
  // Inference without estimates normalises with the batch statistics; alpha / beta blend.
  HostTensor prior = t.hx;
  prior.fill_uniform(rng, -1.0, 1.0, 1.0);
  DeviceTensor y = on_device(prior);
  float alpha = 0.75f, beta = 0.5f;
  ASSERT_EQ(miopenBatchNormalizationForwardInference(t.h, miopenBNSpatial, &alpha, &beta, t.x,
                                                     x.data(), t.x, y.data(), t.p, scale.data(),
                                                     bias.data(), nullptr, nullptr, eps),
            miopenStatusSuccess);
  HostTensor hy = t.hx;
  y.download(hy);
  auto want = ref::bn_forward_inference(t.hx.view(), miopenBNSpatial, values(t.scale),
                                        values(t.bias), {}, {}, eps);
  const auto pr = values(prior);
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = alpha * want[i] + beta * pr[i];
  EXPECT_LT(ref::relative_rms(want, values(hy)), 1e-5);

  // Backward without saved statistics recomputes them (with epsilon).
  DeviceTensor dx = on_device(t.hx, true), ds = on_device(t.scale, true),
               db = on_device(t.scale, true);
  ASSERT_EQ(
      miopenBatchNormalizationBackward(t.h, miopenBNSpatial, &t.one, &t.zero, &t.one, &t.zero, t.x,
                                       x.data(), t.x, dy.data(), t.x, dx.data(), t.p, scale.data(),
                                       ds.data(), db.data(), eps, nullptr, nullptr),
      miopenStatusSuccess);
  HostTensor hdx = t.hx, hds = t.scale;
  dx.download(hdx);
  ds.download(hds);
  const auto b =
      ref::bn_backward(t.hx.view(), t.hdy.view(), miopenBNSpatial, values(t.scale), eps, {}, {});
  EXPECT_LT(ref::relative_rms(b.dx, values(hdx)), 1e-5);
  EXPECT_LT(ref::relative_rms(b.dscale, values(hds)), 1e-5);
}

}  // namespace
}  // namespace anydnn
