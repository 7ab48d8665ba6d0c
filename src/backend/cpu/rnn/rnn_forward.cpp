#include "backend/cpu/rnn/rnn_forward.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/kernels/rnn_gates.hpp"
#include "backend/cpu/rnn/rnn_gemm.hpp"
#include "core/dropout_descriptor.hpp"

namespace anydnn::cpu {

void rnn_forward(const RnnShape& s, const RnnForwardBuffers& b, CpuIsa isa, int threads) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  const RnnGateOps& gate_ops = rnn_gate_ops(isa);
  const float* input = b.x;
  size_t in_ld = s.input;
  for (int l = 0; l < d.layers; ++l) {
    const size_t in = d.layer_input(l, s.input);
    float* out = b.store + s.out_offset(l);
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      float* gates = b.store + s.gates_offset(l, dir);
      // Input projection of every time step at once (skip mode: x itself in every gate).
      if (l == 0 && d.skip()) {
#pragma omp parallel for num_threads(threads)
        for (long r = 0; r < static_cast<long>(R); ++r)
          for (size_t g = 0; g < G; ++g)
            std::memcpy(gates + r * GH + g * H, input + r * in_ld, H * sizeof(float));
      } else {
        blas_gemm(false, true, R, GH, in, input, in_ld, b.w + d.block_offset(l, dir, 0, s.input),
                  in, 0.0f, gates, GH);
      }
      const float* wh = b.w + d.block_offset(l, dir, 1, s.input);
      // W_h^T packed once, reused by every step's hidden GEMM.
      const PackedGemmB whp(isa, wh, static_cast<long>(H), static_cast<int>(H),
                            static_cast<int>(GH), true,
                            b.temp + (s.packed_offset(dir) - s.temp_offset_floats(0)));
      const float* bx = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 0, s.input) : nullptr;
      const float* bh = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 1, s.input) : nullptr;
      float* hid = b.temp + (s.temp_offset_floats(dir) - s.temp_offset_floats(0));
      float* hprev = hid + B0 * GH;  // B_0 x H, the state entering the step
      float* cell = lstm ? b.store + s.cell_offset(l, dir) : nullptr;
      float* hn = gru ? b.store + s.hn_offset(l, dir) : nullptr;
      const std::vector<float> zero_state(H, 0.0f);
      const float* zeros = zero_state.data();
      const size_t state = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + state * B0 * H : nullptr;
      const float* cx = b.cx ? b.cx + state * B0 * H : nullptr;
      for (size_t step = 0; step < T; ++step) {
        const size_t t = dir == 0 ? step : T - 1 - step;
        const size_t Bt = s.batch[t], r0 = s.row_start[t];
        // Previous state of each active sequence: the neighbouring step's output where that
        // sequence was active there, else the initial state (zeros without hx).
        const bool has_prev = dir == 0 ? t > 0 : t + 1 < T;
        const size_t from_prev = has_prev ? std::min(Bt, s.batch[dir == 0 ? t - 1 : t + 1]) : 0;
        const size_t pr0 = has_prev ? s.row_start[dir == 0 ? t - 1 : t + 1] : 0;
        // Where every row continues the previous step the state is read in place from its
        // output rows; otherwise the rows are gathered (the rest from hx, or zeros).
        const float* hp_rows = hprev;
        size_t hp_ld = H;
        if (from_prev == Bt) {
          hp_rows = out + pr0 * ldo + dir * H;
          hp_ld = ldo;
        } else {
          for (size_t bi = 0; bi < Bt; ++bi) {
            const float* src =
                bi < from_prev ? out + (pr0 + bi) * ldo + dir * H : (hx ? hx + bi * H : nullptr);
            if (src)
              std::memcpy(hprev + bi * H, src, H * sizeof(float));
            else
              std::memset(hprev + bi * H, 0, H * sizeof(float));
          }
        }
        // Hidden projection (with the hidden bias): hid = h_prev * W_h^T + b_h.
        whp.multiply(hp_rows, static_cast<long>(hp_ld), static_cast<int>(Bt), hid,
                     static_cast<long>(GH), false, threads);
        const long n = static_cast<long>(Bt);
#pragma omp parallel for num_threads(threads) if (Bt * GH > 16384)
        for (long bi = 0; bi < n; ++bi) {
          float* g = gates + (r0 + bi) * GH;
          float* hp = hid + bi * GH;
          float* h = out + (r0 + bi) * ldo + dir * H;
          const float* hprv = hp_rows + bi * hp_ld;
          if (bx)
            for (size_t j = 0; j < GH; ++j)
              g[j] += bx[j];
          if (bh)
            for (size_t j = 0; j < GH; ++j)
              hp[j] += bh[j];
          if (lstm) {
            const float* cprev_row = zeros;
            if (bi < static_cast<long>(from_prev))
              cprev_row = cell + (pr0 + bi) * H;
            else if (cx)
              cprev_row = cx + bi * H;
            gate_ops.lstm(g, hp, cprev_row, cell + (r0 + bi) * H, h, static_cast<long>(H));
          } else if (gru) {
            // n = tanh(W_n x + b_xn + r * (U_n h + b_hn)): the reset gate after the hidden
            // product and its bias.
            gate_ops.gru(g, hp, hprv, hn + (r0 + bi) * H, h, static_cast<long>(H));
          } else {
            gate_ops.vanilla(g, hp, h, static_cast<long>(H), d.mode == miopenRNNRELU);
          }
        }
      }
      // Final states: the forward direction's last active step of each sequence, the reverse
      // direction's step 0.
      if (b.hy || b.cy) {
        for (size_t bi = 0; bi < B0; ++bi) {
          size_t t = 0;
          if (dir == 0)
            while (t + 1 < T && s.batch[t + 1] > bi)
              ++t;
          const size_t row = s.row_start[t] + bi;
          if (b.hy)
            std::memcpy(b.hy + (state * B0 + bi) * H, out + row * ldo + dir * H, H * sizeof(float));
          if (b.cy && lstm)
            std::memcpy(b.cy + (state * B0 + bi) * H, cell + row * H, H * sizeof(float));
        }
      }
    }
    input = out;
    in_ld = ldo;
    if (s.dropout_between_layers() && l + 1 < d.layers) {
      // Dropout on this layer's output before the next layer: kept values scaled by 1/(1-p).
      float* drop = b.store + s.drop_offset(l);
      uint8_t* mask = b.masks + static_cast<size_t>(l) * R * ldo;
      const float scale = 1.0f / (1.0f - b.dropout);
      const uint64_t counter = b.dropout_counter * 1024 + static_cast<uint64_t>(l);
#pragma omp parallel for num_threads(threads)
      for (long i = 0; i < static_cast<long>(R * ldo); ++i) {
        const bool k = DropoutDescriptor::keep(b.dropout_seed, counter, i, b.dropout);
        mask[i] = k ? 1 : 0;
        drop[i] = k ? out[i] * scale : 0.0f;
      }
      input = drop;
    }
  }
  std::memcpy(b.y, b.store + s.out_offset(d.layers - 1), R * ldo * sizeof(float));
}

}  // namespace anydnn::cpu
