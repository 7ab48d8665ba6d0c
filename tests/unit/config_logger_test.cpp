// Environment parsing (read once into Config) and MIOpen's log line formats.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "api/api_log.hpp"
#include "core/config.hpp"
#include "core/logger.hpp"

namespace anydnn {
namespace {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Config, ParsesMIOpenBooleans) {
  for (const char* t : {"1", "on", "YES", "true", "enable", "Enabled"})
    EXPECT_EQ(parse_env_bool(t), true) << t;
  for (const char* f : {"0", "off", "no", "FALSE", "disable", "disabled"})
    EXPECT_EQ(parse_env_bool(f), false) << f;
  EXPECT_FALSE(parse_env_bool("2").has_value());
}

TEST(Config, ReadsEnvironment) {
  ScopedEnv a("MIOPEN_ENABLE_LOGGING", "1");
  ScopedEnv b("MIOPEN_LOG_LEVEL", "6");
  ScopedEnv c("MIOPEN_FIND_MODE", "fast");
  ScopedEnv d("MIOPEN_DEBUG_CONV_GEMM", "0");
  ScopedEnv e("MIOPEN_BACKEND", "cuda");
  ScopedEnv f("ANYDNN_NUM_THREADS", "3");
  ScopedEnv g("MIOPEN_DEBUG_FIND_ONLY_SOLVER", "GemmFwdRest");
  const Config cfg = Config::from_environment();
  EXPECT_TRUE(cfg.log_api_calls);
  EXPECT_EQ(cfg.log_level, LogLevel::Info2);
  EXPECT_EQ(cfg.find_mode, FindMode::Fast);
  EXPECT_FALSE(cfg.conv_gemm_enabled);
  EXPECT_TRUE(cfg.conv_direct_enabled);
  EXPECT_EQ(cfg.backend, BackendKind::Cuda);
  EXPECT_EQ(cfg.num_threads, 3);
  EXPECT_EQ(cfg.find_only_solver, "GemmFwdRest");
}

TEST(Config, BadValuesFallBackWithAWarning) {
  ScopedEnv a("MIOPEN_LOG_LEVEL", "9");
  ScopedEnv b("MIOPEN_BACKEND", "tpu");
  std::string warnings;
  const Config cfg = Config::from_environment(&warnings);
  EXPECT_EQ(cfg.log_level, LogLevel::Warning);
  EXPECT_EQ(cfg.backend, BackendKind::Cpu);
  EXPECT_NE(warnings.find("MIOPEN_LOG_LEVEL"), std::string::npos);
  EXPECT_NE(warnings.find("MIOPEN_BACKEND"), std::string::npos);
  ScopedEnv c("MIOPEN_LOG_LEVEL", "0");  // 0 = default = Warning
  EXPECT_EQ(Config::from_environment().log_level, LogLevel::Warning);
}

TEST(Logger, MessageFormat) {
  Config cfg;
  cfg.log_level = LogLevel::Info;
  testing::internal::CaptureStderr();
  log_message(cfg, LogLevel::Info, "FindConvFwdAlgorithm", "requestAlgoCount = 1");
  log_message(cfg, LogLevel::Info2, "Hidden", "not at this level");
  log_driver_command(cfg, "LogCmdConvolution", "conv -n 1");  // off: cmd logging disabled
  cfg.log_driver_commands = true;
  log_driver_command(cfg, "LogCmdConvolution", "conv -n 1");
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out,
            "MIOpen(CPU): Info [FindConvFwdAlgorithm] requestAlgoCount = 1\n"
            "MIOpen(CPU): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1\n");
}

TEST(Logger, QuietSilencesEverything) {
  Config cfg;
  cfg.log_level = LogLevel::Quiet;
  testing::internal::CaptureStderr();
  log_message(cfg, LogLevel::Error, "F", "x");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Logger, ThreadIdAndElapsedTimePrefix) {
  Config cfg;
  cfg.log_process_thread_id = true;
  cfg.log_elapsed_time = true;
  testing::internal::CaptureStderr();
  log_message(cfg, LogLevel::Warning, "F", "x");
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_match(
      out, std::regex(R"(\[\d+:0x[0-9a-f]+\] MIOpen\(CPU\) *\d+\.\d{3}: Warning \[F\] x\n)")))
      << out;
}

TEST(Logger, ApiCallBlock) {
  Config cfg;
  cfg.log_api_calls = true;
  api::TensorObject t;
  t.desc = TensorDescriptor(miopenFloat, {100, 3, 32, 32});
  api::ConvolutionObject c;
  c.desc = ConvolutionDescriptor(miopenConvolution, {0, 0}, {1, 1}, {1, 1});
  const int dims[] = {1, 24, 340, 340};
  const void* null_ptr = nullptr;
  const int n = 4;
  testing::internal::CaptureStderr();
  api::log_api_call(
      cfg, "miopenStatus_t f(miopenTensorDescriptor_t, ...)",
      "xDesc, convDesc, x, api::log_array(dims, n), n", static_cast<miopenTensorDescriptor_t>(&t),
      static_cast<miopenConvolutionDescriptor_t>(&c), null_ptr, api::log_array(dims, n), n);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "MIOpen(CPU): miopenStatus_t f(miopenTensorDescriptor_t, ...){\n"
            "MIOpen(CPU): \txDesc = {100, 3, 32, 32}, {3072, 1024, 32, 1}, packed, \n"
            "MIOpen(CPU): \tconvDesc = conv2d, miopenConvolution, miopenPaddingDefault, {0, 0}, "
            "{1, 1}, {1, 1}, \n"
            "MIOpen(CPU): \tx = nullptr\n"
            "MIOpen(CPU): \tdims = { 1 24 340 340 }\n"
            "MIOpen(CPU): \tn = 4\n"
            "MIOpen(CPU): }\n");
}

}  // namespace
}  // namespace anydnn
