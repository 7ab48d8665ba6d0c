// What every MIOpenDriver subcommand does before its own set-up, written once: the iteration,
// timing and wall-clock flags with MIOpen's message for a bad count, the driver's PRNG (MIOpen's
// seed, or MIOPEN_DEBUG_DRIVER_PRNG_SEED, printed as MIOpen prints it), and the handle with the
// memory its backend reads and, when timing, kernel profiling on.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <random>
#include <string>

#include "device_buffer.hpp"
#include "input_flags.hpp"

namespace anydnn::driver {

struct RunOptions {
  int iters = 1;
  bool time = false;  // --time: per-kernel timings (profiling on)
  bool wall = false;  // --wall: wall-clock timings as well (only with --time)
};

// --iter (>= 1), --time and --wall of parsed flags; the error text MIOpen's driver prints after
// "MIOpenDriver <base>: " otherwise.
std::optional<std::string> read_run_options(const InputFlags& flags, RunOptions& out);

// The driver's generator: seed 12345678, or MIOPEN_DEBUG_DRIVER_PRNG_SEED; prints "PRNG seed: N".
std::mt19937 driver_rng();

// miopenCreate, the memory of its backend (memory_of) and, with `profile`, profiling on. Prints
// MIOpen's message when the handle cannot be created; the status is the driver's exit code.
miopenStatus_t create_driver_handle(miopenHandle_t* handle, Memory& memory, bool profile);

}  // namespace anydnn::driver
