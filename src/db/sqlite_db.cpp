#include "db/sqlite_db.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/errors.hpp"

namespace anydnn {

namespace {
[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  ANYDNN_THROW(miopenStatusInternalError,
               what << ": " << (db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
}
}  // namespace

SqliteDb::SqliteDb(const std::string& path, bool read_only, bool wal, int busy_timeout_ms)
    : path_(path) {
  const int flags =
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
      SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    ANYDNN_THROW(miopenStatusInternalError, "cannot open " << path << ": " << msg);
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  if (!read_only && wal) {
    try {
      enable_wal(busy_timeout_ms);
    } catch (...) {
      sqlite3_close_v2(db_);  // a throwing constructor runs no destructor
      db_ = nullptr;
      throw;
    }
  }
}

// Switching to WAL needs an exclusive lock, and SQLite answers "database is locked" at once,
// without its busy handler, when another connection holds the file (many handles opening one
// db together: the 4 processes x 8 threads crash test saw it). The mode is stored in the file,
// so once any connection has switched it, it is WAL for everyone: read it first, and retry the
// switch with a growing pause until the busy timeout has passed.
void SqliteDb::enable_wal(int busy_timeout_ms) {
  const auto mode = [&] {
    auto st = prepare("PRAGMA journal_mode");  // a read: waits through the busy handler
    return st.step() ? st.column_text(0) : std::string();
  };
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(busy_timeout_ms, 0));
  for (int pause_ms = 1;; pause_ms = std::min(pause_ms * 2, 50)) {
    if (mode() == "wal") return;
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, &err);
    const std::string msg = err != nullptr ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
      ANYDNN_THROW(miopenStatusInternalError, path_ << ": PRAGMA journal_mode=WAL: " << msg);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
}

// close_v2 defers the close until any statement still alive is finalized, so nothing leaks.
SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

void SqliteDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    ANYDNN_THROW(miopenStatusInternalError, path_ << ": " << sql << ": " << msg);
  }
}

SqliteStatement SqliteDb::prepare(const std::string& sql) {
  return SqliteStatement(db_, sql);
}

int SqliteDb::user_version() {
  auto st = prepare("PRAGMA user_version");
  return st.step() ? static_cast<int>(st.column_int(0)) : 0;
}

SqliteStatement::SqliteStatement(sqlite3* db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    fail(db, "cannot prepare '" + sql + "'");
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int index, const std::string& v) {
  if (sqlite3_bind_text(stmt_, index, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK)
    fail(db_, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, int64_t v) {
  if (sqlite3_bind_int64(stmt_, index, v) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double v) {
  if (sqlite3_bind_double(stmt_, index, v) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "step");
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::column_int(int i) {
  return sqlite3_column_int64(stmt_, i);
}
double SqliteStatement::column_double(int i) {
  return sqlite3_column_double(stmt_, i);
}
std::string SqliteStatement::column_text(int i) {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t != nullptr ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace anydnn
