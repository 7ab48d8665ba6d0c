// C API: pooling (descriptor, output lengths, workspace sizes, forward, backward). The shims
// resolve the opaque arguments, build the PoolingProblem (which validates them), log MIOpen's
// pooling driver command and run the problem through the front-end (pooling/pooling_ops.hpp).
// Semantics beyond MIOpen's, documented in docs/api-status.md: bfloat16 data, alpha/beta other
// than 1/0 (MIOpen throws "Only alpha=1 and beta=0 is supported"), 3-D max pooling with mask
// indices, NHWC without a transpose workspace.
#include <miopen/miopen.h>

#include <algorithm>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"  // read_scale
#include "api/enum_args.hpp"
#include "pooling/pooling_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

// MIOpen's descriptor constructor: index type back to uint8, index mode mask for 2-D windows
// and image for 3-D ones. Windows and strides must be positive and pads non-negative (MIOpen
// only asserts this, in debug builds).
void set_descriptor(PoolingDesc& d, const miopenPoolingMode_t& mode, int dims, const int* lens,
                    const int* pads, const int* strides) {
  const miopenPoolingMode_t m = checked(mode);
  ANYDNN_CHECK_BADPARM(dims == 2 || dims == 3,
                       "pooling has 2 or 3 spatial dimensions, not " << dims);
  require(lens, "windowDimA");
  require(pads, "padA");
  require(strides, "stridesA");
  for (int i = 0; i < dims; ++i) {
    ANYDNN_CHECK_BADPARM(lens[i] > 0, "window length " << i << " is " << lens[i]);
    ANYDNN_CHECK_BADPARM(strides[i] > 0, "stride " << i << " is " << strides[i]);
    ANYDNN_CHECK_BADPARM(pads[i] >= 0, "pad " << i << " is " << pads[i]);
  }
  d.mode = m;
  d.lens.assign(lens, lens + dims);
  d.pads.assign(pads, pads + dims);
  d.strides.assign(strides, strides + dims);
  d.index_type = miopenIndexUint8;
  d.index_mode = dims == 3 ? miopenPoolingWorkspaceIndexImage : miopenPoolingWorkspaceIndexMask;
}

int to_int(size_t v) {
  ANYDNN_CHECK_BADPARM(v <= 0x7fffffff, "output length " << v << " does not fit in an int");
  return static_cast<int>(v);
}

}  // namespace

extern "C" miopenStatus_t miopenCreatePoolingDescriptor(miopenPoolingDescriptor_t* poolDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(poolDesc, "poolDesc");
    out = new PoolingObject();
  });
}

extern "C" miopenStatus_t miopenSetPoolingIndexType(miopenPoolingDescriptor_t poolDesc,
                                                    miopenIndexType_t index_type) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, index_type);
  return guard(cfg, __func__, [&] {
    auto& d = deref(poolDesc);
    d.index_type = checked(index_type);
  });
}

extern "C" miopenStatus_t miopenGetPoolingIndexType(miopenPoolingDescriptor_t poolDesc,
                                                    miopenIndexType_t* index_type) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc);
  return guard(cfg, __func__,
               [&] { deref_out(index_type, "index_type") = deref(poolDesc).index_type; });
}

extern "C" miopenStatus_t miopenSetPoolingWorkSpaceIndexMode(
    miopenPoolingDescriptor_t poolDesc, miopenPoolingWorkspaceIndexMode_t workspace_index) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, workspace_index);
  return guard(cfg, __func__, [&] {
    auto& d = deref(poolDesc);
    d.index_mode = checked(workspace_index);
  });
}

extern "C" miopenStatus_t miopenGetPoolingWorkSpaceIndexMode(
    miopenPoolingDescriptor_t poolDesc, miopenPoolingWorkspaceIndexMode_t* workspace_index) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc);
  return guard(cfg, __func__,
               [&] { deref_out(workspace_index, "workspace_index") = deref(poolDesc).index_mode; });
}

extern "C" miopenStatus_t miopenSet2dPoolingDescriptor(miopenPoolingDescriptor_t poolDesc,
                                                       miopenPoolingMode_t mode, int windowHeight,
                                                       int windowWidth, int pad_h, int pad_w,
                                                       int stride_h, int stride_w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, mode, windowHeight, windowWidth, pad_h, pad_w, stride_h, stride_w);
  return guard(cfg, __func__, [&] {
    auto& d = deref(poolDesc);
    const int lens[2] = {windowHeight, windowWidth}, pads[2] = {pad_h, pad_w},
              strides[2] = {stride_h, stride_w};
    set_descriptor(d, mode, 2, lens, pads, strides);
  });
}

extern "C" miopenStatus_t miopenGet2dPoolingDescriptor(const miopenPoolingDescriptor_t poolDesc,
                                                       miopenPoolingMode_t* mode, int* windowHeight,
                                                       int* windowWidth, int* pad_h, int* pad_w,
                                                       int* stride_h, int* stride_w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(poolDesc);
    ANYDNN_CHECK_BADPARM(d.spatial_dims() == 2, "the pooling descriptor is not 2-D");
    deref_out(mode, "mode") = d.mode;
    deref_out(windowHeight, "windowHeight") = d.lens[0];
    deref_out(windowWidth, "windowWidth") = d.lens[1];
    deref_out(pad_h, "pad_h") = d.pads[0];
    deref_out(pad_w, "pad_w") = d.pads[1];
    deref_out(stride_h, "stride_h") = d.strides[0];
    deref_out(stride_w, "stride_w") = d.strides[1];
  });
}

extern "C" miopenStatus_t miopenSetNdPoolingDescriptor(miopenPoolingDescriptor_t poolDesc,
                                                       const miopenPoolingMode_t mode, int nbDims,
                                                       const int* windowDimA, const int* padA,
                                                       const int* stridesA) {
  const Config& cfg = process_config();
  // MIOpen logs nothing here; we trace it like every other call.
  ANYDNN_LOG_API(cfg, poolDesc, mode, nbDims, windowDimA, padA, stridesA);
  return guard(cfg, __func__, [&] {
    auto& d = deref(poolDesc);
    set_descriptor(d, mode, nbDims, windowDimA, padA, stridesA);
  });
}

extern "C" miopenStatus_t miopenGetNdPoolingDescriptor(const miopenPoolingDescriptor_t poolDesc,
                                                       int nbDimsRequested,
                                                       miopenPoolingMode_t* mode, int* nbDims,
                                                       int* windowDimA, int* padA, int* stridesA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, nbDimsRequested);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(poolDesc);
    // As MIOpen: every output pointer is optional; at most the descriptor's own count is copied.
    ANYDNN_CHECK_BADPARM(nbDimsRequested >= 0, "nbDimsRequested is " << nbDimsRequested);
    const int n = std::min(nbDimsRequested, d.spatial_dims());
    if (mode != nullptr) *mode = d.mode;
    if (nbDims != nullptr) *nbDims = d.spatial_dims();
    if (windowDimA != nullptr) std::copy_n(d.lens.begin(), n, windowDimA);
    if (padA != nullptr) std::copy_n(d.pads.begin(), n, padA);
    if (stridesA != nullptr) std::copy_n(d.strides.begin(), n, stridesA);
  });
}

extern "C" miopenStatus_t miopenGetPoolingNdForwardOutputDim(
    const miopenPoolingDescriptor_t poolDesc, const miopenTensorDescriptor_t tensorDesc, int dims,
    int* tensorDimArr) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, tensorDesc, dims);
  return guard(cfg, __func__, [&] {
    const auto out = pooling_output_lens(deref(poolDesc), deref_set(tensorDesc, "tensorDesc"));
    ANYDNN_CHECK_BADPARM(dims == static_cast<int>(out.size()),
                         "dims is " << dims << " but the tensor has " << out.size());
    require(tensorDimArr, "tensorDimArr");
    for (size_t i = 0; i < out.size(); ++i)
      tensorDimArr[i] = to_int(out[i]);
  });
}

extern "C" miopenStatus_t miopenGetPoolingForwardOutputDim(
    const miopenPoolingDescriptor_t poolDesc, const miopenTensorDescriptor_t tensorDesc, int* n,
    int* c, int* h, int* w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, tensorDesc);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(poolDesc);
    ANYDNN_CHECK_BADPARM(!d.is_set() || d.spatial_dims() == 2,
                         "miopenGetPoolingForwardOutputDim takes a 2-D pooling descriptor");
    const auto out = pooling_output_lens(d, deref_set(tensorDesc, "tensorDesc"));
    int* outs[4] = {n, c, h, w};
    const char* names[4] = {"n", "c", "h", "w"};
    for (int i = 0; i < 4; ++i)
      deref_out(outs[i], names[i]) = to_int(out[i]);
  });
}

// MIOpen's first version: one byte per output element, whatever the mode and index type.
extern "C" miopenStatus_t miopenPoolingGetWorkSpaceSize(const miopenTensorDescriptor_t yDesc,
                                                        size_t* workSpaceSize) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, yDesc);
  return guard(cfg, __func__, [&] {
    deref_out(workSpaceSize, "workSpaceSize") = deref_set(yDesc, "yDesc").element_count();
  });
}

extern "C" miopenStatus_t miopenPoolingGetWorkSpaceSizeV2(const miopenPoolingDescriptor_t poolDesc,
                                                          const miopenTensorDescriptor_t yDesc,
                                                          size_t* workSpaceSize) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc, yDesc);
  return guard(cfg, __func__, [&] {
    deref_out(workSpaceSize, "workSpaceSize") =
        pooling_workspace_size(deref(poolDesc), deref_set(yDesc, "yDesc"));
  });
}

extern "C" miopenStatus_t miopenPoolingForward(
    miopenHandle_t handle, const miopenPoolingDescriptor_t poolDesc, const void* alpha,
    const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t yDesc, void* y, bool do_backward, void* workSpace,
    size_t workSpaceSize) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, poolDesc, alpha, xDesc, x, beta, yDesc, y, do_backward, workSpace,
                 workSpaceSize);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    PoolDescriptors d;
    d.x = &deref_set(xDesc, "xDesc");
    d.y = &deref_set(yDesc, "yDesc");
    const PoolingProblem p(PoolDirection::Forward, deref(poolDesc), d, do_backward);
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdPooling", p.key());
    PoolingBuffers b;
    b.alpha = read_scale(alpha, "alpha");
    b.beta = read_scale(beta, "beta");
    require(x, "x");
    require(y, "y");
    // workSpaceSize is not checked: MIOpen ignores it (its own driver passes 0).
    if (p.saves_index())
      ANYDNN_CHECK_BADPARM(workSpace != nullptr,
                           "workSpace is null but max pooling with do_backward stores indices");
    b.x = x;
    b.y = y;
    b.workspace = workSpace;
    pooling_run(h, p, b);
  });
}

extern "C" miopenStatus_t miopenPoolingBackward(
    miopenHandle_t handle, const miopenPoolingDescriptor_t poolDesc, const void* alpha,
    const miopenTensorDescriptor_t yDesc, const void* y, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx, void* workSpace) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, poolDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx,
                 workSpace);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    PoolDescriptors d;
    d.y = &deref_set(yDesc, "yDesc");
    d.dy = &deref_set(dyDesc, "dyDesc");
    d.x = &deref_set(xDesc, "xDesc");
    d.dx = &deref_set(dxDesc, "dxDesc");
    const PoolingProblem p(PoolDirection::Backward, deref(poolDesc), d, false);
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdPooling", p.key());
    PoolingBuffers b;
    b.alpha = read_scale(alpha, "alpha");
    b.beta = read_scale(beta, "beta");
    require(dy, "dy");
    require(dx, "dx");
    // y and x are not read (as in MIOpen, whose kernels take only dy, dx and the indices).
    if (p.reads_index())
      ANYDNN_CHECK_BADPARM(workSpace != nullptr,
                           "workSpace is null but max pooling backward reads the indices");
    b.dy = dy;
    b.dx = dx;
    b.workspace = workSpace;
    pooling_run(h, p, b);
  });
}

extern "C" miopenStatus_t miopenDestroyPoolingDescriptor(miopenPoolingDescriptor_t poolDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, poolDesc);
  return guard(cfg, __func__, [&] {
    deref(poolDesc);
    delete static_cast<PoolingObject*>(poolDesc);
  });
}
