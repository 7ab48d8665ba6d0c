#include "driver_prologue.hpp"

#include <cstdlib>
#include <iostream>

namespace anydnn::driver {

std::optional<std::string> read_run_options(const InputFlags& flags, RunOptions& out) {
  out.iters = flags.get_int("iter");
  if (out.iters < 1) return std::string("Fatal: Number of iterations must be > 0");
  out.time = flags.get_int("time") != 0;
  out.wall = flags.get_int("wall") != 0 && out.time;
  return std::nullopt;
}

std::mt19937 driver_rng() {
  unsigned seed = 12345678;
  if (const char* s = std::getenv("MIOPEN_DEBUG_DRIVER_PRNG_SEED"))
    seed = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  std::cout << "PRNG seed: " << seed << std::endl;
  return std::mt19937(seed);
}

miopenStatus_t create_driver_handle(miopenHandle_t* handle, Memory& memory, bool profile) {
  miopenStatus_t rc = miopenCreate(handle);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error creating a handle, status = " << rc << std::endl;
    return rc;
  }
  if ((rc = memory_of(*handle, memory)) != miopenStatusSuccess) return rc;
  if (profile) miopenEnableProfiling(*handle, true);
  return miopenStatusSuccess;
}

}  // namespace anydnn::driver
