// anydnn vs oneDNN, side by side in one process, on the same layers (benchmark, not a test).
//
//   conv_vs_onednn --shapes FILE [--batch N] [--dirs fwd,bwdd,bwdw] [--reps R]
//                  [--skip-input-bwdd] [--onednn-layout blocked|nchw] [--filter TEXT]
//                  [--csv OUT.csv] [--label NAME]
//
// For every layer and direction: anydnn's time (the solver Find ranks first, MIOPEN_FIND_MODE
// NORMAL), oneDNN's time (format_tag::any, convolution_auto), their ratio (anydnn / oneDNN,
// below 1 = anydnn faster), then totals per direction: over the distinct layers, and over the
// network (each layer times its "xN" multiplicity from the shape file). --skip-input-bwdd
// leaves out backward data of layers with C <= 3 (network inputs), as frameworks and DeepBench
// do. --onednn-layout: see onednn_runner.hpp (blocked = oneDNN's best case, the default).
// --filter keeps the layers whose name contains TEXT.
#include <cblas.h>
#include <miopen/miopen.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "anydnn_runner.hpp"
#include "bench_common.hpp"
#include "onednn_runner.hpp"

using namespace anydnn::bench;

namespace {

double sgemm_gflops() {
  const int n = 2048;
  std::vector<float> a(static_cast<size_t>(n) * n, 1.0f), b(a), c(a);
  const double ms = median_ms(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
      },
      5);
  return 2.0 * n * n * n / ms / 1e6;
}

std::vector<Dir> parse_dirs(const std::string& s) {
  std::vector<Dir> out;
  std::stringstream ss(s);
  for (std::string d; std::getline(ss, d, ',');) {
    if (d == "fwd") out.push_back(Dir::Fwd);
    if (d == "bwdd") out.push_back(Dir::Bwd);
    if (d == "bwdw") out.push_back(Dir::Wrw);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes, csv, label = "layers", dirs_arg = "fwd,bwdd,bwdw", filter;
  OneDnnLayout layout = OneDnnLayout::Blocked;
  int batch = 0, reps = 5;
  bool skip_input_bwdd = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--shapes")
      shapes = next();
    else if (a == "--batch")
      batch = std::atoi(next().c_str());
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--dirs")
      dirs_arg = next();
    else if (a == "--csv")
      csv = next();
    else if (a == "--label")
      label = next();
    else if (a == "--skip-input-bwdd")
      skip_input_bwdd = true;
    else if (a == "--filter")
      filter = next();
    else if (a == "--onednn-layout") {
      const std::string v = next();
      if (v != "blocked" && v != "nchw") {
        std::fprintf(stderr, "--onednn-layout takes blocked or nchw\n");
        return 1;
      }
      layout = v == "nchw" ? OneDnnLayout::Nchw : OneDnnLayout::Blocked;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 1;
    }
  }
  if (shapes.empty()) {
    std::fprintf(stderr, "usage: %s --shapes FILE [options]\n", argv[0]);
    return 1;
  }
  // Find measures every solver; its records go to a scratch db.
  setenv("MIOPEN_FIND_MODE", "NORMAL", 0);
  const auto scratch = std::filesystem::temp_directory_path() / "anydnn-bench-db";
  setenv("MIOPEN_USER_DB_PATH", scratch.c_str(), 0);
  use_bundled_opencl_runtime(ANYDNN_ONEDNN_ROOT);

  auto layers = load_layers(shapes, batch);
  std::erase_if(
      layers, [&](const Layer& l) { return layer_name(l.spec).find(filter) == std::string::npos; });
  const auto dirs = parse_dirs(dirs_arg);
  const char* layout_name = layout == OneDnnLayout::Nchw ? "nchw" : "blocked";
  std::printf("# %s: %zu layers, batch %s, dnnl %d.%d.%d (%s layouts), sgemm 2048^3 %.1f GFLOP/s\n",
              label.c_str(), layers.size(), batch > 0 ? std::to_string(batch).c_str() : "as listed",
              dnnl_version()->major, dnnl_version()->minor, dnnl_version()->patch, layout_name,
              sgemm_gflops());
  miopenHandle_t h;
  if (miopenCreate(&h) != miopenStatusSuccess) return 1;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "set,onednn_layout,layer,count,dir,gflop,anydnn_ms,onednn_ms,ratio,anydnn_solver,"
           "onednn_impl\n";
  }
  std::map<Dir, double> tot_any, tot_dnn, net_any, net_dnn, max_ratio;
  std::printf("%-36s %-5s %10s %10s %7s  %-22s %s\n", "layer", "dir", "anydnn ms", "oneDNN ms",
              "ratio", "anydnn solver", "oneDNN impl");
  for (const auto& [s, count] : layers) {
    AnydnnLayer any(h, s);
    OneDnnLayer dnn(eng, s, layout);
    for (Dir d : dirs) {
      if (d == Dir::Bwd && skip_input_bwdd && s.in_lens[1] <= 3) continue;
      std::string solver, impl;
      const double ta = any.time_ms(d, reps, &solver);
      const double td = dnn.time_ms(d, reps, &impl);
      const double ratio = ta / td;
      tot_any[d] += ta;
      tot_dnn[d] += td;
      net_any[d] += count * ta;
      net_dnn[d] += count * td;
      max_ratio[d] = std::max(max_ratio[d], ratio);
      std::printf("%-36s %-5s %10.3f %10.3f %7.2f  %-22s %s\n", layer_name(s).c_str(), dir_name(d),
                  ta, td, ratio, solver.c_str(), impl.c_str());
      std::fflush(stdout);
      if (out) {
        out << label << "," << layout_name << ",\"" << layer_name(s) << "\"," << count << ","
            << dir_name(d) << "," << layer_flops(s) / 1e9 << "," << ta << "," << td << "," << ratio
            << "," << solver << "," << impl << "\n";
      }
    }
  }
  for (Dir d : dirs) {
    std::printf(
        "TOTAL %-5s layers  anydnn %9.2f ms  oneDNN %9.2f ms  ratio %.3f  worst layer %.2f\n",
        dir_name(d), tot_any[d], tot_dnn[d], tot_any[d] / tot_dnn[d], max_ratio[d]);
    std::printf("TOTAL %-5s network anydnn %9.2f ms  oneDNN %9.2f ms  ratio %.3f\n", dir_name(d),
                net_any[d], net_dnn[d], net_any[d] / net_dnn[d]);
  }
  miopenDestroy(h);
  return 0;
}
