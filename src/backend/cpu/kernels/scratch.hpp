// Per-thread scratch carved out of the caller's workspace. Solvers ask for the bytes they need
// plus kScratchAlignment, because a user workspace may start anywhere; every thread's share
// starts on a 64-byte boundary (aligned vector loads of packed panels).
#pragma once

#include <cstddef>
#include <cstdint>

namespace anydnn::cpu {

constexpr size_t kScratchAlignment = 64;

// Bytes to request for `threads` shares of `floats_per_thread` floats (rounded up to 16).
inline size_t scratch_bytes(size_t floats_per_thread, int threads) {
  const size_t share = (floats_per_thread + 15) / 16 * 16;
  return share * sizeof(float) * static_cast<size_t>(threads) + kScratchAlignment;
}

// Thread t's share of the workspace.
inline float* scratch_share(void* workspace, size_t floats_per_thread, int t) {
  const auto base = reinterpret_cast<uintptr_t>(workspace);
  const uintptr_t aligned = (base + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
  const size_t share = (floats_per_thread + 15) / 16 * 16;
  return reinterpret_cast<float*>(aligned) + share * static_cast<size_t>(t);
}

}  // namespace anydnn::cpu
