#include "dropout/dropout_ops.hpp"
#include "dropout/dropout_state.hpp"

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "dropout/dropout_kernels.hpp"

namespace anydnn {

void dropout_run(Handle& h, const DropoutDescriptor& d, const TensorDescriptor* noise,
                 const TensorDescriptor& i, const void* in, const TensorDescriptor& o, void* out,
                 void* reserve, size_t reserve_bytes, bool forward) {
  ANYDNN_CHECK_BADPARM(i.lens() == o.lens() && i.type() == o.type(),
                       "input and output descriptors differ in lengths or type");
  ANYDNN_CHECK(i.type() == miopenFloat || i.type() == miopenHalf || i.type() == miopenBFloat16,
               miopenStatusNotImplemented, "dropout supports float, half and bfloat16");
  if (noise != nullptr)
    ANYDNN_CHECK(noise->lens() == i.lens(), miopenStatusNotImplemented,
                 "a noise shape other than the input's (broadcast masks) is not supported");
  ANYDNN_CHECK_BADPARM(in != nullptr && out != nullptr, "data pointers must not be null");
  ANYDNN_CHECK_BADPARM(reserve != nullptr && reserve_bytes >= i.element_count(),
                       "reserveSpaceSizeInBytes = " << reserve_bytes << " is below the "
                                                    << i.element_count() << " bytes needed");
  // Forward draws a new mask unless use_mask asks for the one already in the reserve;
  // backward always applies the reserve's mask. The state lives in the backend's memory.
  Backend& be = h.backend();
  const bool generate = forward && !d.use_mask;
  const DropoutState st = generate ? read_dropout_state(d, be) : DropoutState{};
  // Both tensors packed in logical order (element i at offset i): no index arithmetic.
  size_t expect = 1;
  bool logical = true;
  for (size_t k = i.num_dims(); k-- > 0;) {
    logical = logical && (i.lens()[k] == 1 || i.strides()[k] == expect);
    expect *= i.lens()[k];
  }
  const DropoutApply a{.in_desc = &i,
                       .in = in,
                       .out_desc = &o,
                       .out = out,
                       .mask = static_cast<uint8_t*>(reserve),
                       .generate = generate,
                       .seed = st.seed,
                       .counter = st.counter,
                       .dropout = d.dropout,
                       .scale = 1.0f / (1.0f - d.dropout),
                       .linear = logical && i.strides() == o.strides()};
  h.record_kernel_time(h.run_primitive([&] { be.kernels<DropoutKernels>().apply(a); }));
  if (generate && d.state_evo) advance_dropout_counter(d, be, st);
}

}  // namespace anydnn
