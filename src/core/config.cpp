#include "core/config.hpp"

#include "core/logger.hpp"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace anydnn {

namespace {

std::optional<std::string> getenv_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

void read_bool(const char* name, bool& out, std::string* warnings) {
  const auto v = getenv_string(name);
  if (!v) return;
  if (const auto b = parse_env_bool(*v)) {
    out = *b;
  } else if (warnings != nullptr) {
    *warnings += std::string("ignoring ") + name + "='" + *v + "': not a boolean\n";
  }
}

std::optional<long> parse_long(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

std::optional<bool> parse_env_bool(const std::string& value) {
  const std::string v = lower(value);
  if (v == "1" || v == "on" || v == "yes" || v == "true" || v == "enable" || v == "enabled")
    return true;
  if (v == "0" || v == "off" || v == "no" || v == "false" || v == "disable" || v == "disabled")
    return false;
  return std::nullopt;
}

Config Config::from_environment(std::string* warnings) {
  Config c;
  read_bool("MIOPEN_ENABLE_LOGGING", c.log_api_calls, warnings);
  read_bool("MIOPEN_ENABLE_LOGGING_CMD", c.log_driver_commands, warnings);
  read_bool("MIOPEN_ENABLE_LOGGING_MPMT", c.log_process_thread_id, warnings);
  read_bool("MIOPEN_ENABLE_LOGGING_ELAPSED_TIME", c.log_elapsed_time, warnings);

  if (const auto v = getenv_string("MIOPEN_LOG_LEVEL")) {
    const auto n = parse_long(*v);
    if (n && *n >= 0 && *n <= 7) {
      // 0 means "default", which is Warning in a release build (as in MIOpen).
      c.log_level = *n == 0 ? LogLevel::Warning : static_cast<LogLevel>(*n);
    } else if (warnings != nullptr) {
      *warnings += "ignoring MIOPEN_LOG_LEVEL='" + *v + "': expected 0..7\n";
    }
  }

  if (const auto v = getenv_string("MIOPEN_BACKEND")) {
    const std::string b = lower(*v);
    if (b == "cpu") {
      c.backend = BackendKind::Cpu;
      c.backend_from_env = true;
    } else if (b == "cuda") {
      c.backend = BackendKind::Cuda;
      c.backend_from_env = true;
    } else if (warnings != nullptr) {
      *warnings += "ignoring MIOPEN_BACKEND='" + *v + "': expected cpu or cuda\n";
    }
  }

  c.num_threads = std::max(1, omp_get_max_threads());
  if (const auto v = getenv_string("ANYDNN_NUM_THREADS")) {
    const auto n = parse_long(*v);
    if (n && *n >= 1 && *n <= 4096) {
      c.num_threads = static_cast<int>(*n);
    } else if (warnings != nullptr) {
      *warnings += "ignoring ANYDNN_NUM_THREADS='" + *v + "': expected 1..4096\n";
    }
  }

  c.cpu_isa = best_cpu_isa();
  if (const auto v = getenv_string("ANYDNN_CPU_ISA")) {
    const auto isa = parse_cpu_isa(*v);
    if (isa && static_cast<int>(*isa) <= static_cast<int>(c.cpu_isa)) {
      c.cpu_isa = *isa;
    } else if (warnings != nullptr) {
      *warnings += "ignoring ANYDNN_CPU_ISA='" + *v + "': expected one of generic, avx2, avx512 " +
                   "that this CPU supports (best: " + cpu_isa_name(c.cpu_isa) + ")\n";
    }
  }

  if (const auto v = getenv_string("MIOPEN_FIND_MODE")) {
    const std::string m = lower(*v);
    if (m == "normal" || m == "1") {
      c.find_mode = FindMode::Normal;
    } else if (m == "fast" || m == "2") {
      c.find_mode = FindMode::Fast;
    } else if (m == "hybrid" || m == "3") {
      c.find_mode = FindMode::Hybrid;
    } else if (m == "dynamic_hybrid" || m == "5") {
      c.find_mode = FindMode::DynamicHybrid;
    } else if (warnings != nullptr) {
      *warnings += "ignoring MIOPEN_FIND_MODE='" + *v + "'\n";
    }
  }

  if (const auto v = getenv_string("MIOPEN_DEBUG_FIND_ONLY_SOLVER")) c.find_only_solver = *v;
  if (const auto v = getenv_string("MIOPEN_USER_DB_PATH")) c.user_db_path = *v;
  if (const auto v = getenv_string("MIOPEN_SYSTEM_DB_PATH")) c.system_db_path = *v;
  read_bool("MIOPEN_DEBUG_DISABLE_FIND_DB", c.find_db_disabled, warnings);
  bool disable_wal = false;
  read_bool("MIOPEN_DEBUG_DISABLE_SQL_WAL", disable_wal, warnings);
  c.find_db_wal = !disable_wal;
  read_bool("MIOPEN_DEBUG_CONV_GEMM", c.conv_gemm_enabled, warnings);
  read_bool("MIOPEN_DEBUG_CONV_DIRECT", c.conv_direct_enabled, warnings);
  read_bool("MIOPEN_DEBUG_CONV_WINOGRAD", c.conv_winograd_enabled, warnings);
  read_bool("MIOPEN_DEBUG_CONV_FFT", c.conv_fft_enabled, warnings);
  read_bool("MIOPEN_DEBUG_CONV_IMPLICIT_GEMM", c.conv_implicit_gemm_enabled, warnings);
  read_bool("ANYDNN_CONV_ALLOW_TF32", c.conv_allow_tf32, warnings);
  read_bool("ANYDNN_CONV_3XTF32", c.conv_allow_3xtf32, warnings);
  read_bool("ANYDNN_CUDNN", c.cudnn_enabled, warnings);
  if (const auto v = getenv_string("ANYDNN_CUDNN_LIBRARY")) c.cudnn_library = *v;
  return c;
}

const Config& process_config() {
  // Read exactly once (thread-safe static init) and never modified afterwards.
  static const Config config = [] {
    std::string warnings;
    Config c = Config::from_environment(&warnings);
    size_t start = 0;
    while (start < warnings.size()) {
      const size_t end = warnings.find('\n', start);
      log_message(c, LogLevel::Warning, "Config", warnings.substr(start, end - start));
      start = end + 1;
    }
    return c;
  }();
  return config;
}

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Default:
      return "Default";
    case LogLevel::Quiet:
      return "Quiet";
    case LogLevel::Fatal:
      return "Fatal";
    case LogLevel::Error:
      return "Error";
    case LogLevel::Warning:
      return "Warning";
    case LogLevel::Info:
      return "Info";
    case LogLevel::Info2:
      return "Info2";
    case LogLevel::Trace:
      return "Trace";
  }
  return "Unknown";
}

const char* find_mode_name(FindMode mode) {
  switch (mode) {
    case FindMode::Normal:
      return "NORMAL";
    case FindMode::Fast:
      return "FAST";
    case FindMode::Hybrid:
      return "HYBRID";
    case FindMode::DynamicHybrid:
      return "DYNAMIC_HYBRID";
  }
  return "UNKNOWN";
}

}  // namespace anydnn
