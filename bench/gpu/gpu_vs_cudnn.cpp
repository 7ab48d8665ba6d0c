// anydnn's CUDA backend vs cuDNN, side by side in one process on the same stream and the same
// buffers (benchmark, not a test).
//
//   gpu_vs_cudnn conv|bn|rnn|eltwise|layers|fusion|all [--precision LIST] [--shapes FILE]
//   [--conv-shapes FILE]
//                [--bn-shapes FILE] [--rnn-shapes FILE] [--batch N] [--filter TEXT]
//                [--warmup N] [--iters N] [--budget-ms MS] [--workspace-mb MB]
//                [--cudnn-api frontend|legacy] [--csv OUT.csv] [--quick] [--no-verify] [--list]
//
// conv: ResNet-50 v1.5 layers at N=32 (--batch), fwd / bwd data / bwd weights, precisions
//   fp32 (strict: no TF32 on either side), tf32 (TF32 allowed on both sides), fp16 and bf16
//   (NHWC on both sides, fp32 accumulation). anydnn, three paths in this order: immediate mode
//   (first solution), default Find, exhaustive Find, each followed by its timed run call. cuDNN:
//   the frontend graph API, every plan of heuristics A + fallback built and timed, the fastest
//   kept (the legacy FindEx without the frontend headers or with --cudnn-api legacy).
// bn: spatial BN shapes, forward training + backward, fp32 NCHW and fp16 NHWC (fp32 params).
// eltwise: the same shapes, ReLU forward / backward and the residual add (activation, OpTensor).
// layers: pooling, softmax, LRN and reductions on network-sized shapes (gpu_layers.cpp).
// rnn: DeepBench RNN training set, fwd / bwd data / bwd weights, fp32 (fp16 on request).
// fusion: conv + bias + ReLU on the conv layers (fp32, tf32, fp16 NHWC) and BN + ReLU on the BN
//   shapes (bn-fp32, bn-fp16): anydnn's fusion plans vs the unfused anydnn calls vs cuDNN's fused
//   paths (gpu_fusion.hpp); its own CSV columns, so it is not part of `all`.
// Times are medians of CUDA-event-timed calls; ratio = anydnn / cuDNN (below 1: anydnn
// faster); every group ends with geometric means. Outputs of conv and BN are compared once
// per shape (relative L2 difference; "MISMATCH" flags it, nothing aborts).
//
// Several (mode, precision) jobs run one child process each: anydnn reads its environment
// (ANYDNN_CONV_ALLOW_TF32 among it) once per process, and a GPU fault in one job does not end
// the others. Children append to one CSV; the parent prints the overall summary from it.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "gpu_common.hpp"
#include "gpu_fusion.hpp"

using namespace anydnn::gpubench;

namespace {

void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s conv|bn|rnn|eltwise|layers|fusion|all [--precision LIST] [--shapes FILE] "
               "[--conv-shapes F] "
               "[--bn-shapes F] [--rnn-shapes F] [--batch N] [--filter TEXT] [--warmup N] "
               "[--iters N] [--budget-ms MS] [--workspace-mb MB] [--cudnn-api frontend|legacy] "
               "[--csv OUT.csv] [--quick] [--no-verify] [--list]\n",
               argv0);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

struct Job {
  std::string mode, precision, shapes;
};

int run_in_process(Options o, const Job& j) {
  o.shapes = j.shapes;
  // The CUDA backend, the library's default find mode (conv's default-Find path measures that;
  // its exhaustive path always measures), records in a fresh per-process find-db.
  setenv("MIOPEN_BACKEND", "cuda", 1);
  unsetenv("MIOPEN_FIND_MODE");
  use_scratch_find_db();
  if (!o.csv.empty() && !o.csv_append) {
    if (j.mode == "fusion")
      write_fusion_csv_header(o.csv);
    else
      write_csv_header(o.csv);
  }
  try {
    if (j.mode == "fusion")
      run_fusion(o, j.precision);
    else if (j.mode == "conv")
      run_conv(o, j.precision);
    else if (j.mode == "bn")
      run_bn(o, j.precision);
    else if (j.mode == "eltwise")
      run_eltwise(o, j.precision);
    else if (j.mode == "layers")
      run_layers(o, j.precision);
    else
      run_rnn(o, j.precision);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "gpu_vs_cudnn %s %s stopped: %s\n", j.mode.c_str(), j.precision.c_str(),
                 e.what());
    std::printf("# %s %s stopped: %s\n", j.mode.c_str(), j.precision.c_str(), e.what());
    return 3;
  }
  return 0;
}

// Runs `j` as `self MODE --precision P ...` and waits; returns a line saying how it ended.
std::string run_child(const Options& o, const Job& j, const std::string& csv) {
  std::vector<std::string> args = {"gpu_vs_cudnn",   j.mode,
                                   "--precision",    j.precision,
                                   "--batch",        std::to_string(o.batch),
                                   "--warmup",       std::to_string(o.plan.warmup),
                                   "--iters",        std::to_string(o.plan.iters),
                                   "--budget-ms",    std::to_string(o.plan.budget_ms),
                                   "--workspace-mb", std::to_string(o.workspace_mb),
                                   "--csv",          csv,
                                   "--csv-append"};
  if (!j.shapes.empty()) args.insert(args.end(), {"--shapes", j.shapes});
  if (!o.filter.empty()) args.insert(args.end(), {"--filter", o.filter});
  if (!o.cudnn_api.empty()) args.insert(args.end(), {"--cudnn-api", o.cudnn_api});
  if (o.quick) args.push_back("--quick");
  if (!o.verify) args.push_back("--no-verify");
  if (o.list) args.push_back("--list");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) return std::string("fork failed: ") + std::strerror(errno);
  if (pid == 0) {
    execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "execv /proc/self/exe: %s\n", std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::string("waitpid: ") + std::strerror(errno);
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "" : "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended abnormally";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(argv[0]);
    return 1;
  }
  Options o;
  o.mode = argv[1];
  std::string precision, shapes, conv_shapes, bn_shapes, rnn_shapes;
  bool warmup_set = false, iters_set = false, budget_set = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--precision")
      precision = next();
    else if (a == "--shapes")
      shapes = next();
    else if (a == "--conv-shapes")
      conv_shapes = next();
    else if (a == "--bn-shapes")
      bn_shapes = next();
    else if (a == "--rnn-shapes")
      rnn_shapes = next();
    else if (a == "--batch")
      o.batch = std::atoi(next().c_str());
    else if (a == "--filter")
      o.filter = next();
    else if (a == "--warmup")
      o.plan.warmup = std::atoi(next().c_str()), warmup_set = true;
    else if (a == "--iters")
      o.plan.iters = std::atoi(next().c_str()), iters_set = true;
    else if (a == "--budget-ms")
      o.plan.budget_ms = std::atof(next().c_str()), budget_set = true;
    else if (a == "--workspace-mb")
      o.workspace_mb = static_cast<size_t>(std::atol(next().c_str()));
    else if (a == "--cudnn-api")
      o.cudnn_api = next();
    else if (a == "--csv")
      o.csv = next();
    else if (a == "--csv-append")
      o.csv_append = true;
    else if (a == "--quick")
      o.quick = true;
    else if (a == "--no-verify")
      o.verify = false;
    else if (a == "--list")
      o.list = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      usage(argv[0]);
      return 1;
    }
  }
  if (o.quick) {  // fewer calls, unless given explicitly
    if (!warmup_set) o.plan.warmup = 2;
    if (!iters_set) o.plan.iters = 5;
    if (!budget_set) o.plan.budget_ms = 100;
  }
  if (!o.cudnn_api.empty() && o.cudnn_api != "frontend" && o.cudnn_api != "legacy") {
    std::fprintf(stderr, "--cudnn-api is frontend or legacy\n");
    return 1;
  }
  if (o.mode != "conv" && o.mode != "bn" && o.mode != "rnn" && o.mode != "eltwise" &&
      o.mode != "layers" && o.mode != "fusion" && o.mode != "all") {
    usage(argv[0]);
    return 1;
  }
  if (!shapes.empty()) {
    if (o.mode == "all") {
      std::fprintf(stderr, "--shapes names one mode's file: use --conv-shapes etc. with all\n");
      return 1;
    }
    if (o.mode == "fusion") {
      // One precision names its half (a child job gets --shapes so); several need both files.
      const auto ps = split(precision);
      if (ps.size() != 1) {
        std::fprintf(stderr, "fusion with several precisions: --conv-shapes and --bn-shapes\n");
        return 1;
      }
      (ps[0].rfind("bn-", 0) == 0 ? bn_shapes : conv_shapes) = shapes;
    } else {
      (o.mode == "conv"                        ? conv_shapes
       : o.mode == "bn" || o.mode == "eltwise" ? bn_shapes
                                               : rnn_shapes) = shapes;
    }
  }

  std::vector<Job> jobs;
  auto add = [&](const std::string& mode, const std::string& def, const std::string& file) {
    if (o.mode != mode && o.mode != "all") return;
    for (const std::string& p : split(precision.empty() || o.mode == "all" ? def : precision))
      jobs.push_back({mode, p, file});
  };
  add("conv", "fp32,tf32,fp16,bf16", conv_shapes);
  add("bn", "fp32,fp16", bn_shapes);
  add("eltwise", "fp32,fp16", bn_shapes);
  add("layers", "fp32,fp16", "");
  add("rnn", "fp32", rnn_shapes);
  // Not part of `all` (its own CSV columns); its precisions name the conv and BN halves.
  if (o.mode == "fusion")
    for (const std::string& p :
         split(precision.empty() ? "fp32,tf32,fp16,bn-fp32,bn-fp16" : precision))
      jobs.push_back({"fusion", p, p.rfind("bn-", 0) == 0 ? bn_shapes : conv_shapes});
  if (jobs.empty()) {
    usage(argv[0]);
    return 1;
  }
  if (jobs.size() == 1) return run_in_process(o, jobs[0]);

  // Several jobs: one child each, all appending to one CSV (a scratch one without --csv).
  const std::string csv =
      o.csv.empty() ? (std::filesystem::temp_directory_path() /
                       ("anydnn-gpu-bench-" + std::to_string(static_cast<long>(getpid())) + ".csv"))
                          .string()
                    : o.csv;
  const bool fusion = o.mode == "fusion";
  if (fusion)
    write_fusion_csv_header(csv);
  else
    write_csv_header(csv);
  std::vector<std::string> failed;
  const auto t0 = std::chrono::steady_clock::now();
  for (const Job& j : jobs) {
    const auto s = std::chrono::steady_clock::now();
    const std::string how = run_child(o, j, csv);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    std::printf("# job %s %s: %.1f s%s%s\n", j.mode.c_str(), j.precision.c_str(), sec,
                how.empty() ? "" : ", FAILED: ", how.c_str());
    if (!how.empty()) failed.push_back(j.mode + " " + j.precision + " (" + how + ")");
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (fusion)
    std::printf(
        "# fusion: every job's TOTAL lines are above; bench/gpu/merge_fusion.py %s adds "
        "the PyTorch peer and the hardware limits\n",
        csv.c_str());
  else
    print_summary(read_csv(csv), "all jobs");
  std::printf("# total %.1f s; %zu of %zu jobs failed", total, failed.size(), jobs.size());
  for (const auto& f : failed)
    std::printf("; %s", f.c_str());
  std::printf("\n");
  if (o.csv.empty()) std::filesystem::remove(csv);
  return failed.empty() ? 0 : 2;
}
