// The RNN's elementwise kernels (rnn_gates.hpp). One thread per (row, hidden unit), grid-stride;
// the math follows backend/cpu/kernels/rnn_gates.inc with the accurate expf / tanhf.
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/rnn/rnn_gates.hpp"

namespace anydnn::cuda {

namespace {

__device__ inline float sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}

#define GRID_STRIDE(i, n)                                                                    \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<long long>(gridDim.x) * blockDim.x)

template <int Mode>  // miopenRNNMode_t: 0 relu, 1 tanh, 2 LSTM, 3 GRU
__global__ void gates_forward_kernel(GateForwardArgs a) {
  const long long H = a.H;
  constexpr int G = Mode == 2 ? 4 : Mode == 3 ? 3 : 1;
  GRID_STRIDE(i, a.rows * H) {
    const long long b = i / H, j = i % H;
    float* g = a.gates + b * G * H;
    const float* hp = a.hid + b * G * H;
    // Input side plus its bias, hidden side plus its bias (the CPU's order of additions).
    auto xs = [&](int k) { return a.bx ? g[k * H + j] + a.bx[k * H + j] : g[k * H + j]; };
    auto hs = [&](int k) { return a.bh ? hp[k * H + j] + a.bh[k * H + j] : hp[k * H + j]; };
    float* h = a.h + b * a.ldh + j;
    if constexpr (Mode == 2) {
      const float ig = sigmoid(xs(0) + hs(0));
      const float fg = sigmoid(xs(1) + hs(1));
      const float og = sigmoid(xs(2) + hs(2));
      const float gg = tanhf(xs(3) + hs(3));
      const float cp = b < a.from_prev ? a.cprev[b * H + j] : (a.cx ? a.cx[b * H + j] : 0.0f);
      const float c = fg * cp + ig * gg;
      a.cell[b * H + j] = c;
      *h = og * tanhf(c);
      g[j] = ig;
      g[H + j] = fg;
      g[2 * H + j] = og;
      g[3 * H + j] = gg;
    } else if constexpr (Mode == 3) {
      const float z = sigmoid(xs(0) + hs(0));
      const float r = sigmoid(xs(1) + hs(1));
      const float hnv = hs(2);
      const float nn = tanhf(xs(2) + r * hnv);
      a.hn[b * H + j] = hnv;
      *h = (1.0f - z) * nn + z * a.hprev[b * a.hp_ld + j];
      g[j] = z;
      g[H + j] = r;
      g[2 * H + j] = nn;
    } else {
      const float p = xs(0) + hs(0);
      g[j] = p;
      *h = Mode == 0 ? (p > 0.0f ? p : 0.0f) : tanhf(p);
    }
  }
}

template <int Mode>
__global__ void gates_backward_kernel(GateBackwardArgs a) {
  const long long H = a.H;
  constexpr int G = Mode == 2 ? 4 : Mode == 3 ? 3 : 1;
  GRID_STRIDE(i, a.rows * H) {
    const long long b = i / H, j = i % H;
    const float* g = a.gates + b * G * H;
    float* gx = a.gx + b * G * H;
    const float dh = a.dy[b * a.ldy + j] + a.dhs[b * H + j];
    if constexpr (Mode == 2) {
      const float ig = g[j], fg = g[H + j], og = g[2 * H + j], gg = g[3 * H + j];
      const float tc = tanhf(a.cell[b * H + j]);
      const float dc = a.dcs[b * H + j] + dh * og * (1.0f - tc * tc);
      gx[j] = dc * gg * ig * (1.0f - ig);
      gx[H + j] = dc * a.cprev[b * H + j] * fg * (1.0f - fg);
      gx[2 * H + j] = dh * tc * og * (1.0f - og);
      gx[3 * H + j] = dc * ig * (1.0f - gg * gg);
      a.dcs[b * H + j] = dc * fg;
      a.dhs[b * H + j] = 0.0f;
    } else if constexpr (Mode == 3) {
      const float z = g[j], r = g[H + j], nn = g[2 * H + j];
      const float dn = dh * (1.0f - z), dz = dh * (a.hprev[b * a.hp_ld + j] - nn);
      const float dan = dn * (1.0f - nn * nn);
      gx[j] = dz * z * (1.0f - z);
      gx[H + j] = dan * a.hn[b * H + j] * r * (1.0f - r);
      gx[2 * H + j] = dan;
      a.dhn[b * H + j] = dan * r;
      a.dhs[b * H + j] = dh * z;  // the direct path h_prev -> h
    } else if constexpr (Mode == 0) {
      gx[j] = g[j] > 0.0f ? dh : 0.0f;
      a.dhs[b * H + j] = 0.0f;
    } else {
      const float hv = a.h[b * a.ldh + j];
      gx[j] = dh * (1.0f - hv * hv);
      a.dhs[b * H + j] = 0.0f;
    }
  }
}

__global__ void gather_state_kernel(const float* src, long long ld, long long from_prev,
                                    const float* init, float* dst, long long rows, long long H) {
  GRID_STRIDE(i, rows * H) {
    const long long b = i / H, j = i % H;
    dst[i] = b < from_prev ? src[b * ld + j] : (init ? init[b * H + j] : 0.0f);
  }
}

__global__ void gather_all_states_kernel(const int* prev, const float* out, long long ldo,
                                         const float* init, float* dst, long long R, long long H) {
  GRID_STRIDE(i, R * H) {
    const long long r = i / H, j = i % H;
    const int p = prev[2 * r];
    dst[i] = p >= 0 ? out[p * ldo + j] : (init ? init[prev[2 * r + 1] * H + j] : 0.0f);
  }
}

__global__ void final_states_kernel(const int* rows, const float* h, long long ldh,
                                    const float* cell, float* hy, float* cy, long long B,
                                    long long H) {
  GRID_STRIDE(i, B * H) {
    const long long b = i / H, j = i % H;
    const long long row = rows ? rows[b] : b;
    if (hy) hy[i] = h[row * ldh + j];
    if (cy) cy[i] = cell[row * H + j];
  }
}

__global__ void skip_input_kernel(const float* x, long long ldx, float* gates, long long R,
                                  long long G, long long H) {
  GRID_STRIDE(i, R * G * H) {
    const long long r = i / (G * H), j = i % H;
    gates[i] = x[r * ldx + j];
  }
}

__global__ void skip_input_grad_kernel(const float* gx, long long R, long long G, long long H,
                                       float* dx, long long ldx, bool add) {
  GRID_STRIDE(i, R * H) {
    const long long r = i / H, j = i % H;
    float* d = dx + r * ldx + j;
    float sum = add ? *d : 0.0f;
    for (long long g = 0; g < G; ++g)
      sum += gx[r * G * H + g * H + j];
    *d = sum;
  }
}

#undef GRID_STRIDE

}  // namespace

void rnn_gates_forward(miopenRNNMode_t mode, const GateForwardArgs& a, cudaStream_t stream) {
  const long long n = a.rows * a.H;
  if (n == 0) return;
  const unsigned grid = grid_for(static_cast<size_t>(n));
  switch (mode) {
    case miopenRNNRELU:
      gates_forward_kernel<0><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenRNNTANH:
      gates_forward_kernel<1><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenLSTM:
      gates_forward_kernel<2><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenGRU:
      gates_forward_kernel<3><<<grid, 256, 0, stream>>>(a);
      break;
  }
  ANYDNN_CUDA_LAUNCHED("rnn gates forward");
}

void rnn_gates_backward(miopenRNNMode_t mode, const GateBackwardArgs& a, cudaStream_t stream) {
  const long long n = a.rows * a.H;
  if (n == 0) return;
  const unsigned grid = grid_for(static_cast<size_t>(n));
  switch (mode) {
    case miopenRNNRELU:
      gates_backward_kernel<0><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenRNNTANH:
      gates_backward_kernel<1><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenLSTM:
      gates_backward_kernel<2><<<grid, 256, 0, stream>>>(a);
      break;
    case miopenGRU:
      gates_backward_kernel<3><<<grid, 256, 0, stream>>>(a);
      break;
  }
  ANYDNN_CUDA_LAUNCHED("rnn gates backward");
}

void rnn_gather_state(const float* src, long long ld, long long from_prev, const float* init,
                      float* dst, long long rows, long long H, cudaStream_t stream) {
  if (rows * H == 0) return;
  gather_state_kernel<<<grid_for(static_cast<size_t>(rows * H)), 256, 0, stream>>>(
      src, ld, from_prev, init, dst, rows, H);
  ANYDNN_CUDA_LAUNCHED("rnn gather state");
}

void rnn_gather_all_states(const int* prev, const float* out, long long ldo, const float* init,
                           float* dst, long long R, long long H, cudaStream_t stream) {
  if (R * H == 0) return;
  gather_all_states_kernel<<<grid_for(static_cast<size_t>(R * H)), 256, 0, stream>>>(
      prev, out, ldo, init, dst, R, H);
  ANYDNN_CUDA_LAUNCHED("rnn gather all states");
}

void rnn_final_states(const int* rows, const float* h, long long ldh, const float* cell, float* hy,
                      float* cy, long long B, long long H, cudaStream_t stream) {
  if (B * H == 0 || (hy == nullptr && cy == nullptr)) return;
  final_states_kernel<<<grid_for(static_cast<size_t>(B * H)), 256, 0, stream>>>(rows, h, ldh, cell,
                                                                                hy, cy, B, H);
  ANYDNN_CUDA_LAUNCHED("rnn final states");
}

void rnn_skip_input(const float* x, long long ldx, float* gates, long long R, long long G,
                    long long H, cudaStream_t stream) {
  if (R * G * H == 0) return;
  skip_input_kernel<<<grid_for(static_cast<size_t>(R * G * H)), 256, 0, stream>>>(x, ldx, gates, R,
                                                                                  G, H);
  ANYDNN_CUDA_LAUNCHED("rnn skip input");
}

void rnn_skip_input_grad(const float* gx, long long R, long long G, long long H, float* dx,
                         long long ldx, bool add, cudaStream_t stream) {
  if (R * H == 0) return;
  skip_input_grad_kernel<<<grid_for(static_cast<size_t>(R * H)), 256, 0, stream>>>(gx, R, G, H, dx,
                                                                                   ldx, add);
  ANYDNN_CUDA_LAUNCHED("rnn skip input gradient");
}

}  // namespace anydnn::cuda
