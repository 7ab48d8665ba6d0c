// Shared pieces of the GPU benchmark (anydnn's CUDA backend vs cuDNN, same process, same
// stream): status checks, device memory, event timing, result rows, CSV and summaries.
#pragma once

#include <cuda_runtime.h>
#include <cudnn.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace anydnn::gpubench {

// A call that failed: its row reports n/a with this text; the benchmark goes on.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A CUDA error that leaves the context unusable (illegal address, launch failure): the mode
// stops, since every later call would fail too.
struct Fatal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check_cuda(cudaError_t e, const std::string& what);
void check_cudnn(cudnnStatus_t s, const std::string& what);
void check_miopen(miopenStatus_t s, const std::string& what);
// Synchronizes `stream`; a failure there is sticky (Fatal).
void check_context(cudaStream_t stream);

enum class DType { F32, F16, BF16 };
inline size_t dtype_size(DType t) {
  return t == DType::F32 ? 4 : 2;
}
inline miopenDataType_t miopen_type(DType t) {
  return t == DType::F32 ? miopenFloat : t == DType::F16 ? miopenHalf : miopenBFloat16;
}
inline cudnnDataType_t cudnn_type(DType t) {
  return t == DType::F32   ? CUDNN_DATA_FLOAT
         : t == DType::F16 ? CUDNN_DATA_HALF
                           : CUDNN_DATA_BFLOAT16;
}

// cudaMalloc'ed bytes, freed on destruction.
class DeviceMem {
 public:
  DeviceMem() = default;
  explicit DeviceMem(size_t bytes, const std::string& what = "buffer");
  ~DeviceMem();
  DeviceMem(DeviceMem&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr, o.bytes_ = 0; }
  DeviceMem& operator=(DeviceMem&& o) noexcept;
  DeviceMem(const DeviceMem&) = delete;
  DeviceMem& operator=(const DeviceMem&) = delete;
  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// gpu_kernels.cu: uniform values in [lo, hi) from a counter hash (no host generation), and the
// relative L2 difference of two device arrays (computed on the host in double).
void fill_uniform(void* dst, DType t, size_t n, uint64_t seed, float lo, float hi,
                  cudaStream_t stream);

// Per-channel fp32 buffers of one batch-normalization path (one library's, or fused /
// unfused): running mean 0 and variance 1, saved statistics, and the scale / bias gradients.
struct BnStats {
  DeviceMem rm, rv, sm, sv, ds, db;
  BnStats(size_t c, cudaStream_t st) {
    const size_t b = c * sizeof(float);
    rm = DeviceMem(b, "running mean");
    rv = DeviceMem(b, "running variance");
    sm = DeviceMem(b, "saved mean");
    sv = DeviceMem(b, "saved inv variance");
    ds = DeviceMem(b, "dscale");
    db = DeviceMem(b, "dbias");
    fill_uniform(rm.get(), DType::F32, c, 0, 0.0f, 0.0f, st);
    fill_uniform(rv.get(), DType::F32, c, 0, 1.0f, 1.0f, st);
  }
};
struct Diff {
  double rel_l2 = NAN;   // ||a - b|| / ||b||
  double max_abs = NAN;  // max |a - b|
  bool finite = true;    // no NaN / Inf in either
};
Diff compare(const void* a, const void* b, DType t, size_t n, cudaStream_t stream);
bool all_finite(const void* a, DType t, size_t n, cudaStream_t stream);

// Median times of the stages of `step`, each stage ended by a call of `mark` (CUDA events on
// `stream`, no host synchronization between iterations). A first call (one-time costs) is not
// timed; a second one, timed alone, sets how many more warm-up and timed iterations fit in
// `budget_ms`: at most `warmup` calls before timing in all and `iters` timed, at least
// `min_iters` timed unless one call alone is longer than the budget (then one).
struct TimingPlan {
  int warmup = 5;
  int iters = 20;
  int min_iters = 3;
  double budget_ms = 300;
};
using StageStep = std::function<void(const std::function<void()>& mark)>;
std::vector<double> time_stages(cudaStream_t stream, int stages, const StageStep& step,
                                const TimingPlan& plan);
// One-stage form.
double time_call(cudaStream_t stream, const std::function<void()>& call, const TimingPlan& plan);
// The device's copy rate on `bytes` (GB/s of read + write, cudaMemcpyAsync device to device):
// the limit the memory-bound modes (eltwise, layers) compare their rates with.
double copy_rate_gbs(size_t bytes, cudaStream_t stream, const TimingPlan& plan);

// One result line. Times are NaN where a side could not run (n/a).
struct Row {
  std::string group;  // conv-fp32, conv-tf32, conv-fp16-nhwc, conv-bf16-nhwc, bn-fp32-nchw, ...
  std::string shape;  // "n32 c64 56x56 k64 3x3 p1 s1", "lstm h1024 n64 t25", ...
  int count = 1;      // occurrences in the network (conv, BN), for weighted totals
  std::string dir;    // fwd, bwdd, bwdw (conv, RNN); fwd, bwd (BN)
  double work = 0;    // GFLOP (conv, RNN) or GB of compulsory traffic (BN)
  std::string unit;   // "GFLOP" or "GB"
  // anydnn: for conv the exhaustive Find's winner; BN and RNN have one path.
  double any_ms = NAN, cud_ms = NAN;
  std::string any_solver = "-", cud_algo = "-";
  // Conv only: anydnn's immediate mode (first solution) and default Find (exhaustiveSearch =
  // false) paths; NaN elsewhere.
  double imm_ms = NAN, def_ms = NAN;
  std::string imm_solver = "-", def_solver = "-";
  std::string cud_api = "-";  // conv: "frontend" (graph API, autotuned) or "legacy" (FindEx)
  std::string verify = "-";   // ok, MISMATCH, NONFINITE, - (not checked)
  double rel_err = NAN;       // conv: the largest over the anydnn paths
  std::string note;           // why a side is n/a
  double ratio() const { return any_ms / cud_ms; }
  double def_ratio() const { return def_ms / cud_ms; }
  double imm_ratio() const { return imm_ms / cud_ms; }
  bool is_conv() const { return group.rfind("conv", 0) == 0; }
};

// "fwd 12.3 TFLOP/s" style rate of `ms` for the row's work.
std::string rate(const Row& r, double ms);
// `conv`: the wider conv table (three anydnn paths).
void print_header(const std::string& title, bool conv = false);
void print_row(const Row& r);
// Geometric mean of anydnn / cuDNN per group and direction, plus count-weighted totals (conv:
// also of the default-Find and immediate-mode times).
void print_summary(const std::vector<Row>& rows, const std::string& title);

// CSV: one header line, then rows; commas inside text fields become ';'.
void write_csv_header(const std::string& path);
void append_csv(const std::string& path, const std::vector<Row>& rows);
std::vector<Row> read_csv(const std::string& path);

struct Options {
  std::string mode;         // conv, bn, rnn, all
  std::string shapes;       // shape file of a single mode ("" = the default one)
  std::string precision;    // conv: fp32,tf32,fp16,bf16 ; bn: fp32,fp16 ; rnn: fp32[,fp16]
  std::string filter;       // keep shapes whose name contains this
  std::string csv;          // output CSV ("" = none)
  bool csv_append = false;  // children of `all` append to the parent's file
  bool quick = false;
  bool verify = true;
  bool list = false;        // print the shapes that would run, touch no GPU
  bool rnn_linear = false;  // linear input layer instead of DeepBench's skip input
  int batch = 32;           // conv: N of every layer
  size_t workspace_mb = 1024;
  // conv: how cuDNN is driven: "frontend" (graph API with autotuning; the default when the
  // frontend headers were found at build time) or "legacy" (cudnnFind*AlgorithmEx).
  std::string cudnn_api;
  TimingPlan plan;
};

// The modes; each returns its rows (also printed as they come, and appended to the CSV).
std::vector<Row> run_conv(const Options& o, const std::string& precision);
std::vector<Row> run_bn(const Options& o, const std::string& precision);
std::vector<Row> run_rnn(const Options& o, const std::string& precision);
std::vector<Row> run_eltwise(const Options& o, const std::string& precision);
// gpu_layers.cpp: pooling, softmax, LRN and reduction against cuDNN's legacy calls.
std::vector<Row> run_layers(const Options& o, const std::string& precision);

// A spatial NCHW shape of the bnorm shape file, with its multiplicity in the network.
struct SpatialShape {
  std::vector<int> lens;
  int count = 1;
  std::string name;
};
std::vector<SpatialShape> load_bn_shapes(const std::string& file, const std::string& filter);

// The anydnn handle on `stream` (CUDA backend); fails if the handle is not on CUDA.
miopenHandle_t make_anydnn_handle(cudaStream_t stream);

// One mode's run: a stream, and anydnn's and cuDNN's handles on it (both libraries' work is
// ordered on the one stream), released in reverse order on destruction.
class Peers {
 public:
  Peers();
  ~Peers();
  Peers(const Peers&) = delete;
  Peers& operator=(const Peers&) = delete;
  cudaStream_t stream() const { return stream_; }
  miopenHandle_t anydnn() const { return anydnn_; }
  cudnnHandle_t cudnn() const { return cudnn_; }

 private:
  void release();
  cudaStream_t stream_ = nullptr;
  miopenHandle_t anydnn_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
};
// "NVIDIA H100 80GB HBM3, cuDNN 9.19.0, anydnn (MIOpen API 3.3.0)".
std::string environment_line();
// Per-process scratch find-db folder (fresh: no precision reuses another's Find records).
void use_scratch_find_db();

}  // namespace anydnn::gpubench
