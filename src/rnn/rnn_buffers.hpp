// Buffers of an RNN forward call (fp32), for the backends' RNN kernels.
#pragma once

#include <cstdint>

namespace anydnn {

struct RnnForwardBuffers {
  const float* x = nullptr;   // packed rows: sum(B_t) x I
  const float* hx = nullptr;  // L*D x B_0 x H, or null (zeros)
  const float* cx = nullptr;  // LSTM only, or null
  const float* w = nullptr;   // packed weights (RnnDescriptor layout)
  float* y = nullptr;         // sum(B_t) x D*H
  float* hy = nullptr;        // or null
  float* cy = nullptr;        // or null
  float* store = nullptr;     // activations (RnnShape's reserve layout)
  uint8_t* masks = nullptr;   // dropout masks (end of the reserve)
  float* temp = nullptr;      // per-direction scratch (RnnShape::temp_offset_floats)
  // Dropout between layers: generator seed and counter of this call.
  uint64_t dropout_seed = 0, dropout_counter = 0;
  float dropout = 0.0f;
};

// Buffers of the backward passes. Data: dy, dhy, dcy in; dx, dhx, dcx out (each may be null
// but dx). Weights: dw out (overwritten). Both read the forward's reserve; backward data leaves
// in the workspace what backward weights reads.
struct RnnBackwardBuffers {
  const float* x = nullptr;
  const float* hx = nullptr;
  const float* cx = nullptr;
  const float* w = nullptr;
  const float* dy = nullptr;
  const float* dhy = nullptr;
  const float* dcy = nullptr;
  float* dx = nullptr;
  float* dhx = nullptr;
  float* dcx = nullptr;
  float* dw = nullptr;
  const float* store = nullptr;  // the reserve
  const uint8_t* masks = nullptr;
  float* work = nullptr;  // the workspace (RnnShape's backward area)
  float dropout = 0.0f;
};

}  // namespace anydnn
