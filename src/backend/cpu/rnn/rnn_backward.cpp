#include "backend/cpu/rnn/rnn_backward.hpp"

#include "backend/cpu/kernels/rnn_gates.hpp"
#include "backend/cpu/rnn/rnn_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace anydnn::cpu {

namespace {

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

// gather_state for every step: h_prev of all rows, R x H at `dst` (rows in step order).
void gather_all_states(const RnnShape& s, int d, const float* src, size_t ld, size_t col,
                       const float* init, float* dst, int threads) {
  const long T = static_cast<long>(s.steps());
#pragma omp parallel for num_threads(threads) if (s.rows * s.hidden() > 65536)
  for (long t = 0; t < T; ++t)
    gather_state(s, d, static_cast<size_t>(t), src, ld, col, init,
                 dst + s.row_start[t] * s.hidden());
}

// out[j] = sum over rows of a[r * lda + j].
void column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out, int threads) {
  constexpr long kBlock = 256;
  const long blocks = static_cast<long>((cols + kBlock - 1) / kBlock);
#pragma omp parallel for num_threads(threads) if (rows * cols > 65536)
  for (long cb = 0; cb < blocks; ++cb) {
    const size_t j0 = cb * kBlock, j1 = std::min(cols, j0 + kBlock);
    float* o = out + j0;
    std::fill(o, o + (j1 - j0), 0.0f);
    for (size_t r = 0; r < rows; ++r) {
      const float* row = a + r * lda + j0;
      for (size_t j = 0; j < j1 - j0; ++j)
        o[j] += row[j];
    }
  }
}

}  // namespace

void rnn_backward_data(const RnnShape& s, const RnnBackwardBuffers& b, CpuIsa isa, int threads) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  const RnnGateOps& ops = rnn_gate_ops(isa);
  // The gradient arriving at a layer's output: the caller's dy for the top layer (read in
  // place), else the input gradient of the layer above. Layers above 0 write theirs into two
  // buffers in turn (the one being read is the other); layer 0 writes the caller's dx.
  float* const buffers[2] = {b.work + s.dx_buffer_offset(), b.work + s.dy_buffer_offset()};
  const float* dY = b.dy;
  for (int l = d.layers - 1; l >= 0; --l) {
    const size_t in = d.layer_input(l, s.input);
    const size_t in_w = l == 0 ? s.input : ldo;
    float* dX = l == 0 ? b.dx : buffers[l % 2];
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
      float* hprev = dc_state + B0 * H + B0 * GH;
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
        // Only GRU's gradient reads h_prev directly (LSTM reads c_prev; vanilla neither). Where
        // every row continues the previous step (constant batch) the states are read in place.
        const bool in_place = ps.rows == Bt;
        const float* hp_rows = hprev;
        size_t hp_ld = H;
        if (gru && in_place) {
          hp_rows = out + ps.row0 * ldo + dir * H;
          hp_ld = ldo;
        } else if (gru) {
          gather_state(s, dir, t, out, ldo, dir * H, hx, hprev);
        }
        const float* cp_rows = in_place && lstm ? cell + ps.row0 * H : cprev;
        if (lstm && !in_place) gather_state(s, dir, t, cell, H, 0, cx, cprev);
        const long n = static_cast<long>(Bt);
#pragma omp parallel for num_threads(threads) if (Bt * GH > 16384)
        for (long bi = 0; bi < n; ++bi) {
          const size_t r = r0 + bi;
          const float* g = gates + r * GH;
          float* gx = dpx + r * GH;
          float* dhs = dh_state + bi * H;
          const float* dyr = dY + r * ldo + dir * H;
          if (lstm)
            ops.lstm_bwd(g, cell + r * H, cp_rows + bi * H, dyr, dhs, dc_state + bi * H, gx,
                         static_cast<long>(H));
          else if (gru)
            ops.gru_bwd(g, hp_rows + bi * hp_ld, hn + r * H, dyr, dhs, gx, dhn + r * H,
                        static_cast<long>(H));
          else
            ops.vanilla_bwd(g, out + r * ldo + dir * H, dyr, dhs, gx, static_cast<long>(H),
                            d.mode == miopenRNNRELU);
        }
        // State gradient: dh_prev (+)= dpre_hidden * W_h, the pre-activation gradients read in
        // place. They equal the input side's except GRU's n gate (the reset gate scales the
        // hidden side), whose columns come from dhn. LSTM and vanilla leave no direct part in
        // dh_state (the gate loop zeroed it), so the product overwrites it.
        if (gru) {
          const PackedGemmB::APiece pieces[2] = {
              {dpx + r0 * GH, static_cast<long>(GH), 0, static_cast<int>(2 * H)},
              {dhn + r0 * H, static_cast<long>(H), static_cast<int>(2 * H), static_cast<int>(GH)}};
          whp.multiply(pieces, 2, static_cast<int>(Bt), dh_state, static_cast<long>(H), true,
                       threads);
        } else {
          whp.multiply(dpx + r0 * GH, static_cast<long>(GH), static_cast<int>(Bt), dh_state,
                       static_cast<long>(H), false, threads);
        }
        // Rows whose state came from hx / cx end their chain here.
        for (size_t bi = ps.rows; bi < Bt; ++bi) {
          if (b.dhx) std::memcpy(b.dhx + (st * B0 + bi) * H, dh_state + bi * H, H * sizeof(float));
          if (lstm && b.dcx)
            std::memcpy(b.dcx + (st * B0 + bi) * H, dc_state + bi * H, H * sizeof(float));
        }
      }
      // Input gradient of every step at once; the first direction writes, the second adds.
      const bool add = dir > 0;
      if (l == 0 && d.skip()) {
#pragma omp parallel for num_threads(threads)
        for (long r = 0; r < static_cast<long>(R); ++r) {
          float* dxr = dX + r * in_w;
          const float* g = dpx + r * GH;
          for (size_t j = 0; j < H; ++j) {
            float sum = add ? dxr[j] : 0.0f;
            for (size_t gi = 0; gi < G; ++gi)
              sum += g[gi * H + j];
            dxr[j] = sum;
          }
        }
      } else {
        blas_gemm(false, false, R, in, GH, dpx, GH, b.w + d.block_offset(l, dir, 0, s.input), in,
                  add ? 1.0f : 0.0f, dX, in_w);
      }
    }
    if (l > 0 && s.dropout_between_layers()) {
      // Through the dropout between layer l-1 and l, then on to layer l-1's output.
      const uint8_t* mask = b.masks + static_cast<size_t>(l - 1) * R * ldo;
      const float scale = 1.0f / (1.0f - b.dropout);
      for (size_t i = 0; i < R * ldo; ++i)
        dX[i] = mask[i] ? dX[i] * scale : 0.0f;
    }
    dY = dX;
  }
}

void rnn_backward_weights(const RnnShape& s, const RnnBackwardBuffers& b, int threads) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool gru = d.mode == miopenGRU;
  // Every block of dw is written below (GEMMs with beta 0, column sums): nothing to clear.
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
        blas_gemm(true, false, GH, in, R, dpx, GH, X, ldx, 0.0f,
                  b.dw + d.block_offset(l, dir, 0, s.input), in);
      // dW_h = sum over rows of dpre_hidden^T * h_prev. With a constant batch and no initial
      // state, h_prev of every step but the first (last, in reverse) is the neighbouring step's
      // output: the product reads `out` in place, shifted by one step, and the first step (zero
      // state) adds nothing. Otherwise h_prev is gathered row by row (hx rows included) and one
      // GEMM covers every row: a second GEMM for the hx rows alone (K = B_0) rewrote all of
      // dW_h (G*H x H) once more, 8 ms of LSTM H=2048 N=64's backward, against ~1 ms to gather.
      float* dwh = b.dw + d.block_offset(l, dir, 1, s.input);
      const bool in_place = s.batch[T - 1] == B0 && !hx;
      const size_t n_rows = gru ? 2 * H : GH;
      const size_t k_rows = in_place ? R - B0 : R;
      const size_t dp_row0 = in_place && dir == 0 ? B0 : 0;
      const float* hp = hprev_all;
      size_t hp_ld = H;
      if (in_place) {
        hp = out + (dir == 0 ? 0 : B0) * ldo + dir * H;
        hp_ld = ldo;
      } else {
        gather_all_states(s, dir, out, ldo, dir * H, hx, hprev_all, threads);
      }
      blas_gemm(true, false, n_rows, H, k_rows, dpx + dp_row0 * GH, GH, hp, hp_ld, 0.0f, dwh, H);
      if (gru)  // n rows from the hidden-side gradient (the reset gate scales it)
        blas_gemm(true, false, H, H, k_rows, dhn + dp_row0 * H, H, hp, hp_ld, 0.0f, dwh + 2 * H * H,
                  H);
      if (d.with_bias()) {
        // Column sums of the pre-activation gradients, threads over column blocks.
        float* dbx = b.dw + d.bias_block_offset(l, dir, 0, s.input);
        float* dbh = b.dw + d.bias_block_offset(l, dir, 1, s.input);
        column_sums(dpx, R, GH, GH, dbx, threads);
        std::memcpy(dbh, dbx, GH * sizeof(float));
        if (gru) column_sums(dhn, R, H, H, dbh + 2 * H, threads);
      }
    }
  }
}

}  // namespace anydnn::cpu
