#include "rnn_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "double_gemm.hpp"

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

// anydnn's dropout generator, written again from its definition (splitmix64's finaliser over
// the seed, the call's counter and the element): element i is kept when its uniform draw in
// [0, 1) (the hash's top 53 bits) is at least the rate.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Multiplies layer l's output rows (or, backwards, their gradient) by its dropout mask / (1 - p).
void apply_dropout(const RnnConfig& c, int l, std::vector<double>& v) {
  const uint64_t key = mix(c.dropout_seed ^ 0x9e3779b97f4a7c15ull) +
                       mix(c.dropout_counter * 1024 + static_cast<uint64_t>(l)) * 31;
  const double scale = 1.0 / (1.0 - c.dropout);
#pragma omp parallel for
  for (size_t i = 0; i < v.size(); ++i) {
    const double u = static_cast<double>(mix(key + i) >> 11) * (1.0 / 9007199254740992.0);
    v[i] = u >= c.dropout ? v[i] * scale : 0.0;
  }
}

double act(int mode, double v) {
  return mode == 0 ? std::max(v, 0.0) : std::tanh(v);
}
double sig(double v) {
  return 1.0 / (1.0 + std::exp(-v));
}

// The packed-row structure: step t's rows start at start[t]; sequence b runs len[b] steps. At
// step k (in either direction's order) the active sequences are exactly b < batch[k], because
// batch sizes never grow, so each step's hidden states are a prefix of one B0 x H matrix and the
// hidden-side product of a step is one matrix product over all its sequences.
struct Steps {
  size_t T, B0, R = 0;
  std::vector<size_t> start, len;
  explicit Steps(const std::vector<size_t>& batch)
      : T(batch.size()), B0(batch[0]), start(batch.size(), 0), len(batch[0], 0) {
    for (size_t t = 0; t < T; ++t) {
      start[t] = R;
      R += batch[t];
      for (size_t b = 0; b < batch[t]; ++b)
        ++len[b];
    }
  }
  // Packed row of sequence b at its k-th step in direction d (1 runs each sequence backwards).
  size_t row(int d, size_t b, size_t k) const { return start[d == 0 ? k : len[b] - 1 - k] + b; }
};

// What one (layer, direction) of the forward pass keeps for backpropagation, per packed row.
struct DirRecord {
  std::vector<double> hprev, h;  // R x H (h: relu / tanh only)
  std::vector<double> cprev, c;  // R x H (LSTM)
  std::vector<double> gates;     // R x G*H: LSTM i f o g, GRU z r n
  std::vector<double> phn;       // R x H: GRU's hidden-side n pre-activation, before r
};

struct Pass {
  std::vector<std::vector<double>> inputs;  // per layer: its input rows
  std::vector<DirRecord> dirs;              // per (layer, direction)
};

// The forward pass over every layer; with rec, keeps what backpropagation needs.
RnnForwardResult forward_pass(const RnnConfig& c, const Layout& L, const Steps& S,
                              const std::vector<size_t>& batch, const std::vector<double>& x,
                              const std::vector<double>& hx, const std::vector<double>& cx,
                              const std::vector<double>& w, DoubleGemm& gemm, Pass* rec) {
  const size_t H = L.H, GH = static_cast<size_t>(L.G) * H, R = S.R, B0 = S.B0;
  const int D = L.D;
  RnnForwardResult res;
  res.hy.assign(static_cast<size_t>(c.layers) * D * B0 * H, 0.0);
  res.cy = res.hy;
  std::vector<double> in = x, px(R * GH), ph(B0 * GH), hcur(B0 * H), ccur(B0 * H);
  size_t width = L.I;
  for (int l = 0; l < c.layers; ++l) {
    std::vector<double> out(R * D * H, 0.0);
    const size_t cols = L.in(l);
    for (int d = 0; d < D; ++d) {
      const size_t st = static_cast<size_t>(l) * D + d;
      const double* wx = w.data() + L.matrix(l, d, 0, 0);
      const double* wh = w.data() + L.matrix(l, d, 1, 0);
      // Input side of every row at once; the skip-input mode adds the input to every gate.
      if (cols == 0) {
#pragma omp parallel for
        for (size_t r = 0; r < R; ++r)
          for (size_t gj = 0; gj < GH; ++gj)
            px[r * GH + gj] = in[r * width + gj % H];
      } else {
        gemm.gemm(false, true, R, GH, cols, in.data(), width, wx, cols, 0.0, px.data(), GH);
      }
      const double* bh = c.bias ? w.data() + L.bias(l, d, 1, 0) : nullptr;
      if (c.bias) {
        const double* bx = w.data() + L.bias(l, d, 0, 0);
#pragma omp parallel for
        for (size_t r = 0; r < R; ++r)
          for (size_t gj = 0; gj < GH; ++gj)
            px[r * GH + gj] += bx[gj];
      }
      for (size_t i = 0; i < B0 * H; ++i) {
        hcur[i] = hx.empty() ? 0.0 : hx[st * B0 * H + i];
        ccur[i] = cx.empty() ? 0.0 : cx[st * B0 * H + i];
      }
      DirRecord* dr = rec != nullptr ? &rec->dirs[st] : nullptr;
      if (dr != nullptr) {
        dr->hprev.resize(R * H);
        if (c.mode <= 1) dr->h.resize(R * H);
        if (c.mode == 2) dr->cprev.resize(R * H), dr->c.resize(R * H);
        if (c.mode >= 2) dr->gates.resize(R * GH);
        if (c.mode == 3) dr->phn.resize(R * H);
      }
      for (size_t k = 0; k < S.T; ++k) {
        const size_t bk = batch[k];
        gemm.gemm(false, true, bk, GH, H, hcur.data(), H, wh, H, 0.0, ph.data(), GH);
#pragma omp parallel for
        for (size_t b = 0; b < bk; ++b) {
          const size_t r = S.row(d, b, k);
          double* hb = &hcur[b * H];
          double* cb = &ccur[b * H];
          double* p = &ph[b * GH];
          const double* q = &px[r * GH];
          if (bh != nullptr)
            for (size_t i = 0; i < GH; ++i)
              p[i] += bh[i];
          if (dr != nullptr) {
            std::copy(hb, hb + H, &dr->hprev[r * H]);
            if (c.mode == 2) std::copy(cb, cb + H, &dr->cprev[r * H]);
            if (c.mode == 3) std::copy(p + 2 * H, p + 3 * H, &dr->phn[r * H]);
          }
          double* gt = dr != nullptr && c.mode >= 2 ? &dr->gates[r * GH] : nullptr;
          for (size_t j = 0; j < H; ++j) {
            if (c.mode <= 1) {
              hb[j] = act(c.mode, q[j] + p[j]);
            } else if (c.mode == 2) {  // LSTM i, f, o, g
              const auto pre = [&](size_t g) { return q[g * H + j] + p[g * H + j]; };
              const double i = sig(pre(0)), f = sig(pre(1)), o = sig(pre(2)),
                           gg = std::tanh(pre(3));
              cb[j] = f * cb[j] + i * gg;
              hb[j] = o * std::tanh(cb[j]);
              if (gt != nullptr) gt[j] = i, gt[H + j] = f, gt[2 * H + j] = o, gt[3 * H + j] = gg;
            } else {  // GRU z, r, n: the reset gate scales the hidden side of n
              const double z = sig(q[j] + p[j]), rr = sig(q[H + j] + p[H + j]);
              const double n = std::tanh(q[2 * H + j] + rr * p[2 * H + j]);
              hb[j] = (1 - z) * n + z * hb[j];
              if (gt != nullptr) gt[j] = z, gt[H + j] = rr, gt[2 * H + j] = n;
            }
            out[r * D * H + d * H + j] = hb[j];
          }
          if (dr != nullptr) {
            if (c.mode <= 1) std::copy(hb, hb + H, &dr->h[r * H]);
            if (c.mode == 2) std::copy(cb, cb + H, &dr->c[r * H]);
          }
        }
      }
      for (size_t i = 0; i < B0 * H; ++i) {
        res.hy[st * B0 * H + i] = hcur[i];
        res.cy[st * B0 * H + i] = c.mode == 2 ? ccur[i] : 0.0;
      }
    }
    if (rec != nullptr) rec->inputs.push_back(std::move(in));
    if (c.dropout > 0.0 && l + 1 < c.layers) apply_dropout(c, l, out);
    in = std::move(out);
    width = static_cast<size_t>(D) * H;
  }
  res.y = std::move(in);
  return res;
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
                             const std::vector<double>& cx, const std::vector<double>& w,
                             DoubleGemm* gemm) {
  DoubleGemm& g = gemm != nullptr ? *gemm : cpu_double_gemm();
  const Layout L(c, input);
  const Steps S(batch);
  g.hold(w.data(), w.size());
  RnnForwardResult res = forward_pass(c, L, S, batch, x, hx, cx, w, g, nullptr);
  g.release();
  return res;
}

RnnBackwardResult rnn_backward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                               const std::vector<double>& x, const std::vector<double>& hx,
                               const std::vector<double>& cx, const std::vector<double>& w,
                               const std::vector<double>& dy, const std::vector<double>& dhy,
                               const std::vector<double>& dcy, DoubleGemm* gemm) {
  DoubleGemm& g = gemm != nullptr ? *gemm : cpu_double_gemm();
  const Layout L(c, input);
  const Steps S(batch);
  const size_t H = L.H, GH = static_cast<size_t>(L.G) * H, R = S.R, B0 = S.B0;
  const int D = L.D;
  g.hold(w.data(), w.size());
  Pass pass;
  pass.dirs.resize(static_cast<size_t>(c.layers) * D);
  forward_pass(c, L, S, batch, x, hx, cx, w, g, &pass);
  RnnBackwardResult res;
  res.dw.assign(w.size(), 0.0);
  res.dhx.assign(static_cast<size_t>(c.layers) * D * B0 * H, 0.0);
  res.dcx = res.dhx;
  const bool gru = c.mode == 3;
  // Pre-activation gradients of every row: input side dpx, hidden side dph (they differ only
  // for GRU, whose reset gate sits between the hidden product and n).
  std::vector<double> dpx(R * GH), dph(gru ? R * GH : 0), dh(B0 * H), dc(B0 * H),
      direct(B0 * H, 0.0), dstep(B0 * GH), dprev(B0 * H);
  std::vector<double> dout = dy;  // gradient of the current layer's output rows
  for (int l = c.layers - 1; l >= 0; --l) {
    const size_t cols = L.in(l), in_w = l == 0 ? input : static_cast<size_t>(D) * H;
    const std::vector<double>& in = pass.inputs[l];
    std::vector<double> din(R * in_w, 0.0);
    for (int d = 0; d < D; ++d) {
      const size_t st = static_cast<size_t>(l) * D + d;
      const DirRecord& dr = pass.dirs[st];
      const double* wx = w.data() + L.matrix(l, d, 0, 0);
      const double* wh = w.data() + L.matrix(l, d, 1, 0);
      double* gh_all = gru ? dph.data() : dpx.data();
      for (size_t i = 0; i < B0 * H; ++i) {
        dh[i] = dhy.empty() ? 0.0 : dhy[st * B0 * H + i];
        dc[i] = dcy.empty() ? 0.0 : dcy[st * B0 * H + i];
      }
      for (size_t k = S.T; k-- > 0;) {
        const size_t bk = batch[k];
#pragma omp parallel for
        for (size_t b = 0; b < bk; ++b) {
          const size_t r = S.row(d, b, k);
          double* dhb = &dh[b * H];
          double* dcb = &dc[b * H];
          double* gx = &dpx[r * GH];
          double* gh = &gh_all[r * GH];
          const double* gt = c.mode >= 2 ? &dr.gates[r * GH] : nullptr;
          for (size_t j = 0; j < H; ++j) {
            const double dhj = dhb[j] + dout[r * D * H + d * H + j];
            if (c.mode <= 1) {
              const double hj = dr.h[r * H + j];
              gx[j] = dhj * (c.mode == 0 ? (hj > 0 ? 1.0 : 0.0) : 1 - hj * hj);
            } else if (c.mode == 2) {
              const double i = gt[j], f = gt[H + j], o = gt[2 * H + j], gg = gt[3 * H + j];
              const double tc = std::tanh(dr.c[r * H + j]);
              const double dct = dcb[j] + dhj * o * (1 - tc * tc);
              gx[j] = dct * gg * i * (1 - i);
              gx[H + j] = dct * dr.cprev[r * H + j] * f * (1 - f);
              gx[2 * H + j] = dhj * tc * o * (1 - o);
              gx[3 * H + j] = dct * i * (1 - gg * gg);
              dcb[j] = dct * f;
            } else {
              const double z = gt[j], rr = gt[H + j], n = gt[2 * H + j];
              const double dn = dhj * (1 - z), dz = dhj * (dr.hprev[r * H + j] - n);
              const double da = dn * (1 - n * n);
              gx[j] = gh[j] = dz * z * (1 - z);
              gx[H + j] = gh[H + j] = da * dr.phn[r * H + j] * rr * (1 - rr);
              gx[2 * H + j] = da;
              gh[2 * H + j] = da * rr;
              direct[b * H + j] = dhj * z;
            }
          }
          std::copy(gh, gh + GH, &dstep[b * GH]);
        }
        // The previous hidden state's gradient: this step's hidden-side gradients times Wh.
        g.gemm(false, false, bk, H, GH, dstep.data(), GH, wh, H, 0.0, dprev.data(), H);
        for (size_t i = 0; i < bk * H; ++i)
          dh[i] = dprev[i] + (gru ? direct[i] : 0.0);
      }
      for (size_t i = 0; i < B0 * H; ++i) {
        res.dhx[st * B0 * H + i] = dh[i];
        res.dcx[st * B0 * H + i] = c.mode == 2 ? dc[i] : 0.0;
      }
      // Input and weight gradients of every row at once (the sums run over rows in order).
      if (cols == 0) {
#pragma omp parallel for
        for (size_t r = 0; r < R; ++r)
          for (size_t gj = 0; gj < GH; ++gj)
            din[r * in_w + gj % H] += dpx[r * GH + gj];
      } else {
        g.gemm(false, false, R, cols, GH, dpx.data(), GH, wx, cols, 1.0, din.data(), in_w);
        g.gemm(true, false, GH, cols, R, dpx.data(), GH, in.data(), in_w, 0.0,
               res.dw.data() + L.matrix(l, d, 0, 0), cols);
      }
      g.gemm(true, false, GH, H, R, gh_all, GH, dr.hprev.data(), H, 0.0,
             res.dw.data() + L.matrix(l, d, 1, 0), H);
      if (c.bias) {
        double* dbx = res.dw.data() + L.bias(l, d, 0, 0);
        double* dbh = res.dw.data() + L.bias(l, d, 1, 0);
#pragma omp parallel for
        for (size_t i = 0; i < GH; ++i) {
          double sx = 0.0, sh = 0.0;
          for (size_t r = 0; r < R; ++r)
            sx += dpx[r * GH + i], sh += gh_all[r * GH + i];
          dbx[i] = sx;
          dbh[i] = sh;
        }
      }
    }
    if (l == 0) {
      res.dx = std::move(din);
    } else {
      if (c.dropout > 0.0) apply_dropout(c, l - 1, din);  // back through layer l-1's mask
      dout = std::move(din);
    }
  }
  g.release();
  return res;
}

}  // namespace anydnn::ref
