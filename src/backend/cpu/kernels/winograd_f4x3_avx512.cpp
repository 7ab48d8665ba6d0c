// Winograd F(4x4, 3x3) transforms for AVX-512: 16 tiles per vector, masked gathers and scatters
// (rules of gemm_tile_avx512.cpp).
#include <immintrin.h>

#include "backend/cpu/kernels/winograd_f4x3.hpp"

namespace anydnn::cpu {

namespace {

struct Ops {
  using V = __m512;
  using I = __m512i;
  static constexpr int kLanes = 16;
  static V set1(float f) { return _mm512_set1_ps(f); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static I load_index(const int32_t* p) { return _mm512_loadu_si512(p); }
  static V gather(const float* base, I idx, uint16_t mask) {
    if (mask == 0) return _mm512_setzero_ps();
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, idx, base, 4);
  }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void store_partial(float* p, V v, int n) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v);
  }
  static void scatter(float* base, I idx, uint16_t mask, V v) {
    if (mask != 0) _mm512_mask_i32scatter_ps(base, mask, idx, v, 4);
  }
};

#include "backend/cpu/kernels/winograd_f4x3_transforms.inc"

}  // namespace

const WinogradTransforms& winograd_transforms_avx512() {
  static const WinogradTransforms t{Ops::kLanes, &winograd_input<Ops>, &winograd_output<Ops>,
                                    &winograd_weights<Ops>};
  return t;
}

}  // namespace anydnn::cpu
