// A small RAII wrapper over the SQLite C API: one connection, prepared statements, and errors as
// exceptions (anydnn::Error with InternalError) that callers turn into warnings.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace anydnn {

class SqliteStatement;

class SqliteDb {
 public:
  // Opens `path`; read_only opens an existing file without creating it. Sets a busy timeout so
  // concurrent writers wait instead of failing, and WAL journaling unless `wal` is false.
  SqliteDb(const std::string& path, bool read_only, bool wal, int busy_timeout_ms);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(const std::string& sql);
  SqliteStatement prepare(const std::string& sql);
  int user_version();
  sqlite3* raw() { return db_; }

 private:
  void enable_wal(int busy_timeout_ms);
  sqlite3* db_ = nullptr;
  std::string path_;
};

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, const std::string& v);
  SqliteStatement& bind(int index, int64_t v);
  SqliteStatement& bind(int index, double v);
  // Advances: true while a row is available; false when done.
  bool step();
  void reset();
  int64_t column_int(int i);
  double column_double(int i);
  std::string column_text(int i);

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace anydnn
