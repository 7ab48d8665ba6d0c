// gtest main for the test programs that go through the public API (and so through the find-db):
// unless MIOPEN_USER_DB_PATH is set (ctest sets it), their find-db goes to a fresh temporary
// directory, so running a test binary by hand never writes to ~/.config/miopen.
// A crash (a fatal signal) prints the test that was running and a backtrace before the process
// dies as it would have: a remote run (the GPU check) then says where, not only "SIGFPE".
#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace {

// The running test's name, kept where a signal handler can read it without allocating.
char g_current_test[512] = "(none)";

class CurrentTestRecorder : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo& info) override {
    std::snprintf(g_current_test, sizeof g_current_test, "%s.%s", info.test_suite_name(),
                  info.name());
  }
};

void write_str(const char* s) {
  // Best effort: nothing to do about a failed write while dying.
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, s, std::strlen(s));
}

// Only async-signal-safe calls (write, backtrace_symbols_fd after the warm-up in main), then
// the default action, so the exit status stays the signal's.
void on_fatal_signal(int sig) {
  write_str("\n*** fatal signal ");
  write_str(sig == SIGFPE    ? "SIGFPE"
            : sig == SIGSEGV ? "SIGSEGV"
            : sig == SIGBUS  ? "SIGBUS"
            : sig == SIGILL  ? "SIGILL"
                             : "SIGABRT");
  write_str(" in test ");
  write_str(g_current_test);
  write_str("; backtrace (addr2line -f -C -e BINARY OFFSET resolves the offsets):\n");
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scratch;
  if (std::getenv("MIOPEN_USER_DB_PATH") == nullptr) {
    scratch = (std::filesystem::temp_directory_path() / "anydnn-tests-XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) return 2;
    setenv("MIOPEN_USER_DB_PATH", scratch.c_str(), 1);
  }
  testing::InitGoogleTest(&argc, argv);
  // backtrace() loads libgcc on its first call, which is not safe inside a handler: once here.
  void* warm[1];
  backtrace(warm, 1);
  // Only where nothing else handles the signal yet: a sanitizer's own handler (ASan's SIGSEGV
  // report) stays.
  for (int sig : {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL &&
        (old.sa_flags & SA_SIGINFO) == 0)
      std::signal(sig, on_fatal_signal);
  }
  testing::UnitTest::GetInstance()->listeners().Append(new CurrentTestRecorder);
  const int rc = RUN_ALL_TESTS();
  if (!scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);
  }
  return rc;
}
