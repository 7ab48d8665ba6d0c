// Everything the library reads from the environment, read once. A handle copies the
// process configuration when it is created and never looks at the environment again, so a
// running program cannot change behaviour under a live handle and tests can build their
// own Config without touching the environment. docs/env-vars.md lists every variable.
#pragma once

#include <optional>
#include <string>

#include "core/cpu_isa.hpp"

namespace anydnn {

enum class LogLevel : int {
  Default = 0,
  Quiet = 1,
  Fatal = 2,
  Error = 3,
  Warning = 4,
  Info = 5,
  Info2 = 6,
  Trace = 7,
};

enum class BackendKind { Cpu, Cuda };

// MIOpen's find modes (MIOPEN_FIND_MODE); 4 is reserved there too.
enum class FindMode : int { Normal = 1, Fast = 2, Hybrid = 3, DynamicHybrid = 5 };

struct Config {
  // Logging (MIOPEN_ENABLE_LOGGING*, MIOPEN_LOG_LEVEL).
  bool log_api_calls = false;
  bool log_driver_commands = false;
  LogLevel log_level = LogLevel::Warning;
  bool log_process_thread_id = false;
  bool log_elapsed_time = false;

  // Backend (MIOPEN_BACKEND) and CPU threads (ANYDNN_NUM_THREADS, default: all OpenMP threads).
  // Without MIOPEN_BACKEND a handle runs on CUDA when this library has the CUDA backend and a
  // CUDA device is present, else on the CPU (handle/handle.cpp, docs/env-vars.md).
  BackendKind backend = BackendKind::Cpu;
  bool backend_from_env = false;  // MIOPEN_BACKEND named one
  int num_threads = 1;
  // Vector instruction set of the CPU kernels (ANYDNN_CPU_ISA, default: the best supported).
  CpuIsa cpu_isa = CpuIsa::Generic;

  // Find behaviour and the find-db (docs/databases.md).
  FindMode find_mode = FindMode::DynamicHybrid;
  std::string user_db_path;       // MIOPEN_USER_DB_PATH (empty: ~/.config/miopen)
  std::string system_db_path;     // MIOPEN_SYSTEM_DB_PATH (empty: <prefix>/share/miopen/db)
  bool find_db_disabled = false;  // MIOPEN_DEBUG_DISABLE_FIND_DB
  bool find_db_wal = true;        // MIOPEN_DEBUG_DISABLE_SQL_WAL=1 turns WAL journaling off
  std::string find_only_solver;   // MIOPEN_DEBUG_FIND_ONLY_SOLVER: id or name
  bool conv_gemm_enabled = true;
  bool conv_direct_enabled = true;
  bool conv_winograd_enabled = true;
  bool conv_fft_enabled = true;
  bool conv_implicit_gemm_enabled = true;
  // ANYDNN_CONV_ALLOW_TF32: fp32 convolutions may run on TF32 tensor cores (CUDA). Off by
  // default: TF32 errors (~1e-3) exceed MIOpen's fp32 tolerance (1.5e-6 rms).
  bool conv_allow_tf32 = false;
  // ANYDNN_CONV_3XTF32: strict fp32 convolutions may run on the 3xTF32 tensor-core solvers
  // (CUDA). Off by default: measured on an H100 their error is 1.6-2.2x cuBLAS SGEMM's on the
  // same inputs (10x inside MIOpen's tolerance, but not fp32 math's), and they are slower than
  // cuDNN's fp32 (docs/performance.md, "[gpu-conv] 3xTF32").
  bool conv_allow_3xtf32 = false;
  // ANYDNN_CUDNN: cuDNN's engines as Find candidates on CUDA (the Cudnn* solvers), when the
  // library is found at run time. On by default; 0 turns them off.
  bool cudnn_enabled = true;
  // ANYDNN_CUDNN_LIBRARY: the libcudnn to load (a path or a file name for dlopen's search);
  // empty: the copy already in the process, then dlopen's search, then the CUDA toolkit's
  // folders (backend/common/cudnn_library.hpp).
  std::string cudnn_library;

  // Builds a configuration from the current environment; unknown values fall back to the
  // default and leave a warning in `warnings`.
  static Config from_environment(std::string* warnings = nullptr);
};

// The configuration of this process, read from the environment on first use.
const Config& process_config();

// MIOpen's boolean spelling: 1/on/yes/true/enable/enabled and 0/off/no/false/disable/disabled.
std::optional<bool> parse_env_bool(const std::string& value);

const char* log_level_name(LogLevel level);
const char* find_mode_name(FindMode mode);

}  // namespace anydnn
