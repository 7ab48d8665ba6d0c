// Replays decoded driver commands: runs `<driver> <command> -V 1 -t 1` in a child process (argv,
// no shell: the commands come from logs) and reads its time, solver and verification lines.
#pragma once

#include <string>
#include <vector>

namespace anydnn::driver {

struct ReplayResult {
  int exit_code = -1;
  double time_ms = 0.0;  // sum of the "GPU Kernel [Min ]Time ... Elapsed: X ms" lines
  std::string solvers;   // "Solution: <id>/<name>" names, joined by " + "
  std::string verified;  // "yes", "FAILED", "n/a" or "error (rc N)"
};

ReplayResult replay_command(const std::string& driver, const std::string& command);

// Reads one replay's output (exposed for tests).
ReplayResult read_replay_output(const std::string& output, int exit_code);

}  // namespace anydnn::driver
