#include "core/rnn_descriptor.hpp"

#include "core/errors.hpp"

namespace anydnn {

void RnnDescriptor::set_values(int hsize, int nlayers, long long in, long long dir, long long m,
                               long long b, long long a, long long t) {
  ANYDNN_CHECK_BADPARM(hsize > 0 && nlayers > 0, "hidden size " << hsize << " and layer count "
                                                                << nlayers << " must be positive");
  ANYDNN_CHECK_BADPARM(m >= miopenRNNRELU && m <= miopenGRU,
                       "RNN mode must be vanilla ReLU or Tanh, LSTM or GRU (got " << m << ")");
  ANYDNN_CHECK_BADPARM(dir == miopenRNNunidirection || dir == miopenRNNbidirection,
                       "direction mode must be 0 (uni) or 1 (bi), got " << dir);
  ANYDNN_CHECK_BADPARM(b == miopenRNNNoBias || b == miopenRNNwithBias,
                       "bias mode must be 0 or 1, got " << b);
  ANYDNN_CHECK_BADPARM(in == miopenRNNlinear || in == miopenRNNskip,
                       "input mode must be 0 (linear) or 1 (skip), got " << in);
  ANYDNN_CHECK_BADPARM(a == miopenRNNdefault || a == miopenRNNfundamental,
                       "RNN algorithm must be 0 or 1, got " << a);
  ANYDNN_CHECK_BADPARM(t == miopenFloat || t == miopenHalf, "RNN data type must be float or half");
  hidden = hsize;
  layers = nlayers;
  input_mode = static_cast<miopenRNNInputMode_t>(in);
  direction = static_cast<miopenRNNDirectionMode_t>(dir);
  mode = static_cast<miopenRNNMode_t>(m);
  bias = static_cast<miopenRNNBiasMode_t>(b);
  algo = static_cast<miopenRNNAlgo_t>(a);
  type = static_cast<miopenDataType_t>(t);
  set = true;
}

size_t RnnDescriptor::layer_input(int l, size_t input_size) const {
  if (l == 0) return skip() ? 0 : input_size;
  return static_cast<size_t>(dirs()) * hidden;
}

size_t RnnDescriptor::param_count(size_t input_size) const {
  const size_t G = gates(), H = hidden, D = dirs(), L = layers;
  const size_t I = skip() ? 0 : input_size;
  size_t n = G * H * D * (I + H + (L - 1) * (D + 1) * H);
  if (with_bias()) n += 2 * L * G * H * D;
  return n;
}

size_t RnnDescriptor::param_rows(size_t input_size) const {
  const size_t H = hidden, D = dirs(), L = layers;
  const size_t I = skip() ? 0 : input_size;
  return I + ((L - 1) * (D + 1) + 1) * H + (with_bias() ? 2 * L : 0);
}

void RnnDescriptor::check_param_id(int layer, int id, bool bias_id) const {
  // In 64 bits: layers may be any positive int, and layers x 2 overflows int.
  const long long pseudo_layers = static_cast<long long>(layers) * dirs();
  ANYDNN_CHECK_BADPARM(layer >= 0 && layer < pseudo_layers, "layer " << layer << " is outside 0.."
                                                                     << pseudo_layers - 1
                                                                     << " (layers x directions)");
  ANYDNN_CHECK_BADPARM(id >= 0 && id < 2 * gates(), (bias_id ? "biasID " : "paramID ")
                                                        << id << " is outside 0.."
                                                        << 2 * gates() - 1);
  if (!bias_id)
    ANYDNN_CHECK_BADPARM(!(skip() && layer < dirs() && id < gates()),
                         "Parameter of input layer is null in input skip mode");
  if (bias_id) ANYDNN_CHECK_BADPARM(with_bias(), "the RNN descriptor has no biases");
}

size_t RnnDescriptor::block_offset(int l, int d, int side, size_t input_size) const {
  const size_t G = gates(), H = hidden, D = dirs();
  size_t off = 0;
  for (int k = 0; k < l; ++k)
    off += D * G * H * (layer_input(k, input_size) + H);
  const size_t in = layer_input(l, input_size);
  if (side == 1) off += D * G * H * in;
  off += static_cast<size_t>(d) * G * H * (side == 0 ? in : H);
  return off;
}

size_t RnnDescriptor::bias_block_offset(int l, int d, int side, size_t input_size) const {
  const size_t G = gates(), H = hidden, D = dirs();
  size_t matrices = 0;
  for (int k = 0; k < layers; ++k)
    matrices += D * G * H * (layer_input(k, input_size) + H);
  return matrices + static_cast<size_t>(l) * 2 * D * G * H + side * D * G * H + d * G * H;
}

size_t RnnDescriptor::param_offset(int layer, int id, size_t input_size, size_t* rows,
                                   size_t* cols) const {
  check_param_id(layer, id, false);
  const int l = layer / dirs(), d = layer % dirs(), G = gates();
  const int side = id < G ? 0 : 1, gate = id % G;
  const size_t cols_ = side == 0 ? layer_input(l, input_size) : hidden;
  if (rows) *rows = hidden;
  if (cols) *cols = cols_;
  return block_offset(l, d, side, input_size) + static_cast<size_t>(gate) * hidden * cols_;
}

size_t RnnDescriptor::bias_offset(int layer, int id, size_t input_size) const {
  check_param_id(layer, id, true);
  const int l = layer / dirs(), d = layer % dirs(), G = gates();
  const int side = id < G ? 0 : 1, gate = id % G;
  return bias_block_offset(l, d, side, input_size) + static_cast<size_t>(gate) * hidden;
}

}  // namespace anydnn
