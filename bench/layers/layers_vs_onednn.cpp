// anydnn vs oneDNN on the memory-bound layer families, side by side in one process (benchmark,
// not a test; docs/performance.md):
//
//   layers_vs_onednn [--family NAME]... [--match TEXT] [--reps R] [--csv OUT.csv]
//
// Each case runs both libraries on the same host buffers, fp32, after one warm-up call; the time
// is the median of R calls. The rate is the case's compulsory traffic (each input read once,
// each output written once) over that time, and "% copy" compares it with a threaded memcpy of
// 512 MiB measured in the same run: the ceiling of a memory-bound layer. oneDNN runs as its users
// run it: primitives created once, plain layouts (what a MIOpen client hands over), the
// use-dst-for-backward algorithms where they exist.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "copy_rate.hpp"
#include "layers_bench.hpp"

using namespace anydnn::bench;
using namespace anydnn::bench::layers;

int main(int argc, char** argv) {
  std::vector<std::string> families;
  std::string csv, match;
  int reps = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--family")
      families.push_back(next());
    else if (a == "--match")
      match = next();
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--csv")
      csv = next();
    else {
      std::fprintf(stderr,
                   "usage: %s [--family NAME]... [--match TEXT] [--reps R] [--csv OUT.csv]\n",
                   argv[0]);
      return 1;
    }
  }
  use_bundled_opencl_runtime(ANYDNN_ONEDNN_ROOT);
  Ctx ctx;
  if (miopenCreate(&ctx.handle) != miopenStatusSuccess) {
    std::fprintf(stderr, "miopenCreate failed\n");
    return 1;
  }
  std::vector<Case> cases;
  add_eltwise_cases(cases);
  add_pooling_cases(cases);
  add_lrn_cases(cases);
  add_reduce_cases(cases);

  const auto v = dnnl::version();
  const double copy = copy_gbps(reps, true);
  std::printf("# layers fp32, dnnl %d.%d.%d, %d threads, copy (read+write, memcpy) %.1f GB/s\n",
              v->major, v->minor, v->patch, omp_get_max_threads(), copy);
  std::printf("%-10s %-40s %10s %10s %7s %9s %7s\n", "family", "case", "anydnn ms", "oneDNN ms",
              "ratio", "ours GB/s", "% copy");
  std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out) std::fprintf(out, "family,case,anydnn_ms,onednn_ms,ratio,anydnn_gbps,copy_gbps\n");
  std::map<std::string, std::pair<double, double>> totals;
  for (const Case& c : cases) {
    bool wanted = families.empty();
    for (const auto& f : families)
      wanted = wanted || f == c.family;
    if (!wanted || c.name.find(match) == std::string::npos) continue;
    const Timed t = c.setup(ctx);
    const double ours = median_ms(t.ours, reps), peer = median_ms(t.peer, reps);
    const double gbps = c.bytes / ours / 1e6;
    std::printf("%-10s %-40s %10.3f %10.3f %7.2f %9.1f %6.0f%%\n", c.family.c_str(), c.name.c_str(),
                ours, peer, ours / peer, gbps, 100.0 * gbps / copy);
    std::fflush(stdout);
    if (out)
      std::fprintf(out, "%s,%s,%.4f,%.4f,%.4f,%.2f,%.2f\n", c.family.c_str(), c.name.c_str(), ours,
                   peer, ours / peer, gbps, copy);
    totals[c.family].first += ours;
    totals[c.family].second += peer;
  }
  for (const auto& [f, t] : totals)
    std::printf("TOTAL %-10s anydnn %.2f ms oneDNN %.2f ms ratio %.3f\n", f.c_str(), t.first,
                t.second, t.first / t.second);
  if (out) std::fclose(out);
  miopenDestroy(ctx.handle);
  return 0;
}
