#include "mha_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mha/mha_math.hpp"  // the dropout keep decision only

namespace anydnn::ref {

namespace {

// The shared keep decision for a call's seed, offset and rate.
mha::Dropout dropout_of(const MhaParams& p) {
  mha::Scalars s;
  s.dropout = p.dropout;
  s.seed = p.seed;
  s.offset = p.offset;
  return mha::make_dropout(s);
}

double keep_scale(const MhaParams& p) {
  return mha::dropout_on(p.dropout) ? 1.0 / (1.0 - static_cast<double>(p.dropout)) : 1.0;
}

// T[i, j] = scale * descaleQ * descaleK * q_i . k_j + bias[i, j], for one (n, h).
double logit(const MhaShape& s, const MhaParams& p, const double* q, const double* k,
             const double* bias, size_t i, size_t j) {
  double dot = 0.0;
  for (size_t d = 0; d < s.d; ++d)
    dot += q[i * s.d + d] * k[j * s.d + d];
  double t = p.scale * p.descale_q * p.descale_k * dot;
  if (bias != nullptr) t += bias[i * s.sk + j];
  return t;
}

bool visible(const MhaParams& p, size_t i, size_t j) {
  return !p.causal || j <= i;
}

}  // namespace

MhaForwardResult mha_forward(const MhaShape& s, const MhaParams& p, const std::vector<double>& q,
                             const std::vector<double>& k, const std::vector<double>& v,
                             const std::vector<double>& bias) {
  MhaForwardResult r;
  const size_t nh = s.n * s.h;
  r.o.assign(nh * s.sq * s.dv, 0.0);
  r.m.assign(nh * s.sq, 0.0);
  r.zinv.assign(nh * s.sq, 0.0);
  const mha::Dropout drop = dropout_of(p);
  const double kscale = keep_scale(p);
  std::vector<double> t(s.sk), prob(s.sk);
  for (size_t b = 0; b < nh; ++b) {
    const double* qb = q.data() + b * s.sq * s.d;
    const double* kb = k.data() + b * s.sk * s.d;
    const double* vb = v.data() + b * s.sk * s.dv;
    const double* biasb = bias.empty() ? nullptr : bias.data() + b * s.sq * s.sk;
    for (size_t i = 0; i < s.sq; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < s.sk; ++j)
        if (visible(p, i, j)) {
          t[j] = logit(s, p, qb, kb, biasb, i, j);
          m = std::max(m, t[j]);
        }
      double z = 0.0;
      for (size_t j = 0; j < s.sk; ++j)
        if (visible(p, i, j)) z += std::exp(t[j] - m);
      const size_t row = b * s.sq + i;
      r.m[row] = m;
      r.zinv[row] = 1.0 / z;
      for (size_t j = 0; j < s.sk; ++j) {
        const double pr = visible(p, i, j) ? std::exp(t[j] - m) / z : 0.0;
        r.amax_s = std::max(r.amax_s, pr);
        const bool kept = mha::keep(drop, row * s.sk + j);
        prob[j] = kept ? pr * p.scale_s * kscale : 0.0;
      }
      for (size_t e = 0; e < s.dv; ++e) {
        double acc = 0.0;
        for (size_t j = 0; j < s.sk; ++j)
          acc += prob[j] * vb[j * s.dv + e];
        const double o = p.descale_s * p.descale_v * acc;
        r.amax_o = std::max(r.amax_o, std::abs(o));
        r.o[row * s.dv + e] = o * p.scale_o;
      }
    }
  }
  return r;
}

MhaBackwardResult mha_backward(const MhaShape& s, const MhaParams& p, const std::vector<double>& q,
                               const std::vector<double>& k, const std::vector<double>& v,
                               const std::vector<double>& o, const std::vector<double>& d_o,
                               const std::vector<double>& m, const std::vector<double>& zinv,
                               const std::vector<double>& bias) {
  MhaBackwardResult r;
  const size_t nh = s.n * s.h;
  r.dq.assign(nh * s.sq * s.d, 0.0);
  r.dk.assign(nh * s.sk * s.d, 0.0);
  r.dv.assign(nh * s.sk * s.dv, 0.0);
  const mha::Dropout drop = dropout_of(p);
  const double kscale = keep_scale(p);
  const double sigma_ds = p.scale_ds * p.descale_ds, sigma_s = p.scale_s * p.descale_s;
  std::vector<double> ds(s.sq * s.sk), pd(s.sq * s.sk);
  for (size_t b = 0; b < nh; ++b) {
    const double* qb = q.data() + b * s.sq * s.d;
    const double* kb = k.data() + b * s.sk * s.d;
    const double* vb = v.data() + b * s.sk * s.dv;
    const double* ob = o.data() + b * s.sq * s.dv;
    const double* dob = d_o.data() + b * s.sq * s.dv;
    const double* biasb = bias.empty() ? nullptr : bias.data() + b * s.sq * s.sk;
    for (size_t i = 0; i < s.sq; ++i) {
      const size_t row = b * s.sq + i;
      double di = 0.0;
      for (size_t e = 0; e < s.dv; ++e)
        di += dob[i * s.dv + e] * ob[i * s.dv + e];
      di *= p.descale_o * p.descale_do;
      for (size_t j = 0; j < s.sk; ++j) {
        double& dsij = ds[i * s.sk + j];
        double& pdij = pd[i * s.sk + j];
        dsij = pdij = 0.0;
        if (!visible(p, i, j)) continue;
        const double pr = std::exp(logit(s, p, qb, kb, biasb, i, j) - m[row]) * zinv[row];
        const bool kept = mha::keep(drop, row * s.sk + j);
        double dpd = 0.0;
        for (size_t e = 0; e < s.dv; ++e)
          dpd += dob[i * s.dv + e] * vb[j * s.dv + e];
        dpd *= p.descale_do * p.descale_v;
        const double dp = kept ? dpd * kscale : 0.0;
        pdij = kept ? pr * kscale : 0.0;
        dsij = p.scale * pr * (dp - di);
        r.amax_ds = std::max(r.amax_ds, std::abs(dsij));
      }
    }
    for (size_t i = 0; i < s.sq; ++i)
      for (size_t e = 0; e < s.d; ++e) {
        double acc = 0.0;
        for (size_t j = 0; j < s.sk; ++j)
          acc += ds[i * s.sk + j] * kb[j * s.d + e];
        const double g = sigma_ds * p.descale_k * acc;
        r.amax_dq = std::max(r.amax_dq, std::abs(g));
        r.dq[(b * s.sq + i) * s.d + e] = g * p.scale_dq;
      }
    for (size_t j = 0; j < s.sk; ++j) {
      for (size_t e = 0; e < s.d; ++e) {
        double acc = 0.0;
        for (size_t i = 0; i < s.sq; ++i)
          acc += ds[i * s.sk + j] * qb[i * s.d + e];
        const double g = sigma_ds * p.descale_q * acc;
        r.amax_dk = std::max(r.amax_dk, std::abs(g));
        r.dk[(b * s.sk + j) * s.d + e] = g * p.scale_dk;
      }
      for (size_t e = 0; e < s.dv; ++e) {
        double acc = 0.0;
        for (size_t i = 0; i < s.sq; ++i)
          acc += pd[i * s.sk + j] * dob[i * s.dv + e];
        const double g = sigma_s * p.descale_do * acc;
        r.amax_dv = std::max(r.amax_dv, std::abs(g));
        r.dv[(b * s.sk + j) * s.dv + e] = g * p.scale_dv;
      }
    }
  }
  return r;
}

}  // namespace anydnn::ref
