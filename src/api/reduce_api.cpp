// C API: tensor reduction (descriptor, sizes, miopenReduceTensor). The shims resolve the opaque
// arguments, build the ReduceProblem (which validates them with MIOpen's rules), log MIOpen's
// LogCmdRedux line and run the problem through the front-end (reduction/reduce_ops.hpp).
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "core/logger.hpp"
#include "reduction/reduce_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

extern "C" miopenStatus_t miopenCreateReduceTensorDescriptor(
    miopenReduceTensorDescriptor_t* reduceTensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, reduceTensorDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(reduceTensorDesc, "reduceTensorDesc");  // checked before allocating
    out = new ReduceTensorObject();
  });
}

extern "C" miopenStatus_t miopenDestroyReduceTensorDescriptor(
    miopenReduceTensorDescriptor_t reduceTensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, reduceTensorDesc);
  return guard(cfg, __func__, [&] {
    deref(reduceTensorDesc);
    delete static_cast<ReduceTensorObject*>(reduceTensorDesc);
  });
}

extern "C" miopenStatus_t miopenSetReduceTensorDescriptor(
    miopenReduceTensorDescriptor_t reduceTensorDesc, miopenReduceTensorOp_t reduceTensorOp,
    miopenDataType_t reduceTensorCompType, miopenNanPropagation_t reduceTensorNanOpt,
    miopenReduceTensorIndices_t reduceTensorIndices, miopenIndicesType_t reduceTensorIndicesType) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, reduceTensorDesc, reduceTensorOp, reduceTensorCompType, reduceTensorNanOpt,
                 reduceTensorIndices, reduceTensorIndicesType);
  return guard(cfg, __func__, [&] {
    auto& d = deref(reduceTensorDesc);
    d = make_reduce_desc(raw_enum(reduceTensorOp), raw_enum(reduceTensorCompType),
                         raw_enum(reduceTensorNanOpt), raw_enum(reduceTensorIndices),
                         raw_enum(reduceTensorIndicesType));
  });
}

extern "C" miopenStatus_t miopenGetReduceTensorDescriptor(
    const miopenReduceTensorDescriptor_t reduceTensorDesc, miopenReduceTensorOp_t* reduceTensorOp,
    miopenDataType_t* reduceTensorCompType, miopenNanPropagation_t* reduceTensorNanOpt,
    miopenReduceTensorIndices_t* reduceTensorIndices,
    miopenIndicesType_t* reduceTensorIndicesType) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, reduceTensorDesc);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(reduceTensorDesc);
    deref_out(reduceTensorOp, "reduceTensorOp") = d.op;
    deref_out(reduceTensorCompType, "reduceTensorCompType") = d.comp_type;
    deref_out(reduceTensorNanOpt, "reduceTensorNanOpt") = d.nan_opt;
    deref_out(reduceTensorIndices, "reduceTensorIndices") = d.indices;
    deref_out(reduceTensorIndicesType, "reduceTensorIndicesType") = d.indices_type;
  });
}

extern "C" miopenStatus_t miopenGetReductionIndicesSize(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc,
    const miopenTensorDescriptor_t aDesc, const miopenTensorDescriptor_t cDesc,
    size_t* sizeInBytes) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, reduceTensorDesc, aDesc, cDesc);
  return guard(cfg, __func__, [&] {
    deref(handle);
    deref_out(sizeInBytes, "sizeInBytes") = reduce_indices_size(
        deref(reduceTensorDesc), deref_set(aDesc, "aDesc"), deref_set(cDesc, "cDesc"));
  });
}

extern "C" miopenStatus_t miopenGetReductionWorkspaceSize(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc,
    const miopenTensorDescriptor_t aDesc, const miopenTensorDescriptor_t cDesc,
    size_t* sizeInBytes) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, reduceTensorDesc, aDesc, cDesc);
  return guard(cfg, __func__, [&] {
    deref(handle);
    deref_out(sizeInBytes, "sizeInBytes") = reduce_workspace_size(
        deref(reduceTensorDesc), deref_set(aDesc, "aDesc"), deref_set(cDesc, "cDesc"));
  });
}

extern "C" miopenStatus_t miopenReduceTensor(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc, void* indices,
    size_t indicesSizeInBytes, void* workspace, size_t workspaceSizeInBytes, const void* alpha,
    const miopenTensorDescriptor_t aDesc, const void* A, const void* beta,
    const miopenTensorDescriptor_t cDesc, void* C) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, reduceTensorDesc, indices, indicesSizeInBytes, workspace,
                 workspaceSizeInBytes, alpha, aDesc, A, beta, cDesc, C);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const ReduceProblem p(deref(reduceTensorDesc), deref_set(aDesc, "aDesc"),
                          deref_set(cDesc, "cDesc"), alpha, beta, indicesSizeInBytes,
                          workspaceSizeInBytes);
    ANYDNN_CHECK_BADPARM(A != nullptr, "A is a null pointer");
    ANYDNN_CHECK_BADPARM(C != nullptr, "C is a null pointer");
    ANYDNN_CHECK_BADPARM(!p.plan().indices || indices != nullptr,
                         "indices is a null pointer but the descriptor asks for indices");
    (void)workspace;  // anydnn's kernels need none; the size is still checked as MIOpen does
    log_driver_command(h.config(), "LogCmdRedux", p.key());
    reduce_run(h, p, ReduceBuffers{A, C, p.plan().indices ? static_cast<int*>(indices) : nullptr});
  });
}
