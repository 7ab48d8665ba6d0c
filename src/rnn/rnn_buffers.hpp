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

}  // namespace anydnn
