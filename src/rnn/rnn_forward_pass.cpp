// The RNN forward pass for every backend (rnn_passes.hpp), and where its buffers live.
#include <algorithm>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "dropout/dropout_kernels.hpp"
#include "dropout/dropout_state.hpp"
#include "rnn/rnn_kernels.hpp"
#include "rnn/rnn_passes.hpp"

namespace anydnn {

namespace {

const DropoutDescriptor& set_dropout(const RnnProblem& p) {
  ANYDNN_CHECK_BADPARM(p.dropout() != nullptr, "rnnDesc's dropoutDesc is a null pointer");
  ANYDNN_CHECK_BADPARM(p.dropout()->set, "the RNN's dropout descriptor has not been set");
  return *p.dropout();
}

}  // namespace

void attach_forward_space(const RnnProblem& p, bool training, void* workspace, void* reserve,
                          RnnForwardBuffers& b, Backend& backend) {
  const RnnShape& s = p.shape();
  auto* store = static_cast<uint8_t*>(training ? reserve : workspace);
  b.store = reinterpret_cast<float*>(store);
  b.masks = store + s.mask_offset_bytes();
  b.temp = static_cast<float*>(workspace) + s.temp_offset_floats(0);
  if (s.dropout_between_layers()) {
    const DropoutDescriptor& dd = set_dropout(p);
    b.dropout = training ? dd.dropout : 0.0f;  // inference: no dropout
    const DropoutState st = read_dropout_state(dd, backend);
    b.dropout_seed = st.seed;
    b.dropout_counter = st.counter;
    if (training && dd.state_evo) advance_dropout_counter(dd, backend, st);
  }
}

void attach_backward_space(const RnnProblem& p, void* workspace, const void* reserve,
                           RnnBackwardBuffers& b) {
  const RnnShape& s = p.shape();
  b.store = static_cast<const float*>(reserve);
  b.masks = static_cast<const uint8_t*>(reserve) + s.mask_offset_bytes();
  b.work = static_cast<float*>(workspace);
  if (s.dropout_between_layers()) b.dropout = set_dropout(p).dropout;
}

void rnn_forward_pass(Backend& backend, const RnnShape& s, const RnnForwardBuffers& b) {
  RnnKernels& k = backend.kernels<RnnKernels>();
  const RnnDescriptor& d = *s.desc;
  const size_t H = s.hidden(), G = d.gates(), D = d.dirs(), R = s.rows, T = s.steps();
  const size_t GH = G * H, ldo = D * H, B0 = s.batch[0];
  const bool lstm = d.mode == miopenLSTM, gru = d.mode == miopenGRU;
  // Row of each sequence's last step (the forward direction's final state), uploaded once.
  std::unique_ptr<RnnIndexTable> last_rows;
  if (b.hy || b.cy) {
    std::vector<int> rows(B0);
    for (size_t bi = 0; bi < B0; ++bi) {
      size_t t = 0;
      while (t + 1 < T && s.batch[t + 1] > bi)
        ++t;
      rows[bi] = static_cast<int>(s.row_start[t] + bi);
    }
    last_rows = k.index_table(rows);
  }
  // Workspace pointers relative to b.temp (the workspace's scratch part).
  float* const ws = b.temp - s.temp_offset_floats(0);
  const float* input = b.x;
  size_t in_ld = s.input;
  for (int l = 0; l < d.layers; ++l) {
    const size_t in = d.layer_input(l, s.input);
    float* out = b.store + s.out_offset(l);
    for (int dir = 0; dir < static_cast<int>(D); ++dir) {
      float* gates = b.store + s.gates_offset(l, dir);
      // Input projection of every time step at once (skip mode: x itself in every gate).
      if (l == 0 && d.skip())
        k.skip_input(input, in_ld, gates, R, G, H);
      else
        k.gemm(false, true, R, GH, in, input, in_ld, b.w + d.block_offset(l, dir, 0, s.input), in,
               0.0f, gates, GH);
      // W_h^T, reused by every step's hidden GEMM.
      const auto whp = k.step_gemm(b.w + d.block_offset(l, dir, 1, s.input), H, H, GH, true,
                                   ws + s.packed_offset(dir));
      const float* bx = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 0, s.input) : nullptr;
      const float* bh = d.with_bias() ? b.w + d.bias_block_offset(l, dir, 1, s.input) : nullptr;
      float* hid = ws + s.temp_offset_floats(dir);
      float* hprev = hid + B0 * GH;  // B_0 x H, the state entering the step
      float* cell = lstm ? b.store + s.cell_offset(l, dir) : nullptr;
      float* hn = gru ? b.store + s.hn_offset(l, dir) : nullptr;
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
          k.gather_state(out + pr0 * ldo + dir * H, ldo, from_prev, hx, hprev, Bt, H);
        }
        // Hidden projection (the biases are added in the gate kernel): hid = h_prev * W_h^T.
        whp->multiply(hp_rows, hp_ld, Bt, H, hid, GH, false);
        RnnGateForward a;
        a.gates = gates + r0 * GH;
        a.hid = hid;
        a.bx = bx;
        a.bh = bh;
        a.hprev = hp_rows;
        a.hp_ld = hp_ld;
        a.cprev = lstm ? cell + pr0 * H : nullptr;
        a.from_prev = from_prev;
        a.cx = cx;
        a.cell = lstm ? cell + r0 * H : nullptr;
        a.hn = gru ? hn + r0 * H : nullptr;
        a.h = out + r0 * ldo + dir * H;
        a.ldh = ldo;
        a.rows = Bt;
        a.H = H;
        k.gates_forward(d.mode, a);
      }
      // Final states: the forward direction's last active step of each sequence, the reverse
      // direction's step 0 (rows 0..B_0).
      if (b.hy || b.cy)
        k.final_states(dir == 0 ? last_rows.get() : nullptr, out + dir * H, ldo, cell,
                       b.hy ? b.hy + state * B0 * H : nullptr,
                       b.cy && lstm ? b.cy + state * B0 * H : nullptr, B0, H);
    }
    input = out;
    in_ld = ldo;
    if (s.dropout_between_layers() && l + 1 < d.layers) {
      // Dropout on this layer's output before the next layer: kept values scaled by 1/(1-p),
      // the generator counter numbered per call and layer.
      const TensorDescriptor flat(miopenFloat, {R * ldo});
      float* drop = b.store + s.drop_offset(l);
      const DropoutApply a{.in_desc = &flat,
                           .in = out,
                           .out_desc = &flat,
                           .out = drop,
                           .mask = b.masks + static_cast<size_t>(l) * R * ldo,
                           .generate = true,
                           .seed = b.dropout_seed,
                           .counter = b.dropout_counter * 1024 + static_cast<uint64_t>(l),
                           .dropout = b.dropout,
                           .scale = 1.0f / (1.0f - b.dropout),
                           .linear = true};
      backend.kernels<DropoutKernels>().apply(a);
      input = drop;
    }
  }
  k.copy(b.y, b.store + s.out_offset(d.layers - 1), R * ldo);
}

}  // namespace anydnn
