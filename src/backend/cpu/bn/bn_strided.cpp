// BnStrided: the fallback for data layouts the direct solvers do not walk (CHWN, padded or
// permuted strides, per-activation NHWC). It copies x (and dy) into packed NCHW / NCDHW
// buffers, runs BnSpatialChannelMajor or BnPerActivation on them and copies the result back
// (blending with alpha / beta there). Correct for any strides, at the price of the copies.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend/cpu/bn/bn_activation.hpp"
#include "backend/cpu/bn/bn_util.hpp"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

// Calls f(packed logical index, strided offset) for the elements of image n, channel c.
template <class F>
void for_plane(const TensorDescriptor& d, size_t n, size_t c, F&& f) {
  const auto& l = d.lens();
  const auto& s = d.strides();
  const size_t D = l.size() == 5 ? l[2] : 1, H = l[l.size() - 2], W = l[l.size() - 1];
  const size_t sd = l.size() == 5 ? s[2] : 0, sh = s[l.size() - 2], sw = s[l.size() - 1];
  const size_t S = D * H * W;
  size_t i = (n * l[1] + c) * S;
  const size_t base = n * s[0] + c * s[1];
  for (size_t z = 0; z < D; ++z)
    for (size_t h = 0; h < H; ++h)
      for (size_t w = 0; w < W; ++w)
        f(i++, base + z * sd + h * sh + w * sw);
}

template <class T>
void gather(const TensorDescriptor& d, const void* src, T* dst, int threads) {
  const T* s = static_cast<const T*>(src);
  const long N = static_cast<long>(d.lens()[0]), C = static_cast<long>(d.lens()[1]);
#pragma omp parallel for collapse(2) num_threads(threads)
  for (long n = 0; n < N; ++n)
    for (long c = 0; c < C; ++c)
      for_plane(d, n, c, [&](size_t i, size_t off) { dst[i] = s[off]; });
}

template <class T>
void scatter(const TensorDescriptor& d, const T* src, void* dst, float alpha, float beta,
             int threads) {
  T* o = static_cast<T*>(dst);
  const long N = static_cast<long>(d.lens()[0]), C = static_cast<long>(d.lens()[1]);
  const bool plain = alpha == 1.0f && beta == 0.0f;
#pragma omp parallel for collapse(2) num_threads(threads)
  for (long n = 0; n < N; ++n)
    for (long c = 0; c < C; ++c)
      for_plane(d, n, c, [&](size_t i, size_t off) {
        if (plain)
          o[off] = src[i];
        else if (beta == 0.0f)
          o[off] = from_float<T>(alpha * to_float(src[i]));
        else
          o[off] = from_float<T>(alpha * to_float(src[i]) + beta * to_float(o[off]));
      });
}

class BnStrided final : public BnStridedSpec {
 public:
  // The packed solver it delegates to applies the activation (BnBuffers are passed on).
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t) const override {
    return cpu_bn_activation_support(p);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    const int threads = std::max(1, ctx.config.num_threads);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const bool bwd = p.direction() == BnDirection::Backward;
      const TensorDescriptor packed(p.data_type(), p.x().lens());
      const size_t count = packed.element_count();
      std::vector<T> x(count), y(count), dy(bwd ? count : 0);
      gather(p.x(), b.x, x.data(), threads);
      if (bwd) gather(p.y(), b.dy, dy.data(), threads);
      BnDescriptors d;
      d.x = &packed;
      d.y = &packed;
      d.dx = bwd ? &packed : nullptr;
      d.scale = &p.scale();
      d.bias = &p.bias();
      d.mean = &p.mean();
      d.var = &p.var();
      const BnProblem inner(p.direction(), p.mode(), d, p.epsilon(), p.exp_avg_factor(), p.save(),
                            p.running());
      BnBuffers ib = b;
      ib.x = x.data();
      ib.alpha = 1.0f;
      ib.beta = 0.0f;
      if (bwd) {
        ib.dy = dy.data();
        ib.dx = y.data();
      } else {
        ib.y = y.data();
      }
      const auto solver = p.spatial() ? make_bn_spatial_channel_major<BackendKind::Cpu>()
                                      : make_bn_per_activation<BackendKind::Cpu>();
      solver->run(ctx, inner, ib);
      scatter(bwd ? p.dx() : p.y(), y.data(), bwd ? b.dx : b.y, b.alpha, b.beta, threads);
    });
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_strided<BackendKind::Cpu>() {
  return std::make_unique<cpu::BnStrided>();
}

}  // namespace anydnn
