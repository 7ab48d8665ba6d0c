#include "api/rnn_call.hpp"

#include <cstdint>

#include "api/api_objects.hpp"
#include "backend/backend.hpp"

namespace anydnn::api {

namespace {

const DropoutDescriptor& dropout_of(const RnnDescriptor& d) {
  const DropoutDescriptor& dd = deref(d.dropout, "rnnDesc's dropoutDesc");
  ANYDNN_CHECK_BADPARM(dd.set, "the RNN's dropout descriptor has not been set");
  return dd;
}

}  // namespace

bool on_host(Handle& h) {
  return h.backend().kind() == BackendKind::Cpu;
}

const RnnDescriptor& set_rnn(miopenRNNDescriptor_t r) {
  const RnnDescriptor& d = deref(r);
  ANYDNN_CHECK_BADPARM(d.set, "rnnDesc has not been set");
  return d;
}

void attach_forward_space(const RnnDescriptor& d, const RnnShape& s, bool training, void* workspace,
                          void* reserve, RnnForwardBuffers& b) {
  auto* store = static_cast<uint8_t*>(training ? reserve : workspace);
  b.store = reinterpret_cast<float*>(store);
  b.masks = store + s.mask_offset_bytes();
  b.temp = static_cast<float*>(workspace) + s.temp_offset_floats(0);
  if (s.dropout_between_layers()) {
    const DropoutDescriptor& dd = dropout_of(d);
    b.dropout = training ? dd.dropout : 0.0f;  // inference: no dropout
    b.dropout_seed = dd.state().seed;
    b.dropout_counter = dd.state().counter;
    if (training && dd.state_evo) ++dd.state().counter;
  }
}

void attach_backward_space(const RnnDescriptor& d, const RnnShape& s, void* workspace,
                           const void* reserve, RnnBackwardBuffers& b) {
  b.store = static_cast<const float*>(reserve);
  b.masks = static_cast<const uint8_t*>(reserve) + s.mask_offset_bytes();
  b.work = static_cast<float*>(workspace);
  if (s.dropout_between_layers()) b.dropout = dropout_of(d).dropout;
}

}  // namespace anydnn::api
