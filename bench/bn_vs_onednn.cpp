// anydnn vs oneDNN batch normalization, side by side in one process (benchmark, not a test).
//
//   bn_vs_onednn [--shapes FILE] [--reps R] [--layout NCHW|NHWC] [--csv OUT.csv]
//
// For every shape: training forward (statistics, y, saved mean / inverse std and running
// statistics) and backward (dx, dscale, dbias from the saved statistics), fp32, both libraries on
// the same tensors in the same layout. Per-activation shapes run on oneDNN as the equivalent
// spatial problem on N x (C*H*W) x 1 x 1 (oneDNN has no per-activation mode). Bandwidth is the
// compulsory traffic over the median time: forward reads x and writes y (2 tensors), backward
// reads x and dy and writes dx (3 tensors). The ceiling is a threaded copy of a 512 MiB buffer
// (read + write) measured in the same run.
#include <miopen/miopen.h>
#include <omp.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bn_spec.hpp"
#include "copy_rate.hpp"

using namespace anydnn;
using namespace anydnn::bench;

namespace {

using Shape = BnShape;  // bench_common.hpp

std::vector<float> random_vec(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v)
    e = u(rng);
  return v;
}

struct Result {
  double ours = 0, peer = 0;
};

Result run_shape(const Shape& s, const std::string& layout, dnnl::engine& eng, int reps, bool fwd) {
  const auto& l = s.spec.lens;
  const size_t count = static_cast<size_t>(l[0]) * l[1] * l[2] * l[3];
  const auto x = random_vec(count, -1, 1, 1), dy = random_vec(count, -1, 1, 2);
  std::vector<float> y(count), dx(count);
  const size_t groups = s.spec.mode == miopenBNSpatial ? static_cast<size_t>(l[1])
                                                       : count / static_cast<size_t>(l[0]);
  auto scale = random_vec(groups, 0.5f, 1.5f, 3), bias = random_vec(groups, -0.5f, 0.5f, 4);
  std::vector<float> rm(groups, 0.0f), rv(groups, 1.0f), sm(groups), sv(groups), ds(groups),
      db(groups);
  const double eps = 1e-5;
  Result r;

  // anydnn through the public API.
  miopenHandle_t h;
  miopenCreate(&h);
  miopenTensorDescriptor_t xd, pd;
  miopenCreateTensorDescriptor(&xd);
  miopenCreateTensorDescriptor(&pd);
  miopenSetNdTensorDescriptorWithLayout(
      xd, miopenFloat, layout == "NHWC" ? miopenTensorNHWC : miopenTensorNCHW, l.data(), 4);
  miopenDeriveBNTensorDescriptor(pd, xd, s.spec.mode);
  const float one = 1.0f, zero = 0.0f;
  auto train = [&] {
    miopenBatchNormalizationForwardTraining(h, s.spec.mode, const_cast<float*>(&one),
                                            const_cast<float*>(&zero), xd, x.data(), xd, y.data(),
                                            pd, scale.data(), bias.data(), 0.1, rm.data(),
                                            rv.data(), eps, sm.data(), sv.data());
  };
  train();  // the saved statistics backward uses
  if (fwd) {
    r.ours = median_ms(train, reps);
  } else {
    r.ours = median_ms(
        [&] {
          miopenBatchNormalizationBackward(h, s.spec.mode, &one, &zero, &one, &zero, xd, x.data(),
                                           xd, dy.data(), xd, dx.data(), pd, scale.data(),
                                           ds.data(), db.data(), eps, sm.data(), sv.data());
        },
        reps);
  }
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(pd);
  miopenDestroy(h);

  // oneDNN on the same buffers (per-activation as spatial over N x CHW x 1 x 1).
  using dnnl::memory;
  using tag = memory::format_tag;
  memory::dims dims = {l[0], l[1], l[2], l[3]};
  if (s.spec.mode == miopenBNPerActivation) dims = {l[0], static_cast<long>(groups), 1, 1};
  const memory::desc md(dims, memory::data_type::f32, layout == "NHWC" ? tag::nhwc : tag::nchw);
  const memory::desc vd({static_cast<long>(groups)}, memory::data_type::f32, tag::a);
  dnnl::stream st(eng);
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::primitive_desc fpd(eng, dnnl::prop_kind::forward_training, md,
                                                        md, static_cast<float>(eps), flags);
  memory src(md, eng, const_cast<float*>(x.data())), dst(md, eng, y.data()),
      mem_scale(vd, eng, scale.data()), mem_shift(vd, eng, bias.data()), mean(vd, eng, sm.data()),
      var(vd, eng, sv.data());
  std::unordered_map<int, memory> fargs = {{DNNL_ARG_SRC, src},         {DNNL_ARG_DST, dst},
                                           {DNNL_ARG_SCALE, mem_scale}, {DNNL_ARG_SHIFT, mem_shift},
                                           {DNNL_ARG_MEAN, mean},       {DNNL_ARG_VARIANCE, var}};
  if (fpd.workspace_desc().get_size() > 0)
    fargs.insert({DNNL_ARG_WORKSPACE, memory(fpd.workspace_desc(), eng)});
  dnnl::batch_normalization_forward fprim(fpd);
  auto ftrain = [&] {
    fprim.execute(st, fargs);
    st.wait();
  };
  ftrain();
  if (fwd) {
    r.peer = median_ms(ftrain, reps);
  } else {
    dnnl::batch_normalization_backward::primitive_desc bpd(eng, dnnl::prop_kind::backward, md, md,
                                                           md, static_cast<float>(eps), flags, fpd);
    memory ddst(md, eng, const_cast<float*>(dy.data())), dsrc(md, eng, dx.data()),
        dscale(vd, eng, ds.data()), dshift(vd, eng, db.data());
    std::unordered_map<int, memory> bargs = {
        {DNNL_ARG_SRC, src},           {DNNL_ARG_MEAN, mean},        {DNNL_ARG_VARIANCE, var},
        {DNNL_ARG_DIFF_DST, ddst},     {DNNL_ARG_SCALE, mem_scale},  {DNNL_ARG_DIFF_SRC, dsrc},
        {DNNL_ARG_DIFF_SCALE, dscale}, {DNNL_ARG_DIFF_SHIFT, dshift}};
    if (bpd.workspace_desc().get_size() > 0)
      bargs.insert({DNNL_ARG_WORKSPACE, fargs.at(DNNL_ARG_WORKSPACE)});
    dnnl::batch_normalization_backward bprim(bpd);
    r.peer = median_ms(
        [&] {
          bprim.execute(st, bargs);
          st.wait();
        },
        reps);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = ANYDNN_BN_SHAPES, csv, layout = "NCHW";
  int reps = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--shapes")
      shapes = next();
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--csv")
      csv = next();
    else if (a == "--layout")
      layout = next();
    else {
      std::fprintf(stderr, "usage: %s [--shapes FILE] [--reps R] [--layout NCHW|NHWC] [--csv F]\n",
                   argv[0]);
      return 1;
    }
  }
  use_bundled_opencl_runtime(ANYDNN_ONEDNN_ROOT);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  const auto v = dnnl::version();
  const double copy = copy_gbps(reps, true), copy_cached = copy_gbps(reps, false);
  std::printf(
      "# batch norm, fp32 %s, dnnl %d.%d.%d, %d threads, copy (read+write): memcpy %.1f GB/s, "
      "cached stores %.1f GB/s; %% copy is against memcpy\n",
      layout.c_str(), v->major, v->minor, v->patch, omp_get_max_threads(), copy, copy_cached);
  std::printf("%-22s %-4s %10s %10s %7s %9s %9s %7s\n", "shape", "dir", "anydnn ms", "oneDNN ms",
              "ratio", "ours GB/s", "peer GB/s", "% copy");
  std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out)
    std::fprintf(out,
                 "shape,count,dir,anydnn_ms,onednn_ms,ratio,anydnn_gbps,onednn_gbps,copy_gbps\n");
  for (const bool fwd : {true, false}) {
    double tot_ours = 0, tot_peer = 0;
    for (const Shape& s : load_bnorm_shapes(shapes)) {
      const Result r = run_shape(s, layout, eng, reps, fwd);
      const auto& l = s.spec.lens;
      const double bytes = 4.0 * l[0] * l[1] * l[2] * l[3] * (fwd ? 2 : 3);
      const double g_ours = bytes / r.ours / 1e6, g_peer = bytes / r.peer / 1e6;
      std::printf("%-22s %-4s %10.3f %10.3f %7.2f %9.1f %9.1f %6.0f%%\n", s.name.c_str(),
                  fwd ? "fwd" : "bwd", r.ours, r.peer, r.ours / r.peer, g_ours, g_peer,
                  100.0 * g_ours / copy);
      if (out)
        std::fprintf(out, "%s,%d,%s,%.4f,%.4f,%.4f,%.2f,%.2f,%.2f\n", s.name.c_str(), s.count,
                     fwd ? "fwd" : "bwd", r.ours, r.peer, r.ours / r.peer, g_ours, g_peer, copy);
      if (s.spec.mode == miopenBNSpatial) {
        tot_ours += s.count * r.ours;
        tot_peer += s.count * r.peer;
      }
    }
    std::printf(
        "TOTAL %s ResNet-50 (spatial, weighted by count): anydnn %.2f ms oneDNN %.2f ms ratio "
        "%.3f\n",
        fwd ? "fwd" : "bwd", tot_ours, tot_peer, tot_ours / tot_peer);
  }
  if (out) std::fclose(out);
  return 0;
}
