// An RNN descriptor and MIOpen's packed weight layout (shared/reference/miopen.md §e).
//
// Packed weights: every matrix, then every bias. Matrices per physical layer, input side first:
// W_x of each direction (G matrices of H x in, gates in MIOpen's order: LSTM i, f, o, g; GRU
// z, r, n), then W_h of each direction (G matrices of H x H). `in` is the input size I for
// layer 0 (no W_x at all in skip mode), H (uni) or 2H (bi) above. Biases per physical layer:
// b_x of each direction (G vectors of H), then b_h of each direction.
// API layer indices count directions: layer = physical layer * D + direction. Parameter ids
// 0..G-1 are input-side (W_x / b_x), G..2G-1 hidden-side.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>

namespace anydnn {

struct RnnDescriptor {
  bool set = false;
  int hidden = 0, layers = 0;
  miopenRNNInputMode_t input_mode = miopenRNNlinear;
  miopenRNNDirectionMode_t direction = miopenRNNunidirection;
  miopenRNNMode_t mode = miopenRNNTANH;
  miopenRNNBiasMode_t bias = miopenRNNNoBias;
  miopenRNNAlgo_t algo = miopenRNNdefault;
  miopenDataType_t type = miopenFloat;
  miopenRNNPaddingMode_t padding = miopenRNNIONotPadded;
  miopenDropoutDescriptor_t dropout = nullptr;  // _V2 only; not owned

  // Validates like MIOpen's constructor (BadParm with a reason). The enums come as the raw
  // integers the caller passed (any int can arrive from C).
  void set_values(int hsize, int nlayers, long long in, long long dir, long long m, long long b,
                  long long a, long long t);

  int gates() const { return mode == miopenLSTM ? 4 : mode == miopenGRU ? 3 : 1; }
  int dirs() const { return direction == miopenRNNbidirection ? 2 : 1; }
  bool skip() const { return input_mode == miopenRNNskip; }
  bool with_bias() const { return bias == miopenRNNwithBias; }

  // Input width of physical layer l (I for layer 0 with a linear input, 0 in skip mode).
  size_t layer_input(int l, size_t input_size) const;
  // Elements of the packed weights for input size I.
  size_t param_count(size_t input_size) const;
  // The 2-D params descriptor's lengths: rows x (D * G * H).
  size_t param_rows(size_t input_size) const;

  // Checks an API (layer, paramID) / (layer, biasID) pair; BadParm with the reason.
  void check_param_id(int layer, int id, bool bias_id) const;
  // Matrix (rows H x cols) and element offset of (API layer, paramID).
  size_t param_offset(int layer, int id, size_t input_size, size_t* rows, size_t* cols) const;
  // Element offset of (API layer, biasID) (length H), from the start of the weights.
  size_t bias_offset(int layer, int id, size_t input_size) const;
  // Start of W_x / W_h (side 0 / 1) of physical layer l, direction d: G matrices back to back,
  // one (G*H) x in (or H) row-major matrix.
  size_t block_offset(int l, int d, int side, size_t input_size) const;
  size_t bias_block_offset(int l, int d, int side, size_t input_size) const;
};

}  // namespace anydnn
