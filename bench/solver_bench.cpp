// Every applicable solver of one backend, alone, on each layer and direction (benchmark, not a
// test): the per-solver numbers of docs/performance.md, and the data that validates the
// solvers' cost models (estimated_ms) behind immediate mode and Find's default mode. Solvers
// are built and run through the solver contract directly (no Find, no find-db), like
// tests/unit/conv_solvers_test.cpp does.
//
//   solver_bench (--shapes FILE | --line "conv -n ...") [--batch N] [--dirs fwd,bwdd,bwdw]
//                [--reps R] [--solvers NAME,NAME] [--isa avx512|avx2|generic] [--filter TEXT]
//                [--backend cpu|cuda] [--type fp32|fp16|bf16] [--layout NCHW|NHWC] [--tf32]
//                [--csv FILE] [--tag TEXT]
//
// --type / --layout override the shape file's (the precision groups of the GPU benchmark);
// --tf32 lets fp32 solvers use TF32 (ANYDNN_CONV_ALLOW_TF32). Prints, per layer and direction,
// each solver's median (and minimum) time, GFLOP/s of the median (direct-convolution count),
// its time relative to the fastest solver on that line, and the solver's own prediction
// (estimated_ms; "-" without a model). --csv appends the same rows, tagged with --tag.
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backend/backend.hpp"
#include "bench_common.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "core/config.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"

using namespace anydnn;
using namespace anydnn::bench;

namespace {

std::vector<size_t> sizes(const std::vector<int>& v) {
  return {v.begin(), v.end()};
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes, line, dirs_arg = "fwd,bwdd,bwdw", solvers_arg, isa_arg, filter;
  std::string backend_arg = "cpu", type_arg, layout_arg, csv_path, tag;
  bool tf32 = false;
  int batch = 0, reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--shapes")
      shapes = next();
    else if (a == "--line")
      line = next();
    else if (a == "--batch")
      batch = std::atoi(next().c_str());
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--dirs")
      dirs_arg = next();
    else if (a == "--solvers")
      solvers_arg = next();
    else if (a == "--isa")
      isa_arg = next();
    else if (a == "--filter")
      filter = next();
    else if (a == "--backend")
      backend_arg = next();
    else if (a == "--type")
      type_arg = next();
    else if (a == "--layout")
      layout_arg = next();
    else if (a == "--tf32")
      tf32 = true;
    else if (a == "--csv")
      csv_path = next();
    else if (a == "--tag")
      tag = next();
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 1;
    }
  }
  std::vector<Layer> layers;
  if (!line.empty()) {
    driver::ConvSpec s;
    if (auto err = driver::parse_conv_line(line, s)) {
      std::fprintf(stderr, "%s\n", err->c_str());
      return 1;
    }
    if (batch > 0) s.in_lens[0] = batch;
    layers.push_back({s, 1});
  } else if (!shapes.empty()) {
    layers = load_layers(shapes, batch);
  } else {
    std::fprintf(stderr, "usage: %s --shapes FILE | --line \"conv ...\" [options]\n", argv[0]);
    return 1;
  }
  Config cfg = Config::from_environment();
  if (!isa_arg.empty()) {
    const auto isa = parse_cpu_isa(isa_arg);
    if (!isa) {
      std::fprintf(stderr, "unknown --isa %s\n", isa_arg.c_str());
      return 1;
    }
    cfg.cpu_isa = *isa;
  }
  if (tf32) cfg.conv_allow_tf32 = true;
  for (auto& [s, count] : layers) {
    if (!type_arg.empty()) {
      s.type = type_arg == "fp16" ? miopenHalf : type_arg == "bf16" ? miopenBFloat16 : miopenFloat;
    }
    if (!layout_arg.empty()) s.in_layout = s.fil_layout = s.out_layout = layout_arg;
  }
  const bool cuda = backend_arg == "cuda";
  const auto wanted = split(solvers_arg);
  std::unique_ptr<Backend> backend;
  try {
    backend = cuda ? make_cuda_backend(cfg, nullptr) : make_cpu_backend(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "no %s backend: %s\n", backend_arg.c_str(), e.what());
    return 1;
  }
  const ExecutionContext ctx{cfg, *backend};
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path, std::ios::app);
    if (!csv) {
      std::fprintf(stderr, "cannot open %s\n", csv_path.c_str());
      return 1;
    }
  }
  std::printf("# backend %s (%s), %d threads, isa %s, tf32 %d\n", backend_arg.c_str(),
              backend->device_id().c_str(), cfg.num_threads, cpu_isa_name(cfg.cpu_isa), tf32);
  for (const auto& [s, count] : layers) {
    if (layer_name(s).find(filter) == std::string::npos) continue;
    const auto x = TensorDescriptor::with_layout(s.type, s.in_layout, sizes(s.in_lens));
    const auto w = TensorDescriptor::with_layout(s.type, s.fil_layout, sizes(s.wei_lens));
    ConvolutionDescriptor conv(s.transpose ? miopenTranspose : miopenConvolution, s.pads, s.strides,
                               s.dilations);
    conv.set_group_count(s.groups);
    const auto y =
        TensorDescriptor::with_layout(s.type, s.out_layout, conv.forward_output_lens(x, w));
    for (const std::string& dname : split(dirs_arg)) {
      const ConvDirection dir = dname == "fwd"    ? ConvDirection::Forward
                                : dname == "bwdd" ? ConvDirection::BackwardData
                                                  : ConvDirection::BackwardWeights;
      const ConvProblem p(dir, x, w, conv, y);
      // Random inputs (never zeros: they can run faster than real data), on the backend's side.
      driver::HostTensor hx, hw, hy;
      std::vector<DeviceBuffer> device;
      void* ptr[3] = {};
      int i = 0;
      for (auto [t, d] : {std::pair{&hx, &p.x()}, {&hw, &p.w()}, {&hy, &p.y()}}) {
        t->type = d->type();
        t->lens = d->lens();
        t->strides = d->strides();
        t->bytes.assign(d->num_bytes(), 0);
        std::mt19937 rng(5 + i);
        t->fill_uniform(rng, -1, 1, 1);
        ptr[i] = t->data();
        if (cuda) {
          device.push_back(backend->allocate(t->bytes.size()));
          backend->copy(device.back().get(), t->data(), t->bytes.size(), CopyKind::HostToDevice);
          ptr[i] = device.back().get();
        }
        ++i;
      }
      struct Row {
        std::string name;
        double ms, min_ms, est_ms;
      };
      std::vector<Row> rows;
      for (const auto& e : backend->solvers<ConvSolver>().entries()) {
        if (!wanted.empty() &&
            std::find(wanted.begin(), wanted.end(), std::string(e.solver->name())) == wanted.end())
          continue;
        if (wanted.empty() && e.solver->fallback_only()) continue;
        if (!e.solver->applicable(ctx, p)) continue;
        const size_t ws_bytes = e.solver->workspace_size(ctx, p);
        std::vector<uint8_t> host_ws(cuda ? 0 : ws_bytes);
        DeviceBuffer dev_ws = cuda && ws_bytes > 0 ? backend->allocate(ws_bytes) : DeviceBuffer{};
        void* ws = cuda ? dev_ws.get() : host_ws.data();
        const auto inv = e.solver->make_invoker(ctx, p);
        const ConvBuffers b{ptr[0], ptr[1], ptr[2], ws, ws_bytes};
        std::vector<double> t;
        if (cuda) {
          // Device time from the backend's events; two untimed runs load modules and warm up.
          for (int r = 0; r < 2; ++r)
            backend->run_timed([&] { inv(b); });
          for (int r = 0; r < std::max(1, reps); ++r)
            t.push_back(backend->run_timed([&] { inv(b); }));
          std::sort(t.begin(), t.end());
        } else {
          t = times_ms([&] { inv(b); }, reps);
        }
        rows.push_back({std::string(e.solver->name()), t[t.size() / 2], t.front(),
                        e.solver->estimated_ms(ctx, p)});
      }
      double best = 1e30;
      for (const auto& r : rows)
        best = std::min(best, r.ms);
      for (const auto& r : rows) {
        char est[32] = "-";
        if (r.est_ms >= 0) std::snprintf(est, sizeof est, "%.4f", r.est_ms);
        std::printf("%-34s %-5s %-24s %9.4f ms (min %8.4f) %8.1f GFLOP/s %6.2fx est %s\n",
                    layer_name(s).c_str(), dname.c_str(), r.name.c_str(), r.ms, r.min_ms,
                    layer_flops(s) / r.ms / 1e6, r.ms / best, est);
        if (csv) {
          csv << tag << ',' << '"' << driver::to_driver_args(s) << '"' << ',' << dname << ','
              << r.name << ',' << r.ms << ',' << r.min_ms << ',' << r.est_ms << ','
              << layer_flops(s) << ',' << count << '\n';
        }
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
