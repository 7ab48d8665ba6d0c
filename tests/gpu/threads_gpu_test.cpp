// Many threads on the CUDA backend (the CPU version: tests/concurrency/threads_test.cpp): 16
// threads, each with its own stream and a handle made with miopenCreateWithStream, run the
// concurrency workload (convolution Find and every immediate-mode solution in three
// directions, batch norm, an LSTM, dropout) at once on device memory, for several rounds, sharing
// the user find-db. Fixed-solver outputs equal a single-threaded run bit for bit (every CUDA
// solver is deterministic: the GPU suite's reruns check it); Find's choice agrees within
// rounding; every Find's record is in the db afterwards. Then one handle used by threads in turn.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "common_test_util.hpp"
#include "concurrency/workload.hpp"
#include "gpu/gpu_test_util.hpp"

namespace anydnn::test {
namespace {

constexpr int kThreads = 16;
constexpr int kRounds = 2;

// Device buffers ordered on one stream; to_host waits for that stream.
class CudaMemory final : public Memory {
 public:
  explicit CudaMemory(cudaStream_t stream) : stream_(stream) {}
  ~CudaMemory() override {
    cudaStreamSynchronize(stream_);
    for (void* p : blocks_)
      cudaFree(p);
  }
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) return nullptr;
    blocks_.push_back(p);
    return p;
  }
  void to_device(void* dst, const void* src, size_t bytes) override {
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_);
    cudaStreamSynchronize(stream_);  // the host copy may change right after
  }
  void to_host(void* dst, const void* src, size_t bytes) override {
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_);
    cudaStreamSynchronize(stream_);
  }

 private:
  cudaStream_t stream_;
  std::vector<void*> blocks_;
};

// A stream and a handle on it.
struct StreamHandle {
  cudaStream_t stream = nullptr;
  miopenHandle_t handle = nullptr;
  miopenStatus_t status = miopenStatusUnknownError;
  StreamHandle() {
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess)
      status = miopenCreateWithStream(&handle, stream);
  }
  ~StreamHandle() {
    if (status == miopenStatusSuccess) miopenDestroy(handle);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

TEST(CudaConcurrency, SixteenStreamHandlesOnSixteenThreadsMatchOneThread) {
  REQUIRE_GPU();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::vector<std::vector<WorkloadResult>> want(kThreads);
  {
    StreamHandle one;
    ASSERT_EQ(one.status, miopenStatusSuccess);
    CudaMemory mem(one.stream);
    for (int t = 0; t < kThreads; ++t)
      for (int r = 0; r < kRounds; ++r) {
        want[t].push_back(run_workload(one.handle, mem, workload_shape(t, r, seed),
                                       workload_data_seed(seed, t, r), false));
        ASSERT_EQ(want[t].back().error, "") << describe(workload_shape(t, r, seed));
      }
  }
  std::vector<std::vector<WorkloadResult>> got(kThreads);
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      StreamHandle mine;
      CudaMemory mem(mine.stream);
      for (int r = 0; r < kRounds; ++r) {
        start.arrive_and_wait();
        if (mine.status != miopenStatusSuccess) {
          got[t].push_back(WorkloadResult{{}, {}, "miopenCreateWithStream failed"});
          continue;
        }
        got[t].push_back(run_workload(mine.handle, mem, workload_shape(t, r, seed),
                                      workload_data_seed(seed, t, r), true));
      }
    });
  for (auto& th : threads)
    th.join();
  std::vector<WorkloadShape> shapes;
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRounds; ++r) {
      shapes.push_back(workload_shape(t, r, seed));
      SCOPED_TRACE("thread " + std::to_string(t) + " round " + std::to_string(r) + ": " +
                   describe(shapes.back()));
      ASSERT_EQ(got[t].size(), static_cast<size_t>(kRounds));
      EXPECT_EQ(got[t][r].found.size(), 3u);
      EXPECT_EQ(compare_results(want[t][r], got[t][r], kFindTolerance), "");
    }
  EXPECT_EQ(check_find_records(shapes), "");
}

TEST(CudaConcurrency, OneHandleUsedByThreadsInTurn) {
  REQUIRE_GPU();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  constexpr int kTurns = 4;
  const int round = kRounds;  // shapes the other test does not use
  StreamHandle shared;
  ASSERT_EQ(shared.status, miopenStatusSuccess);
  CudaMemory mem(shared.stream);
  std::vector<WorkloadResult> want, got(kTurns);
  for (int t = 0; t < kTurns; ++t)
    want.push_back(run_workload(shared.handle, mem, workload_shape(t, round, seed),
                                workload_data_seed(seed, t, round), false));
  // The handle and stream were made on this thread; each turn's thread starts after the last
  // one ended. A thread's current device starts as device 0: the handle makes its own current.
  for (int t = 0; t < kTurns; ++t)
    std::thread([&, t] {
      got[t] = run_workload(shared.handle, mem, workload_shape(t, round, seed),
                            workload_data_seed(seed, t, round), true);
    }).join();
  std::vector<WorkloadShape> shapes;
  for (int t = 0; t < kTurns; ++t) {
    shapes.push_back(workload_shape(t, round, seed));
    SCOPED_TRACE("turn " + std::to_string(t));
    EXPECT_EQ(compare_results(want[t], got[t], kFindTolerance), "");
  }
  EXPECT_EQ(check_find_records(shapes), "");
}

}  // namespace
}  // namespace anydnn::test
