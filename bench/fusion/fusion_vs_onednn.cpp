// anydnn's fusion plans vs the same operators unfused vs oneDNN's fused primitives, side by side
// in one process (benchmark, not a test; docs/performance.md, "Fusion").
//
//   fusion_vs_onednn [--shapes FILE] [--batch N] [--bn-shapes FILE] [--only conv|bn]
//                    [--reps R] [--onednn-layout blocked|nchw] [--filter TEXT] [--csv OUT.csv]
//
// Convolution chains (fusion_conv_cases.cpp): conv + bias + ReLU and conv + BN inference + ReLU
// on the ResNet-50 v1.5 layers (bench/shapes/resnet50_v15.txt, N=4 by default, as
// scripts/bench-cpu.sh runs the conv benchmark). BN + ReLU (fusion_bn_cases.cpp): inference,
// training forward and backward on bench/shapes/bnorm.txt. Per row: the three medians and the
// ratios fused / unfused (the fusion's gain) and fused / oneDNN; then totals per chain, over the
// distinct rows and over the network (each row times its "xN" multiplicity).
#include <omp.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "fusion/fusion_bench.hpp"

using namespace anydnn::bench;

int main(int argc, char** argv) {
  std::string shapes = ANYDNN_CONV_SHAPES, bn_shapes = ANYDNN_BN_SHAPES, csv, only;
  int batch = 4;
  FusionOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--shapes") {
      shapes = next();
    } else if (a == "--bn-shapes") {
      bn_shapes = next();
    } else if (a == "--batch") {
      batch = std::atoi(next().c_str());
    } else if (a == "--reps") {
      o.reps = std::atoi(next().c_str());
    } else if (a == "--only") {
      only = next();
    } else if (a == "--filter") {
      o.filter = next();
    } else if (a == "--csv") {
      csv = next();
    } else if (a == "--onednn-layout") {
      o.onednn_blocked = next() != "nchw";
    } else {
      std::fprintf(stderr,
                   "usage: %s [--shapes F] [--batch N] [--bn-shapes F] [--only conv|bn] [--reps R] "
                   "[--onednn-layout blocked|nchw] [--filter T] [--csv F]\n",
                   argv[0]);
      return 1;
    }
  }
  // Find measures (as conv_vs_onednn), into a scratch find-db.
  setenv("MIOPEN_FIND_MODE", "NORMAL", 0);
  const std::string scratch =
      (std::filesystem::temp_directory_path() / "anydnn_fusion_bench_db").string();
  std::filesystem::create_directories(scratch);
  setenv("MIOPEN_USER_DB_PATH", scratch.c_str(), 0);
  use_bundled_opencl_runtime(ANYDNN_ONEDNN_ROOT);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  const auto v = dnnl::version();
  std::printf(
      "# fusion, fp32 NCHW, dnnl %d.%d.%d (%s layouts for conv and spatial BN), %d threads, reps "
      "%d\n",
      v->major, v->minor, v->patch, o.onednn_blocked ? "blocked" : "nchw", omp_get_max_threads(),
      o.reps);
  std::printf("%-34s %-15s %9s %9s %9s %7s %7s\n", "layer / shape", "chain", "fused ms", "unfused",
              "oneDNN", "f/unf", "f/dnn");
  std::vector<FusionRow> rows;
  if (only.empty() || only == "conv") {
    const auto conv = run_conv_chains(load_layers(shapes, batch), eng, o);
    rows.insert(rows.end(), conv.begin(), conv.end());
  }
  if (only.empty() || only == "bn") {
    const auto bn = run_bn_chains(bn_shapes, eng, o);
    rows.insert(rows.end(), bn.begin(), bn.end());
  }

  // Totals per (set, chain).
  struct Total {
    double f = 0, u = 0, p = 0, nf = 0, nu = 0, np = 0;
  };
  std::map<std::string, Total> totals;
  for (const FusionRow& r : rows) {
    Total& t = totals[r.set + " " + r.chain];
    t.f += r.fused;
    t.u += r.unfused;
    t.p += r.peer;
    t.nf += r.count * r.fused;
    t.nu += r.count * r.unfused;
    t.np += r.count * r.peer;
  }
  std::printf("\n%-36s %10s %10s %10s %7s %7s   %s\n", "TOTAL (network: x count)", "fused ms",
              "unfused", "oneDNN", "f/unf", "f/dnn", "rows: f/unf f/dnn");
  for (const auto& [key, t] : totals)
    std::printf("%-36s %10.2f %10.2f %10.2f %7.3f %7.3f   %7.3f %7.3f\n", key.c_str(), t.nf, t.nu,
                t.np, t.nf / t.nu, t.nf / t.np, t.f / t.u, t.f / t.p);
  if (!csv.empty()) {
    std::FILE* out = std::fopen(csv.c_str(), "w");
    if (out == nullptr) return 1;
    std::fprintf(out,
                 "set,name,chain,count,fused_ms,unfused_ms,onednn_ms,fused_over_unfused,"
                 "fused_over_onednn\n");
    for (const FusionRow& r : rows)
      std::fprintf(out, "%s,\"%s\",%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", r.set.c_str(), r.name.c_str(),
                   r.chain.c_str(), r.count, r.fused, r.unfused, r.peer, r.fused / r.unfused,
                   r.fused / r.peer);
    std::fclose(out);
  }
  return 0;
}
