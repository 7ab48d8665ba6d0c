#include "log_replay.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

extern char** environ;

namespace anydnn::driver {

ReplayResult read_replay_output(const std::string& output, int exit_code) {
  ReplayResult r;
  r.exit_code = exit_code;
  bool failed = false, verified = false;
  double min_time = 0.0;  // batch norm prints "GPU Kernel Min Time ..." instead
  std::istringstream is(output);
  for (std::string line; std::getline(is, line);) {
    const size_t at = line.find("Elapsed: ");
    if (line.rfind("GPU Kernel Time", 0) == 0 && at != std::string::npos)
      r.time_ms += std::strtod(line.c_str() + at + 9, nullptr);
    if (line.rfind("GPU Kernel Min Time", 0) == 0 && at != std::string::npos)
      min_time += std::strtod(line.c_str() + at + 9, nullptr);
    const size_t sol = line.find("Solution: ");
    if (sol != std::string::npos) {
      std::string s = line.substr(sol + 10);
      const size_t slash = s.find('/');
      if (slash != std::string::npos) s = s.substr(slash + 1);
      r.solvers += (r.solvers.empty() ? "" : " + ") + s;
    }
    if (line.find("FAILED") != std::string::npos) failed = true;
    if (line.find("Verifies") != std::string::npos ||
        line.find("verification passed") != std::string::npos)
      verified = true;
  }
  if (r.time_ms == 0.0) r.time_ms = min_time;
  if (failed)
    r.verified = "FAILED";
  else if (exit_code != 0)
    r.verified = "error (rc " + std::to_string(exit_code) + ")";
  else
    r.verified = verified ? "yes" : "n/a";
  return r;
}

ReplayResult replay_command(const std::string& driver, const std::string& command) {
  std::vector<std::string> words = {driver};
  std::istringstream is(command);
  for (std::string w; is >> w;)
    words.push_back(w);
  for (const char* extra : {"-V", "1", "-t", "1"})
    words.emplace_back(extra);
  std::vector<char*> argv;
  for (auto& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) return read_replay_output("", -1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, driver.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    output.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  if (rc != 0) return read_replay_output("", -1);
  int status = 0;
  waitpid(pid, &status, 0);
  return read_replay_output(output, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

}  // namespace anydnn::driver
