// gtest main of anydnn_concurrency_tests. Before any handle reads the process configuration:
// the user find-db goes to a fresh directory (the threads test checks that every Find of its
// threads left its record there, so no earlier run may have left them), and logging is on with
// the process and thread id in every line (the threads test checks that 16 threads' lines never
// tear). The find-db tests in this program pass explicit configurations and are unaffected.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  std::string scratch = (std::filesystem::temp_directory_path() / "anydnn-conc-XXXXXX").string();
  if (mkdtemp(scratch.data()) == nullptr) return 2;
  setenv("MIOPEN_USER_DB_PATH", scratch.c_str(), 1);
  setenv("MIOPEN_LOG_LEVEL", "5", 1);
  setenv("MIOPEN_ENABLE_LOGGING", "1", 1);
  setenv("MIOPEN_ENABLE_LOGGING_CMD", "1", 1);
  setenv("MIOPEN_ENABLE_LOGGING_MPMT", "1", 1);
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return rc;
}
