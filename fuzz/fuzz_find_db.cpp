// The find-db with hostile content (docs/databases.md: a database that cannot be opened, checked
// or queried logs a warning and is left off; Find keeps working). Two input shapes:
//  - raw: input starting with "SQLite" is written verbatim as the user db file (seeds: real
//    find-db files and truncated / garbled copies; libFuzzer's mutations of a binary SQLite file
//    are mostly "file is not a database", hence the second shape);
//  - records: a well-formed SQLite file built through the sqlite3 API from the bytes: schema
//    (usually anydnn's), user_version, and rows with keys of real problems, real or garbage
//    solver names and ids, any algorithm, time (NaN, huge, negative), workspace, and values of
//    the wrong SQLite type.
// Then a handle runs Find (HYBRID: it trusts a record that applies), the legacy run call, the
// immediate-mode listing and run on three tiny problems, and FindDb's load / store directly.
#include <miopen/miopen.h>
#include <sqlite3.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "db/find_db.hpp"
#include "fuzz_common.hpp"

namespace fs = std::filesystem;

namespace {

struct Problem {
  std::array<int, 4> x, w;
  int pad;
};
// Three tiny problems, one record each in the seed db (learned at start-up).
constexpr std::array<Problem, 3> kProblems = {{
    {{1, 2, 5, 5}, {2, 2, 3, 3}, 1},
    {{2, 1, 4, 4}, {1, 1, 1, 1}, 0},
    {{1, 3, 6, 6}, {4, 3, 3, 3}, 0},
}};

std::string g_dir;                    // the user db directory (MIOPEN_USER_DB_PATH)
std::string g_device;                 // the CPU device id, as the db spells it
std::vector<std::string> g_problems;  // network configs, from the db
std::vector<std::pair<std::string, int64_t>> g_solvers;  // (name, id) seen in the db

std::string db_path() {
  return g_dir + "/" + anydnn::FindDb::user_file_name(g_device);
}

void remove_db() {
  for (const char* sfx : {"", "-wal", "-shm", "-journal"})
    fs::remove(db_path() + sfx);
}

struct Tensor {
  miopenTensorDescriptor_t desc = nullptr;
  std::vector<float> data;
  explicit Tensor(const std::array<int, 4>& l) {
    miopenCreateTensorDescriptor(&desc);
    miopenSet4dTensorDescriptor(desc, miopenFloat, l[0], l[1], l[2], l[3]);
    data.assign(static_cast<size_t>(l[0] * l[1] * l[2] * l[3]), 0.5f);
  }
  ~Tensor() { miopenDestroyTensorDescriptor(desc); }
};

// Find, run what Find chose, list immediate-mode solutions and run one, on one tiny problem.
void run_problem(miopenHandle_t h, const Problem& pr, size_t ws_claim, bool immediate) {
  miopenConvolutionDescriptor_t conv;
  miopenCreateConvolutionDescriptor(&conv);
  miopenInitConvolutionDescriptor(conv, miopenConvolution, pr.pad, pr.pad, 1, 1, 1, 1);
  Tensor x(pr.x), w(pr.w);
  std::array<int, 4> yl{};
  miopenGetConvolutionForwardOutputDim(conv, x.desc, w.desc, &yl[0], &yl[1], &yl[2], &yl[3]);
  Tensor y(yl);
  std::vector<uint8_t> ws(ws_claim);
  std::array<miopenConvAlgoPerf_t, 8> perf{};
  int returned = 0;
  if (miopenFindConvolutionForwardAlgorithm(h, x.desc, x.data.data(), w.desc, w.data.data(), conv,
                                            y.desc, y.data.data(), 8, &returned, perf.data(),
                                            ws.data(), ws.size(), false) == miopenStatusSuccess) {
    const float alpha = 1.0f, beta = 0.0f;
    for (int i = 0; i < returned && i < 8; ++i)
      miopenConvolutionForward(h, &alpha, x.desc, x.data.data(), w.desc, w.data.data(), conv,
                               perf[i].fwd_algo, &beta, y.desc, y.data.data(), ws.data(),
                               ws.size());
  }
  if (immediate) {
    std::array<miopenConvSolution_t, 32> sols{};
    size_t n = 0;
    if (miopenConvolutionForwardGetSolution(h, w.desc, x.desc, conv, y.desc, sols.size(), &n,
                                            sols.data()) == miopenStatusSuccess) {
      for (size_t i = 0; i < n && i < sols.size(); ++i) {
        // The caller trusts the listed workspace size when it is reasonable.
        std::vector<uint8_t> sws(std::min<size_t>(sols[i].workspace_size, 1 << 22));
        miopenConvolutionForwardImmediate(h, w.desc, w.data.data(), x.desc, x.data.data(), conv,
                                          y.desc, y.data.data(), sws.data(), sws.size(),
                                          sols[i].solution_id);
      }
    }
  }
  miopenDestroyConvolutionDescriptor(conv);
}

void run_handle(FuzzedDataProvider& fdp) {
  miopenHandle_t h = nullptr;
  if (miopenCreate(&h) != miopenStatusSuccess) return;
  const int runs = fdp.ConsumeIntegralInRange(1, 3);
  for (int i = 0; i < runs; ++i) {
    const auto& pr = kProblems[fdp.ConsumeIntegralInRange<size_t>(0, kProblems.size() - 1)];
    run_problem(h, pr, fdp.ConsumeBool() ? 1 << 16 : fdp.ConsumeIntegralInRange<size_t>(0, 4096),
                fdp.ConsumeBool());
  }
  miopenDestroy(h);
}

void direct_find_db(FuzzedDataProvider& fdp) {
  anydnn::Config cfg = anydnn::Config::from_environment(nullptr);
  cfg.user_db_path = g_dir;
  anydnn::FindDb db(cfg, g_device);
  for (const auto& p : g_problems)
    db.load(p);
  if (fdp.ConsumeBool()) {
    std::vector<anydnn::ConvFindEntry> entries(fdp.ConsumeIntegralInRange(0, 3));
    for (auto& e : entries) {
      e.solver_id = fdp.ConsumeIntegral<uint64_t>();
      e.solver_name = fdp.ConsumeRandomLengthString(32);
      e.algorithm = static_cast<miopenConvAlgorithm_t>(fdp.ConsumeIntegralInRange(0, 5));
      e.time_ms = fdp.ConsumeFloatingPoint<float>();
      e.workspace_size = fdp.ConsumeIntegral<size_t>();
    }
    const std::string key =
        g_problems.empty() || fdp.ConsumeBool()
            ? fdp.ConsumeRandomLengthString(64)
            : g_problems[fdp.ConsumeIntegralInRange<size_t>(0, g_problems.size() - 1)];
    db.store(key, entries);
    db.load(key);
  }
  db.user_open();
  db.system_open();
}

void bind_value(FuzzedDataProvider& fdp, sqlite3_stmt* st, int col, int64_t good) {
  switch (fdp.ConsumeIntegralInRange(0, 9)) {
    case 0:
      sqlite3_bind_int64(st, col, fdp.ConsumeIntegral<int64_t>());
      break;
    case 1:
      sqlite3_bind_double(st, col, fdp.ConsumeFloatingPoint<double>());
      break;
    case 2: {
      const std::string s = fdp.ConsumeRandomLengthString(16);
      sqlite3_bind_text(st, col, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      break;
    }
    case 3:
      sqlite3_bind_null(st, col);
      break;
    case 4:
      sqlite3_bind_int64(st, col, fdp.ConsumeIntegralInRange<int64_t>(-2, 16));
      break;
    default:
      sqlite3_bind_int64(st, col, good);
      break;
  }
}

// A well-formed SQLite file with rows from the bytes.
void write_record_db(FuzzedDataProvider& fdp) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path().c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return;
  }
  static constexpr std::array<const char*, 4> kSchemas = {
      // anydnn's own
      "CREATE TABLE find_records (problem TEXT NOT NULL, device TEXT NOT NULL, solver TEXT NOT "
      "NULL, solver_id INTEGER NOT NULL, algorithm INTEGER NOT NULL, time_ms REAL NOT NULL, "
      "workspace INTEGER NOT NULL, PRIMARY KEY (problem, device, solver))",
      // no constraints (NULLs and duplicates possible)
      "CREATE TABLE find_records (problem, device, solver, solver_id, algorithm, time_ms, "
      "workspace)",
      // a column missing
      "CREATE TABLE find_records (problem TEXT, device TEXT, solver TEXT, solver_id INTEGER, "
      "time_ms REAL, workspace INTEGER)",
      // another table only
      "CREATE TABLE other (a, b)",
  };
  const size_t schema = fdp.ConsumeIntegralInRange<size_t>(0, 7);
  sqlite3_exec(db, kSchemas[schema < 4 ? (schema < 2 ? schema : 0) : schema - 4], nullptr, nullptr,
               nullptr);
  const int version = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(-1, 3) : 1;
  sqlite3_exec(db, ("PRAGMA user_version = " + std::to_string(version)).c_str(), nullptr, nullptr,
               nullptr);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db,
                         "INSERT OR REPLACE INTO find_records (problem, device, solver, solver_id,"
                         " algorithm, time_ms, workspace) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         -1, &st, nullptr) == SQLITE_OK) {
    const int rows = fdp.ConsumeIntegralInRange(0, 12);
    for (int r = 0; r < rows && fdp.remaining_bytes() > 0; ++r) {
      std::string problem =
          g_problems.empty() || fdp.ConsumeIntegralInRange(0, 7) == 0
              ? fdp.ConsumeRandomLengthString(64)
              : g_problems[fdp.ConsumeIntegralInRange<size_t>(0, g_problems.size() - 1)];
      const std::string device =
          fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeRandomLengthString(16) : g_device;
      std::pair<std::string, int64_t> solver = {fdp.ConsumeRandomLengthString(24),
                                                fdp.ConsumeIntegralInRange<int64_t>(0, 40)};
      if (!g_solvers.empty() && fdp.ConsumeIntegralInRange(0, 3) != 0)
        solver = g_solvers[fdp.ConsumeIntegralInRange<size_t>(0, g_solvers.size() - 1)];
      sqlite3_bind_text(st, 1, problem.c_str(), static_cast<int>(problem.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 2, device.c_str(), static_cast<int>(device.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 3, solver.first.c_str(), static_cast<int>(solver.first.size()),
                        SQLITE_TRANSIENT);
      bind_value(fdp, st, 4, solver.second);
      bind_value(fdp, st, 5, fdp.ConsumeIntegralInRange<int64_t>(0, 5));
      if (fdp.ConsumeBool())
        sqlite3_bind_double(st, 6,
                            fdp.ConsumeBool() ? fdp.ConsumeFloatingPointInRange(0.0, 10.0)
                                              : fdp.ConsumeFloatingPoint<double>());
      else
        bind_value(fdp, st, 6, 1);
      bind_value(fdp, st, 7,
                 fdp.ConsumeBool() ? 0 : fdp.ConsumeIntegralInRange<int64_t>(0, 1 << 20));
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
  }
  if (fdp.ConsumeIntegralInRange(0, 7) == 0)
    sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

// Reads back the problem keys and solvers a real Find stored (the seed db's content).
void learn_from_db() {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT problem FROM find_records", -1, &st, nullptr) ==
        SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW)
        g_problems.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
      sqlite3_finalize(st);
    }
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT solver, solver_id FROM find_records", -1, &st,
                           nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW)
        g_solvers.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                               sqlite3_column_int64(st, 1));
      sqlite3_finalize(st);
    }
  }
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A private directory on tmpfs when there is one: every input rewrites the file and SQLite
  // syncs on each commit.
  const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  g_dir = (base / ("anydnn-fuzz-find-db-" + std::to_string(getpid()))).string();
  fs::remove_all(g_dir);
  fs::create_directories(g_dir);
  setenv("MIOPEN_USER_DB_PATH", g_dir.c_str(), 1);
  setenv("MIOPEN_FIND_MODE", "HYBRID", 1);
  anydnn::fuzz::setup_environment(/*log_api_calls=*/false);
  // The device id and the real records: one Find per problem into an empty db.
  miopenHandle_t h = nullptr;
  miopenCreate(&h);
  for (const auto& pr : kProblems)
    run_problem(h, pr, 1 << 16, false);
  miopenDestroy(h);
  for (const auto& e : fs::directory_iterator(g_dir)) {
    const std::string name = e.path().filename().string();
    const size_t at = name.find(".anydnn-");
    if (at != std::string::npos && name == anydnn::FindDb::user_file_name(name.substr(0, at)))
      g_device = name.substr(0, at);
  }
  if (g_device.empty()) {
    fprintf(stderr, "fuzz_find_db: Find wrote no user db under %s\n", g_dir.c_str());
    abort();
  }
  learn_from_db();
  // ANYDNN_FUZZ_WRITE_SEED=<file>: save the real db (with the "SQLite" header it starts with,
  // it is a raw-mode seed) for the checked-in corpus.
  if (const char* out = getenv("ANYDNN_FUZZ_WRITE_SEED"))
    fs::copy_file(db_path(), out, fs::copy_options::overwrite_existing);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  remove_db();
  FuzzedDataProvider fdp(data, size);
  if (size >= 6 && std::memcmp(data, "SQLite", 6) == 0) {
    std::ofstream(db_path(), std::ios::binary)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    // Choices for the run come from the file's tail bytes (FuzzedDataProvider reads from the
    // end), which are mostly zero in a real db: the default path.
  } else {
    write_record_db(fdp);
  }
  if (fdp.ConsumeBool()) direct_find_db(fdp);
  run_handle(fdp);
  remove_db();
  return 0;
}
