#include "rnn/rnn_shape.hpp"

#include <algorithm>
#include "core/dropout_descriptor.hpp"

#include "core/errors.hpp"
#include "rnn/rnn_half_staging.hpp"

namespace anydnn {

bool RnnShape::dropout_between_layers() const {
  return desc->dropout != nullptr && desc->layers > 1;
}

size_t RnnShape::layer_floats() const {
  const size_t D = desc->dirs(), G = desc->gates(), H = hidden();
  size_t f = D * rows * G * H + rows * D * H;
  if (desc->mode == miopenLSTM) f += D * rows * H;
  if (desc->mode == miopenGRU) f += D * rows * H;
  if (dropout_between_layers()) f += rows * D * H;
  return f;
}

size_t RnnShape::gates_offset(int l, int d) const {
  return l * layer_floats() + d * rows * desc->gates() * hidden();
}
size_t RnnShape::out_offset(int l) const {
  return l * layer_floats() + desc->dirs() * rows * desc->gates() * hidden();
}
size_t RnnShape::cell_offset(int l, int d) const {
  return out_offset(l) + rows * out_width() + d * rows * hidden();
}
size_t RnnShape::hn_offset(int l, int d) const {
  return cell_offset(l, d);  // LSTM and GRU never both
}
size_t RnnShape::drop_offset(int l) const {
  size_t off = out_offset(l) + rows * out_width();
  if (desc->mode == miopenLSTM || desc->mode == miopenGRU) off += desc->dirs() * rows * hidden();
  return off;
}
size_t RnnShape::reserve_bytes() const {
  size_t b = mask_offset_bytes();
  if (dropout_between_layers()) b += desc->layers * rows * out_width();
  return b;
}
size_t RnnShape::temp_offset_floats(int d) const {
  const size_t per = batch[0] * (desc->gates() + 1) * hidden();
  return (reserve_bytes() + sizeof(float) - 1) / sizeof(float) + d * per;
}
size_t RnnShape::dpre_offset(int l, int d) const {
  const size_t G = desc->gates(), H = hidden();
  const size_t per = rows * G * H + (desc->mode == miopenGRU ? rows * H : 0);
  return temp_offset_floats(desc->dirs()) + (static_cast<size_t>(l) * desc->dirs() + d) * per;
}
size_t RnnShape::dhn_offset(int l, int d) const {
  return dpre_offset(l, d) + rows * desc->gates() * hidden();
}
size_t RnnShape::dx_buffer_offset() const {
  return dpre_offset(desc->layers, 0);
}
size_t RnnShape::dy_buffer_offset() const {
  return dx_buffer_offset() + rows * std::max(input, out_width());
}
size_t RnnShape::step_offset(int d) const {
  return dy_buffer_offset() + rows * out_width() +
         static_cast<size_t>(d) * batch[0] * (desc->gates() + 4) * hidden();
}
size_t RnnShape::packed_floats() const {
  // K x (N + 64) for both step GEMMs (K = H, N = G*H forward; K = G*H, N = H backward).
  const size_t H = hidden(), GH = desc->gates() * H;
  return std::max(H * (GH + 64), GH * (H + 64)) + 16;
}
size_t RnnShape::packed_offset(int d) const {
  const size_t start = (step_offset(desc->dirs()) + 15) / 16 * 16;  // 64-byte aligned
  return start + static_cast<size_t>(d) * (packed_floats() + 16) / 16 * 16;
}
size_t RnnShape::staging_offset_floats() const {
  return packed_offset(desc->dirs()) + 16;
}
size_t RnnShape::workspace_bytes() const {
  return (staging_offset_floats() + RnnHalfStaging::area_floats(*this)) * sizeof(float);
}

RnnShape make_rnn_shape(const RnnDescriptor& desc, size_t input, std::vector<size_t> batch) {
  ANYDNN_CHECK_BADPARM(desc.set, "rnnDesc has not been set");
  ANYDNN_CHECK_BADPARM(!batch.empty(), "sequence length must be > 0");
  ANYDNN_CHECK_BADPARM(batch[0] > 0, "the first time step's batch must be > 0");
  for (size_t t = 1; t < batch.size(); ++t)
    ANYDNN_CHECK_BADPARM(batch[t] <= batch[t - 1], "Batch size must not ascend! (step "
                                                       << t << ": " << batch[t] << " > "
                                                       << batch[t - 1] << ")");
  if (desc.skip())
    ANYDNN_CHECK_BADPARM(input == static_cast<size_t>(desc.hidden),
                         "In miopenRNNskip mode input_vector size and hidden_size shoud be same");
  ANYDNN_CHECK_BADPARM(input > 0, "input vector size must be > 0");
  RnnShape s;
  s.desc = &desc;
  s.input = input;
  s.batch = std::move(batch);
  for (size_t b : s.batch) {
    s.row_start.push_back(s.rows);
    s.rows += b;
  }
  return s;
}

}  // namespace anydnn
