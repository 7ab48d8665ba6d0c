#include "core/dropout_descriptor.hpp"

#include <cmath>
#include <cstddef>

#include "backend/backend.hpp"
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
                               bool evo, miopenRNGType_t r, bool initialise, Backend& backend) {
  ANYDNN_CHECK_BADPARM(std::isfinite(p) && p >= 0.0f && p < 1.0f,
                       "dropout rate " << p << " must be in [0, 1)");
  ANYDNN_CHECK_BADPARM(r == MIOPEN_RNG_PSEUDO_XORWOW,
                       "rng_mode " << static_cast<int>(r) << " is not a miopenRNGType_t");
  ANYDNN_CHECK_BADPARM(st != nullptr, "states is a null pointer");
  ANYDNN_CHECK_BADPARM(bytes >= sizeof(DropoutState),
                       "stateSizeInBytes " << bytes << " is too small (need at least "
                                           << sizeof(DropoutState) << ")");
  DropoutState state{kMagic, s, 0};
  if (initialise) {
    backend.copy(st, &state, sizeof state, CopyKind::Any);
  } else {
    backend.copy(&state, st, sizeof state, CopyKind::Any);
    ANYDNN_CHECK_BADPARM(state.magic == kMagic,
                         "states do not hold a dropout state (call miopenSetDropoutDescriptor "
                         "first)");
  }
  dropout = p;
  states = st;
  state_bytes = bytes;
  seed = state.seed;
  use_mask = mask;
  state_evo = evo;
  rng = r;
  set = true;
}

DropoutState DropoutDescriptor::read_state(Backend& backend) const {
  DropoutState st{};
  backend.copy(&st, states, sizeof st, CopyKind::Any);
  return st;
}

void DropoutDescriptor::advance_counter(Backend& backend, const DropoutState& current) const {
  const uint64_t next = current.counter + 1;
  backend.copy(static_cast<char*>(states) + offsetof(DropoutState, counter), &next, sizeof next,
               CopyKind::Any);
}

bool DropoutDescriptor::keep(uint64_t seed, uint64_t counter, uint64_t i, float dropout) {
  const uint64_t h = mix(mix(seed ^ 0x9e3779b97f4a7c15ull) + mix(counter) * 31 + i);
  const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  return u >= dropout;
}

}  // namespace anydnn
