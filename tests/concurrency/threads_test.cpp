// Many threads through the public C API (docs/reliability.md, "Threads"):
//  - 16 threads, each with its own handle, run convolution Find and every immediate-mode solution
//    in three directions, batch norm, an LSTM and dropout on problems of their own, all at once,
//    for several rounds, sharing the user find-db and the log. Outputs of a fixed solver equal
//    a single-threaded run of the same work bit for bit; Find's choice agrees within rounding;
//    afterwards every Find's record is in the db, whole; no log line is torn.
//  - One handle used by several threads in turn (MIOpen's handle is not thread-safe, but nothing
//    ties it to the thread that created it): created on one thread, used on others one after
//    another, destroyed on the last; the same results.
// The executable's main (concurrency_main.cpp) points the user find-db at a fresh directory and
// turns logging on before any handle exists.
#include <gtest/gtest.h>
#include <miopen/miopen.h>
#include <unistd.h>

#include <barrier>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common_test_util.hpp"
#include "concurrency/workload.hpp"
#include "core/config.hpp"

namespace anydnn::test {
namespace {

constexpr int kThreads = 16;
constexpr int kRounds = 3;

// Sends stderr to a file while alive (the 16 threads' logs), so the lines can be checked.
class StderrToFile {
 public:
  explicit StderrToFile(const std::string& path) : path_(path) {
    std::fflush(stderr);
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return;  // nothing captured: the log check then fails on an empty file
    saved_ = dup(2);
    dup2(fileno(f), 2);
    std::fclose(f);
  }
  ~StderrToFile() { restore(); }
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }

 private:
  std::string path_;
  int saved_ = -1;
};

// Each line is one whole log line: "[pid:tid] MIOpen(CPU|CUDA)[...]: ..." or an API-trace
// continuation the logger printed with the same prefix. Returns the number of lines.
size_t expect_whole_log_lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const bool prefixed = line.starts_with("MIOpen(") ||
                          (line.starts_with("[") && line.find("] MIOpen(") != std::string::npos);
    EXPECT_TRUE(prefixed) << "torn or foreign log line " << n << ": " << line;
    if (!prefixed) break;
  }
  return n;
}

TEST(Concurrency, SixteenHandlesOnSixteenThreadsMatchOneThread) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));

  // The single-threaded answer: one handle, every (thread, round) workload in turn, no Find.
  std::vector<std::vector<WorkloadResult>> want(kThreads);
  {
    StderrToFile quiet(process_config().user_db_path + "/baseline.log");
    miopenHandle_t h = nullptr;
    ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
    HostMemory mem;
    for (int t = 0; t < kThreads; ++t)
      for (int r = 0; r < kRounds; ++r) {
        want[t].push_back(run_workload(h, mem, workload_shape(t, r, seed),
                                       workload_data_seed(seed, t, r), false));
        ASSERT_EQ(want[t].back().error, "") << describe(workload_shape(t, r, seed));
      }
    miopenDestroy(h);
  }

  // 16 threads, a handle each, starting every round together.
  std::vector<std::vector<WorkloadResult>> got(kThreads);
  std::barrier start(kThreads);
  const std::string log_path = process_config().user_db_path + "/threads.log";
  {
    StderrToFile capture(log_path);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        miopenHandle_t h = nullptr;
        const miopenStatus_t st = miopenCreate(&h);
        HostMemory mem;
        for (int r = 0; r < kRounds; ++r) {
          start.arrive_and_wait();
          if (st != miopenStatusSuccess) {
            got[t].push_back(WorkloadResult{{}, {}, "miopenCreate failed"});
            continue;
          }
          got[t].push_back(run_workload(h, mem, workload_shape(t, r, seed),
                                        workload_data_seed(seed, t, r), true));
        }
        if (st == miopenStatusSuccess) miopenDestroy(h);
      });
    for (auto& th : threads)
      th.join();
  }

  std::vector<WorkloadShape> shapes;
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRounds; ++r) {
      const WorkloadShape s = workload_shape(t, r, seed);
      shapes.push_back(s);
      SCOPED_TRACE("thread " + std::to_string(t) + " round " + std::to_string(r) + ": " +
                   describe(s));
      ASSERT_EQ(got[t].size(), static_cast<size_t>(kRounds));
      EXPECT_EQ(got[t][r].found.size(), 3u) << "Find ran in every direction";
      EXPECT_EQ(compare_results(want[t][r], got[t][r], kFindTolerance), "");
    }
  EXPECT_EQ(check_find_records(shapes), "");
  const size_t lines = expect_whole_log_lines(log_path);
  // Logging is on (concurrency_main.cpp): every call logged something.
  EXPECT_GT(lines, static_cast<size_t>(kThreads * kRounds));
  std::cout << kThreads << " threads x " << kRounds << " rounds: " << shapes.size() * 3
            << " Find records, " << want[0][0].exact.size() << "+ outputs per workload compared, "
            << lines << " log lines\n";
}

TEST(Concurrency, OneHandleUsedByThreadsInTurn) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  constexpr int kTurns = 6;
  const int round = kRounds;  // shapes no other test of this process uses
  std::vector<WorkloadResult> want;
  StderrToFile quiet(process_config().user_db_path + "/turns.log");
  {
    miopenHandle_t h = nullptr;
    ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
    HostMemory mem;
    for (int t = 0; t < kTurns; ++t)
      want.push_back(run_workload(h, mem, workload_shape(t, round, seed),
                                  workload_data_seed(seed, t, round), false));
    miopenDestroy(h);
  }
  // Created on this thread, used by kTurns threads one after another (each joined before the
  // next starts), destroyed by the last one.
  miopenHandle_t shared = nullptr;
  ASSERT_EQ(miopenCreate(&shared), miopenStatusSuccess);
  std::vector<WorkloadResult> got(kTurns);
  miopenStatus_t destroyed = miopenStatusUnknownError;
  HostMemory mem;
  for (int t = 0; t < kTurns; ++t) {
    std::thread([&, t] {
      got[t] = run_workload(shared, mem, workload_shape(t, round, seed),
                            workload_data_seed(seed, t, round), true);
      if (t == kTurns - 1) destroyed = miopenDestroy(shared);
    }).join();
  }
  EXPECT_EQ(destroyed, miopenStatusSuccess);
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
