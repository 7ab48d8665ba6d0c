// C API: tensor descriptors.
#include <miopen/miopen.h>

#include <limits>
#include <vector>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "core/data_type.hpp"
#include "core/logger.hpp"
#include "tensor_ops/tensor_op_ops.hpp"
#include "tensor_ops/tensor_op_problem.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

std::vector<size_t> positive_lengths(const int* values, int count, const char* what) {
  ANYDNN_CHECK_BADPARM(values != nullptr, what << " is a null pointer");
  std::vector<size_t> out(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    ANYDNN_CHECK_BADPARM(values[i] > 0, what << "[" << i << "] = " << values[i] << " must be > 0");
    out[static_cast<size_t>(i)] = static_cast<size_t>(values[i]);
  }
  return out;
}

int to_int(size_t v, const char* what) {
  ANYDNN_CHECK_BADPARM(v <= static_cast<size_t>(std::numeric_limits<int>::max()),
                       what << " = " << v << " does not fit in an int");
  return static_cast<int>(v);
}

const char* layout_name(const miopenTensorLayout_t& layout_arg) {
  const long long layout = raw_enum(layout_arg);
  switch (layout) {
    case miopenTensorNCHW:
      return "NCHW";
    case miopenTensorNHWC:
      return "NHWC";
    case miopenTensorCHWN:
      return "CHWN";
    case miopenTensorNCDHW:
      return "NCDHW";
    case miopenTensorNDHWC:
      return "NDHWC";
    case miopenTensorNCHWc4:
    case miopenTensorNCHWc8:
    case miopenTensorCHWNc4:
    case miopenTensorCHWNc8:
      ANYDNN_THROW(miopenStatusNotImplemented,
                   "vectorized tensor layouts (NCHWc4/c8, CHWNc4/c8) are not supported");
  }
  ANYDNN_THROW(miopenStatusBadParm, "invalid tensor layout " << layout);
}

}  // namespace

extern "C" miopenStatus_t miopenCreateTensorDescriptor(miopenTensorDescriptor_t* tensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc);
  return guard(cfg, __func__, [&] {
    // Check the out-pointer before allocating: a throw after `new` would leak.
    auto& out = deref_out(tensorDesc, "tensorDesc");
    out = new TensorObject();
  });
}

extern "C" miopenStatus_t miopenSet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                      miopenDataType_t dataType, int n, int c,
                                                      int h, int w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, n, c, h, w);
  return guard(cfg, __func__, [&] {
    auto& d = deref(tensorDesc);
    const int lens[] = {n, c, h, w};
    d = TensorDescriptor(valid_data_type(dataType), positive_lengths(lens, 4, "lengths"));
  });
}

extern "C" miopenStatus_t miopenSetNdTensorDescriptorWithLayout(miopenTensorDescriptor_t tensorDesc,
                                                                miopenDataType_t dataType,
                                                                miopenTensorLayout_t tensorLayout,
                                                                const int* lens, int num_lens) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, tensorLayout, log_array(lens, num_lens), num_lens);
  return guard(cfg, __func__, [&] {
    auto& d = deref(tensorDesc);
    const std::string layout = layout_name(tensorLayout);
    ANYDNN_CHECK_BADPARM(
        num_lens == static_cast<int>(layout.size()),
        "layout " << layout << " needs " << layout.size() << " lengths, got " << num_lens);
    d = TensorDescriptor::with_layout(valid_data_type(dataType), layout,
                                      positive_lengths(lens, num_lens, "lens"));
  });
}

extern "C" miopenStatus_t miopenSet4dTensorDescriptorEx(miopenTensorDescriptor_t tensorDesc,
                                                        miopenDataType_t dataType, int n, int c,
                                                        int h, int w, int nStride, int cStride,
                                                        int hStride, int wStride) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, n, c, h, w, nStride, cStride, hStride, wStride);
  return guard(cfg, __func__, [&] {
    auto& d = deref(tensorDesc);
    const int lens[] = {n, c, h, w};
    const int strides[] = {nStride, cStride, hStride, wStride};
    d = TensorDescriptor(valid_data_type(dataType), positive_lengths(lens, 4, "lengths"),
                         positive_lengths(strides, 4, "strides"));
  });
}

extern "C" miopenStatus_t miopenGet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                      miopenDataType_t* dataType, int* n, int* c,
                                                      int* h, int* w, int* nStride, int* cStride,
                                                      int* hStride, int* wStride) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, n, c, h, w, nStride, cStride, hStride, wStride);
  return guard(cfg, __func__, [&] {
    const auto& d = deref_set(tensorDesc, "tensorDesc");
    ANYDNN_CHECK_BADPARM(d.num_dims() == 4, "tensor has " << d.num_dims() << " dimensions, not 4");
    int* lens[] = {n, c, h, w};
    int* strides[] = {nStride, cStride, hStride, wStride};
    deref_out(dataType, "dataType") = d.type();
    const char* names[] = {"n", "c", "h", "w"};
    const char* snames[] = {"nStride", "cStride", "hStride", "wStride"};
    for (int i = 0; i < 4; ++i) {
      deref_out(lens[i], names[i]) = to_int(d.lens()[i], names[i]);
      deref_out(strides[i], snames[i]) = to_int(d.strides()[i], snames[i]);
    }
  });
}

extern "C" miopenStatus_t miopenSetTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                    miopenDataType_t dataType, int nbDims,
                                                    const int* dimsA, const int* stridesA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, nbDims, log_array(dimsA, nbDims),
                 log_array(stridesA, nbDims));
  return guard(cfg, __func__, [&] {
    auto& d = deref(tensorDesc);
    ANYDNN_CHECK_BADPARM(nbDims >= 1 && nbDims <= static_cast<int>(TensorDescriptor::kMaxDims),
                         "nbDims = " << nbDims << " must be 1.." << TensorDescriptor::kMaxDims);
    auto lens = positive_lengths(dimsA, nbDims, "dimsA");
    std::vector<size_t> strides;
    if (stridesA != nullptr) strides = positive_lengths(stridesA, nbDims, "stridesA");
    d = TensorDescriptor(valid_data_type(dataType), std::move(lens), std::move(strides));
  });
}

extern "C" miopenStatus_t miopenSetTensorDescriptorV2(miopenTensorDescriptor_t tensorDesc,
                                                      miopenDataType_t dataType, int nbDims,
                                                      const size_t* dimsA, const size_t* stridesA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, nbDims, log_array(dimsA, nbDims),
                 log_array(stridesA, nbDims));
  return guard(cfg, __func__, [&] {
    auto& d = deref(tensorDesc);
    ANYDNN_CHECK_BADPARM(nbDims >= 1 && nbDims <= static_cast<int>(TensorDescriptor::kMaxDims),
                         "nbDims = " << nbDims << " must be 1.." << TensorDescriptor::kMaxDims);
    ANYDNN_CHECK_BADPARM(dimsA != nullptr, "dimsA is a null pointer");
    std::vector<size_t> lens(dimsA, dimsA + nbDims);
    std::vector<size_t> strides;
    if (stridesA != nullptr) strides.assign(stridesA, stridesA + nbDims);
    d = TensorDescriptor(valid_data_type(dataType), std::move(lens), std::move(strides));
  });
}

extern "C" miopenStatus_t miopenSetTensorCastType(miopenTensorDescriptor_t tensorDesc,
                                                  miopenDataType_t cast_type) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, cast_type);
  return guard(cfg, __func__, [&] {
    auto& o = deref_tensor_object(tensorDesc, "tensorDesc");
    ANYDNN_CHECK_BADPARM(is_valid_data_type(raw_enum(cast_type)),
                         "cast_type " << raw_enum(cast_type) << " is not a data type");
    // Stored as MIOpen does (api_objects.hpp says who reads it).
    o.cast_type = static_cast<miopenDataType_t>(raw_enum(cast_type));
    o.has_cast_type = true;
  });
}

extern "C" miopenStatus_t miopenGetTensorDescriptorSize(miopenTensorDescriptor_t tensorDesc,
                                                        int* size) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, size);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(tensorDesc);
    deref_out(size, "size") = static_cast<int>(d.num_dims());
  });
}

extern "C" miopenStatus_t miopenGetTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                    miopenDataType_t* dataType, int* dimsA,
                                                    int* stridesA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, dataType, dimsA, stridesA);
  return guard(cfg, __func__, [&] {
    const auto& d = deref_set(tensorDesc, "tensorDesc");
    ANYDNN_CHECK_BADPARM(dimsA != nullptr, "dimsA is a null pointer");
    ANYDNN_CHECK_BADPARM(stridesA != nullptr, "stridesA is a null pointer");
    std::vector<int> lens(d.num_dims()), strides(d.num_dims());
    for (size_t i = 0; i < d.num_dims(); ++i) {
      lens[i] = to_int(d.lens()[i], "length");
      strides[i] = to_int(d.strides()[i], "stride");
    }
    if (dataType != nullptr) *dataType = d.type();
    std::copy(lens.begin(), lens.end(), dimsA);
    std::copy(strides.begin(), strides.end(), stridesA);
  });
}

extern "C" miopenStatus_t miopenDestroyTensorDescriptor(miopenTensorDescriptor_t tensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc);
  return guard(cfg, __func__, [&] {
    deref(tensorDesc);
    delete static_cast<TensorObject*>(tensorDesc);
  });
}

extern "C" miopenStatus_t miopenGetTensorNumBytes(miopenTensorDescriptor_t tensorDesc,
                                                  size_t* numBytes) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc, numBytes);
  return guard(cfg, __func__, [&] {
    deref_out(numBytes, "numBytes") = deref_set(tensorDesc, "tensorDesc").num_bytes();
  });
}

// Tensor ops (issue 20 item 2): validated and planned by TensorOpProblem with MIOpen's rules,
// run by the first applicable solver (tensor_ops/tensor_op_ops.hpp).
namespace {

void run_tensor_op(miopenHandle_t handle, const TensorOpProblem& p, const void* a, const void* b,
                   void* c) {
  Handle& h = deref(handle);
  log_driver_command(h.config(), "LogCmdTensorOp", p.key());
  tensor_op_run(h, p, TensorOpBuffers{a, b, c});
}

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

}  // namespace

extern "C" miopenStatus_t miopenOpTensor(miopenHandle_t handle, miopenTensorOp_t tensorOp,
                                         const void* alpha1, const miopenTensorDescriptor_t aDesc,
                                         const void* A, const void* alpha2,
                                         const miopenTensorDescriptor_t bDesc, const void* B,
                                         const void* beta, const miopenTensorDescriptor_t cDesc,
                                         void* C) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, tensorOp, alpha1, aDesc, A, alpha2, bDesc, B, beta, cDesc, C);
  return guard(cfg, __func__, [&] {
    deref(handle);
    // As MIOpen: null data is BadParm before any shape check.
    require(A, "A");
    require(B, "B");
    require(C, "C");
    const auto p = TensorOpProblem::op_tensor(checked(tensorOp), deref_set(aDesc, "aDesc"),
                                              deref_set(bDesc, "bDesc"), deref_set(cDesc, "cDesc"),
                                              alpha1, alpha2, beta);
    run_tensor_op(handle, p, A, B, C);
  });
}

extern "C" miopenStatus_t miopenSetTensor(miopenHandle_t handle,
                                          const miopenTensorDescriptor_t yDesc, void* y,
                                          const void* alpha) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, yDesc, y, alpha);
  return guard(cfg, __func__, [&] {
    deref(handle);
    require(y, "y");
    const auto p = TensorOpProblem::set_tensor(deref_set(yDesc, "yDesc"), alpha);
    run_tensor_op(handle, p, nullptr, nullptr, y);
  });
}

extern "C" miopenStatus_t miopenScaleTensor(miopenHandle_t handle,
                                            const miopenTensorDescriptor_t yDesc, void* y,
                                            const void* alpha) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, yDesc, y, alpha);
  return guard(cfg, __func__, [&] {
    deref(handle);
    require(y, "y");
    const auto p = TensorOpProblem::scale_tensor(deref_set(yDesc, "yDesc"), alpha);
    run_tensor_op(handle, p, nullptr, nullptr, y);
  });
}

extern "C" miopenStatus_t miopenTransformTensor(miopenHandle_t handle, const void* alpha,
                                                const miopenTensorDescriptor_t xDesc, const void* x,
                                                const void* beta,
                                                const miopenTensorDescriptor_t yDesc, void* y) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, xDesc, x, beta, yDesc, y);
  return guard(cfg, __func__, [&] {
    deref(handle);
    require(x, "x");
    require(y, "y");
    const auto p = TensorOpProblem::transform_tensor(deref_set(xDesc, "xDesc"),
                                                     deref_set(yDesc, "yDesc"), alpha, beta);
    run_tensor_op(handle, p, x, nullptr, y);
  });
}
