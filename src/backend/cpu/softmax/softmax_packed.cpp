// SoftmaxPacked (CPU): every tensor packed NCHW. CHANNEL mode walks tiles of up to kTile
// pixels of one image: each pass over the channels is a unit-stride row of the tile's pixels,
// which the compiler vectorises, with the tile's maxima and sums in small arrays. INSTANCE mode
// reduces one contiguous image with kLanes independent partial results (a vectorisable
// reduction without reassociating a single accumulator). Tiles / images are spread over the
// threads for large tensors; the loops run compiled for the CPU's instruction set (with_isa).
#include <omp.h>

#include <algorithm>
#include <type_traits>

#include "backend/cpu/activation/activ_rows.hpp"  // thread_count
#include "backend/cpu/cpu_types.hpp"
#include "backend/cpu/kernels/isa_dispatch.hpp"
#include "softmax/softmax_math.hpp"
#include "softmax/softmax_registry.hpp"
#include "softmax/softmax_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

constexpr long long kTile = 64;
constexpr int kLanes = 16;

using softmax::FwdStats;

// fp32 FAST / ACCURATE without a prior output: the sum pass stores each exp in y and a last pass
// scales it, one exp per element instead of two (the prior output, or 16-bit storage that would
// round the unscaled exp, take the three-pass path).
template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
inline constexpr bool kStoreExp = std::is_same_v<T, float> && !Prior && A != MIOPEN_SOFTMAX_LOG;

// One tile of `width` pixels; rows `stride` elements apart, `vec` rows.
template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
void forward_tile(const T* x, T* y, long long stride, long long vec, long long width, float alpha,
                  float beta) {
  float m[kTile], s[kTile];
  std::fill(m, m + width, -INFINITY);
  std::fill(s, s + width, 0.0f);
  if (A != MIOPEN_SOFTMAX_FAST)
    for (long long v = 0; v < vec; ++v)
      for (long long i = 0; i < width; ++i)
        m[i] = std::max(m[i], to_float(x[v * stride + i]));
  if constexpr (kStoreExp<A, Prior, T>) {
    // exp once per element: stored by the sum pass, scaled by the last.
    for (long long v = 0; v < vec; ++v)
      for (long long i = 0; i < width; ++i) {
        const float e = softmax::forward_term<A>(x[v * stride + i], m[i]);
        y[v * stride + i] = e;
        s[i] += e;
      }
    float inv[kTile];
    for (long long i = 0; i < width; ++i)
      inv[i] = alpha / s[i];
    for (long long v = 0; v < vec; ++v)
      for (long long i = 0; i < width; ++i)
        y[v * stride + i] *= inv[i];
    return;
  }
  for (long long v = 0; v < vec; ++v)
    for (long long i = 0; i < width; ++i)
      s[i] += softmax::forward_term<A>(to_float(x[v * stride + i]), m[i]);
  FwdStats st[kTile];
  for (long long i = 0; i < width; ++i)
    st[i] = softmax::forward_stats<A>(m[i], s[i]);
  for (long long v = 0; v < vec; ++v)
    for (long long i = 0; i < width; ++i) {
      const long long k = v * stride + i;
      const float r = softmax::forward_value<A>(to_float(x[k]), st[i]);
      y[k] = from_float<T>(softmax::blend(r, alpha, beta, Prior ? to_float(y[k]) : 0.0f, Prior));
    }
}

template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
void backward_tile(const T* y, const T* dy, T* dx, long long stride, long long vec, long long width,
                   float alpha, float beta) {
  float dot[kTile];
  std::fill(dot, dot + width, 0.0f);
  for (long long v = 0; v < vec; ++v)
    for (long long i = 0; i < width; ++i) {
      const long long k = v * stride + i;
      dot[i] += softmax::backward_term<A>(to_float(y[k]), to_float(dy[k]));
    }
  for (long long v = 0; v < vec; ++v)
    for (long long i = 0; i < width; ++i) {
      const long long k = v * stride + i;
      const float r = softmax::backward_value<A>(to_float(y[k]), to_float(dy[k]), dot[i]);
      dx[k] = from_float<T>(softmax::blend(r, alpha, beta, Prior ? to_float(dx[k]) : 0.0f, Prior));
    }
}

// One contiguous group (INSTANCE mode, or CHANNEL with h = w = 1).
template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
void forward_row(const T* x, T* y, long long vec, float alpha, float beta) {
  float m[kLanes], s[kLanes];
  std::fill(m, m + kLanes, -INFINITY);
  std::fill(s, s + kLanes, 0.0f);
  const long long full = vec / kLanes * kLanes;
  if (A != MIOPEN_SOFTMAX_FAST) {
    for (long long v = 0; v < full; v += kLanes)
      for (int l = 0; l < kLanes; ++l)
        m[l] = std::max(m[l], to_float(x[v + l]));
    for (long long v = full; v < vec; ++v)
      m[0] = std::max(m[0], to_float(x[v]));
  }
  float mx = m[0];
  for (int l = 1; l < kLanes; ++l)
    mx = std::max(mx, m[l]);
  if constexpr (kStoreExp<A, Prior, T>) {
    // exp once per element: stored by the sum pass, scaled by the last.
    for (long long v = 0; v < full; v += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const float e = softmax::forward_term<A>(x[v + l], mx);
        y[v + l] = e;
        s[l] += e;
      }
    for (long long v = full; v < vec; ++v) {
      const float e = softmax::forward_term<A>(x[v], mx);
      y[v] = e;
      s[0] += e;
    }
    float sum = 0.0f;
    for (int l = 0; l < kLanes; ++l)
      sum += s[l];
    const float inv = alpha / sum;
    for (long long v = 0; v < vec; ++v)
      y[v] *= inv;
    return;
  }
  for (long long v = 0; v < full; v += kLanes)
    for (int l = 0; l < kLanes; ++l)
      s[l] += softmax::forward_term<A>(to_float(x[v + l]), mx);
  for (long long v = full; v < vec; ++v)
    s[0] += softmax::forward_term<A>(to_float(x[v]), mx);
  float sum = 0.0f;
  for (int l = 0; l < kLanes; ++l)
    sum += s[l];
  const FwdStats st = softmax::forward_stats<A>(mx, sum);
  for (long long v = 0; v < vec; ++v) {
    const float r = softmax::forward_value<A>(to_float(x[v]), st);
    y[v] = from_float<T>(softmax::blend(r, alpha, beta, Prior ? to_float(y[v]) : 0.0f, Prior));
  }
}

template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
void backward_row(const T* y, const T* dy, T* dx, long long vec, float alpha, float beta) {
  float d[kLanes] = {};
  const long long full = vec / kLanes * kLanes;
  for (long long v = 0; v < full; v += kLanes)
    for (int l = 0; l < kLanes; ++l)
      d[l] += softmax::backward_term<A>(to_float(y[v + l]), to_float(dy[v + l]));
  for (long long v = full; v < vec; ++v)
    d[0] += softmax::backward_term<A>(to_float(y[v]), to_float(dy[v]));
  float dot = 0.0f;
  for (int l = 0; l < kLanes; ++l)
    dot += d[l];
  for (long long v = 0; v < vec; ++v) {
    const float r = softmax::backward_value<A>(to_float(y[v]), to_float(dy[v]), dot);
    dx[v] = from_float<T>(softmax::blend(r, alpha, beta, Prior ? to_float(dx[v]) : 0.0f, Prior));
  }
}

class SoftmaxPacked final : public SoftmaxPackedSpec {
 public:
  void run(const ExecutionContext& ctx, const SoftmaxProblem& p,
           const SoftmaxBuffers& b) const override {
    const long long n = p.lens()[0], inner = p.inner(), vec = p.vector();
    const long long tiles_per_image = inner == 1 ? 1 : (inner + kTile - 1) / kTile;
    const long long items = n * tiles_per_image;
    const int threads = std::min<long long>(
        activ_rows::thread_count(ctx.config.num_threads, n * inner * vec), items);
    const bool prior = p.beta() != 0.0f;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      softmax::dispatch_algorithm(p.algorithm(), [&](auto algo) {
        constexpr miopenSoftmaxAlgorithm_t A = decltype(algo)::value;
        if (prior)
          run_items<A, true, T>(p, b, items, tiles_per_image, threads, ctx.config.cpu_isa);
        else
          run_items<A, false, T>(p, b, items, tiles_per_image, threads, ctx.config.cpu_isa);
      });
    });
  }

 private:
  template <miopenSoftmaxAlgorithm_t A, bool Prior, class T>
  static void run_items(const SoftmaxProblem& p, const SoftmaxBuffers& b, long long items,
                        long long tiles_per_image, int threads, CpuIsa isa) {
    const long long inner = p.inner(), vec = p.vector(), image = inner * vec;
    const float alpha = p.alpha(), beta = p.beta();
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (long long it = 0; it < items; ++it) {
      const long long img = it / tiles_per_image;
      const long long p0 = (it - img * tiles_per_image) * kTile;
      const long long off = img * image + (inner == 1 ? 0 : p0);
      const long long width = inner == 1 ? 1 : std::min(kTile, inner - p0);
      with_isa(isa, [&] {
        if (p.forward()) {
          const T* x = static_cast<const T*>(b.x) + off;
          T* y = static_cast<T*>(b.y) + off;
          if (inner == 1)
            forward_row<A, Prior>(x, y, vec, alpha, beta);
          else
            forward_tile<A, Prior>(x, y, inner, vec, width, alpha, beta);
        } else {
          const T* y = static_cast<const T*>(b.y) + off;
          const T* dy = static_cast<const T*>(b.dy) + off;
          T* dx = static_cast<T*>(b.dx) + off;
          if (inner == 1)
            backward_row<A, Prior>(y, dy, dx, vec, alpha, beta);
          else
            backward_tile<A, Prior>(y, dy, dx, inner, vec, width, alpha, beta);
        }
      });
    }
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<SoftmaxSolver> make_softmax_packed<BackendKind::Cpu>() {
  return std::make_unique<cpu::SoftmaxPacked>();
}

}  // namespace anydnn
