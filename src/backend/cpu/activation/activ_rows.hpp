// The CPU activation loops both solvers share: one row of n elements per call, each tensor with
// its own element stride. Unit = every stride is 1, so the compiler sees contiguous rows and
// vectorises them; Prior = beta != 0, so a plain call never reads the output. The mode is a
// template parameter (activ::dispatch_mode), decided once per call, not per element.
#pragma once

#include "activation/activation_math.hpp"
#include "backend/cpu/cpu_types.hpp"

namespace anydnn::cpu::activ_rows {

struct Scale {
  float alpha, beta;
};

template <miopenActivationMode_t M, bool Unit, bool Prior, class T>
inline void forward_row(const T* x, long long sx, T* y, long long sy, long long n,
                        const activ::ActivParams& p, Scale s) {
  if constexpr (Unit) sx = sy = 1;
  for (long long i = 0; i < n; ++i) {
    const float v = activ::forward<M>(to_float(x[i * sx]), p);
    y[i * sy] = from_float<T>(Prior ? s.alpha * v + s.beta * to_float(y[i * sy]) : s.alpha * v);
  }
}

// x, y, dy read; dx written. No __restrict here or above: in-place calls (y over x, dx over dy)
// are common, and each element is read before it is written.
template <miopenActivationMode_t M, bool Unit, bool Prior, class T>
inline void backward_row(const T* x, long long sx, const T* y, long long sy, const T* dy,
                         long long sdy, T* dx, long long sdx, long long n,
                         const activ::ActivParams& p, Scale s) {
  if constexpr (Unit) sx = sy = sdy = sdx = 1;
  for (long long i = 0; i < n; ++i) {
    const float v =
        activ::backward<M>(to_float(dy[i * sdy]), to_float(x[i * sx]), to_float(y[i * sy]), p);
    dx[i * sdx] = from_float<T>(Prior ? s.alpha * v + s.beta * to_float(dx[i * sdx]) : s.alpha * v);
  }
}

// Below this many elements one thread does the whole call: thread start-up would cost more
// than the memory traffic it spreads.
inline constexpr long long kSerialElements = 1 << 15;

inline int thread_count(int configured, long long elements) {
  if (elements < kSerialElements || configured < 2) return 1;
  const long long most = elements / (kSerialElements / 2);
  return static_cast<int>(most < configured ? most : configured);
}

}  // namespace anydnn::cpu::activ_rows
