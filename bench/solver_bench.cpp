// Every applicable CPU solver, alone, on each layer and direction (benchmark, not a test): the
// per-solver numbers of docs/performance.md. Solvers are built and run through the solver
// contract directly (no Find, no find-db), like tests/unit/conv_solvers_test.cpp does.
//
//   solver_bench (--shapes FILE | --line "conv -n ...") [--batch N] [--dirs fwd,bwdd,bwdw]
//                [--reps R] [--solvers NAME,NAME] [--isa avx512|avx2|generic] [--filter TEXT]
//
// Prints, per layer and direction, each solver's median (and minimum) time, GFLOP/s of the
// median (direct-convolution count) and its time relative to the fastest solver on that line.
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "backend/backend.hpp"
#include "bench_common.hpp"
#include "core/config.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"
#include "problem/conv_problem.hpp"
#include "solver/conv_registry.hpp"

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
  const auto wanted = split(solvers_arg);
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  std::printf("# %d threads, isa %s\n", cfg.num_threads, cpu_isa_name(cfg.cpu_isa));
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
      driver::HostTensor hx, hw, hy;
      for (auto [t, d] : {std::pair{&hx, &p.x()}, {&hw, &p.w()}, {&hy, &p.y()}}) {
        t->type = d->type();
        t->lens = d->lens();
        t->strides = d->strides();
        t->bytes.assign(d->num_bytes(), 0);
        std::mt19937 rng(5);
        t->fill_uniform(rng, -1, 1, 1);
      }
      struct Row {
        std::string name;
        double ms, min_ms;
      };
      std::vector<Row> rows;
      for (const auto& e : backend->conv_solvers().entries()) {
        if (!wanted.empty() &&
            std::find(wanted.begin(), wanted.end(), std::string(e.solver->name())) == wanted.end())
          continue;
        if (wanted.empty() && e.solver->fallback_only()) continue;
        if (!e.solver->applicable(ctx, p)) continue;
        std::vector<uint8_t> ws(e.solver->workspace_size(ctx, p));
        const auto inv = e.solver->make_invoker(ctx, p);
        const ConvBuffers b{hx.data(), hw.data(), hy.data(), ws.data(), ws.size()};
        const auto t = times_ms([&] { inv(b); }, reps);
        rows.push_back({std::string(e.solver->name()), t[t.size() / 2], t.front()});
      }
      double best = 1e30;
      for (const auto& r : rows)
        best = std::min(best, r.ms);
      for (const auto& r : rows)
        std::printf("%-34s %-5s %-24s %9.3f ms (min %8.3f) %7.1f GFLOP/s %5.2fx\n",
                    layer_name(s).c_str(), dname.c_str(), r.name.c_str(), r.ms, r.min_ms,
                    layer_flops(s) / r.ms / 1e6, r.ms / best);
      std::fflush(stdout);
    }
  }
  return 0;
}
