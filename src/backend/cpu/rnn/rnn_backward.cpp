#include "backend/cpu/rnn/rnn_backward.hpp"

#include "backend/cpu/kernels/rnn_gates.hpp"
#include "backend/cpu/rnn/rnn_gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace anydnn::cpu {

namespace {

void gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
          const float* b, size_t ldb, float beta, float* c, size_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      for (size_t i = 0; i < m; ++i)
        std::memset(c + i * ldc, 0, n * sizeof(float));
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

// The step that fed step t its state in direction d, and how many of step t's rows it fed.
struct PrevStep {
  bool exists;
  size_t t, rows, row0;
};
PrevStep prev_step(const RnnShape& s, int d, size_t t) {
  const size_t T = s.steps();
  const bool exists = d == 0 ? t > 0 : t + 1 < T;
  if (!exists) return {false, 0, 0, 0};
  const size_t pt = d == 0 ? t - 1 : t + 1;
  return {true, pt, std::min(s.batch[t], s.batch[pt]), s.row_start[pt]};
}

// The state entering step t for its rows: the previous step's output where there is one, else
// the initial state (zeros without it). `src` has rows `ld` apart, offset `col`.
void gather_state(const RnnShape& s, int d, size_t t, const float* src, size_t ld, size_t col,
                  const float* init, float* dst) {
  const size_t H = s.hidden();
  const PrevStep p = prev_step(s, d, t);
  for (size_t b = 0; b < s.batch[t]; ++b) {
    const float* from =
        b < p.rows ? src + (p.row0 + b) * ld + col : (init ? init + b * H : nullptr);
    if (from)
      std::memcpy(dst + b * H, from, H * sizeof(float));
    else
      std::memset(dst + b * H, 0, H * sizeof(float));
  }
}

}  // namespace

void rnn_backward_data(const RnnShape& s, const RnnBackwardBuffers& b, CpuIsa isa, int threads) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  const RnnGateOps& ops = rnn_gate_ops(isa);
  float* dY = b.work + s.dy_buffer_offset();
  float* dX = b.work + s.dx_buffer_offset();
  std::memcpy(dY, b.dy, R * ldo * sizeof(float));
  for (int l = d.layers - 1; l >= 0; --l) {
    const size_t in = d.layer_input(l, s.input);
    const size_t in_w = l == 0 ? s.input : ldo;
    std::memset(dX, 0, R * in_w * sizeof(float));
    const float* out = b.store + s.out_offset(l);
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      const float* gates = b.store + s.gates_offset(l, dir);
      const float* cell = lstm ? b.store + s.cell_offset(l, dir) : nullptr;
      const float* hn = gru ? b.store + s.hn_offset(l, dir) : nullptr;
      float* dpx = b.work + s.dpre_offset(l, dir);
      float* dhn = gru ? b.work + s.dhn_offset(l, dir) : nullptr;
      float* step = b.work + s.step_offset(dir);
      float* dh_state = step;
      float* dc_state = dh_state + B0 * H;
      float* dph = dc_state + B0 * H;
      float* hprev = dph + B0 * GH;
      float* cprev = hprev + B0 * H;
      const float* wh = b.w + d.block_offset(l, dir, 1, s.input);
      const PackedGemmB whp(isa, wh, static_cast<long>(H), static_cast<int>(GH),
                            static_cast<int>(H), false, b.work + s.packed_offset(dir));
      const size_t st = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + st * B0 * H : nullptr;
      const float* cx = b.cx ? b.cx + st * B0 * H : nullptr;
      // Gradients arriving at the final states.
      for (size_t i = 0; i < B0 * H; ++i) {
        dh_state[i] = b.dhy ? b.dhy[st * B0 * H + i] : 0.0f;
        dc_state[i] = lstm && b.dcy ? b.dcy[st * B0 * H + i] : 0.0f;
      }
      for (size_t p = T; p-- > 0;) {
        const size_t t = dir == 0 ? p : T - 1 - p;
        const size_t Bt = s.batch[t], r0 = s.row_start[t];
        const PrevStep ps = prev_step(s, dir, t);
        // Only GRU's gradient reads h_prev directly (LSTM reads c_prev; vanilla neither).
        if (gru) gather_state(s, dir, t, out, ldo, dir * H, hx, hprev);
        if (lstm) gather_state(s, dir, t, cell, H, 0, cx, cprev);
        const long n = static_cast<long>(Bt);
#pragma omp parallel for num_threads(threads) if (Bt * GH > 16384)
        for (long bi = 0; bi < n; ++bi) {
          const size_t r = r0 + bi;
          const float* g = gates + r * GH;
          float* gx = dpx + r * GH;
          float* gh = dph + bi * GH;
          float* dhs = dh_state + bi * H;
          const float* dyr = dY + r * ldo + dir * H;
          if (lstm)
            ops.lstm_bwd(g, cell + r * H, cprev + bi * H, dyr, dhs, dc_state + bi * H, gx,
                         static_cast<long>(H));
          else if (gru)
            ops.gru_bwd(g, hprev + bi * H, hn + r * H, dyr, dhs, gx, dhn + r * H,
                        static_cast<long>(H));
          else
            ops.vanilla_bwd(g, out + r * ldo + dir * H, dyr, dhs, gx, static_cast<long>(H),
                            d.mode == miopenRNNRELU);
          std::memcpy(gh, gx, GH * sizeof(float));
          if (gru) std::memcpy(gh + 2 * H, dhn + r * H, H * sizeof(float));
        }
        // State gradient: dh_prev (+)= dpre_hidden * W_h.
        whp.multiply(dph, static_cast<long>(GH), static_cast<int>(Bt), dh_state,
                     static_cast<long>(H), true, threads);
        // Rows whose state came from hx / cx end their chain here.
        for (size_t bi = ps.rows; bi < Bt; ++bi) {
          if (b.dhx) std::memcpy(b.dhx + (st * B0 + bi) * H, dh_state + bi * H, H * sizeof(float));
          if (lstm && b.dcx)
            std::memcpy(b.dcx + (st * B0 + bi) * H, dc_state + bi * H, H * sizeof(float));
        }
      }
      // Input gradient of every step at once.
      if (l == 0 && d.skip()) {
        for (size_t r = 0; r < R; ++r)
          for (size_t gi = 0; gi < G; ++gi)
            for (size_t j = 0; j < H; ++j)
              dX[r * in_w + j] += dpx[r * GH + gi * H + j];
      } else {
        gemm(false, false, R, in, GH, dpx, GH, b.w + d.block_offset(l, dir, 0, s.input), in, 1.0f,
             dX, in_w);
      }
    }
    if (l > 0) {
      // Through the dropout between layer l-1 and l, then on to layer l-1's output.
      const bool drop = s.dropout_between_layers();
      const uint8_t* mask = drop ? b.masks + static_cast<size_t>(l - 1) * R * ldo : nullptr;
      const float scale = drop ? 1.0f / (1.0f - b.dropout) : 1.0f;
      for (size_t i = 0; i < R * ldo; ++i)
        dY[i] = drop ? (mask[i] ? dX[i] * scale : 0.0f) : dX[i];
    } else {
      std::memcpy(b.dx, dX, R * s.input * sizeof(float));
    }
  }
}

void rnn_backward_weights(const RnnShape& s, const RnnBackwardBuffers& b, int threads) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool gru = d.mode == miopenGRU;
  (void)threads;
  std::memset(b.dw, 0, d.param_count(s.input) * sizeof(float));
  float* hprev_all = b.work + s.dy_buffer_offset();  // R x H, free after backward data
  for (int l = 0; l < d.layers; ++l) {
    const size_t in = d.layer_input(l, s.input);
    const float* X = b.x;
    size_t ldx = s.input;
    if (l > 0) {
      X = s.dropout_between_layers() ? b.store + s.drop_offset(l - 1)
                                     : b.store + s.out_offset(l - 1);
      ldx = ldo;
    }
    const float* out = b.store + s.out_offset(l);
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      const float* dpx = b.work + s.dpre_offset(l, dir);
      const float* dhn = gru ? b.work + s.dhn_offset(l, dir) : nullptr;
      const size_t st = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + st * B0 * H : nullptr;
      if (!(l == 0 && d.skip()))
        gemm(true, false, GH, in, R, dpx, GH, X, ldx, 0.0f,
             b.dw + d.block_offset(l, dir, 0, s.input), in);
      for (size_t t = 0; t < T; ++t)
        gather_state(s, dir, t, out, ldo, dir * H, hx, hprev_all + s.row_start[t] * H);
      float* dwh = b.dw + d.block_offset(l, dir, 1, s.input);
      if (gru) {
        // z and r rows from the shared pre-activation gradients, n rows from the hidden-side one.
        gemm(true, false, 2 * H, H, R, dpx, GH, hprev_all, H, 0.0f, dwh, H);
        gemm(true, false, H, H, R, dhn, H, hprev_all, H, 0.0f, dwh + 2 * H * H, H);
      } else {
        gemm(true, false, GH, H, R, dpx, GH, hprev_all, H, 0.0f, dwh, H);
      }
      if (d.with_bias()) {
        float* dbx = b.dw + d.bias_block_offset(l, dir, 0, s.input);
        float* dbh = b.dw + d.bias_block_offset(l, dir, 1, s.input);
        for (size_t r = 0; r < R; ++r)
          for (size_t j = 0; j < GH; ++j)
            dbx[j] += dpx[r * GH + j];
        std::memcpy(dbh, dbx, GH * sizeof(float));
        if (gru) {
          std::memset(dbh + 2 * H, 0, H * sizeof(float));
          for (size_t r = 0; r < R; ++r)
            for (size_t j = 0; j < H; ++j)
              dbh[2 * H + j] += dhn[r * H + j];
        }
      }
    }
  }
}

}  // namespace anydnn::cpu
