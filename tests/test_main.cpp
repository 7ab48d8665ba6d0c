// gtest main for the test programs that go through the public API (and so through the find-db):
// unless MIOPEN_USER_DB_PATH is set (ctest sets it), their find-db goes to a fresh temporary
// directory, so running a test binary by hand never writes to ~/.config/miopen.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  std::string scratch;
  if (std::getenv("MIOPEN_USER_DB_PATH") == nullptr) {
    scratch = (std::filesystem::temp_directory_path() / "anydnn-tests-XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) return 2;
    setenv("MIOPEN_USER_DB_PATH", scratch.c_str(), 1);
  }
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  if (!scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);
  }
  return rc;
}
