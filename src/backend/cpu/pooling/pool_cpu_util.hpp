// What the CPU pooling solvers share: the lowest finite value per storage type (max pooling's
// start, MIOpen's -MAX_VAL), the thread count and the output blend.
#pragma once

#include <limits>
#include <type_traits>

#include "backend/cpu/cpu_types.hpp"

namespace anydnn::cpu::pool_util {

template <class T>
inline float lowest() {
  if constexpr (std::is_same_v<T, float>) return -std::numeric_limits<float>::max();
  if constexpr (std::is_same_v<T, Half>) return -65504.0f;
  return -3.38953139e38f;  // bfloat16's largest finite value, negated
}

// Below this many elements touched one thread does the whole call.
inline int thread_count(int configured, long long work) {
  constexpr long long kSerial = 1 << 15;
  if (work < kSerial || configured < 2) return 1;
  const long long most = work / (kSerial / 2);
  return static_cast<int>(most < configured ? most : configured);
}

// out = alpha * v + beta * out; the prior output is read only when beta != 0.
template <class T>
inline void blend(T* out, float v, float alpha, float beta) {
  *out = from_float<T>(beta != 0.0f ? alpha * v + beta * to_float(*out) : alpha * v);
}

}  // namespace anydnn::cpu::pool_util
