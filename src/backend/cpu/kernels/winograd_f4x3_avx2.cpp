// Winograd F(4x4, 3x3) transforms for AVX2: 8 tiles per vector, masked gathers; AVX2 has no
// scatter, so outputs go through a small array (rules of gemm_tile_avx512.cpp).
#include <immintrin.h>

#include "backend/cpu/kernels/winograd_f4x3.hpp"

namespace anydnn::cpu {

namespace {

struct Ops {
  using V = __m256;
  struct I {
    __m256i v;
    const int32_t* p;
  };
  static constexpr int kLanes = 8;
  static V set1(float f) { return _mm256_set1_ps(f); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static I load_index(const int32_t* p) {
    return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), p};
  }
  static __m256 lane_mask(uint16_t mask) {
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i m = _mm256_and_si256(_mm256_set1_epi32(mask), bits);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, bits));
  }
  static V gather(const float* base, I idx, uint16_t mask) {
    if ((mask & 0xff) == 0) return _mm256_setzero_ps();
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, idx.v, lane_mask(mask), 4);
  }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void store_partial(float* p, V v, int n) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    for (int l = 0; l < n; ++l)
      p[l] = lanes[l];
  }
  static void scatter(float* base, I idx, uint16_t mask, V v) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    for (int l = 0; l < 8; ++l)
      if (mask & (1u << l)) base[idx.p[l]] = lanes[l];
  }
};

#include "backend/cpu/kernels/winograd_f4x3_transforms.inc"

}  // namespace

const WinogradTransforms& winograd_transforms_avx2() {
  static const WinogradTransforms t{Ops::kLanes, &winograd_input<Ops>, &winograd_output<Ops>,
                                    &winograd_weights<Ops>};
  return t;
}

}  // namespace anydnn::cpu
