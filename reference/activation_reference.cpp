#include "activation_reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace anydnn::ref {

double activation_forward(const ActivationDesc& a, double x) {
  switch (a.mode) {
    case miopenActivationPASTHRU:
      return x;
    case miopenActivationLOGISTIC:
      return 1.0 / (1.0 + std::exp(-x));
    case miopenActivationTANH:
      return a.beta * std::tanh(a.alpha * x);
    case miopenActivationRELU:
      return x > 0.0 ? x : 0.0;
    case miopenActivationSOFTRELU:
      return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case miopenActivationABS:
      return std::abs(x);
    case miopenActivationPOWER: {
      const double v = a.alpha + a.beta * x;
      return v <= DBL_EPSILON ? 0.0 : std::pow(v, a.gamma);
    }
    case miopenActivationCLIPPEDRELU:
      return std::min(a.alpha, std::max(0.0, x));
    case miopenActivationLEAKYRELU:
      return x > 0.0 ? x : x * a.alpha;
    case miopenActivationELU:
      return x > 0.0 ? x : a.alpha * std::expm1(x);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double activation_backward(const ActivationDesc& a, double dy, double x, double y) {
  switch (a.mode) {
    case miopenActivationPASTHRU:
      return dy;
    case miopenActivationLOGISTIC:
      return dy * y * (1.0 - y);
    case miopenActivationTANH:
      return dy * a.alpha * (a.beta - y * y / a.beta);
    case miopenActivationRELU:
      return x > 0.0 ? dy : 0.0;
    case miopenActivationSOFTRELU: {
      const double e = std::exp(std::min(x, 50.0));
      return dy * e / (e + 1.0);
    }
    case miopenActivationABS:
      return dy * (x > 0.0 ? 1.0 : -1.0);
    case miopenActivationPOWER: {
      const double v = a.alpha + a.beta * x;
      return v <= DBL_EPSILON ? 0.0 : a.gamma * a.beta * y / v;
    }
    case miopenActivationCLIPPEDRELU:
      return x > 0.0 && x <= a.alpha ? dy : 0.0;
    case miopenActivationLEAKYRELU:
      return dy * (x > 0.0 ? 1.0 : a.alpha);
    case miopenActivationELU:
      return dy * (x > 0.0 ? 1.0 : y + a.alpha);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> activation_forward(const ActivationDesc& a, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = activation_forward(a, x[i]);
  return y;
}

std::vector<double> activation_backward(const ActivationDesc& a, const std::vector<double>& dy,
                                        const std::vector<double>& x,
                                        const std::vector<double>& y) {
  std::vector<double> dx(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    dx[i] = activation_backward(a, dy[i], x[i], y[i]);
  return dx;
}

namespace {

double uniform(std::mt19937& rng, double lo, double hi) {
  if (hi < lo) std::swap(lo, hi);
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

}  // namespace

double activation_input(const ActivationDesc& a, size_t i, std::mt19937& rng) {
  switch (a.mode) {
    case miopenActivationPOWER: {
      if (a.beta == 0.0) return uniform(rng, -2.0, 2.0);
      const double v = i % 2 ? uniform(rng, 0.005, 2.0) : uniform(rng, -2.0, -0.005);
      return (v - a.alpha) / a.beta;
    }
    case miopenActivationCLIPPEDRELU:
      if (i % 3 == 0) return uniform(rng, -1.0 * a.alpha, -0.005 * a.alpha);
      if (i % 3 == 1) return uniform(rng, 0.005 * a.alpha, 0.995 * a.alpha);
      return uniform(rng, 1.005 * a.alpha, 2.0 * a.alpha);
    case miopenActivationLEAKYRELU:
      return i % 2 ? uniform(rng, -1.0, -0.005) : uniform(rng, 0.005, 1.0);
    case miopenActivationELU:
      return i % 2 ? uniform(rng, 0.005, 2.0) : uniform(rng, -2.0, -0.005);
    case miopenActivationRELU:
    case miopenActivationABS:
      // MIOpen draws from [-2, 2]; the kink at 0 only matters for values rounding to it.
      return i % 2 ? uniform(rng, 0.005, 2.0) : uniform(rng, -2.0, -0.005);
    default:
      return uniform(rng, -2.0, 2.0);
  }
}

long long activation_mismatch(const std::vector<double>& want, const std::vector<double>& got,
                              double tol) {
  if (want.size() != got.size()) return 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double err = std::abs(want[i] - got[i]);
    const double rel = err / std::max(std::numeric_limits<double>::epsilon(), std::abs(want[i]));
    if ((err > tol && rel > tol) || !std::isfinite(want[i]) || !std::isfinite(got[i]))
      return static_cast<long long>(i);
  }
  return -1;
}

double activation_tolerance(miopenDataType_t type) {
  switch (type) {
    case miopenHalf:
      return 80.0 * 0.0009765625;  // 2^-10
    case miopenBFloat16:
      return 80.0 * 0.0078125;  // 2^-7
    default:
      return 80.0 * static_cast<double>(FLT_EPSILON);
  }
}

}  // namespace anydnn::ref
