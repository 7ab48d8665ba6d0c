// RNN backward on CUDA, mirroring backend/cpu/rnn/rnn_backward.cpp: backward data runs the
// layers from the top, per step one fused gate-gradient kernel and one GEMM for the state
// gradient, per layer and direction one GEMM for the input gradient; it leaves the
// pre-activation gradients in the workspace, and backward weights turns them into dw with GEMMs
// over all steps and deterministic column sums.
#include <algorithm>
#include <memory>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/rnn/rnn_backward.hpp"
#include "backend/cuda/rnn/rnn_gates.hpp"
#include "backend/cuda/rnn/rnn_gemm.hpp"

namespace anydnn::cuda {

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

void copy_d2d(float* dst, const float* src, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  check_cuda(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (RNN)");
}

void zero(float* dst, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  check_cuda(cudaMemsetAsync(dst, 0, n * sizeof(float), stream), "cudaMemsetAsync (RNN)");
}

}  // namespace

void rnn_backward_data(const RnnShape& s, const RnnBackwardBuffers& b, CudaBackend& backend) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  cudaStream_t stream = backend.cuda_stream();
  cublasHandle_t blas = backend.cublas();
  // The gradient arriving at a layer's output: the caller's dy for the top layer, else the
  // input gradient of the layer above, in two workspace buffers used in turn; layer 0 writes
  // the caller's dx.
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
      const size_t st = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + st * B0 * H : nullptr;
      const float* cx = b.cx ? b.cx + st * B0 * H : nullptr;
      // Gradients arriving at the final states.
      if (b.dhy)
        copy_d2d(dh_state, b.dhy + st * B0 * H, B0 * H, stream);
      else
        zero(dh_state, B0 * H, stream);
      if (lstm && b.dcy)
        copy_d2d(dc_state, b.dcy + st * B0 * H, B0 * H, stream);
      else
        zero(dc_state, B0 * H, stream);
      for (size_t p = T; p-- > 0;) {
        const size_t t = dir == 0 ? p : T - 1 - p;
        const size_t Bt = s.batch[t], r0 = s.row_start[t];
        const PrevStep ps = prev_step(s, dir, t);
        // Only GRU reads h_prev (LSTM reads c_prev); both in place where every row continues
        // the previous step.
        const bool in_place = ps.rows == Bt;
        const float* hp_rows = hprev;
        size_t hp_ld = H;
        if (gru && in_place) {
          hp_rows = out + ps.row0 * ldo + dir * H;
          hp_ld = ldo;
        } else if (gru) {
          rnn_gather_state(out + ps.row0 * ldo + dir * H, static_cast<long long>(ldo),
                           static_cast<long long>(ps.rows), hx, hprev, static_cast<long long>(Bt),
                           static_cast<long long>(H), stream);
        }
        const float* cp_rows = in_place && lstm ? cell + ps.row0 * H : cprev;
        if (lstm && !in_place)
          rnn_gather_state(cell + ps.row0 * H, static_cast<long long>(H),
                           static_cast<long long>(ps.rows), cx, cprev, static_cast<long long>(Bt),
                           static_cast<long long>(H), stream);
        GateBackwardArgs a;
        a.gates = gates + r0 * GH;
        a.cell = lstm ? cell + r0 * H : nullptr;
        a.cprev = lstm ? cp_rows : nullptr;
        a.hprev = gru ? hp_rows : nullptr;
        a.hp_ld = static_cast<long long>(hp_ld);
        a.hn = gru ? hn + r0 * H : nullptr;
        a.h = out + r0 * ldo + dir * H;
        a.ldh = static_cast<long long>(ldo);
        a.dy = dY + r0 * ldo + dir * H;
        a.ldy = static_cast<long long>(ldo);
        a.dhs = dh_state;
        a.dcs = lstm ? dc_state : nullptr;
        a.gx = dpx + r0 * GH;
        a.dhn = gru ? dhn + r0 * H : nullptr;
        a.rows = static_cast<long long>(Bt);
        a.H = static_cast<long long>(H);
        rnn_gates_backward(d.mode, a, stream);
        // State gradient: dh_prev (+)= dpre_hidden * W_h. GRU's n columns come from dhn (the
        // reset gate scales the hidden side) and add to the direct part dh*z; LSTM and vanilla
        // left no direct part, so the product overwrites.
        if (gru) {
          rnn_gemm(blas, false, false, Bt, H, 2 * H, dpx + r0 * GH, GH, wh, H, 1.0f, dh_state, H,
                   stream);
          rnn_gemm(blas, false, false, Bt, H, H, dhn + r0 * H, H, wh + 2 * H * H, H, 1.0f, dh_state,
                   H, stream);
        } else {
          rnn_gemm(blas, false, false, Bt, H, GH, dpx + r0 * GH, GH, wh, H, 0.0f, dh_state, H,
                   stream);
        }
        // Rows whose state came from hx / cx end their chain here (contiguous rows).
        if (Bt > ps.rows) {
          if (b.dhx)
            copy_d2d(b.dhx + (st * B0 + ps.rows) * H, dh_state + ps.rows * H, (Bt - ps.rows) * H,
                     stream);
          if (lstm && b.dcx)
            copy_d2d(b.dcx + (st * B0 + ps.rows) * H, dc_state + ps.rows * H, (Bt - ps.rows) * H,
                     stream);
        }
      }
      // Input gradient of every step at once; the first direction writes, the second adds.
      const bool add = dir > 0;
      if (l == 0 && d.skip())
        rnn_skip_input_grad(dpx, static_cast<long long>(R), static_cast<long long>(G),
                            static_cast<long long>(H), dX, static_cast<long long>(in_w), add,
                            stream);
      else
        rnn_gemm(blas, false, false, R, in, GH, dpx, GH, b.w + d.block_offset(l, dir, 0, s.input),
                 in, add ? 1.0f : 0.0f, dX, in_w, stream);
    }
    if (l > 0 && s.dropout_between_layers())
      // Through the dropout between layer l-1 and l, then on to layer l-1's output.
      rnn_dropout_backward(dX, b.masks + static_cast<size_t>(l - 1) * R * ldo,
                           static_cast<long long>(R * ldo), b.dropout, stream);
    dY = dX;
  }
}

void rnn_backward_weights(const RnnShape& s, const RnnBackwardBuffers& b, CudaBackend& backend) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool gru = d.mode == miopenGRU;
  cudaStream_t stream = backend.cuda_stream();
  cublasHandle_t blas = backend.cublas();
  float* hprev_all = b.work + s.dy_buffer_offset();  // R x H, free after backward data
  // Where h_prev is gathered: per direction and row, (row of the previous step's output, or -1
  // for the initial state, and the row's batch index). Built once for the call.
  const bool in_place = s.batch[T - 1] == B0 && !b.hx;
  std::unique_ptr<DeviceIntTable> prev_table[2];
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
      prev_table[dir] = std::make_unique<DeviceIntTable>(prev, stream);
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
        rnn_gemm(blas, true, false, GH, in, R, dpx, GH, X, ldx, 0.0f,
                 b.dw + d.block_offset(l, dir, 0, s.input), in, stream);
      // dW_h = sum over rows of dpre_hidden^T * h_prev. With a constant batch and no initial
      // state, h_prev of every step but the first (last, in reverse) is the neighbouring step's
      // output, read in place shifted by one step (the first step's zero state adds nothing);
      // otherwise h_prev is gathered for every row (hx rows included) and one GEMM covers all.
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
        rnn_gather_all_states(prev_table[dir]->get(), out + dir * H, static_cast<long long>(ldo),
                              hx, hprev_all, static_cast<long long>(R), static_cast<long long>(H),
                              stream);
      }
      rnn_gemm(blas, true, false, n_rows, H, k_rows, dpx + dp_row0 * GH, GH, hp, hp_ld, 0.0f, dwh,
               H, stream);
      if (gru)  // n rows from the hidden-side gradient (the reset gate scales it)
        rnn_gemm(blas, true, false, H, H, k_rows, dhn + dp_row0 * H, H, hp, hp_ld, 0.0f,
                 dwh + 2 * H * H, H, stream);
      if (d.with_bias()) {
        float* dbx = b.dw + d.bias_block_offset(l, dir, 0, s.input);
        float* dbh = b.dw + d.bias_block_offset(l, dir, 1, s.input);
        column_sums(dpx, R, GH, GH, dbx, stream);
        copy_d2d(dbh, dbx, GH, stream);
        if (gru) column_sums(dhn, R, H, H, dbh + 2 * H, stream);
      }
    }
  }
}

}  // namespace anydnn::cuda
