#include "bn_reference.hpp"

#include <cmath>

namespace anydnn::ref {

namespace {

struct Shape {
  size_t N, C, S;
  bool spatial;
  size_t groups() const { return spatial ? C : C * S; }
  double m() const { return static_cast<double>(spatial ? N * S : N); }
  // Group of element (n, c, s).
  size_t group(size_t c, size_t s) const { return spatial ? c : c * S + s; }
};

Shape shape_of(const TensorView& x, miopenBatchNormMode_t mode) {
  size_t S = 1;
  for (size_t i = 2; i < x.lens.size(); ++i)
    S *= x.lens[i];
  return {x.lens[0], x.lens[1], S, mode == miopenBNSpatial};
}

template <class F>
void for_each(const Shape& sh, F&& f) {
  size_t i = 0;
  for (size_t n = 0; n < sh.N; ++n)
    for (size_t c = 0; c < sh.C; ++c)
      for (size_t s = 0; s < sh.S; ++s)
        f(i++, sh.group(c, s));
}

void statistics(const Shape& sh, const std::vector<double>& v, std::vector<double>& mean,
                std::vector<double>& var) {
  mean.assign(sh.groups(), 0.0);
  var.assign(sh.groups(), 0.0);
  for_each(sh, [&](size_t i, size_t g) { mean[g] += v[i]; });
  for (auto& m : mean)
    m /= sh.m();
  for_each(sh, [&](size_t i, size_t g) { var[g] += (v[i] - mean[g]) * (v[i] - mean[g]); });
  for (auto& q : var)
    q /= sh.m();
}

std::vector<double> normalise(const Shape& sh, const std::vector<double>& v,
                              const std::vector<double>& scale, const std::vector<double>& bias,
                              const std::vector<double>& mean, const std::vector<double>& invstd) {
  std::vector<double> y(v.size());
  for_each(sh,
           [&](size_t i, size_t g) { y[i] = scale[g] * (v[i] - mean[g]) * invstd[g] + bias[g]; });
  return y;
}

}  // namespace

BnForwardResult bn_forward_training(const TensorView& x, miopenBatchNormMode_t mode,
                                    const std::vector<double>& scale,
                                    const std::vector<double>& bias, double epsilon,
                                    double exp_avg_factor, const std::vector<double>& old_mean,
                                    const std::vector<double>& old_var) {
  const Shape sh = shape_of(x, mode);
  const std::vector<double> v = to_logical(x);
  BnForwardResult r;
  statistics(sh, v, r.mean, r.var);
  r.invstd.resize(sh.groups());
  for (size_t g = 0; g < sh.groups(); ++g)
    r.invstd[g] = 1.0 / std::sqrt(r.var[g] + epsilon);
  r.y = normalise(sh, v, scale, bias, r.mean, r.invstd);
  if (!old_mean.empty()) {
    const double f = exp_avg_factor;
    const double unbias = sh.m() > 1 ? sh.m() / (sh.m() - 1) : 1.0;
    r.running_mean.resize(sh.groups());
    r.running_var.resize(sh.groups());
    for (size_t g = 0; g < sh.groups(); ++g) {
      r.running_mean[g] = (1 - f) * old_mean[g] + f * r.mean[g];
      r.running_var[g] = (1 - f) * old_var[g] + f * r.var[g] * unbias;
    }
  }
  return r;
}

std::vector<double> bn_forward_inference(const TensorView& x, miopenBatchNormMode_t mode,
                                         const std::vector<double>& scale,
                                         const std::vector<double>& bias,
                                         const std::vector<double>& est_mean,
                                         const std::vector<double>& est_var, double epsilon) {
  const Shape sh = shape_of(x, mode);
  const std::vector<double> v = to_logical(x);
  std::vector<double> mean = est_mean, var = est_var;
  if (mean.empty() || var.empty()) statistics(sh, v, mean, var);
  std::vector<double> invstd(sh.groups());
  for (size_t g = 0; g < sh.groups(); ++g)
    invstd[g] = 1.0 / std::sqrt(var[g] + epsilon);
  return normalise(sh, v, scale, bias, mean, invstd);
}

BnBackwardResult bn_backward(const TensorView& x, const TensorView& dy, miopenBatchNormMode_t mode,
                             const std::vector<double>& scale, double epsilon,
                             const std::vector<double>& saved_mean,
                             const std::vector<double>& saved_invstd) {
  const Shape sh = shape_of(x, mode);
  const std::vector<double> v = to_logical(x), d = to_logical(dy);
  std::vector<double> mean = saved_mean, invstd = saved_invstd;
  if (mean.empty() || invstd.empty()) {
    std::vector<double> var;
    statistics(sh, v, mean, var);
    invstd.resize(sh.groups());
    for (size_t g = 0; g < sh.groups(); ++g)
      invstd[g] = 1.0 / std::sqrt(var[g] + epsilon);
  }
  BnBackwardResult r;
  r.dscale.assign(sh.groups(), 0.0);
  r.dbias.assign(sh.groups(), 0.0);
  for_each(sh, [&](size_t i, size_t g) {
    r.dbias[g] += d[i];
    r.dscale[g] += d[i] * (v[i] - mean[g]) * invstd[g];
  });
  r.dx.resize(v.size());
  const double m = sh.m();
  for_each(sh, [&](size_t i, size_t g) {
    const double xhat = (v[i] - mean[g]) * invstd[g];
    r.dx[i] = scale[g] * invstd[g] / m * (m * d[i] - r.dbias[g] - xhat * r.dscale[g]);
  });
  return r;
}

}  // namespace anydnn::ref
