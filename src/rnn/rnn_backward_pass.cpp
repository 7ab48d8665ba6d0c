// The RNN backward passes for every backend (rnn_passes.hpp): backward data runs the layers
// from the top and leaves the pre-activation gradients in the workspace; backward weights turns
// them into dw with GEMMs over all steps and deterministic column sums.
#include <algorithm>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "dropout/dropout_kernels.hpp"
#include "rnn/rnn_kernels.hpp"
#include "rnn/rnn_passes.hpp"

namespace anydnn {

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

}  // namespace

void rnn_backward_data_pass(Backend& backend, const RnnShape& s, const RnnBackwardBuffers& b) {
  RnnKernels& k = backend.kernels<RnnKernels>();
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  // The gradient arriving at a layer's output: the caller's dy for the top layer (read in
  // place), else the input gradient of the layer above. Layers above 0 write theirs into two
  // workspace buffers in turn (the one being read is the other); layer 0 writes the caller's dx.
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
      // W_h (G*H x H), reused by every step's state-gradient GEMM.
      const auto whp = k.step_gemm(b.w + d.block_offset(l, dir, 1, s.input), H, GH, H, false,
                                   b.work + s.packed_offset(dir));
      const size_t st = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + st * B0 * H : nullptr;
      const float* cx = b.cx ? b.cx + st * B0 * H : nullptr;
      // Gradients arriving at the final states.
      if (b.dhy)
        k.copy(dh_state, b.dhy + st * B0 * H, B0 * H);
      else
        k.zero(dh_state, B0 * H);
      if (lstm && b.dcy)
        k.copy(dc_state, b.dcy + st * B0 * H, B0 * H);
      else
        k.zero(dc_state, B0 * H);
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
          k.gather_state(out + ps.row0 * ldo + dir * H, ldo, ps.rows, hx, hprev, Bt, H);
        }
        const float* cp_rows = in_place && lstm ? cell + ps.row0 * H : cprev;
        if (lstm && !in_place) k.gather_state(cell + ps.row0 * H, H, ps.rows, cx, cprev, Bt, H);
        RnnGateBackward a;
        a.gates = gates + r0 * GH;
        a.cell = lstm ? cell + r0 * H : nullptr;
        a.cprev = lstm ? cp_rows : nullptr;
        a.hprev = gru ? hp_rows : nullptr;
        a.hp_ld = hp_ld;
        a.hn = gru ? hn + r0 * H : nullptr;
        a.h = out + r0 * ldo + dir * H;
        a.ldh = ldo;
        a.dy = dY + r0 * ldo + dir * H;
        a.ldy = ldo;
        a.dhs = dh_state;
        a.dcs = lstm ? dc_state : nullptr;
        a.gx = dpx + r0 * GH;
        a.dhn = gru ? dhn + r0 * H : nullptr;
        a.rows = Bt;
        a.H = H;
        k.gates_backward(d.mode, a);
        // State gradient: dh_prev (+)= dpre_hidden * W_h, the pre-activation gradients read in
        // place. They equal the input side's except GRU's n gate (the reset gate scales the
        // hidden side), whose columns come from dhn, added to the direct part dh*z. LSTM and
        // vanilla leave no direct part in dh_state, so the product overwrites it.
        if (gru) {
          const RnnStepGemm::APiece pieces[2] = {{dpx + r0 * GH, GH, 0, 2 * H},
                                                 {dhn + r0 * H, H, 2 * H, GH}};
          whp->multiply(pieces, 2, Bt, dh_state, H, true);
        } else {
          whp->multiply(dpx + r0 * GH, GH, Bt, GH, dh_state, H, false);
        }
        // Rows whose state came from hx / cx end their chain here (contiguous rows).
        if (Bt > ps.rows) {
          if (b.dhx)
            k.copy(b.dhx + (st * B0 + ps.rows) * H, dh_state + ps.rows * H, (Bt - ps.rows) * H);
          if (lstm && b.dcx)
            k.copy(b.dcx + (st * B0 + ps.rows) * H, dc_state + ps.rows * H, (Bt - ps.rows) * H);
        }
      }
      // Input gradient of every step at once; the first direction writes, the second adds.
      const bool add = dir > 0;
      if (l == 0 && d.skip())
        k.skip_input_grad(dpx, R, G, H, dX, in_w, add);
      else
        k.gemm(false, false, R, in, GH, dpx, GH, b.w + d.block_offset(l, dir, 0, s.input), in,
               add ? 1.0f : 0.0f, dX, in_w);
    }
    if (l > 0 && s.dropout_between_layers()) {
      // Through the dropout between layer l-1 and l, then on to layer l-1's output.
      const TensorDescriptor flat(miopenFloat, {R * ldo});
      // The reserve's mask is only read (generate = false).
      const DropoutApply a{
          .in_desc = &flat,
          .in = dX,
          .out_desc = &flat,
          .out = dX,
          .mask = const_cast<uint8_t*>(b.masks) + static_cast<size_t>(l - 1) * R * ldo,
          .generate = false,
          .seed = 0,
          .counter = 0,
          .dropout = b.dropout,
          .scale = 1.0f / (1.0f - b.dropout),
          .linear = true};
      backend.kernels<DropoutKernels>().apply(a);
    }
    dY = dX;
  }
}

void rnn_backward_weights_pass(Backend& backend, const RnnShape& s, const RnnBackwardBuffers& b) {
  RnnKernels& k = backend.kernels<RnnKernels>();
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool gru = d.mode == miopenGRU;
  float* hprev_all = b.work + s.dy_buffer_offset();  // R x H, free after backward data
  // With a constant batch and no initial state, h_prev of every step but the first (last, in
  // reverse) is the neighbouring step's output: the dW_h product reads `out` in place, shifted
  // by one step, and the first step (zero state) adds nothing. Otherwise h_prev is gathered for
  // every row (hx rows included) and one GEMM covers all: a second GEMM for the hx rows alone
  // (K = B_0) rewrote all of dW_h once more, 8 ms of LSTM H=2048 N=64's backward on the CPU,
  // against ~1 ms to gather. The gather table (per direction and row: the previous step's
  // output row, or -1 for the initial state, and the row's batch index) is built once.
  const bool in_place = s.batch[T - 1] == B0 && !b.hx;
  std::unique_ptr<RnnIndexTable> prev_table[2];
  if (!in_place) {
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      std::vector<int> prev(2 * R);
      for (size_t t = 0; t < T; ++t) {
        const PrevStep ps = prev_step(s, dir, t);
        for (size_t bi = 0; bi < s.batch[t]; ++bi) {
          const size_t r = s.row_start[t] + bi;
          prev[2 * r] = bi < ps.rows ? static_cast<int>(ps.row0 + bi) : -1;
          prev[2 * r + 1] = static_cast<int>(bi);
        }
      }
      prev_table[dir] = k.index_table(prev);
    }
  }
  // Every block of dw is written below (GEMMs with beta 0, column sums): nothing to clear.
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
        k.gemm(true, false, GH, in, R, dpx, GH, X, ldx, 0.0f,
               b.dw + d.block_offset(l, dir, 0, s.input), in);
      // dW_h = sum over rows of dpre_hidden^T * h_prev.
      float* dwh = b.dw + d.block_offset(l, dir, 1, s.input);
      const size_t n_rows = gru ? 2 * H : GH;
      const size_t k_rows = in_place ? R - B0 : R;
      const size_t dp_row0 = in_place && dir == 0 ? B0 : 0;
      const float* hp = hprev_all;
      size_t hp_ld = H;
      if (in_place) {
        hp = out + (dir == 0 ? 0 : B0) * ldo + dir * H;
        hp_ld = ldo;
      } else {
        k.gather_all_states(*prev_table[dir], out + dir * H, ldo, hx, hprev_all, R, H);
      }
      k.gemm(true, false, n_rows, H, k_rows, dpx + dp_row0 * GH, GH, hp, hp_ld, 0.0f, dwh, H);
      if (gru)  // n rows from the hidden-side gradient (the reset gate scales it)
        k.gemm(true, false, H, H, k_rows, dhn + dp_row0 * H, H, hp, hp_ld, 0.0f, dwh + 2 * H * H,
               H);
      if (d.with_bias()) {
        // Column sums of the pre-activation gradients; b_h's equal b_x's but GRU's n gate.
        float* dbx = b.dw + d.bias_block_offset(l, dir, 0, s.input);
        float* dbh = b.dw + d.bias_block_offset(l, dir, 1, s.input);
        k.column_sums(dpx, R, GH, GH, dbx);
        k.copy(dbh, dbx, GH);
        if (gru) k.column_sums(dhn, R, H, H, dbh + 2 * H);
      }
    }
  }
}

}  // namespace anydnn
