#include "core/dropout_descriptor.hpp"

#include <cmath>
#include <cstddef>

#include "core/errors.hpp"

namespace anydnn {

namespace {
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

bool DropoutDescriptor::keep(uint64_t seed, uint64_t counter, uint64_t i, float dropout) {
  const uint64_t h = mix(mix(seed ^ 0x9e3779b97f4a7c15ull) + mix(counter) * 31 + i);
  const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  return u >= dropout;
}

}  // namespace anydnn
