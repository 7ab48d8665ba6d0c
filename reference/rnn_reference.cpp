#include "rnn_reference.hpp"

#include <algorithm>
#include <cmath>

namespace anydnn::ref {

namespace {

struct Layout {
  const RnnConfig& c;
  size_t I;
  int G, D;
  size_t H;
  Layout(const RnnConfig& cfg, size_t input)
      : c(cfg),
        I(input),
        G(cfg.mode == 2   ? 4
          : cfg.mode == 3 ? 3
                          : 1),
        D(cfg.bidirectional ? 2 : 1),
        H(static_cast<size_t>(cfg.hidden)) {}
  size_t in(int l) const {
    if (l == 0) return c.skip_input ? 0 : I;
    return D * H;
  }
  // Offset of matrix (layer l, direction d, side s: 0 input / 1 hidden, gate g).
  size_t matrix(int l, int d, int s, int g) const {
    size_t off = 0;
    for (int k = 0; k < l; ++k)
      off += static_cast<size_t>(D) * G * H * (in(k) + H);
    if (s == 1) off += static_cast<size_t>(D) * G * H * in(l);
    const size_t cols = s == 0 ? in(l) : H;
    return off + (static_cast<size_t>(d) * G + g) * H * cols;
  }
  size_t matrices() const {
    size_t off = 0;
    for (int k = 0; k < c.layers; ++k)
      off += static_cast<size_t>(D) * G * H * (in(k) + H);
    return off;
  }
  size_t bias(int l, int d, int s, int g) const {
    return matrices() + ((static_cast<size_t>(l) * 2 + s) * D + d) * G * H + g * H;
  }
};

double act(int mode, double v) {
  return mode == 0 ? std::max(v, 0.0) : std::tanh(v);
}
double sig(double v) {
  return 1.0 / (1.0 + std::exp(-v));
}

}  // namespace

size_t rnn_weight_count(const RnnConfig& c, size_t input) {
  const Layout L(c, input);
  size_t n = L.matrices();
  if (c.bias) n += 2 * static_cast<size_t>(c.layers) * L.D * L.G * L.H;
  return n;
}

RnnForwardResult rnn_forward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                             const std::vector<double>& x, const std::vector<double>& hx,
                             const std::vector<double>& cx, const std::vector<double>& w) {
  const Layout L(c, input);
  const size_t T = batch.size(), B0 = batch[0], H = L.H;
  std::vector<size_t> start(T, 0);
  for (size_t t = 1; t < T; ++t)
    start[t] = start[t - 1] + batch[t - 1];
  const size_t R = start[T - 1] + batch[T - 1];
  RnnForwardResult res;
  res.hy.assign(static_cast<size_t>(c.layers) * L.D * B0 * H, 0.0);
  res.cy = res.hy;
  std::vector<double> in = x;  // rows x width
  size_t width = input;
  for (int l = 0; l < c.layers; ++l) {
    std::vector<double> out(R * L.D * H, 0.0);
    for (int d = 0; d < L.D; ++d) {
      const size_t state = static_cast<size_t>(l) * L.D + d;
      // Per sequence b: walk its active steps in this direction's order. Sequences are
      // independent (each writes its own rows of out, hy and cy), so they run in parallel: the
      // driver's -V 1 on DeepBench layers would otherwise take minutes per layer.
#pragma omp parallel for schedule(dynamic)
      for (size_t b = 0; b < B0; ++b) {
        size_t len = 0;
        while (len < T && batch[len] > b)
          ++len;
        std::vector<double> h(H), cst(H);
        for (size_t j = 0; j < H; ++j) {
          h[j] = hx.empty() ? 0.0 : hx[(state * B0 + b) * H + j];
          cst[j] = cx.empty() ? 0.0 : cx[(state * B0 + b) * H + j];
        }
        for (size_t k = 0; k < len; ++k) {
          const size_t t = d == 0 ? k : len - 1 - k;
          const double* xr = &in[(start[t] + b) * width];
          // Pre-activations of the input side and the hidden side, per gate.
          std::vector<double> px(L.G * H, 0.0), ph(L.G * H, 0.0);
          for (int g = 0; g < L.G; ++g)
            for (size_t j = 0; j < H; ++j) {
              double a = 0.0, e = 0.0;
              if (l == 0 && c.skip_input) {
                a = xr[j];
              } else {
                const size_t cols = L.in(l);
                const size_t m = L.matrix(l, d, 0, g) + j * cols;
                for (size_t i = 0; i < cols; ++i)
                  a += w[m + i] * xr[i];
              }
              const size_t mh = L.matrix(l, d, 1, g) + j * H;
              for (size_t i = 0; i < H; ++i)
                e += w[mh + i] * h[i];
              if (c.bias) {
                a += w[L.bias(l, d, 0, g) + j];
                e += w[L.bias(l, d, 1, g) + j];
              }
              px[g * H + j] = a;
              ph[g * H + j] = e;
            }
          std::vector<double> hn(H);
          for (size_t j = 0; j < H; ++j) {
            if (c.mode <= 1) {
              hn[j] = act(c.mode, px[j] + ph[j]);
            } else if (c.mode == 2) {  // LSTM i, f, o, g
              const double i = sig(px[j] + ph[j]), f = sig(px[H + j] + ph[H + j]),
                           o = sig(px[2 * H + j] + ph[2 * H + j]),
                           gg = std::tanh(px[3 * H + j] + ph[3 * H + j]);
              cst[j] = f * cst[j] + i * gg;
              hn[j] = o * std::tanh(cst[j]);
            } else {  // GRU z, r, n
              const double z = sig(px[j] + ph[j]), r = sig(px[H + j] + ph[H + j]);
              const double n = std::tanh(px[2 * H + j] + r * ph[2 * H + j]);
              hn[j] = (1 - z) * n + z * h[j];
            }
          }
          h = hn;
          for (size_t j = 0; j < H; ++j)
            out[(start[t] + b) * L.D * H + d * H + j] = h[j];
        }
        for (size_t j = 0; j < H; ++j) {
          res.hy[(state * B0 + b) * H + j] = h[j];
          res.cy[(state * B0 + b) * H + j] = c.mode == 2 ? cst[j] : 0.0;
        }
      }
    }
    in = out;
    width = L.D * H;
  }
  res.y = in;
  return res;
}

namespace {

// Everything one (layer, direction, sequence, step) computed, for backpropagation.
struct StepRecord {
  std::vector<double> in, hprev, cprev, px, ph, gates, c, h;
  std::vector<double> dpx, dph;  // the pre-activation gradients, from the backward pass
};

}  // namespace

RnnBackwardResult rnn_backward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                               const std::vector<double>& x, const std::vector<double>& hx,
                               const std::vector<double>& cx, const std::vector<double>& w,
                               const std::vector<double>& dy, const std::vector<double>& dhy,
                               const std::vector<double>& dcy) {
  const Layout L(c, input);
  const size_t T = batch.size(), B0 = batch[0], H = L.H;
  const int G = L.G, D = L.D;
  std::vector<size_t> start(T, 0);
  for (size_t t = 1; t < T; ++t)
    start[t] = start[t - 1] + batch[t - 1];
  const size_t R = start[T - 1] + batch[T - 1];
  auto len_of = [&](size_t b) {
    size_t n = 0;
    while (n < T && batch[n] > b)
      ++n;
    return n;
  };
  RnnBackwardResult res;
  res.dw.assign(w.size(), 0.0);
  res.dhx.assign(static_cast<size_t>(c.layers) * D * B0 * H, 0.0);
  res.dcx = res.dhx;
  // Forward, keeping every step.
  std::vector<std::vector<std::vector<std::vector<StepRecord>>>> rec(
      c.layers, std::vector<std::vector<std::vector<StepRecord>>>(
                    D, std::vector<std::vector<StepRecord>>(B0)));
  std::vector<double> in = x;
  size_t width = input;
  for (int l = 0; l < c.layers; ++l) {
    std::vector<double> out(R * D * H, 0.0);
    for (int d = 0; d < D; ++d) {
      const size_t st = static_cast<size_t>(l) * D + d;
#pragma omp parallel for schedule(dynamic)
      for (size_t b = 0; b < B0; ++b) {
        const size_t len = len_of(b);
        std::vector<double> h(H), cs(H);
        for (size_t j = 0; j < H; ++j) {
          h[j] = hx.empty() ? 0.0 : hx[(st * B0 + b) * H + j];
          cs[j] = cx.empty() ? 0.0 : cx[(st * B0 + b) * H + j];
        }
        for (size_t k = 0; k < len; ++k) {
          const size_t t = d == 0 ? k : len - 1 - k;
          StepRecord sr;
          sr.in.assign(&in[(start[t] + b) * width], &in[(start[t] + b) * width] + width);
          sr.hprev = h;
          sr.cprev = cs;
          sr.px.assign(G * H, 0.0);
          sr.ph.assign(G * H, 0.0);
          for (int g = 0; g < G; ++g)
            for (size_t j = 0; j < H; ++j) {
              double a = 0, e = 0;
              if (l == 0 && c.skip_input) {
                a = sr.in[j];
              } else {
                const size_t cols = L.in(l), m = L.matrix(l, d, 0, g) + j * cols;
                for (size_t i = 0; i < cols; ++i)
                  a += w[m + i] * sr.in[i];
              }
              const size_t mh = L.matrix(l, d, 1, g) + j * H;
              for (size_t i = 0; i < H; ++i)
                e += w[mh + i] * h[i];
              if (c.bias) {
                a += w[L.bias(l, d, 0, g) + j];
                e += w[L.bias(l, d, 1, g) + j];
              }
              sr.px[g * H + j] = a;
              sr.ph[g * H + j] = e;
            }
          sr.gates.assign(G * H, 0.0);
          for (size_t j = 0; j < H; ++j) {
            if (c.mode <= 1) {
              h[j] = act(c.mode, sr.px[j] + sr.ph[j]);
            } else if (c.mode == 2) {
              const double i = sig(sr.px[j] + sr.ph[j]), f = sig(sr.px[H + j] + sr.ph[H + j]),
                           o = sig(sr.px[2 * H + j] + sr.ph[2 * H + j]),
                           gg = std::tanh(sr.px[3 * H + j] + sr.ph[3 * H + j]);
              cs[j] = f * cs[j] + i * gg;
              h[j] = o * std::tanh(cs[j]);
              sr.gates[j] = i;
              sr.gates[H + j] = f;
              sr.gates[2 * H + j] = o;
              sr.gates[3 * H + j] = gg;
            } else {
              const double z = sig(sr.px[j] + sr.ph[j]), r = sig(sr.px[H + j] + sr.ph[H + j]);
              const double n = std::tanh(sr.px[2 * H + j] + r * sr.ph[2 * H + j]);
              h[j] = (1 - z) * n + z * sr.hprev[j];
              sr.gates[j] = z;
              sr.gates[H + j] = r;
              sr.gates[2 * H + j] = n;
            }
          }
          sr.c = cs;
          sr.h = h;
          for (size_t j = 0; j < H; ++j)
            out[(start[t] + b) * D * H + d * H + j] = h[j];
          rec[l][d][b].push_back(std::move(sr));
        }
      }
    }
    in = out;
    width = static_cast<size_t>(D) * H;
  }
  // Backward, from the top layer.
  std::vector<double> dout = dy;  // gradient w.r.t. the current layer's output rows
  for (int l = c.layers - 1; l >= 0; --l) {
    const size_t in_w = l == 0 ? input : static_cast<size_t>(D) * H;
    std::vector<double> din(R * in_w, 0.0);
    for (int d = 0; d < D; ++d) {
      const size_t st = static_cast<size_t>(l) * D + d;
      // Two phases, both parallel: the sequences' gradient chains (each writes only its own rows
      // of din, dhx and dcx), then the weight gradients row by row over every step in a fixed
      // order, so no two threads add to one element and the sums never change between runs.
#pragma omp parallel for schedule(dynamic)
      for (size_t b = 0; b < B0; ++b) {
        const size_t len = len_of(b);
        std::vector<double> dh(H), dc(H);
        for (size_t j = 0; j < H; ++j) {
          dh[j] = dhy.empty() ? 0.0 : dhy[(st * B0 + b) * H + j];
          dc[j] = dcy.empty() ? 0.0 : dcy[(st * B0 + b) * H + j];
        }
        for (size_t k = len; k-- > 0;) {
          const size_t t = d == 0 ? k : len - 1 - k;
          StepRecord& sr = rec[l][d][b][k];
          for (size_t j = 0; j < H; ++j)
            dh[j] += dout[(start[t] + b) * D * H + d * H + j];
          std::vector<double> dpx(G * H), dph(G * H), dhp(H, 0.0), dcp(H, 0.0);
          for (size_t j = 0; j < H; ++j) {
            if (c.mode <= 1) {
              const double pre = sr.px[j] + sr.ph[j];
              const double g = c.mode == 0 ? (pre > 0 ? 1.0 : 0.0) : 1 - sr.h[j] * sr.h[j];
              dpx[j] = dph[j] = dh[j] * g;
            } else if (c.mode == 2) {
              const double i = sr.gates[j], f = sr.gates[H + j], o = sr.gates[2 * H + j],
                           gg = sr.gates[3 * H + j], tc = std::tanh(sr.c[j]);
              const double dct = dc[j] + dh[j] * o * (1 - tc * tc);
              dpx[j] = dct * gg * i * (1 - i);
              dpx[H + j] = dct * sr.cprev[j] * f * (1 - f);
              dpx[2 * H + j] = dh[j] * tc * o * (1 - o);
              dpx[3 * H + j] = dct * i * (1 - gg * gg);
              dcp[j] = dct * f;
              for (int g = 0; g < 4; ++g)
                dph[g * H + j] = dpx[g * H + j];
            } else {
              const double z = sr.gates[j], r = sr.gates[H + j], n = sr.gates[2 * H + j];
              const double dn = dh[j] * (1 - z), dz = dh[j] * (sr.hprev[j] - n);
              const double da = dn * (1 - n * n);
              dpx[j] = dph[j] = dz * z * (1 - z);
              dpx[H + j] = dph[H + j] = da * sr.ph[2 * H + j] * r * (1 - r);
              dpx[2 * H + j] = da;
              dph[2 * H + j] = da * r;
              dhp[j] += dh[j] * z;
            }
          }
          // Input and previous state (the weight gradients follow in phase two).
          for (int g = 0; g < G; ++g)
            for (size_t j = 0; j < H; ++j) {
              const double gx = dpx[g * H + j], gh = dph[g * H + j];
              if (l == 0 && c.skip_input) {
                din[(start[t] + b) * in_w + j] += gx;
              } else {
                const size_t cols = L.in(l), m = L.matrix(l, d, 0, g) + j * cols;
                for (size_t i = 0; i < cols; ++i)
                  din[(start[t] + b) * in_w + i] += gx * w[m + i];
              }
              const size_t mh = L.matrix(l, d, 1, g) + j * H;
              for (size_t i = 0; i < H; ++i)
                dhp[i] += gh * w[mh + i];
            }
          sr.dpx = std::move(dpx);
          sr.dph = std::move(dph);
          dh = dhp;
          dc = dcp;
        }
        for (size_t j = 0; j < H; ++j) {
          res.dhx[(st * B0 + b) * H + j] = dh[j];
          res.dcx[(st * B0 + b) * H + j] = c.mode == 2 ? dc[j] : 0.0;
        }
      }
      // Phase two: each weight row (gate g, unit j) sums its terms over sequences and steps.
      const long long rows = static_cast<long long>(G) * static_cast<long long>(H);
#pragma omp parallel for schedule(dynamic)
      for (long long row = 0; row < rows; ++row) {
        const int g = static_cast<int>(row / static_cast<long long>(H));
        const size_t j = static_cast<size_t>(row) % H;
        const bool has_x = !(l == 0 && c.skip_input);
        const size_t cols = L.in(l);
        const size_t m = has_x ? L.matrix(l, d, 0, g) + j * cols : 0;
        const size_t mh = L.matrix(l, d, 1, g) + j * H;
        for (size_t b = 0; b < B0; ++b) {
          for (const StepRecord& sr : rec[l][d][b]) {
            const double gx = sr.dpx[g * H + j], gh = sr.dph[g * H + j];
            if (has_x)
              for (size_t i = 0; i < cols; ++i)
                res.dw[m + i] += gx * sr.in[i];
            for (size_t i = 0; i < H; ++i)
              res.dw[mh + i] += gh * sr.hprev[i];
            if (c.bias) {
              res.dw[L.bias(l, d, 0, g) + j] += gx;
              res.dw[L.bias(l, d, 1, g) + j] += gh;
            }
          }
        }
      }
    }
    if (l == 0)
      res.dx = din;
    else
      dout = din;
  }
  return res;
}

}  // namespace anydnn::ref
