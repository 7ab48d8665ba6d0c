// Helpers shared by the harnesses: hostile integers and enums drawn from the fuzzer's bytes.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <unistd.h>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace anydnn::fuzz {

// Mostly the values that break size arithmetic (0, negatives, INT_MAX, sqrt(INT_MAX) whose
// square overflows), sometimes any int.
inline int hostile_int(FuzzedDataProvider& fdp) {
  static constexpr std::array<int, 16> kSpecial = {
      0, 1, 2, 3, 4, 7, -1, -2, INT_MAX, INT_MIN, INT_MAX / 2 + 1, 46341, 65536, 1 << 20, 8, 5};
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return fdp.ConsumeIntegral<int>();
    case 1:
      return fdp.ConsumeIntegralInRange<int>(-2, 16);
    default:
      return kSpecial[fdp.ConsumeIntegralInRange<size_t>(0, kSpecial.size() - 1)];
  }
}

// A small positive size most of the time (so that calls get past validation), else hostile.
inline int size_int(FuzzedDataProvider& fdp, int max_small = 8) {
  if (fdp.ConsumeIntegralInRange<int>(0, 7) != 0) return fdp.ConsumeIntegralInRange(1, max_small);
  return hostile_int(fdp);
}

// An enum value: a valid one usually, else anything (bad enums must be rejected, not used).
template <class E>
E enum_value(FuzzedDataProvider& fdp, int max_valid) {
#if defined(ANYDNN_FUZZ_CUDA)
  // fuzz_compute_cuda aims at the CUDA kernels: valid enum values only (the CPU harnesses pass
  // hostile ones; its GCC build's UBSan would stop at the first load of one as the enum type).
  return static_cast<E>(fdp.ConsumeIntegralInRange(0, max_valid));
#endif
  if (fdp.ConsumeIntegralInRange<int>(0, 7) != 0)
    return static_cast<E>(fdp.ConsumeIntegralInRange(0, max_valid));
  return static_cast<E>(hostile_int(fdp));
}

inline miopenDataType_t data_type(FuzzedDataProvider& fdp) {
  // Float most of the time: it is what every operation supports.
  if (fdp.ConsumeBool()) return miopenFloat;
  return enum_value<miopenDataType_t>(fdp, 9);
}

// Quiet, single-threaded, find-db in a private scratch directory (never ~/.config/miopen).
inline void setup_environment(bool log_api_calls) {
  setenv("OMP_NUM_THREADS", "1", 0);
  setenv("ANYDNN_NUM_THREADS", "1", 0);
  setenv("MIOPEN_BACKEND", "cpu", 1);
  if (log_api_calls) {
    // The argument logger formats every hostile value; libFuzzer's -close_fd_mask keeps it quiet.
    setenv("MIOPEN_ENABLE_LOGGING", "1", 0);
    setenv("MIOPEN_ENABLE_LOGGING_CMD", "1", 0);
  }
  if (!getenv("MIOPEN_USER_DB_PATH")) {
    const std::string dir = std::filesystem::temp_directory_path().string() + "/anydnn-fuzz-db-" +
                            std::to_string(getpid());
    setenv("MIOPEN_USER_DB_PATH", dir.c_str(), 1);
  }
}

}  // namespace anydnn::fuzz
