#include "core/dropout_descriptor.hpp"

#include <cmath>

#include "core/errors.hpp"

namespace anydnn {

namespace {
constexpr uint64_t kMagic = 0x414e44524f503031ull;  // "ANDROP01"

uint64_t mix(uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

size_t DropoutDescriptor::states_size() {
  // MIOpen sizes its XORWOW states by the GPU's work-groups; the CPU needs one small header.
  // A fixed 256 states of 48 bytes keeps clients that allocate "states_size" bytes portable.
  return 256 * 48;
}

void DropoutDescriptor::assign(float p, void* st, size_t bytes, unsigned long long s, bool mask,
                               bool evo, miopenRNGType_t r, bool initialise) {
  ANYDNN_CHECK_BADPARM(std::isfinite(p) && p >= 0.0f && p < 1.0f,
                       "dropout rate " << p << " must be in [0, 1)");
  ANYDNN_CHECK_BADPARM(r == MIOPEN_RNG_PSEUDO_XORWOW,
                       "rng_mode " << static_cast<int>(r) << " is not a miopenRNGType_t");
  ANYDNN_CHECK_BADPARM(st != nullptr, "states is a null pointer");
  ANYDNN_CHECK_BADPARM(bytes >= sizeof(DropoutState),
                       "stateSizeInBytes " << bytes << " is too small (need at least "
                                           << sizeof(DropoutState) << ")");
  auto* state_ptr = static_cast<DropoutState*>(st);
  if (initialise) {
    *state_ptr = DropoutState{kMagic, s, 0};
  } else {
    ANYDNN_CHECK_BADPARM(state_ptr->magic == kMagic,
                         "states do not hold a dropout state (call miopenSetDropoutDescriptor "
                         "first)");
  }
  dropout = p;
  states = st;
  state_bytes = bytes;
  seed = initialise ? s : state_ptr->seed;
  use_mask = mask;
  state_evo = evo;
  rng = r;
  set = true;
}

bool DropoutDescriptor::keep(uint64_t seed, uint64_t counter, uint64_t i, float dropout) {
  const uint64_t h = mix(mix(seed ^ 0x9e3779b97f4a7c15ull) + mix(counter) * 31 + i);
  const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  return u >= dropout;
}

}  // namespace anydnn
