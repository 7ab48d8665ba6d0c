// MIOpen-format logging to stderr (docs/log-formats.md).
//   prefix:   [<pid>:<tid>] MIOpen(CPU)[<ms since previous line>]: ...
//   messages: <prefix><Level> [<function>] <text>
//   commands: <prefix>Command [<function>] ./bin/MIOpenDriver <args>
// Whether anything is printed is decided by the Config passed in (the handle's, or the
// process configuration for calls that have no handle).
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "core/config.hpp"

namespace anydnn {

inline bool is_logging(const Config& config, LogLevel level) {
  return level != LogLevel::Default && level != LogLevel::Quiet &&
         config.log_level != LogLevel::Quiet && level <= config.log_level;
}

std::string log_prefix(const Config& config);

// One message line: "<prefix><Level> [<function>] <text>".
void log_message(const Config& config, LogLevel level, std::string_view function,
                 std::string_view text);

// A block of lines printed as one unit (API-call logging); each line gets the prefix.
void log_block(const Config& config, std::string_view lines);

// "<prefix>Command [<function>] ./bin/MIOpenDriver <args>" when MIOPEN_ENABLE_LOGGING_CMD is on.
void log_driver_command(const Config& config, std::string_view function, std::string_view args);

}  // namespace anydnn

#define ANYDNN_LOG(config, level, msg)                                          \
  do {                                                                          \
    if (::anydnn::is_logging((config), (level))) {                              \
      std::ostringstream anydnn_log_ss_;                                        \
      anydnn_log_ss_ << msg;                                                    \
      ::anydnn::log_message((config), (level), __func__, anydnn_log_ss_.str()); \
    }                                                                           \
  } while (false)

#define ANYDNN_LOG_E(config, msg) ANYDNN_LOG(config, ::anydnn::LogLevel::Error, msg)
#define ANYDNN_LOG_W(config, msg) ANYDNN_LOG(config, ::anydnn::LogLevel::Warning, msg)
#define ANYDNN_LOG_I(config, msg) ANYDNN_LOG(config, ::anydnn::LogLevel::Info, msg)
#define ANYDNN_LOG_I2(config, msg) ANYDNN_LOG(config, ::anydnn::LogLevel::Info2, msg)
#define ANYDNN_LOG_T(config, msg) ANYDNN_LOG(config, ::anydnn::LogLevel::Trace, msg)
