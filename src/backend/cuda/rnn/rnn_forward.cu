// RNN forward on CUDA, step for step the structure of backend/cpu/rnn/rnn_forward.cpp: per layer
// and direction one GEMM for the input projection of every step, then per step the hidden GEMM
// and one fused gate kernel. The reserve gets exactly the CPU's contents (the backward passes
// of either backend read it), and the dropout masks the CPU's bits.
#include <algorithm>
#include <memory>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/dropout_keep.cuh"
#include "backend/cuda/rnn/rnn_forward.hpp"
#include "backend/cuda/rnn/rnn_gates.hpp"
#include "backend/cuda/rnn/rnn_gemm.hpp"

namespace anydnn::cuda {

void rnn_forward(const RnnShape& s, const RnnForwardBuffers& b, CudaBackend& backend) {
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  cudaStream_t stream = backend.cuda_stream();
  cublasHandle_t blas = backend.cublas();
  // Row of each sequence's last step (the forward direction's final state), uploaded once.
  std::unique_ptr<DeviceIntTable> last_rows;
  if (b.hy || b.cy) {
    std::vector<int> rows(B0);
    for (size_t bi = 0; bi < B0; ++bi) {
      size_t t = 0;
      while (t + 1 < T && s.batch[t + 1] > bi)
        ++t;
      rows[bi] = static_cast<int>(s.row_start[t] + bi);
    }
    last_rows = std::make_unique<DeviceIntTable>(rows, stream);
  }
  const float* input = b.x;
  size_t in_ld = s.input;
  for (int l = 0; l < d.layers; ++l) {
    const size_t in = d.layer_input(l, s.input);
    float* out = b.store + s.out_offset(l);
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      float* gates = b.store + s.gates_offset(l, dir);
      // Input projection of every time step at once (skip mode: x itself in every gate).
      if (l == 0 && d.skip())
        rnn_skip_input(input, static_cast<long long>(in_ld), gates, static_cast<long long>(R),
                       static_cast<long long>(G), static_cast<long long>(H), stream);
      else
        rnn_gemm(blas, false, true, R, GH, in, input, in_ld,
                 b.w + d.block_offset(l, dir, 0, s.input), in, 0.0f, gates, GH, stream);
      const float* wh = b.w + d.block_offset(l, dir, 1, s.input);
      const float* bx = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 0, s.input) : nullptr;
      const float* bh = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 1, s.input) : nullptr;
      float* hid = b.temp + (s.temp_offset_floats(dir) - s.temp_offset_floats(0));
      float* hprev = hid + B0 * GH;  // B_0 x H, the state entering the step
      float* cell = lstm ? b.store + s.cell_offset(l, dir) : nullptr;
      float* hn = gru ? b.store + s.hn_offset(l, dir) : nullptr;
      const size_t state = static_cast<size_t>(l) * D + dir;
      const float* hx = b.hx ? b.hx + state * B0 * H : nullptr;
      const float* cx = b.cx ? b.cx + state * B0 * H : nullptr;
      for (size_t step = 0; step < T; ++step) {
        const size_t t = dir == 0 ? step : T - 1 - step;
        const size_t Bt = s.batch[t], r0 = s.row_start[t];
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
          rnn_gather_state(out + pr0 * ldo + dir * H, static_cast<long long>(ldo),
                           static_cast<long long>(from_prev), hx, hprev, static_cast<long long>(Bt),
                           static_cast<long long>(H), stream);
        }
        // Hidden projection (bias added in the gate kernel): hid = h_prev * W_h^T.
        rnn_gemm(blas, false, true, Bt, GH, H, hp_rows, hp_ld, wh, H, 0.0f, hid, GH, stream);
        GateForwardArgs a;
        a.gates = gates + r0 * GH;
        a.hid = hid;
        a.bx = bx;
        a.bh = bh;
        a.hprev = hp_rows;
        a.hp_ld = static_cast<long long>(hp_ld);
        a.cprev = lstm ? cell + pr0 * H : nullptr;
        a.from_prev = static_cast<long long>(from_prev);
        a.cx = cx;
        a.cell = lstm ? cell + r0 * H : nullptr;
        a.hn = gru ? hn + r0 * H : nullptr;
        a.h = out + r0 * ldo + dir * H;
        a.ldh = static_cast<long long>(ldo);
        a.rows = static_cast<long long>(Bt);
        a.H = static_cast<long long>(H);
        rnn_gates_forward(d.mode, a, stream);
      }
      // Final states: the forward direction's last active step of each sequence, the reverse
      // direction's step 0 (rows 0..B_0).
      if (b.hy || b.cy)
        rnn_final_states(dir == 0 ? last_rows->get() : nullptr, out + dir * H,
                         static_cast<long long>(ldo), cell, b.hy ? b.hy + state * B0 * H : nullptr,
                         b.cy && lstm ? b.cy + state * B0 * H : nullptr, static_cast<long long>(B0),
                         static_cast<long long>(H), stream);
    }
    input = out;
    in_ld = ldo;
    if (s.dropout_between_layers() && l + 1 < d.layers) {
      // Dropout on this layer's output before the next layer (the CPU's counter per layer).
      float* drop = b.store + s.drop_offset(l);
      uint8_t* mask = b.masks + static_cast<size_t>(l) * R * ldo;
      const uint64_t counter = b.dropout_counter * 1024 + static_cast<uint64_t>(l);
      rnn_dropout_forward(out, drop, mask, static_cast<long long>(R * ldo),
                          dropout_key(b.dropout_seed, counter), b.dropout, stream);
      input = drop;
    }
  }
  check_cuda(cudaMemcpyAsync(b.y, b.store + s.out_offset(d.layers - 1), R * ldo * sizeof(float),
                             cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (RNN y)");
}

}  // namespace anydnn::cuda
