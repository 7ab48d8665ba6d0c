// One thread's work in the concurrency tests (tests/concurrency/threads_test.cpp on the CPU,
// tests/gpu/threads_gpu_test.cpp on CUDA handles with their own streams): convolution Find and
// every immediate-mode solution in the three directions, batch norm (training, inference,
// backward), an LSTM (forward training, backward data, backward weights) and dropout (forward,
// backward), all through the public C API on one handle. Buffers come from a Memory, so the same
// workload runs on host memory and on device memory.
#pragma once

#include <miopen/miopen.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace anydnn::test {

// Where a workload's buffers live. to_host waits for the handle's work on them.
class Memory {
 public:
  virtual ~Memory() = default;
  // Owned by the Memory, freed when it is destroyed.
  virtual void* alloc(size_t bytes) = 0;
  virtual void to_device(void* dst, const void* src, size_t bytes) = 0;
  virtual void to_host(void* dst, const void* src, size_t bytes) = 0;
};

class HostMemory final : public Memory {
 public:
  void* alloc(size_t bytes) override;
  void to_device(void* dst, const void* src, size_t bytes) override;
  void to_host(void* dst, const void* src, size_t bytes) override;

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
};

// The sizes of one (thread, round): every pair gets its own convolution problem, so every Find
// writes its own find-db records.
struct WorkloadShape {
  int n, c, h, w, k, pad, stride;  // convolution (3x3 filter) and batch norm (n, c, h, w)
  int rnn_batch, rnn_in, rnn_hidden, rnn_seq;
};
WorkloadShape workload_shape(int thread, int round, unsigned seed);
// The input seed of one (thread, round), from the test's seed.
unsigned workload_data_seed(unsigned seed, int thread, int round);
std::string describe(const WorkloadShape& s);

struct WorkloadResult {
  // Outputs of paths whose solver is fixed (immediate mode by solution id, BN, RNN, dropout),
  // by name ("conv_fwd_solution_<id>", "bn_train_y", ...): equal bit for bit between runs.
  std::map<std::string, std::vector<float>> exact;
  // The output of the fastest algorithm Find returned, per direction ("fwd", "bwd", "wrw"):
  // which solver wins may change with the load, so these are compared within a tolerance.
  std::map<std::string, std::vector<float>> found;
  // The first error, empty when every call succeeded.
  std::string error;
};

// Runs the workload once on handle `h`. `find` adds the three Find calls (which store find-db
// records) and the runs of their results. Inputs are drawn from `data_seed`; every output is
// poisoned with NaN before the call that writes it.
WorkloadResult run_workload(miopenHandle_t h, Memory& mem, const WorkloadShape& s,
                            unsigned data_seed, bool find);

// Find's fastest algorithm against the first immediate-mode solution: different summation orders
// of fp32 products (Winograd, FFT, GEMM), relative to the output's largest magnitude.
constexpr double kFindTolerance = 1e-4;

// "" when `got` equals `want` bit for bit in every exact output and within `rel_tol` (of the
// largest magnitude) in every found output; else what differs.
std::string compare_results(const WorkloadResult& want, const WorkloadResult& got, double rel_tol);

// "" when every Find of `shapes` (three directions each) left a whole record in the user
// find-db of the process configuration: the db passes integrity_check, and each record loads
// from the user db with entries that name a solver and carry a finite time. Else what is wrong.
std::string check_find_records(const std::vector<WorkloadShape>& shapes);

}  // namespace anydnn::test
