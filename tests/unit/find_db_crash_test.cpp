// The find-db under crashes: writer processes store records into one user db while the test
// kills them with SIGKILL at random moments, over several rounds, with and without WAL: 16
// single-threaded writers, and 4 writers of 8 threads each (every thread with its own FindDb, as
// every handle has its own). Each writer thread appends a record's key to its own log only after
// store() returned with the user db still open, i.e. after SQLite committed it. Afterwards the db
// must open, pass integrity_check, hold no duplicate or partial record, and hold every
// acknowledged record (or a newer version).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "common_test_util.hpp"
#include "db/find_db.hpp"
#include "db/sqlite_db.hpp"
#include "temp_dir.hpp"

namespace anydnn {
namespace {

const std::string kDevice = "cpu-crash-1t";
constexpr int kRounds = 3;

Config crash_config(const std::string& dir, bool wal) {
  Config c;
  c.user_db_path = dir;
  c.system_db_path = "/nonexistent";
  c.find_db_wal = wal;
  return c;
}

// Version v of a record: three solvers whose times all carry v, so a mix of versions or a
// partial record is visible.
std::vector<ConvFindEntry> versioned_entries(int v) {
  return {{1, "SolverA", miopenConvolutionAlgoDirect, v + 0.25f, 0},
          {2, "SolverB", miopenConvolutionAlgoGEMM, v + 0.5f, 64},
          {3, "SolverC", miopenConvolutionAlgoWinograd, v + 0.75f, 128}};
}

// One writer thread: stores new records, and every fourth step a new version of an older one,
// forever (until its process is killed). Acknowledges "<key> <version>" after each committed store.
void write_forever(const std::string& dir, bool wal, const std::string& prefix,
                   const std::string& log) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) _exit(2);
  FindDb db(crash_config(dir, wal), kDevice);
  for (int i = 0;; ++i) {
    std::string key = prefix + std::to_string(i);
    int version = 1;
    if (i % 4 == 3) {
      key = prefix + std::to_string(i - 2);  // replace an earlier record
      version = 1 + i;
    }
    db.store(key, versioned_entries(version));
    if (!db.user_open()) _exit(3);  // store() fell back to memory: nothing committed
    const std::string line = key + " " + std::to_string(version) + "\n";
    // One write() per line: a kill lands before or after it, never inside a line that counts.
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(4);
  }
}

std::string log_name(const std::string& dir, int round, int proc, int thread) {
  return dir + "/ack_r" + std::to_string(round) + "_p" + std::to_string(proc) + "_t" +
         std::to_string(thread);
}

// A writer process of `threads` threads (forked from the single-threaded test process).
[[noreturn]] void writer(const std::string& dir, bool wal, int round, int proc, int threads) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([=] {
      write_forever(dir, wal,
                    "crash r" + std::to_string(round) + " p" + std::to_string(proc) + " t" +
                        std::to_string(t) + " i",
                    log_name(dir, round, proc, t));
    });
  write_forever(dir, wal, "crash r" + std::to_string(round) + " p" + std::to_string(proc) + " t0 i",
                log_name(dir, round, proc, 0));
  _exit(5);  // not reached
}

// Acknowledged records of one log: key -> highest acknowledged version.
void read_acks(const std::string& log, std::map<std::string, int>& acked) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = text.substr(start, nl - start);
    const size_t sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos) << line;
    const std::string key = line.substr(0, sp);
    const int v = std::stoi(line.substr(sp + 1));
    acked[key] = std::max(acked[key], v);
  }
}

void crash_rounds(bool wal, int writers, int threads) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  test::TempDir dir;
  std::map<std::string, int> acked;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> pids;
    std::vector<std::string> logs;
    for (int p = 0; p < writers; ++p) {
      for (int t = 0; t < threads; ++t)
        logs.push_back(log_name(dir.path(), round, p, t));
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) writer(dir.path(), wal, round, p, threads);
      pids.push_back(pid);
    }
    // Each writer dies at its own random moment between 30 and 600 ms into the round: some
    // while opening or creating the db, most in the middle of a transaction or a commit.
    std::vector<std::pair<int, pid_t>> kills;
    std::uniform_int_distribution<int> when(30, 600);
    for (pid_t pid : pids)
      kills.emplace_back(when(rng), pid);
    std::sort(kills.begin(), kills.end());
    const auto start = std::chrono::steady_clock::now();
    for (const auto& [ms, pid] : kills) {
      std::this_thread::sleep_until(start + std::chrono::milliseconds(ms));
      kill(pid, SIGKILL);
    }
    for (pid_t pid : pids) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      // A writer that exited by itself hit an error (3: the db fell back to memory).
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
          << "writer exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    for (const auto& log : logs)
      read_acks(log, acked);
  }
  ASSERT_GT(acked.size(), 0u) << "no writer committed anything";

  // The library opens it (quick_check at open) ...
  FindDb db(crash_config(dir.path(), wal), kDevice);
  ASSERT_TRUE(db.user_open());
  // ... and the full integrity check passes.
  SqliteDb raw(db.user_path(), true, false, 60000);
  auto check = raw.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
  auto dup = raw.prepare(
      "SELECT COUNT(*) FROM (SELECT problem, device, solver, COUNT(*) c FROM find_records GROUP "
      "BY 1, 2, 3 HAVING c > 1)");
  ASSERT_TRUE(dup.step());
  EXPECT_EQ(dup.column_int(0), 0);

  // Every stored record is whole and of one version; acknowledged ones are all there.
  std::set<std::string> problems;
  auto rows = raw.prepare("SELECT DISTINCT problem FROM find_records");
  while (rows.step())
    problems.insert(rows.column_text(0));
  EXPECT_GE(problems.size(), acked.size());
  for (const auto& problem : problems) {
    SCOPED_TRACE(problem);
    ASSERT_TRUE(problem.starts_with("crash r"));
    const auto r = db.load(problem);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->source, FindRecordSource::User);
    ASSERT_EQ(r->entries.size(), 3u);
    const int v = static_cast<int>(std::floor(r->entries[0].time_ms));
    const auto want = versioned_entries(v);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(r->entries[i].solver_name, want[i].solver_name);
      EXPECT_EQ(r->entries[i].solver_id, want[i].solver_id);
      EXPECT_EQ(r->entries[i].algorithm, want[i].algorithm);
      EXPECT_EQ(r->entries[i].time_ms, want[i].time_ms);
      EXPECT_EQ(r->entries[i].workspace_size, want[i].workspace_size);
    }
    if (const auto a = acked.find(problem); a != acked.end())
      EXPECT_GE(v, a->second) << "an acknowledged version was lost";
  }
  for (const auto& [key, version] : acked)
    EXPECT_TRUE(problems.count(key)) << "acknowledged record lost: " << key;
  std::cout << (wal ? "WAL" : "rollback journal") << ": " << kRounds << " rounds x " << writers
            << " killed writers x " << threads << " threads, " << acked.size()
            << " acknowledged records, " << problems.size() << " in the db\n";
}

TEST(FindDbCrash, SixteenKilledWriterProcessesWal) {
  crash_rounds(true, 16, 1);
}

TEST(FindDbCrash, SixteenKilledWriterProcessesRollbackJournal) {
  crash_rounds(false, 16, 1);
}

TEST(FindDbCrash, FourKilledProcessesOfEightWriterThreadsWal) {
  crash_rounds(true, 4, 8);
}

TEST(FindDbCrash, FourKilledProcessesOfEightWriterThreadsRollbackJournal) {
  crash_rounds(false, 4, 8);
}

}  // namespace
}  // namespace anydnn
