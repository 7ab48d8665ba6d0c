#include "db/find_db.hpp"

#include <miopen/version.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/errors.hpp"
#include "core/logger.hpp"
#include "db/sqlite_db.hpp"

namespace anydnn {

namespace {

// 2 added the params column (tuned solvers' configurations); a version-1 file is migrated in
// place, its entries keeping empty params.
constexpr int kSchemaVersion = 2;
constexpr int kBusyTimeoutMs = 60000;

constexpr const char* kCreateSchema =
    "CREATE TABLE IF NOT EXISTS find_records ("
    " problem TEXT NOT NULL,"
    " device TEXT NOT NULL,"
    " solver TEXT NOT NULL,"
    " solver_id INTEGER NOT NULL,"
    " algorithm INTEGER NOT NULL,"
    " time_ms REAL NOT NULL,"
    " workspace INTEGER NOT NULL,"
    " params TEXT NOT NULL DEFAULT '',"
    " PRIMARY KEY (problem, device, solver))";
constexpr const char* kAddParams =
    "ALTER TABLE find_records ADD COLUMN params TEXT NOT NULL DEFAULT ''";

std::string default_user_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x != nullptr && *x != '\0')
    return std::string(x) + "/miopen";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.config/miopen";
  return {};
}

// Rolls back an open transaction unless it was committed.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) {
      try {
        db_.exec("ROLLBACK");
      } catch (...) {
      }
    }
  }
  void commit() {
    db_.exec("COMMIT");
    done_ = true;
  }

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace

const char* find_record_source_name(FindRecordSource s) {
  switch (s) {
    case FindRecordSource::Memory:
      return "memory";
    case FindRecordSource::User:
      return "user find-db";
    case FindRecordSource::System:
      return "system find-db";
  }
  return "?";
}

std::string FindDb::user_file_name(const std::string& device_id) {
  return device_id + ".anydnn-" + ANYDNN_VERSION_STRING + ".ufdb.sqlite";
}

std::string FindDb::system_file_name(const std::string& device_id) {
  return device_id + ".fdb.sqlite";
}

FindDb::FindDb(const Config& config, const std::string& device_id)
    : config_(config), device_(device_id) {
  if (config.find_db_disabled) return;
  user_dir_ = config.user_db_path.empty() ? default_user_dir() : config.user_db_path;
  system_dir_ =
      config.system_db_path.empty() ? std::string(ANYDNN_SYSTEM_DB_DIR) : config.system_db_path;
  if (!user_dir_.empty()) user_path_ = user_dir_ + "/" + user_file_name(device_);
}

void FindDb::open_once() {
  if (opened_ || config_.find_db_disabled) return;
  opened_ = true;
  open_user(user_dir_);
  open_system(system_dir_);
}

bool FindDb::user_open() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  return user_ != nullptr;
}

bool FindDb::system_open() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  return system_ != nullptr;
}

FindDb::~FindDb() = default;

void FindDb::disable_user(const std::string& why) {
  log_message(config_, LogLevel::Warning, "FindDb",
              "user find-db " + user_path_ + " is not usable (" + why +
                  "); Find results are kept in memory only");
  user_.reset();
}

void FindDb::open_user(const std::string& dir) {
  if (dir.empty()) return;
  try {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);  // a concurrent creator is fine
    user_ = std::make_unique<SqliteDb>(user_path_, false, config_.find_db_wal, kBusyTimeoutMs);
    {
      Transaction t(*user_);
      const int version = user_->user_version();
      if (version == 0) {
        user_->exec(kCreateSchema);
        user_->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
      } else if (version == 1) {
        user_->exec(kAddParams);
        user_->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
      } else if (version != kSchemaVersion) {
        ANYDNN_THROW(miopenStatusInternalError,
                     "schema version " << version << ", expected " << kSchemaVersion);
      }
      t.commit();
    }
    // Catches a damaged file now rather than on a later query.
    auto check = user_->prepare("PRAGMA quick_check");
    if (!check.step() || check.column_text(0) != "ok")
      ANYDNN_THROW(miopenStatusInternalError, "integrity check failed");
  } catch (const std::exception& e) {
    disable_user(e.what());
  }
}

void FindDb::open_system(const std::string& dir) {
  const std::string path = dir + "/" + system_file_name(device_);
  std::error_code ec;
  if (dir.empty() || !std::filesystem::exists(path, ec)) {
    // Absent is normal (no shipped records for this device): Info, not a warning.
    log_message(config_, LogLevel::Info, "FindDb", "no system find-db at " + path);
    return;
  }
  try {
    system_ = std::make_unique<SqliteDb>(path, true, false, kBusyTimeoutMs);
    system_params_ = system_->user_version() >= 2;
  } catch (const std::exception& e) {
    log_message(config_, LogLevel::Warning, "FindDb",
                std::string("system find-db not usable: ") + e.what());
  }
}

std::optional<std::vector<ConvFindEntry>> FindDb::query(SqliteDb& db, const std::string& problem,
                                                        bool with_params) {
  auto st = db.prepare(std::string("SELECT solver_id, solver, algorithm, time_ms, workspace, ") +
                       (with_params ? "params" : "''") +
                       " FROM find_records WHERE problem = ?1 AND device = ?2"
                       " ORDER BY time_ms, solver");
  st.bind(1, problem).bind(2, device_);
  std::vector<ConvFindEntry> out;
  while (st.step()) {
    out.push_back({static_cast<uint64_t>(st.column_int(0)), st.column_text(1),
                   static_cast<miopenConvAlgorithm_t>(st.column_int(2)),
                   static_cast<float>(st.column_double(3)), static_cast<size_t>(st.column_int(4)),
                   st.column_text(5)});
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<FindRecord> FindDb::load(const std::string& problem) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  if (const auto it = memory_.find(problem); it != memory_.end())
    return FindRecord{it->second, FindRecordSource::Memory};
  if (user_) {
    try {
      if (auto r = query(*user_, problem, true)) return FindRecord{*r, FindRecordSource::User};
    } catch (const std::exception& e) {
      disable_user(e.what());
    }
  }
  if (system_) {
    try {
      if (auto r = query(*system_, problem, system_params_))
        return FindRecord{*r, FindRecordSource::System};
    } catch (const std::exception& e) {
      log_message(config_, LogLevel::Warning, "FindDb",
                  std::string("system find-db not usable: ") + e.what());
      system_.reset();
    }
  }
  return std::nullopt;
}

void FindDb::store(const std::string& problem, std::vector<ConvFindEntry> entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  memory_[problem] = entries;
  if (!user_) return;
  try {
    // One transaction per record: concurrent writers serialise on SQLite's lock (waiting up to
    // the busy timeout), and a reader never sees half a record.
    Transaction t(*user_);
    write_user(problem, entries);
    t.commit();
  } catch (const std::exception& e) {
    disable_user(e.what());
  }
}

void FindDb::write_user(const std::string& problem, const std::vector<ConvFindEntry>& entries) {
  user_->prepare("DELETE FROM find_records WHERE problem = ?1 AND device = ?2")
      .bind(1, problem)
      .bind(2, device_)
      .step();
  auto ins = user_->prepare(
      "INSERT INTO find_records (problem, device, solver, solver_id, algorithm, time_ms,"
      " workspace, params) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (const auto& e : entries) {
    ins.bind(1, problem)
        .bind(2, device_)
        .bind(3, e.solver_name)
        .bind(4, static_cast<int64_t>(e.solver_id))
        .bind(5, static_cast<int64_t>(e.algorithm))
        .bind(6, static_cast<double>(e.time_ms))
        .bind(7, static_cast<int64_t>(e.workspace_size))
        .bind(8, e.params);
    ins.step();
    ins.reset();
  }
}

std::vector<std::pair<std::string, std::vector<ConvFindEntry>>> FindDb::user_records() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  std::vector<std::pair<std::string, std::vector<ConvFindEntry>>> out;
  if (!user_) return out;
  try {
    auto st = user_->prepare(
        "SELECT problem, solver_id, solver, algorithm, time_ms, workspace, params"
        " FROM find_records WHERE device = ?1 ORDER BY problem, time_ms, solver");
    st.bind(1, device_);
    while (st.step()) {
      std::string problem = st.column_text(0);
      if (out.empty() || out.back().first != problem) out.push_back({std::move(problem), {}});
      out.back().second.push_back({static_cast<uint64_t>(st.column_int(1)), st.column_text(2),
                                   static_cast<miopenConvAlgorithm_t>(st.column_int(3)),
                                   static_cast<float>(st.column_double(4)),
                                   static_cast<size_t>(st.column_int(5)), st.column_text(6)});
    }
  } catch (const std::exception& e) {
    disable_user(e.what());
    out.clear();
  }
  return out;
}

bool FindDb::store_if_absent(const std::string& problem, std::vector<ConvFindEntry> entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_once();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  if (memory_.count(problem) != 0) return false;  // measured by this handle
  if (!user_) {
    memory_[problem] = std::move(entries);
    return true;
  }
  try {
    // The check and the write in one transaction: a record another process writes meanwhile
    // is never replaced.
    Transaction t(*user_);
    if (query(*user_, problem, true)) return false;
    write_user(problem, entries);
    t.commit();
    return true;
  } catch (const std::exception& e) {
    disable_user(e.what());
    return false;
  }
}

}  // namespace anydnn
