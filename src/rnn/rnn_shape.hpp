// One RNN call's shape, validated from the legacy API's per-step descriptor arrays: sequence
// length, batch per time step (non-increasing, packed sequences), input size, and where every
// piece of the opaque workspace / reserve buffers lives.
#pragma once

#include <cstddef>
#include <vector>

#include "core/rnn_descriptor.hpp"

namespace anydnn {

struct RnnShape {
  const RnnDescriptor* desc = nullptr;
  size_t input = 0;               // I
  std::vector<size_t> batch;      // B_t
  std::vector<size_t> row_start;  // first packed row of step t
  size_t rows = 0;                // sum of B_t

  size_t steps() const { return batch.size(); }
  size_t hidden() const { return static_cast<size_t>(desc->hidden); }
  size_t out_width() const { return static_cast<size_t>(desc->dirs()) * desc->hidden; }
  bool dropout_between_layers() const;
  // Values of one state tensor (hx, cx, hy, ...): layers * directions x B_0 x H.
  size_t state_values() const {
    return static_cast<size_t>(desc->layers) * desc->dirs() * batch[0] * hidden();
  }

  // Reserve (training; also the front of the workspace for inference), in floats per physical
  // layer: gates D x R x G*H | outputs R x D*H | LSTM cells D x R x H | GRU hidden-n D x R x H |
  // dropped outputs R x D*H (+ R x D*H mask bytes at the very end).
  size_t layer_floats() const;
  size_t gates_offset(int l, int d) const;
  size_t out_offset(int l) const;
  size_t cell_offset(int l, int d) const;
  size_t hn_offset(int l, int d) const;
  size_t drop_offset(int l) const;
  size_t reserve_bytes() const;
  // Where the dropout masks start in the reserve (after every layer's floats).
  size_t mask_offset_bytes() const { return desc->layers * layer_floats() * sizeof(float); }
  // Workspace: the reserve layout (inference keeps its activations there) plus per direction a
  // B_0 x G*H hidden-GEMM product and a B_0 x H state.
  size_t workspace_bytes() const;
  size_t temp_offset_floats(int d) const;  // within the workspace, after the reserve part
  // Backward area of the workspace (floats from its start): per layer and direction the
  // input-side pre-activation gradients (R x G*H; for GRU also the hidden-side n gradient,
  // R x H), kept from backward data for backward weights; then R x max(I, D*H) input
  // gradients, R x D*H output gradients and per-direction step scratch (B_0 x (G+4)*H).
  size_t dpre_offset(int l, int d) const;
  size_t dhn_offset(int l, int d) const;
  size_t dx_buffer_offset() const;
  size_t dy_buffer_offset() const;
  size_t step_offset(int d) const;
  // Per direction, room for the step GEMM's packed weights (64-byte aligned).
  size_t packed_offset(int d) const;
  size_t packed_floats() const;
  // fp16 calls: the fp32 copies of the caller's tensors, after everything else
  // (RnnHalfStaging; the workspace size includes it).
  size_t staging_offset_floats() const;
};

// BadParm unless the sizes describe a valid call (non-increasing batches, B_0 > 0, ...).
RnnShape make_rnn_shape(const RnnDescriptor& desc, size_t input, std::vector<size_t> batch);

}  // namespace anydnn
