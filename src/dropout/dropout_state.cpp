#include "dropout/dropout_state.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/errors.hpp"

namespace anydnn {

void set_dropout_descriptor(DropoutDescriptor& d, float p, void* st, size_t bytes,
                            unsigned long long s, bool mask, bool evo, miopenRNGType_t r,
                            bool initialise, Backend& backend) {
  ANYDNN_CHECK_BADPARM(std::isfinite(p) && p >= 0.0f && p < 1.0f,
                       "dropout rate " << p << " must be in [0, 1)");
  ANYDNN_CHECK_BADPARM(r == MIOPEN_RNG_PSEUDO_XORWOW,
                       "rng_mode " << static_cast<int>(r) << " is not a miopenRNGType_t");
  ANYDNN_CHECK_BADPARM(st != nullptr, "states is a null pointer");
  ANYDNN_CHECK_BADPARM(bytes >= sizeof(DropoutState),
                       "stateSizeInBytes " << bytes << " is too small (need at least "
                                           << sizeof(DropoutState) << ")");
  DropoutState state{kDropoutStateMagic, s, 0};
  if (initialise) {
    backend.copy(st, &state, sizeof state, CopyKind::Any);
  } else {
    backend.copy(&state, st, sizeof state, CopyKind::Any);
    ANYDNN_CHECK_BADPARM(state.magic == kDropoutStateMagic,
                         "states do not hold a dropout state (call miopenSetDropoutDescriptor "
                         "first)");
  }
  d.dropout = p;
  d.states = st;
  d.state_bytes = bytes;
  d.seed = state.seed;
  d.use_mask = mask;
  d.state_evo = evo;
  d.rng = r;
  d.set = true;
}

DropoutState read_dropout_state(const DropoutDescriptor& d, Backend& backend) {
  DropoutState st{};
  backend.copy(&st, d.states, sizeof st, CopyKind::Any);
  return st;
}

void advance_dropout_counter(const DropoutDescriptor& d, Backend& backend,
                             const DropoutState& current) {
  const uint64_t next = current.counter + 1;
  backend.copy(static_cast<char*>(d.states) + offsetof(DropoutState, counter), &next, sizeof next,
               CopyKind::Any);
}

}  // namespace anydnn
