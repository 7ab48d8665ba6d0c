// C API: dropout descriptors and the dropout forward / backward passes (core/dropout_descriptor
// describes the reproducible masks and the states buffer; dropout/dropout_ops.hpp runs them).
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "dropout/dropout_ops.hpp"
#include "dropout/dropout_state.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

const DropoutDescriptor& set_dropout(miopenDropoutDescriptor_t d) {
  const DropoutDescriptor& dd = deref(d);
  ANYDNN_CHECK_BADPARM(dd.set, "dropoutDesc has not been set");
  return dd;
}

miopenStatus_t assign(const char* fn, miopenDropoutDescriptor_t desc, miopenHandle_t handle,
                      float dropout, void* states, size_t bytes, unsigned long long seed,
                      bool use_mask, bool state_evo, const miopenRNGType_t& rng, bool initialise) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    DropoutDescriptor& d = deref(desc);
    const miopenRNGType_t rng_type = checked(rng);
    DropoutDescriptor n;
    set_dropout_descriptor(n, dropout, states, bytes, seed, use_mask, state_evo, rng_type,
                           initialise, h.backend());
    d = n;
  });
}

miopenStatus_t apply(const char* fn, miopenHandle_t handle, miopenDropoutDescriptor_t desc,
                     miopenTensorDescriptor_t noise, miopenTensorDescriptor_t inDesc,
                     const void* in, miopenTensorDescriptor_t outDesc, void* out, void* reserve,
                     size_t reserve_bytes, bool forward) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    const DropoutDescriptor& d = set_dropout(desc);
    const TensorDescriptor& i = deref_set(inDesc, forward ? "xDesc" : "dyDesc");
    const TensorDescriptor& o = deref_set(outDesc, forward ? "yDesc" : "dxDesc");
    const TensorDescriptor* n = noise != nullptr ? &deref_set(noise, "noise_shape") : nullptr;
    dropout_run(h, d, n, i, in, o, out, reserve, reserve_bytes, forward);
  });
}

}  // namespace

extern "C" miopenStatus_t miopenCreateDropoutDescriptor(miopenDropoutDescriptor_t* dropoutDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, dropoutDesc);
  return guard(cfg, __func__, [&] { deref_out(dropoutDesc, "dropoutDesc") = new DropoutObject(); });
}

extern "C" miopenStatus_t miopenDestroyDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, dropoutDesc);
  return guard(cfg, __func__, [&] {
    deref(dropoutDesc);
    delete static_cast<DropoutObject*>(dropoutDesc);
  });
}

extern "C" miopenStatus_t miopenDropoutGetReserveSpaceSize(const miopenTensorDescriptor_t xDesc,
                                                           size_t* reserveSpaceSizeInBytes) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, xDesc, reserveSpaceSizeInBytes);
  return guard(cfg, __func__, [&] {
    // One mask byte per element, as MIOpen's bool mask.
    deref_out(reserveSpaceSizeInBytes, "reserveSpaceSizeInBytes") =
        deref_set(xDesc, "xDesc").element_count();
  });
}

extern "C" miopenStatus_t miopenDropoutGetStatesSize(miopenHandle_t handle,
                                                     size_t* stateSizeInBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, stateSizeInBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    deref_out(stateSizeInBytes, "stateSizeInBytes") = DropoutDescriptor::states_size();
  });
}

extern "C" miopenStatus_t miopenGetDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                     miopenHandle_t handle, float* dropout,
                                                     void** states, unsigned long long* seed,
                                                     bool* use_mask, bool* state_evo,
                                                     miopenRNGType_t* rng_mode) {
  ANYDNN_LOG_API(config_of(handle), dropoutDesc, handle, dropout, states, seed, use_mask, state_evo,
                 rng_mode);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    const DropoutDescriptor& d = set_dropout(dropoutDesc);
    deref_out(dropout, "dropout") = d.dropout;
    deref_out(states, "states") = d.states;
    deref_out(seed, "seed") = d.seed;
    deref_out(use_mask, "use_mask") = d.use_mask;
    deref_out(state_evo, "state_evo") = d.state_evo;
    deref_out(rng_mode, "rng_mode") = d.rng;
  });
}

extern "C" miopenStatus_t miopenRestoreDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                         miopenHandle_t handle, float dropout,
                                                         void* states, size_t stateSizeInBytes,
                                                         unsigned long long seed, bool use_mask,
                                                         bool state_evo, miopenRNGType_t rng_mode) {
  ANYDNN_LOG_API(config_of(handle), dropoutDesc, handle, dropout, states, stateSizeInBytes, seed,
                 use_mask, state_evo, rng_mode);
  return assign(__func__, dropoutDesc, handle, dropout, states, stateSizeInBytes, seed, use_mask,
                state_evo, rng_mode, false);
}

extern "C" miopenStatus_t miopenSetDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                     miopenHandle_t handle, float dropout,
                                                     void* states, size_t stateSizeInBytes,
                                                     unsigned long long seed, bool use_mask,
                                                     bool state_evo, miopenRNGType_t rng_mode) {
  ANYDNN_LOG_API(config_of(handle), dropoutDesc, handle, dropout, states, stateSizeInBytes, seed,
                 use_mask, state_evo, rng_mode);
  return assign(__func__, dropoutDesc, handle, dropout, states, stateSizeInBytes, seed, use_mask,
                state_evo, rng_mode, true);
}

extern "C" miopenStatus_t miopenDropoutForward(miopenHandle_t handle,
                                               const miopenDropoutDescriptor_t dropoutDesc,
                                               const miopenTensorDescriptor_t noise_shape,
                                               const miopenTensorDescriptor_t xDesc, const void* x,
                                               const miopenTensorDescriptor_t yDesc, void* y,
                                               void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, dropoutDesc, noise_shape, xDesc, x, yDesc, y,
                 reserveSpace, reserveSpaceSizeInBytes);
  return apply(__func__, handle, dropoutDesc, noise_shape, xDesc, x, yDesc, y, reserveSpace,
               reserveSpaceSizeInBytes, true);
}

extern "C" miopenStatus_t miopenDropoutBackward(
    miopenHandle_t handle, const miopenDropoutDescriptor_t dropoutDesc,
    const miopenTensorDescriptor_t noise_shape, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx, void* reserveSpace,
    size_t reserveSpaceSizeInBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, dropoutDesc, noise_shape, dyDesc, dy, dxDesc, dx,
                 reserveSpace, reserveSpaceSizeInBytes);
  return apply(__func__, handle, dropoutDesc, noise_shape, dyDesc, dy, dxDesc, dx, reserveSpace,
               reserveSpaceSizeInBytes, false);
}
