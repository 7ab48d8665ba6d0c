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

// Marks a states buffer that holds a DropoutState ("ANDROP01").
inline constexpr uint64_t kDropoutStateMagic = 0x414e44524f503031ull;

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
  // Setting it from the API and reading / advancing the generator state in the states buffer
  // need the backend's copies: src/dropout/dropout_state.hpp (core/ stays below backend/).
  // Keep decision for element i of the call with generator counter c.
  static bool keep(uint64_t seed, uint64_t counter, uint64_t i, float dropout);
};

}  // namespace anydnn
