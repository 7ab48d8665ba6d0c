// Runs a piece of code compiled for the instruction set the CPU has, without a file per set:
// with_isa(isa, f) calls f from a function marked target("avx2...") / target("avx512...") and
// flatten, so f's body and everything it calls are inlined there and vectorised with that set's
// registers (ymm / zmm, FMA) instead of the library's baseline SSE2. This suits loops written as
// plain templates (the activation and softmax rows): their exp / tanh polynomials run ~3x faster
// with AVX2 + FMA than with SSE2. The out-of-line copies of those templates stay baseline, so no
// other caller can pick up an AVX2 instantiation (the pitfall of compiling shared inline code
// with different flags). Call it inside an OpenMP region, not around one: a parallel region is
// outlined before inlining and would keep the baseline flags.
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
template <class F>
[[gnu::flatten]] __attribute__((target("avx2,fma,f16c"))) inline void run_as_avx2(const F& f) {
  f();
}

template <class F>
[[gnu::flatten]] __attribute__((
    target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,f16c"))) inline void
run_as_avx512(const F& f) {
  f();
}
#endif

template <class F>
inline void with_isa(CpuIsa isa, const F& f) {
#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
  if (isa == CpuIsa::Avx512) return run_as_avx512(f);
  if (isa == CpuIsa::Avx2) return run_as_avx2(f);
#endif
  f();
}

}  // namespace anydnn::cpu
