// The dropout keep decision on the device: the same arithmetic as DropoutDescriptor::keep
// (core/dropout_descriptor.cpp), so CPU and GPU masks are bit-identical for the same seed,
// counter and element. Integer mixing is exact, and the 53-bit fraction times 2^-53 is exact in
// double, so the comparison with the rate gives the same answer on both.
#pragma once

#include <cstdint>

namespace anydnn::cuda {

__host__ __device__ inline uint64_t dropout_mix(uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The seed/counter part of the hash, computed once per call on the host.
__host__ __device__ inline uint64_t dropout_key(uint64_t seed, uint64_t counter) {
  return dropout_mix(seed ^ 0x9e3779b97f4a7c15ull) + dropout_mix(counter) * 31;
}

__host__ __device__ inline bool dropout_keep(uint64_t key, uint64_t i, float dropout) {
  const uint64_t h = dropout_mix(key + i);
  const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  return u >= static_cast<double>(dropout);
}

}  // namespace anydnn::cuda
