#include "gpu_common.hpp"

#include <miopen/anydnn.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace anydnn::gpubench {

void check_cuda(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  const std::string msg = what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  // Errors that poison the context: nothing after them can run.
  if (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
      e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress ||
      e == cudaErrorHardwareStackError || e == cudaErrorInvalidPc || e == cudaErrorAssert ||
      e == cudaErrorECCUncorrectable || e == cudaErrorUnknown)
    throw Fatal(msg);
  cudaGetLastError();  // clear a non-sticky error so later calls do not see it
  throw Failure(msg);
}

void check_cudnn(cudnnStatus_t s, const std::string& what) {
  if (s != CUDNN_STATUS_SUCCESS) throw Failure(what + ": " + cudnnGetErrorString(s));
}

void check_miopen(miopenStatus_t s, const std::string& what) {
  if (s != miopenStatusSuccess)
    throw Failure(what + ": " + miopenGetErrorString(s) + " (" + std::to_string(s) + ")");
}

void check_context(cudaStream_t stream) {
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check_cuda(cudaGetLastError(), "cudaGetLastError");
}

DeviceMem::DeviceMem(size_t bytes, const std::string& what) : bytes_(bytes) {
  if (bytes == 0) return;
  check_cuda(cudaMalloc(&p_, bytes), "cudaMalloc " + what + " (" + std::to_string(bytes) + " B)");
}

DeviceMem::~DeviceMem() {
  if (p_ != nullptr) cudaFree(p_);
}

DeviceMem& DeviceMem::operator=(DeviceMem&& o) noexcept {
  if (this != &o) {
    if (p_ != nullptr) cudaFree(p_);
    p_ = o.p_;
    bytes_ = o.bytes_;
    o.p_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Events, created once per process and reused (creating them per call costs time too).
std::vector<cudaEvent_t>& event_pool(size_t n) {
  static std::vector<cudaEvent_t> pool;
  while (pool.size() < n) {
    cudaEvent_t e;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    pool.push_back(e);
  }
  return pool;
}

}  // namespace

std::vector<double> time_stages(cudaStream_t stream, int stages, const StageStep& step,
                                const TimingPlan& plan) {
  // The first call pays one-time costs (module loading, plans): untimed. The second one's
  // length decides how many iterations fit in the budget.
  step([] {});
  check_context(stream);
  auto& ev0 = event_pool(static_cast<size_t>(stages) + 1);
  {
    int k = 0;
    check_cuda(cudaEventRecord(ev0[0], stream), "cudaEventRecord");
    step([&] { check_cuda(cudaEventRecord(ev0[++k], stream), "cudaEventRecord"); });
    if (k != stages) throw Failure("timing: stage count mismatch");
    check_cuda(cudaEventSynchronize(ev0[stages]), "cudaEventSynchronize");
  }
  float first = 0;
  check_cuda(cudaEventElapsedTime(&first, ev0[0], ev0[stages]), "cudaEventElapsedTime");
  const double once = std::max(1e-3, static_cast<double>(first));
  const int fit = static_cast<int>(plan.budget_ms / once);
  const int warm = std::clamp(fit / 4, 0, std::max(0, plan.warmup - 2));
  // Calls longer than the budget get a single timed one (they vary little); shorter ones at
  // least min_iters.
  const int iters = fit >= plan.min_iters ? std::min(fit, plan.iters)
                    : once * plan.min_iters <= 3 * plan.budget_ms
                        ? std::min(plan.min_iters, plan.iters)
                        : std::min(1, plan.iters);
  for (int i = 0; i < warm; ++i)
    step([] {});
  auto& ev = event_pool(static_cast<size_t>(iters) * (stages + 1));
  for (int i = 0; i < iters; ++i) {
    cudaEvent_t* e = &ev[static_cast<size_t>(i) * (stages + 1)];
    int k = 0;
    check_cuda(cudaEventRecord(e[0], stream), "cudaEventRecord");
    step([&] { check_cuda(cudaEventRecord(e[++k], stream), "cudaEventRecord"); });
  }
  check_context(stream);
  std::vector<double> out;
  for (int s = 0; s < stages; ++s) {
    std::vector<double> t;
    for (int i = 0; i < iters; ++i) {
      cudaEvent_t* e = &ev[static_cast<size_t>(i) * (stages + 1)];
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, e[s], e[s + 1]), "cudaEventElapsedTime");
      t.push_back(ms);
    }
    out.push_back(median(t));
  }
  return out;
}

double time_call(cudaStream_t stream, const std::function<void()>& call, const TimingPlan& plan) {
  return time_stages(
      stream, 1,
      [&](const std::function<void()>& mark) {
        call();
        mark();
      },
      plan)[0];
}

double copy_rate_gbs(size_t bytes, cudaStream_t stream, const TimingPlan& plan) {
  DeviceMem a(bytes, "copy source"), b(bytes, "copy destination");
  const double ms = time_call(
      stream,
      [&] {
        check_cuda(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync");
      },
      plan);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

std::string rate(const Row& r, double ms) {
  if (!(ms > 0) || !std::isfinite(ms)) return "-";
  char b[32];
  if (r.unit == "GB")
    std::snprintf(b, sizeof b, "%.0f GB/s", r.work / ms * 1e3);
  else
    std::snprintf(b, sizeof b, "%.1f TF/s", r.work / ms);
  return b;
}

void print_header(const std::string& title, bool conv) {
  std::printf("\n# %s\n", title.c_str());
  if (conv) {
    // anydnn's three paths: immediate mode, default Find, exhaustive Find; ratios against
    // cuDNN use the exhaustive and the default time.
    std::printf("%-30s %-4s %9s %9s %9s %9s %6s %6s %-9s %8s %10s  %s\n", "shape", "dir", "imm ms",
                "def ms", "exh ms", "cuDNN ms", "exh/c", "def/c", "verify", "rel err", "exh rate",
                "anydnn solver imm | def | exh ; cuDNN engine");
  } else {
    std::printf("%-30s %-4s %10s %10s %7s %-9s %9s %11s  %-26s %s\n", "shape", "dir", "anydnn ms",
                "cuDNN ms", "ratio", "verify", "rel err", "anydnn rate", "anydnn solver",
                "cuDNN algo");
  }
  std::fflush(stdout);
}

namespace {
std::string ms_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, v < 10 ? "%.4f" : "%.2f", v);
  return b;
}
std::string ratio_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
}  // namespace

void print_row(const Row& r) {
  char err[32] = "-";
  if (std::isfinite(r.rel_err)) std::snprintf(err, sizeof err, "%.1e", r.rel_err);
  const char* sep = r.note.empty() ? "" : "  # ";
  if (r.is_conv()) {
    std::printf("%-30s %-4s %9s %9s %9s %9s %6s %6s %-9s %8s %10s  %s | %s | %s ; %s%s%s\n",
                r.shape.c_str(), r.dir.c_str(), ms_text(r.imm_ms).c_str(),
                ms_text(r.def_ms).c_str(), ms_text(r.any_ms).c_str(), ms_text(r.cud_ms).c_str(),
                ratio_text(r.ratio()).c_str(), ratio_text(r.def_ratio()).c_str(), r.verify.c_str(),
                err, rate(r, r.any_ms).c_str(), r.imm_solver.c_str(), r.def_solver.c_str(),
                r.any_solver.c_str(), r.cud_algo.c_str(), sep, r.note.c_str());
  } else {
    std::printf("%-30s %-4s %10s %10s %7s %-9s %9s %11s  %-26s %s%s%s\n", r.shape.c_str(),
                r.dir.c_str(), ms_text(r.any_ms).c_str(), ms_text(r.cud_ms).c_str(),
                ratio_text(r.ratio()).c_str(), r.verify.c_str(), err, rate(r, r.any_ms).c_str(),
                r.any_solver.c_str(), r.cud_algo.c_str(), sep, r.note.c_str());
  }
  std::fflush(stdout);
}

void print_summary(const std::vector<Row>& rows, const std::string& title) {
  // Geometric mean of one ratio over the rows where it is defined.
  struct Geo {
    double log_sum = 0;
    int n = 0;
    void add(double v) {
      if (std::isfinite(v) && v > 0) log_sum += std::log(v), ++n;
    }
    std::string text() const {
      if (n == 0) return "n/a";
      char b[32];
      std::snprintf(b, sizeof b, "%.3f", std::exp(log_sum / n));
      return b;
    }
  };
  struct Acc {
    double any = 0, cud = 0;
    int n = 0, na = 0, bad = 0;
    Geo exh, def, imm;
    bool conv = false;
  };
  std::vector<std::string> order;
  std::map<std::string, Acc> acc;
  for (const Row& r : rows) {
    const std::string key = r.group + " " + r.dir;
    if (!acc.count(key)) order.push_back(key);
    Acc& a = acc[key];
    a.conv = a.conv || r.is_conv();
    if (r.verify == "MISMATCH" || r.verify == "NONFINITE") ++a.bad;
    a.def.add(r.def_ratio());
    a.imm.add(r.imm_ratio());
    if (!std::isfinite(r.ratio()) || !(r.ratio() > 0)) {
      ++a.na;
      continue;
    }
    a.exh.add(r.ratio());
    a.any += r.count * r.any_ms;
    a.cud += r.count * r.cud_ms;
    ++a.n;
  }
  std::printf(
      "\n# %s: anydnn / cuDNN time (below 1 = anydnn faster; conv: anydnn's exhaustive "
      "Find, then def = default Find, imm = immediate mode)\n",
      title.c_str());
  std::printf("%-22s %-4s %8s %5s %5s %9s %12s %12s %8s %8s %8s\n", "group", "dir", "geomean",
              "rows", "n/a", "mismatch", "anydnn ms", "cuDNN ms", "weighted", "def", "imm");
  for (const std::string& key : order) {
    const Acc& a = acc[key];
    const auto sp = key.find(' ');
    char w[32] = "n/a";
    if (a.n > 0) std::snprintf(w, sizeof w, "%.3f", a.any / a.cud);
    std::printf("GEOMEAN %-14s %-4s %8s %5d %5d %9d %12.3f %12.3f %8s %8s %8s\n",
                key.substr(0, sp).c_str(), key.substr(sp + 1).c_str(), a.exh.text().c_str(), a.n,
                a.na, a.bad, a.any, a.cud, w, a.conv ? a.def.text().c_str() : "-",
                a.conv ? a.imm.text().c_str() : "-");
  }
  std::fflush(stdout);
}

namespace {
// anydnn_ms / ratio: conv's exhaustive-Find path (BN, RNN: their only path).
const char* kCsvHeader =
    "group,shape,count,dir,work,unit,anydnn_ms,cudnn_ms,ratio,anydnn_solver,cudnn_algo,verify,"
    "rel_err,anydnn_imm_ms,anydnn_def_ms,ratio_def,anydnn_imm_solver,anydnn_def_solver,cudnn_api,"
    "note";

std::string field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "nan";
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

double parse_num(const std::string& s) {
  if (s.empty() || s == "nan") return NAN;
  try {
    return std::stod(s);
  } catch (...) {
    return NAN;
  }
}
}  // namespace

void write_csv_header(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << kCsvHeader << "\n";
}

void append_csv(const std::string& path, const std::vector<Row>& rows) {
  if (path.empty()) return;
  std::ofstream out(path, std::ios::app);
  for (const Row& r : rows)
    out << field(r.group) << "," << field(r.shape) << "," << r.count << "," << field(r.dir) << ","
        << num(r.work) << "," << r.unit << "," << num(r.any_ms) << "," << num(r.cud_ms) << ","
        << num(r.ratio()) << "," << field(r.any_solver) << "," << field(r.cud_algo) << ","
        << r.verify << "," << num(r.rel_err) << "," << num(r.imm_ms) << "," << num(r.def_ms) << ","
        << num(r.def_ratio()) << "," << field(r.imm_solver) << "," << field(r.def_solver) << ","
        << field(r.cud_api) << "," << field(r.note) << "\n";
}

std::vector<Row> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() < 19) continue;
    Row r;
    r.group = f[0];
    r.shape = f[1];
    r.count = std::atoi(f[2].c_str());
    r.dir = f[3];
    r.work = parse_num(f[4]);
    r.unit = f[5];
    r.any_ms = parse_num(f[6]);
    r.cud_ms = parse_num(f[7]);
    r.any_solver = f[9];
    r.cud_algo = f[10];
    r.verify = f[11];
    r.rel_err = parse_num(f[12]);
    r.imm_ms = parse_num(f[13]);
    r.def_ms = parse_num(f[14]);
    r.imm_solver = f[16];
    r.def_solver = f[17];
    r.cud_api = f[18];
    if (f.size() > 19) r.note = f[19];
    rows.push_back(r);
  }
  return rows;
}

miopenHandle_t make_anydnn_handle(cudaStream_t stream) {
  miopenHandle_t h = nullptr;
  check_miopen(miopenCreateWithStream(&h, stream), "miopenCreateWithStream");
  anydnnBackend_t backend = anydnnBackendCpu;
  const miopenStatus_t rc = anydnnGetBackend(h, &backend);
  if (rc != miopenStatusSuccess || backend != anydnnBackendCuda) {
    miopenDestroy(h);
    throw Fatal(
        "the anydnn handle is not on the CUDA backend (MIOPEN_BACKEND=cuda, a CUDA build "
        "and a GPU are needed)");
  }
  return h;
}

Peers::Peers() {
  check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
  try {
    anydnn_ = make_anydnn_handle(stream_);
    check_cudnn(cudnnCreate(&cudnn_), "cudnnCreate");
    check_cudnn(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

Peers::~Peers() {
  release();
}

void Peers::release() {
  if (cudnn_) cudnnDestroy(cudnn_);
  if (anydnn_) miopenDestroy(anydnn_);
  if (stream_) cudaStreamDestroy(stream_);
  cudnn_ = nullptr, anydnn_ = nullptr, stream_ = nullptr;
}

std::string environment_line() {
  int dev = 0;
  cudaDeviceProp prop{};
  std::string gpu = "no GPU";
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    gpu = std::string(prop.name) + " (sm_" + std::to_string(prop.major * 10 + prop.minor) + ", " +
          std::to_string(prop.multiProcessorCount) + " SMs)";
  const size_t v = cudnnGetVersion();
  size_t major = 0, minor = 0, patch = 0;
  miopenGetVersion(&major, &minor, &patch);
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  char b[512];
  std::snprintf(b, sizeof b,
                "%s, cuDNN %zu.%zu.%zu, CUDA runtime %d.%d / driver %d.%d, anydnn (MIOpen API "
                "%zu.%zu.%zu)",
                gpu.c_str(), v / 10000, (v % 10000) / 100, v % 100, rt / 1000, (rt % 1000) / 10,
                drv / 1000, (drv % 1000) / 10, major, minor, patch);
  return b;
}

void use_scratch_find_db() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       ("anydnn-gpu-bench-db-" + std::to_string(static_cast<long>(getpid())));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  setenv("MIOPEN_USER_DB_PATH", dir.c_str(), 1);
  // Removed at exit: these records are this run's only.
  static const fs::path keep = dir;
  std::atexit([] {
    std::error_code e;
    fs::remove_all(keep, e);
  });
}

}  // namespace anydnn::gpubench
