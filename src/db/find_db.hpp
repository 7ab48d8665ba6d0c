// Find records: for a problem on a device, each timed solver's time and workspace. Three layers,
// searched in this order (docs/databases.md):
//   memory  - this handle's records, always on;
//   user    - SQLite file under MIOPEN_USER_DB_PATH (default ~/.config/miopen), read-write, its
//             name versioned by the library version so upgrades start clean;
//   system  - SQLite file under MIOPEN_SYSTEM_DB_PATH (default <prefix>/share/miopen/db),
//             read-only, optional.
// Any database problem (unwritable directory, corrupt file, lock timeout) logs a warning and
// leaves that layer off; Find keeps working.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"

namespace anydnn {

class SqliteDb;

struct ConvFindEntry {
  uint64_t solver_id = 0;
  std::string solver_name;
  miopenConvAlgorithm_t algorithm = miopenConvolutionAlgoGEMM;
  float time_ms = 0.0f;
  size_t workspace_size = 0;
  // A tuned solver's configuration (ConvSolver::tuned(): cuDNN's engine and knobs); empty for
  // every other solver.
  std::string params;
};

enum class FindRecordSource { Memory, User, System };
const char* find_record_source_name(FindRecordSource s);

struct FindRecord {
  std::vector<ConvFindEntry> entries;  // fastest first
  FindRecordSource source = FindRecordSource::Memory;
};

class FindDb {
 public:
  FindDb(const Config& config, const std::string& device_id);
  ~FindDb();
  FindDb(const FindDb&) = delete;
  FindDb& operator=(const FindDb&) = delete;

  std::optional<FindRecord> load(const std::string& problem);
  // Replaces the record of `problem` in memory and in the user database.
  void store(const std::string& problem, std::vector<ConvFindEntry> entries);

  // Every record of the user database for this device, by problem (entries fastest first): what
  // a process hands to others that run the same problems (anydnnFindDbExport).
  std::vector<std::pair<std::string, std::vector<ConvFindEntry>>> user_records();
  // Stores a record measured elsewhere unless this device already has one for the problem (its
  // own measurement wins); true when stored (anydnnFindDbImport).
  bool store_if_absent(const std::string& problem, std::vector<ConvFindEntry> entries);

  // Where the user database lives (empty when it is off) and whether it is open. The files are
  // opened on the first load or store, so a handle that never runs Find touches no file.
  const std::string& user_path() const { return user_path_; }
  bool user_open();
  bool system_open();

  // The file names for a device: "<device>.anydnn-<version>.ufdb.sqlite" and
  // "<device>.fdb.sqlite".
  static std::string user_file_name(const std::string& device_id);
  static std::string system_file_name(const std::string& device_id);

 private:
  void open_once();  // with mutex_ held
  void open_user(const std::string& dir);
  void open_system(const std::string& dir);
  // `with_params`: the file has schema 2's params column (a system file of schema 1 has not).
  std::optional<std::vector<ConvFindEntry>> query(SqliteDb& db, const std::string& problem,
                                                  bool with_params);
  void disable_user(const std::string& why);
  void write_user(const std::string& problem, const std::vector<ConvFindEntry>& entries);

  const Config config_;  // a copy: a FindDb may outlive the Config it was made from
  std::string device_;
  std::string user_dir_, system_dir_, user_path_;
  bool opened_ = false;
  std::mutex mutex_;
  std::map<std::string, std::vector<ConvFindEntry>> memory_;
  std::unique_ptr<SqliteDb> user_;
  std::unique_ptr<SqliteDb> system_;
  bool system_params_ = true;
};

}  // namespace anydnn
