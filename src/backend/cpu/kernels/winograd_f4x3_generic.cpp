// Winograd F(4x4, 3x3) transforms in portable C++ (8 tiles per "vector" of plain floats).
#include "backend/cpu/kernels/winograd_f4x3.hpp"

namespace anydnn::cpu {

namespace {

struct Ops {
  static constexpr int kLanes = 8;
  struct V {
    float f[kLanes];
  };
  using I = const int32_t*;
  static V set1(float x) {
    V r;
    for (float& e : r.f)
      e = x;
    return r;
  }
  template <class F>
  static V map(const V& a, const V& b, F op) {
    V r;
    for (int l = 0; l < kLanes; ++l)
      r.f[l] = op(a.f[l], b.f[l]);
    return r;
  }
  static V add(const V& a, const V& b) {
    return map(a, b, [](float p, float q) { return p + q; });
  }
  static V sub(const V& a, const V& b) {
    return map(a, b, [](float p, float q) { return p - q; });
  }
  static V mul(const V& a, const V& b) {
    return map(a, b, [](float p, float q) { return p * q; });
  }
  static V fmadd(const V& a, const V& b, const V& c) { return add(mul(a, b), c); }
  static V fnmadd(const V& a, const V& b, const V& c) { return sub(c, mul(a, b)); }
  static I load_index(const int32_t* p) { return p; }
  static V gather(const float* base, I idx, uint16_t mask) {
    V r;
    for (int l = 0; l < kLanes; ++l)
      r.f[l] = (mask & (1u << l)) ? base[idx[l]] : 0.0f;
    return r;
  }
  static V load(const float* p) {
    V r;
    for (int l = 0; l < kLanes; ++l)
      r.f[l] = p[l];
    return r;
  }
  static void store(float* p, const V& v) {
    for (int l = 0; l < kLanes; ++l)
      p[l] = v.f[l];
  }
  static void store_partial(float* p, const V& v, int n) {
    for (int l = 0; l < n; ++l)
      p[l] = v.f[l];
  }
  static void scatter(float* base, I idx, uint16_t mask, const V& v) {
    for (int l = 0; l < kLanes; ++l)
      if (mask & (1u << l)) base[idx[l]] = v.f[l];
  }
};

#include "backend/cpu/kernels/winograd_f4x3_transforms.inc"

}  // namespace

const WinogradTransforms& winograd_transforms_generic() {
  static const WinogradTransforms t{Ops::kLanes, &winograd_input<Ops>, &winograd_output<Ops>,
                                    &winograd_weights<Ops>};
  return t;
}

}  // namespace anydnn::cpu
