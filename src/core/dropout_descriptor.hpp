// A dropout descriptor (MIOpen's dropout API, used on its own and between RNN layers).
//
// Masks come from a counter-based generator: element i of the call numbered `counter` keeps its
// value when uniform(seed, counter, i) >= dropout, so a mask depends only on (seed, counter, i):
// reproducible across runs, thread counts and backends. The caller's `states` buffer holds the
// generator state {seed, counter}; with state_evo the counter advances after every forward call,
// and miopenRestoreDropoutDescriptor re-attaches to a buffer without resetting it.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>

namespace anydnn {

class Backend;

struct DropoutState {
  uint64_t magic;
  uint64_t seed;
  uint64_t counter;
};

struct DropoutDescriptor {
  bool set = false;
  float dropout = 0.0f;
  void* states = nullptr;
  size_t state_bytes = 0;
  unsigned long long seed = 0;
  bool use_mask = false, state_evo = false;
  miopenRNGType_t rng = MIOPEN_RNG_PSEUDO_XORWOW;

  // Bytes of generator state a handle needs (what miopenDropoutGetStatesSize returns).
  static size_t states_size();
  // Validates and stores; `initialise` writes a fresh state {seed, 0} into the buffer
  // (Set), otherwise the buffer must already hold one (Restore). The buffer is reached only
  // through `backend`: device memory on CUDA as in MIOpen, or host memory (the driver's).
  void assign(float p, void* st, size_t bytes, unsigned long long s, bool mask, bool evo,
              miopenRNGType_t r, bool initialise, Backend& backend);
  // The generator state in the states buffer, and its counter advanced by one.
  DropoutState read_state(Backend& backend) const;
  void advance_counter(Backend& backend, const DropoutState& current) const;
  // Keep decision for element i of the call with generator counter c.
  static bool keep(uint64_t seed, uint64_t counter, uint64_t i, float dropout);
};

}  // namespace anydnn
