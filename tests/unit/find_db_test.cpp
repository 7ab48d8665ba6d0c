// The find-db: layering (memory, user, system), persistence across handles and processes,
// degraded operation on corrupt or unwritable databases, and concurrent writer processes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "db/find_db.hpp"
#include "db/sqlite_db.hpp"
#include "temp_dir.hpp"

namespace anydnn {
namespace {

const std::string kDevice = "cpu-test-1t";

Config db_config(const std::string& user, const std::string& system = "/nonexistent") {
  Config c;
  c.user_db_path = user;
  c.system_db_path = system;
  return c;
}

std::vector<ConvFindEntry> entries(float gemm_ms, float direct_ms) {
  return {{2, "GemmFwdRest", miopenConvolutionAlgoGEMM, gemm_ms, 4096},
          {1, "ConvDirectNaiveConvFwd", miopenConvolutionAlgoDirect, direct_ms, 0}};
}

TEST(FindDb, StoresAndLoadsAcrossInstances) {
  test::TempDir dir;
  const Config cfg = db_config(dir.path());
  {
    FindDb db(cfg, kDevice);
    EXPECT_FALSE(db.load("p1").has_value());
    db.store("p1", entries(5.0f, 1.0f));
    const auto r = db.load("p1");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->source, FindRecordSource::Memory);
    ASSERT_EQ(r->entries.size(), 2u);
    EXPECT_EQ(r->entries[0].solver_name, "ConvDirectNaiveConvFwd");  // fastest first
    EXPECT_TRUE(db.user_open());
    EXPECT_EQ(db.user_path(), dir.path() + "/" + FindDb::user_file_name(kDevice));
  }
  FindDb again(cfg, kDevice);
  const auto r = again.load("p1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->source, FindRecordSource::User);
  EXPECT_EQ(r->entries[1].solver_id, 2u);
  EXPECT_EQ(r->entries[1].workspace_size, 4096u);
  EXPECT_FLOAT_EQ(r->entries[1].time_ms, 5.0f);
  EXPECT_FALSE(again.load("p2").has_value());
  // Another device does not see the record.
  FindDb other(cfg, "cpu-other-2t");
  EXPECT_FALSE(other.load("p1").has_value());
  // A new record replaces the old one entirely.
  again.store("p1", {{2, "GemmFwdRest", miopenConvolutionAlgoGEMM, 0.5f, 4096}});
  FindDb third(cfg, kDevice);
  ASSERT_EQ(third.load("p1")->entries.size(), 1u);
}

TEST(FindDb, UserRecordsOverrideTheReadOnlySystemDb) {
  test::TempDir build, system, user;
  {
    FindDb maker(db_config(build.path()), kDevice);
    maker.store("shipped", entries(3.0f, 9.0f));
    maker.store("both", entries(3.0f, 9.0f));
  }
  std::filesystem::rename(build.path() + "/" + FindDb::user_file_name(kDevice),
                          system.path() + "/" + FindDb::system_file_name(kDevice));
  FindDb db(db_config(user.path(), system.path()), kDevice);
  const auto shipped = db.load("shipped");
  ASSERT_TRUE(shipped);
  EXPECT_EQ(shipped->source, FindRecordSource::System);
  EXPECT_TRUE(db.system_open());
  db.store("both", entries(7.0f, 1.0f));
  FindDb fresh(db_config(user.path(), system.path()), kDevice);
  const auto both = fresh.load("both");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->source, FindRecordSource::User);
  EXPECT_EQ(both->entries[0].solver_name, "ConvDirectNaiveConvFwd");
}

TEST(FindDb, CorruptFileDegradesToMemoryWithAWarning) {
  test::TempDir dir;
  const Config cfg = db_config(dir.path());
  {
    std::ofstream garbage(dir.path() + "/" + FindDb::user_file_name(kDevice), std::ios::binary);
    for (int i = 0; i < 4096; ++i)
      garbage.put(static_cast<char>((i * 131) & 0xff));
  }
  testing::internal::CaptureStderr();
  FindDb db(cfg, kDevice);
  EXPECT_FALSE(db.load("p").has_value());
  db.store("p", entries(1.0f, 2.0f));
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("Warning [FindDb] user find-db"), std::string::npos) << log;
  EXPECT_NE(log.find("is not usable"), std::string::npos) << log;
  EXPECT_FALSE(db.user_open());
  ASSERT_TRUE(db.load("p"));  // still kept in memory
}

TEST(FindDb, UnwritableDirectoryDegradesToMemoryWithAWarning) {
  test::TempDir dir;
  const std::string blocker = dir.path() + "/file";
  std::ofstream(blocker) << "not a directory";
  testing::internal::CaptureStderr();
  FindDb db(db_config(blocker + "/db"), kDevice);
  db.store("p", entries(1.0f, 2.0f));
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("is not usable"), std::string::npos) << log;
  EXPECT_TRUE(db.load("p").has_value());
}

TEST(FindDb, ForeignSchemaVersionIsNotUsed) {
  test::TempDir dir;
  {
    SqliteDb raw(dir.path() + "/" + FindDb::user_file_name(kDevice), false, true, 1000);
    raw.exec("PRAGMA user_version = 99");
  }
  testing::internal::CaptureStderr();
  FindDb db(db_config(dir.path()), kDevice);
  EXPECT_FALSE(db.user_open());
  EXPECT_NE(testing::internal::GetCapturedStderr().find("schema version 99"), std::string::npos);
}

// A tuned solver's configuration (ConvFindEntry::params, cuDNN's engine name) survives the user
// db and a new instance; untuned entries keep empty params.
TEST(FindDb, TunedParamsPersist) {
  test::TempDir dir;
  const Config cfg = db_config(dir.path());
  auto e = entries(2.0f, 3.0f);
  e.push_back(
      {140, "CudnnConvFwd", miopenConvolutionAlgoImplicitGEMM, 1.0f, 8192, "eng63_k12=8_k17=2"});
  FindDb(cfg, kDevice).store("p1", e);
  const auto r = FindDb(cfg, kDevice).load("p1");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries.size(), 3u);
  EXPECT_EQ(r->entries[0].solver_name, "CudnnConvFwd");
  EXPECT_EQ(r->entries[0].params, "eng63_k12=8_k17=2");
  EXPECT_EQ(r->entries[0].workspace_size, 8192u);
  EXPECT_EQ(r->entries[1].params, "");
  // The records handed between processes carry them too.
  FindDb db(cfg, kDevice);
  const auto records = db.user_records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].second[0].params, "eng63_k12=8_k17=2");
}

// A user db of schema 1 (before params) is migrated in place: its records stay, with empty
// params, and new records keep theirs.
TEST(FindDb, SchemaOneFileIsMigrated) {
  test::TempDir dir;
  {
    SqliteDb raw(dir.path() + "/" + FindDb::user_file_name(kDevice), false, true, 1000);
    raw.exec(
        "CREATE TABLE find_records (problem TEXT NOT NULL, device TEXT NOT NULL,"
        " solver TEXT NOT NULL, solver_id INTEGER NOT NULL, algorithm INTEGER NOT NULL,"
        " time_ms REAL NOT NULL, workspace INTEGER NOT NULL,"
        " PRIMARY KEY (problem, device, solver))");
    raw.exec("INSERT INTO find_records VALUES ('old', '" + kDevice +
             "', 'GemmFwdRest', 2, 0, 1.5, 64)");
    raw.exec("PRAGMA user_version = 1");
  }
  FindDb db(db_config(dir.path()), kDevice);
  const auto old = db.load("old");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->source, FindRecordSource::User);
  ASSERT_EQ(old->entries.size(), 1u);
  EXPECT_EQ(old->entries[0].solver_name, "GemmFwdRest");
  EXPECT_EQ(old->entries[0].params, "");
  db.store("new", {{141, "CudnnConvBwd", miopenConvolutionAlgoImplicitGEMM, 1.0f, 0, "eng1"}});
  const auto fresh = FindDb(db_config(dir.path()), kDevice).load("new");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->entries[0].params, "eng1");
  SqliteDb raw(dir.path() + "/" + FindDb::user_file_name(kDevice), true, false, 1000);
  EXPECT_EQ(raw.user_version(), 2);
}

TEST(FindDb, DisabledMeansMemoryOnly) {
  test::TempDir dir;
  Config cfg = db_config(dir.path());
  cfg.find_db_disabled = true;
  FindDb db(cfg, kDevice);
  db.store("p", entries(1.0f, 2.0f));
  EXPECT_TRUE(db.load("p").has_value());
  EXPECT_FALSE(db.user_open());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// Eight MIOpenDriver processes run Find at the same time (every direction, on seven distinct
// problems plus one repeated) into one user db; afterwards the db passes SQLite's integrity
// check and holds every problem's record.
TEST(FindDb, EightConcurrentWriterProcesses) {
  test::TempDir dir;
  std::string script = "cd '" + dir.path() + "'; export MIOPEN_USER_DB_PATH='" + dir.path() +
                       "' MIOPEN_FIND_MODE=NORMAL; ";
  std::set<std::string> expected;
  for (int i = 0; i < 8; ++i) {
    const int n = 1 + (i % 7);  // i = 7 repeats i = 0's problem
    script += "'" + std::string(ANYDNN_DRIVER_PATH) + "' conv -n " + std::to_string(n) +
              " -c 4 -H 10 -W 10 -k 6 -y 3 -x 3 -p 1 -q 1 -F 0 -V 0 -i 1 > out" +
              std::to_string(i) + ".txt 2>&1 & ";
    for (int f : {1, 2, 4})
      expected.insert("conv -n " + std::to_string(n) +
                      " -c 4 -H 10 -W 10 -k 6 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv "
                      "-g 1 -F " +
                      std::to_string(f));
  }
  script += "wait";
  ASSERT_EQ(std::system(("bash -c \"" + script + "\"").c_str()), 0);
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().string().ends_with(".ufdb.sqlite")) file = e.path().string();
  ASSERT_FALSE(file.empty()) << "no user db written";
  SqliteDb raw(file, true, false, 60000);
  auto check = raw.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
  std::set<std::string> found;
  auto rows = raw.prepare("SELECT DISTINCT problem FROM find_records");
  while (rows.step())
    found.insert(rows.column_text(0));
  EXPECT_EQ(found, expected);
  auto dup = raw.prepare(
      "SELECT COUNT(*) FROM (SELECT problem, device, solver, COUNT(*) c FROM find_records GROUP "
      "BY 1, 2, 3 HAVING c > 1)");
  ASSERT_TRUE(dup.step());
  EXPECT_EQ(dup.column_int(0), 0);
}

}  // namespace
}  // namespace anydnn
