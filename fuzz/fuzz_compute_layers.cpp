// fuzz_compute's layer families: the tensor ops, LRN, reduction and pooling calls, with
// descriptors and buffers built from the fuzzer's bytes (fuzz_compute.cpp has the entry point
// and the rest; fuzz_compute_common.hpp the shared tensors and sizes).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "fuzz_compute_common.hpp"

namespace anydnn::fuzz::compute {

// Scalars are eight bytes, so a read in any data type (or MIOpen's float read of a 2-byte
// value) stays in the buffer.
void tensor_ops(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Tensor a, b, c;
  const miopenDataType_t type = compute_type(fdp);
  // 1-5 dims, or 0: set_tensor picks (its descriptors hold at most 5).
  const int pick = fdp.ConsumeIntegralInRange(1, 6);
  const int nd = pick == 6 ? 0 : pick;
  set_tensor(fdp, c, type, nd);
  const int call = fdp.ConsumeIntegralInRange(0, 3);
  if (call == 0 || call == 3) {
    // A and B: C's shape, or other fuzzed descriptors (B's 1s broadcast), maybe another type.
    const miopenDataType_t other = fdp.ConsumeIntegralInRange(0, 7) == 0 ? compute_type(fdp) : type;
    set_tensor(fdp, a, other, fdp.ConsumeBool() ? nd : 0);
    set_tensor(fdp, b, type, fdp.ConsumeBool() ? nd : 0);
  }
  if (!c.alloc(fdp)) return;
  if ((call == 0 || call == 3) && !a.alloc(fdp)) return;
  if (call == 0 && !b.alloc(fdp)) return;
  uint64_t s1 = fdp.ConsumeIntegral<uint64_t>(), s2 = fdp.ConsumeIntegral<uint64_t>(),
           s3 = fdp.ConsumeIntegral<uint64_t>();
  if (fdp.ConsumeBool()) {  // ordinary values: 1.0f, 2.0f, 0.0f
    s1 = 0x3f800000u;
    s2 = 0x40000000u;
    s3 = fdp.ConsumeBool() ? 0 : 0x3f000000u;
  }
  switch (call) {
    case 0:
      miopenOpTensor(h, enum_value<miopenTensorOp_t>(fdp, 3), &s1, a.desc, a.data(), &s2, b.desc,
                     b.data(), &s3, c.desc, c.data());
      break;
    case 1:
      miopenSetTensor(h, c.desc, c.data(), &s1);
      break;
    case 2:
      miopenScaleTensor(h, c.desc, c.data(), &s1);
      break;
    case 3:
      miopenTransformTensor(h, &s1, a.desc, a.data(), &s3, c.desc, c.data());
      break;
  }
}

// LRN forward (with or without keeping the scale) and backward: the descriptor's parameters from
// the bytes (lrnN mostly small, sometimes hostile; any alpha / beta / K), x, y, dy, dx 4-D of one
// shape, each packed, NHWC or with fuzzed strides, sometimes of another shape or type. The API
// takes no workspace size: the workspace is miopenLRNGetWorkSpaceSize(yDesc) bytes, or null.
void lrn(FuzzedDataProvider& fdp, miopenHandle_t h) {
  struct Desc {
    miopenLRNDescriptor_t d = nullptr;
    Desc() { miopenCreateLRNDescriptor(&d); }
    ~Desc() { miopenDestroyLRNDescriptor(d); }
  } desc;
  const unsigned n = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<unsigned>(0, 9)
                                       : static_cast<unsigned>(anydnn::fuzz::hostile_int(fdp));
  miopenSetLRNDescriptor(desc.d, enum_value<miopenLRNMode_t>(fdp, 1), n,
                         fdp.ConsumeFloatingPoint<double>(), fdp.ConsumeFloatingPoint<double>(),
                         fdp.ConsumeBool() ? 1.0 : fdp.ConsumeFloatingPoint<double>());
  const miopenDataType_t type = compute_type(fdp);
  std::array<int, 4> lens{};
  size_t total = 1;
  for (int& l : lens) {
    l = std::max(dim(fdp), 1);
    total *= static_cast<size_t>(l);
  }
  if (total > kMaxElems) lens[3] = 1;
  Tensor x, y, dy, dx;
  for (Tensor* t : {&x, &y, &dy, &dx}) {
    switch (fdp.ConsumeIntegralInRange(0, 7)) {
      case 0:
        set_tensor(fdp, *t, fdp.ConsumeBool() ? type : compute_type(fdp));
        break;
      case 1: {
        std::array<int, 4> strides{};
        for (int& s : strides)
          s = fdp.ConsumeIntegralInRange(0, 64);
        miopenSetTensorDescriptor(t->desc, type, 4, lens.data(), strides.data());
        break;
      }
      case 2:
        miopenSetNdTensorDescriptorWithLayout(t->desc, type, miopenTensorNHWC, lens.data(), 4);
        break;
      default:
        miopenSetTensorDescriptor(t->desc, type, 4, lens.data(), nullptr);
        break;
    }
  }
  if (!x.alloc(fdp) || !y.alloc(fdp)) return;
  size_t need = 0;
  miopenLRNGetWorkSpaceSize(y.desc, &need);
  if (need > kMaxElems * 8 * 4) return;
  Bytes ws(need + 1);
  void* wsp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : ws.data();
  const double scale = 1.0;  // alpha / beta: MIOpen reads neither
  const void* alpha = fdp.ConsumeBool() ? &scale : nullptr;
  if (fdp.ConsumeBool()) {
    miopenLRNForward(h, desc.d, alpha, x.desc, x.data(), alpha, y.desc, y.data(), fdp.ConsumeBool(),
                     wsp);
    return;
  }
  if (!dy.alloc(fdp) || !dx.alloc(fdp)) return;
  miopenLRNBackward(h, desc.d, alpha, y.desc, y.data(), dy.desc, dy.data(), x.desc, x.data(), alpha,
                    dx.desc, dx.data(), wsp);
}

// A reduction: A fuzzed; C mostly A's lengths with a fuzzed set of dims at 1 (packed, or with
// strides from the bytes), sometimes another fuzzed descriptor or type; the descriptor set from
// the bytes (a refused set leaves MIOpen's default); scalars 8 bytes each (double data reads
// doubles), sometimes null.
void reduction(FuzzedDataProvider& fdp, miopenHandle_t h) {
  Tensor a, c;
  const miopenDataType_t type =
      fdp.ConsumeIntegralInRange(0, 7) == 0 ? miopenDouble : compute_type(fdp);
  set_tensor(fdp, a, type, fdp.ConsumeIntegralInRange(0, 5));
  int nd = 0;
  std::array<int, 5> lens{}, strides{};
  miopenDataType_t got_type;
  if (miopenGetTensorDescriptorSize(a.desc, &nd) != miopenStatusSuccess || nd < 1 || nd > 5 ||
      miopenGetTensorDescriptor(a.desc, &got_type, lens.data(), strides.data()) !=
          miopenStatusSuccess)
    return;
  if (fdp.ConsumeIntegralInRange(0, 7) == 0) {
    set_tensor(fdp, c, fdp.ConsumeBool() ? type : compute_type(fdp),
               fdp.ConsumeIntegralInRange(0, 5));
  } else {
    const unsigned mask = fdp.ConsumeIntegral<uint8_t>();
    for (int i = 0; i < nd; ++i)
      if (mask & (1u << i)) lens[i] = 1;
    const bool strided = fdp.ConsumeIntegralInRange(0, 3) == 0;
    for (int i = 0; i < nd; ++i)
      strides[i] = fdp.ConsumeIntegralInRange(0, 64);
    miopenSetTensorDescriptor(c.desc, type, nd, lens.data(), strided ? strides.data() : nullptr);
  }
  if (!a.alloc(fdp) || !c.alloc(fdp)) return;
  miopenReduceTensorDescriptor_t rd = nullptr;
  if (miopenCreateReduceTensorDescriptor(&rd) != miopenStatusSuccess) return;
  const std::unique_ptr<std::remove_pointer_t<miopenReduceTensorDescriptor_t>,
                        miopenStatus_t (*)(miopenReduceTensorDescriptor_t)>
      owner(rd, miopenDestroyReduceTensorDescriptor);
  const miopenDataType_t comp = fdp.ConsumeBool()
                                    ? (type == miopenDouble ? miopenDouble : miopenFloat)
                                    : anydnn::fuzz::data_type(fdp);
  miopenSetReduceTensorDescriptor(rd, enum_value<miopenReduceTensorOp_t>(fdp, 7), comp,
                                  enum_value<miopenNanPropagation_t>(fdp, 1),
                                  enum_value<miopenReduceTensorIndices_t>(fdp, 1),
                                  enum_value<miopenIndicesType_t>(fdp, 3));
  size_t ws_need = 0, idx_need = 0;
  miopenGetReductionWorkspaceSize(h, rd, a.desc, c.desc, &ws_need);
  miopenGetReductionIndicesSize(h, rd, a.desc, c.desc, &idx_need);
  Bytes ws = workspace(fdp, ws_need), idx = workspace(fdp, idx_need);
  uint64_t alpha = fdp.ConsumeIntegral<uint64_t>(), beta = fdp.ConsumeIntegral<uint64_t>();
  if (fdp.ConsumeBool()) {  // ordinary values: 1 and 0 (or 0.5) in the data's scalar type
    alpha = type == miopenDouble ? 0x3ff0000000000000u : 0x3f800000u;
    beta = fdp.ConsumeBool() ? 0 : (type == miopenDouble ? 0x3fe0000000000000u : 0x3f000000u);
  }
  const bool null_scalar = fdp.ConsumeIntegralInRange(0, 15) == 0;
  miopenReduceTensor(h, rd, ws_ptr(fdp, idx), idx.size(), ws_ptr(fdp, ws), ws.size(),
                     null_scalar ? nullptr : &alpha, a.desc, a.data(), &beta, c.desc, c.data());
}

// Pooling: a descriptor of 1-4 window dims (2 or 3 mostly) with fuzzed window / pads / strides,
// mode, index type and index mode; x of fuzzed lengths; y of the lengths the API computes, or
// fuzzed; dx / dy x's and y's, or fuzzed. The workspace is as large as
// miopenPoolingGetWorkSpaceSizeV2 says for the descriptor and y / dy (MIOpen's forward takes
// its size argument without checking it, so a shorter buffer would be the caller's bug).
void pooling(FuzzedDataProvider& fdp, miopenHandle_t h) {
  struct Desc {
    miopenPoolingDescriptor_t d = nullptr;
    Desc() { miopenCreatePoolingDescriptor(&d); }
    ~Desc() { miopenDestroyPoolingDescriptor(d); }
  } pd;
  const int sd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(1, 4)
                                                       : fdp.ConsumeIntegralInRange(2, 3);
  std::array<int, 4> k{}, p{}, s{};
  for (int i = 0; i < sd; ++i) {
    k[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 1, 5);
    p[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 0, 3);
    s[i] = fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? -1 : 1, 3);
  }
  miopenSetNdPoolingDescriptor(pd.d, enum_value<miopenPoolingMode_t>(fdp, 2), sd, k.data(),
                               p.data(), s.data());
  if (fdp.ConsumeBool()) miopenSetPoolingIndexType(pd.d, enum_value<miopenIndexType_t>(fdp, 3));
  if (fdp.ConsumeBool())
    miopenSetPoolingWorkSpaceIndexMode(pd.d, enum_value<miopenPoolingWorkspaceIndexMode_t>(fdp, 1));
  const miopenDataType_t type = compute_type(fdp);
  Tensor x, y, dx, dy;
  const int nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? 0 : sd + 2;
  set_tensor(fdp, x, type, nd > 5 ? 0 : nd);
  std::array<int, 5> out{};
  if (nd >= 4 && nd <= 5 && fdp.ConsumeBool() &&
      miopenGetPoolingNdForwardOutputDim(pd.d, x.desc, nd, out.data()) == miopenStatusSuccess) {
    size_t total = 1;
    for (int i = 0; i < nd; ++i)
      total *= static_cast<size_t>(std::max(out[i], 1));
    if (total > kMaxElems) return;
    miopenSetTensorDescriptor(y.desc, type, nd, out.data(), nullptr);
  } else {
    set_tensor(fdp, y, type, nd > 5 ? 0 : nd);
  }
  const bool fuzzed_grads = fdp.ConsumeIntegralInRange(0, 3) == 0;
  if (fuzzed_grads) {
    set_tensor(fdp, dx, type, nd > 5 ? 0 : nd);
    set_tensor(fdp, dy, type, nd > 5 ? 0 : nd);
  }
  if (!x.alloc(fdp) || !y.alloc(fdp)) return;
  if (fuzzed_grads && (!dx.alloc(fdp) || !dy.alloc(fdp))) return;
  Tensor& gx = fuzzed_grads ? dx : x;
  Tensor& gy = fuzzed_grads ? dy : y;
  size_t need = 0, need_dy = 0;
  miopenPoolingGetWorkSpaceSizeV2(pd.d, y.desc, &need);
  miopenPoolingGetWorkSpaceSizeV2(pd.d, gy.desc, &need_dy);
  need = std::max(need, need_dy);
  if (need > (size_t{1} << 24)) return;
  Bytes ws(need + 1, 0);
  void* wsp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : ws.data();
  uint32_t alpha = 0x3f800000u, beta = fdp.ConsumeBool() ? 0u : 0x3f000000u;  // 1, 0 or 0.5
  if (fdp.ConsumeIntegralInRange(0, 7) == 0) alpha = fdp.ConsumeIntegral<uint32_t>();
  const bool save = fdp.ConsumeBool();
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
      miopenPoolingForward(h, pd.d, &alpha, x.desc, x.data(), &beta, y.desc, y.data(), save, wsp,
                           need);
      break;
    case 1:
      miopenPoolingBackward(h, pd.d, &alpha, y.desc, y.data(), gy.desc, gy.data(), x.desc, x.data(),
                            &beta, gx.desc, gx.data(), wsp);
      break;
    case 2:
      // The indices a forward call left, read back by the backward one.
      if (miopenPoolingForward(h, pd.d, &alpha, x.desc, x.data(), &beta, y.desc, y.data(), true,
                               wsp, need) == miopenStatusSuccess)
        miopenPoolingBackward(h, pd.d, &alpha, y.desc, y.data(), gy.desc, gy.data(), x.desc,
                              x.data(), &beta, gx.desc, gx.data(), wsp);
      break;
  }
}

}  // namespace anydnn::fuzz::compute
