#include "core/logger.hpp"

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <mutex>

namespace anydnn {

namespace {

// The one piece of process-wide mutable state in the library: the stderr sink. It serialises
// lines from concurrent threads (a line is never interleaved with another) and remembers
// when the previous line was written for MIOPEN_ENABLE_LOGGING_ELAPSED_TIME.
class Sink {
 public:
  static Sink& instance() {
    static Sink sink;
    return sink;
  }

  double elapsed_ms_and_reset() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

  std::mutex& mutex() { return mutex_; }

 private:
  Sink() : last_(std::chrono::steady_clock::now()) {}
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_;
};

const char* backend_tag(const Config& config) {
  return config.backend == BackendKind::Cuda ? "MIOpen(CUDA)" : "MIOpen(CPU)";
}

std::string prefix_locked(const Config& config, Sink& sink) {
  std::ostringstream ss;
  if (config.log_process_thread_id) {
    ss << '[' << ::getpid() << ':' << std::hex << "0x"
       << static_cast<unsigned long>(::pthread_self()) << std::dec << "] ";
  }
  ss << backend_tag(config);
  if (config.log_elapsed_time) {
    ss << std::fixed << std::setprecision(3) << std::setw(8) << sink.elapsed_ms_and_reset();
  }
  ss << ": ";
  return ss.str();
}

void write_locked(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string log_prefix(const Config& config) {
  Sink& sink = Sink::instance();
  std::lock_guard<std::mutex> lock(sink.mutex());
  return prefix_locked(config, sink);
}

void log_message(const Config& config, LogLevel level, std::string_view function,
                 std::string_view text) {
  if (!is_logging(config, level)) return;
  Sink& sink = Sink::instance();
  std::lock_guard<std::mutex> lock(sink.mutex());
  std::string line = prefix_locked(config, sink);
  line += log_level_name(level);
  line += " [";
  line += function;
  line += "] ";
  line += text;
  line += '\n';
  write_locked(line);
}

void log_block(const Config& config, std::string_view lines) {
  Sink& sink = Sink::instance();
  std::lock_guard<std::mutex> lock(sink.mutex());
  std::string out;
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string_view::npos) end = lines.size();
    out += prefix_locked(config, sink);
    out += lines.substr(start, end - start);
    out += '\n';
    start = end + 1;
  }
  write_locked(out);
}

void log_driver_command(const Config& config, std::string_view function, std::string_view args) {
  if (!config.log_driver_commands) return;
  Sink& sink = Sink::instance();
  std::lock_guard<std::mutex> lock(sink.mutex());
  std::string line = prefix_locked(config, sink);
  line += "Command [";
  line += function;
  line += "] ./bin/MIOpenDriver ";
  line += args;
  line += '\n';
  write_locked(line);
}

}  // namespace anydnn
