// Descriptor setters and getters of the C API with hostile values: a byte-driven sequence of
// calls on a small pool of tensor, convolution, RNN, dropout, sequence-tensor, LRN,
// reduce-tensor and pooling descriptors.
// Every call must return a status; the harness ignores which one. Arrays handed to the library
// are always as long as the count passed with them (the API cannot check that), so any read or
// write out of bounds is the library's.
#include <miopen/miopen.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"

using anydnn::fuzz::data_type;
using anydnn::fuzz::enum_value;
using anydnn::fuzz::hostile_int;
using anydnn::fuzz::size_int;

namespace {

constexpr int kPool = 3;

struct Pool {
  miopenHandle_t handle = nullptr;
  std::array<miopenTensorDescriptor_t, kPool> tensors{};
  std::array<miopenConvolutionDescriptor_t, 2> convs{};
  std::array<miopenRNNDescriptor_t, 2> rnns{};
  std::array<miopenDropoutDescriptor_t, 2> drops{};
  std::array<miopenSeqTensorDescriptor_t, 2> seqs{};
  std::array<miopenLRNDescriptor_t, 2> lrns{};
  std::array<miopenReduceTensorDescriptor_t, 2> reds{};
  std::array<miopenPoolingDescriptor_t, 2> pools{};
  std::vector<std::vector<uint8_t>> dropout_states;  // kept alive while a descriptor uses them

  ~Pool() {
    for (auto& t : tensors)
      if (t) miopenDestroyTensorDescriptor(t);
    for (auto& c : convs)
      if (c) miopenDestroyConvolutionDescriptor(c);
    for (auto& r : rnns)
      if (r) miopenDestroyRNNDescriptor(r);
    for (auto& d : drops)
      if (d) miopenDestroyDropoutDescriptor(d);
    for (auto& s : seqs)
      if (s) miopenDestroySeqTensorDescriptor(s);
    for (auto& l : lrns)
      if (l) miopenDestroyLRNDescriptor(l);
    for (auto& r : reds)
      if (r) miopenDestroyReduceTensorDescriptor(r);
    for (auto& d : pools)
      if (d) miopenDestroyPoolingDescriptor(d);
    if (handle) miopenDestroy(handle);
  }
};

// One of the pool's slots, or sometimes a null descriptor.
template <class T, size_t N>
T pick(FuzzedDataProvider& fdp, const std::array<T, N>& slots) {
  const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, N);
  return i < N ? slots[i] : nullptr;
}

// An int array of exactly `count` entries (empty for count <= 0), or null.
std::vector<int> int_array(FuzzedDataProvider& fdp, int count) {
  std::vector<int> v(static_cast<size_t>(std::clamp(count, 0, 4096)));
  for (int& x : v)
    x = size_int(fdp);
  return v;
}
const int* maybe_null(FuzzedDataProvider& fdp, const std::vector<int>& v) {
  return fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : v.data();
}
// A count for an array: usually the array's own length range, sometimes hostile. Arrays are
// only allocated up to 4096 entries, so a larger count comes with a null array.
int array_count(FuzzedDataProvider& fdp) {
  return fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange(0, 9) : hostile_int(fdp);
}

void tensor_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenTensorDescriptor_t t = pick(fdp, p.tensors);
  switch (fdp.ConsumeIntegralInRange(0, 9)) {
    case 0:
      miopenSet4dTensorDescriptor(t, data_type(fdp), size_int(fdp), size_int(fdp), size_int(fdp),
                                  size_int(fdp));
      break;
    case 1: {
      const int n = array_count(fdp);
      const auto lens = int_array(fdp, n);
      miopenSetNdTensorDescriptorWithLayout(t, data_type(fdp),
                                            enum_value<miopenTensorLayout_t>(fdp, 8),
                                            n > 4096 ? nullptr : maybe_null(fdp, lens), n);
      break;
    }
    case 2:
      miopenSet4dTensorDescriptorEx(t, data_type(fdp), size_int(fdp), size_int(fdp), size_int(fdp),
                                    size_int(fdp), hostile_int(fdp), hostile_int(fdp),
                                    hostile_int(fdp), hostile_int(fdp));
      break;
    case 3: {
      const int n = array_count(fdp);
      const auto dims = int_array(fdp, n);
      const auto strides = int_array(fdp, n);
      miopenSetTensorDescriptor(t, data_type(fdp), n, n > 4096 ? nullptr : maybe_null(fdp, dims),
                                n > 4096 ? nullptr : maybe_null(fdp, strides));
      break;
    }
    case 4: {
      const int n = array_count(fdp);
      std::vector<size_t> dims(static_cast<size_t>(std::clamp(n, 0, 4096)));
      std::vector<size_t> strides(dims.size());
      for (auto& d : dims)
        d = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<size_t>(0, 9)
                              : fdp.ConsumeIntegral<size_t>();
      for (auto& s : strides)
        s = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<size_t>(0, 99)
                              : fdp.ConsumeIntegral<size_t>();
      const bool null_strides = fdp.ConsumeBool();
      miopenSetTensorDescriptorV2(t, data_type(fdp), n, n > 4096 ? nullptr : dims.data(),
                                  n > 4096 || null_strides ? nullptr : strides.data());
      break;
    }
    case 5:
      miopenSetTensorCastType(t, data_type(fdp));
      break;
    case 6: {
      miopenDataType_t dt;
      int v[8];
      const bool null_out = fdp.ConsumeBool();
      miopenGet4dTensorDescriptor(t, &dt, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                                  null_out ? nullptr : &v[7]);
      break;
    }
    case 7: {
      int size = 0;
      miopenGetTensorDescriptorSize(t, fdp.ConsumeBool() ? &size : nullptr);
      // The caller's arrays hold as many entries as the size getter reports (at most 8).
      std::array<int, 8> dims{}, strides{};
      miopenDataType_t dt;
      if (size >= 0 && size <= 8)
        miopenGetTensorDescriptor(t, &dt, dims.data(),
                                  fdp.ConsumeBool() ? strides.data() : nullptr);
      break;
    }
    case 8: {
      size_t bytes = 0;
      miopenGetTensorNumBytes(t, fdp.ConsumeBool() ? &bytes : nullptr);
      miopenDropoutGetReserveSpaceSize(t, &bytes);
      break;
    }
    case 9: {
      // BN-derived descriptors from whatever the source holds.
      miopenDeriveBNTensorDescriptor(pick(fdp, p.tensors), pick(fdp, p.tensors),
                                     enum_value<miopenBatchNormMode_t>(fdp, 1));
      break;
    }
  }
}

void conv_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenConvolutionDescriptor_t c = pick(fdp, p.convs);
  switch (fdp.ConsumeIntegralInRange(0, 8)) {
    case 0:
      miopenInitConvolutionDescriptor(c, enum_value<miopenConvolutionMode_t>(fdp, 3),
                                      hostile_int(fdp), hostile_int(fdp), size_int(fdp),
                                      size_int(fdp), size_int(fdp), size_int(fdp));
      break;
    case 1: {
      const int n = array_count(fdp);
      const auto pads = int_array(fdp, n), strides = int_array(fdp, n), dil = int_array(fdp, n);
      miopenInitConvolutionNdDescriptor(c, n, n > 4096 ? nullptr : maybe_null(fdp, pads),
                                        n > 4096 ? nullptr : maybe_null(fdp, strides),
                                        n > 4096 ? nullptr : maybe_null(fdp, dil),
                                        enum_value<miopenConvolutionMode_t>(fdp, 3));
      break;
    }
    case 2:
      miopenSetConvolutionGroupCount(c, hostile_int(fdp));
      break;
    case 3:
      miopenSetTransposeConvOutputPadding(c, hostile_int(fdp), hostile_int(fdp));
      break;
    case 4: {
      const int n = array_count(fdp);
      const auto adj = int_array(fdp, n);
      miopenSetTransposeConvNdOutputPadding(c, n, n > 4096 ? nullptr : maybe_null(fdp, adj));
      break;
    }
    case 5: {
      int v[8];
      miopenConvolutionMode_t m;
      miopenGetConvolutionSpatialDim(c, &v[0]);
      miopenGetConvolutionGroupCount(c, &v[0]);
      miopenGetConvolutionDescriptor(c, &m, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
      // The arrays hold `requested` entries; the library must not write more.
      const int requested = fdp.ConsumeIntegralInRange(-1, 8);
      std::vector<int> a(std::max(requested, 0)), b(a.size()), d(a.size());
      miopenGetConvolutionNdDescriptor(c, requested, &v[0], a.data(), b.data(), d.data(), &m);
      break;
    }
    case 6: {
      int n, ch, h, w;
      miopenGetConvolutionForwardOutputDim(c, pick(fdp, p.tensors), pick(fdp, p.tensors), &n, &ch,
                                           &h, &w);
      // MIOpen's contract: outputTensorDimA holds spatial dims + 2 entries (at most 5 here...
      // and a descriptor of up to 8 dims): 8 is enough for anything the library accepts.
      std::array<int, 8> dims{};
      int nd = 0;
      miopenGetConvolutionNdForwardOutputDim(c, pick(fdp, p.tensors), pick(fdp, p.tensors), &nd,
                                             dims.data());
      break;
    }
    case 7:
      miopenSetConvolutionAttribute(c, enum_value<miopenConvolutionAttrib_t>(fdp, 2),
                                    hostile_int(fdp));
      break;
    case 8: {
      int v = 0;
      miopenGetConvolutionAttribute(c, enum_value<miopenConvolutionAttrib_t>(fdp, 2),
                                    fdp.ConsumeBool() ? &v : nullptr);
      break;
    }
  }
}

void rnn_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenRNNDescriptor_t r = pick(fdp, p.rnns);
  switch (fdp.ConsumeIntegralInRange(0, 9)) {
    case 0:
      miopenSetRNNDescriptor(
          r, size_int(fdp, 16), size_int(fdp, 3), enum_value<miopenRNNInputMode_t>(fdp, 1),
          enum_value<miopenRNNDirectionMode_t>(fdp, 1), enum_value<miopenRNNMode_t>(fdp, 3),
          enum_value<miopenRNNBiasMode_t>(fdp, 1), enum_value<miopenRNNAlgo_t>(fdp, 1),
          data_type(fdp));
      break;
    case 1:
      miopenSetRNNDescriptor_V2(
          r, size_int(fdp, 16), size_int(fdp, 3), pick(fdp, p.drops),
          enum_value<miopenRNNInputMode_t>(fdp, 1), enum_value<miopenRNNDirectionMode_t>(fdp, 1),
          enum_value<miopenRNNMode_t>(fdp, 3), enum_value<miopenRNNBiasMode_t>(fdp, 1),
          enum_value<miopenRNNAlgo_t>(fdp, 1), data_type(fdp));
      break;
    case 2: {
      miopenRNNMode_t m;
      miopenRNNAlgo_t a;
      miopenRNNInputMode_t in;
      miopenRNNDirectionMode_t d;
      miopenRNNBiasMode_t b;
      miopenDropoutDescriptor_t dd;
      miopenDataType_t dt;
      int h, l;
      miopenGetRNNDescriptor(r, &m, &a, &in, &d, fdp.ConsumeBool() ? &b : nullptr, &h, &l);
      miopenGetRNNDescriptor_V2(r, &h, &l, &dd, &in, &d, &m, &b, &a, &dt);
      miopenRNNPaddingMode_t pm;
      miopenGetRNNPaddingMode(r, &pm);
      break;
    }
    case 3:
      miopenSetRNNPaddingMode(r, enum_value<miopenRNNPaddingMode_t>(fdp, 1));
      break;
    case 4: {
      // Size queries over an array of `len` tensor descriptors taken from the pool.
      const int len = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange(0, 4) : hostile_int(fdp);
      std::vector<miopenTensorDescriptor_t> xs(static_cast<size_t>(std::clamp(len, 0, 4)));
      for (auto& x : xs)
        x = pick(fdp, p.tensors);
      const int pass_len = len > 4 ? 4 : len;  // never more entries than the array holds
      size_t bytes = 0, ws = 0, rs = 0;
      miopenTensorDescriptor_t* arr = xs.empty() ? nullptr : xs.data();
      miopenGetRNNWorkspaceSize(p.handle, r, pass_len, arr, &ws);
      miopenGetRNNTrainingReserveSize(p.handle, r, pass_len, arr, &rs);
      miopenGetRNNInputTensorSize(p.handle, r, pass_len, arr, &bytes);
      miopenGetRNNHiddenTensorSize(p.handle, r, pass_len, arr, &bytes);
      break;
    }
    case 5: {
      size_t bytes = 0;
      miopenGetRNNParamsSize(p.handle, r, pick(fdp, p.tensors), &bytes, data_type(fdp));
      miopenGetRNNParamsDescriptor(p.handle, r, pick(fdp, p.tensors), pick(fdp, p.tensors),
                                   data_type(fdp));
      break;
    }
    case 6: {
      size_t bytes = 0, off = 0;
      const int layer = hostile_int(fdp), id = hostile_int(fdp);
      miopenGetRNNLayerParamSize(p.handle, r, layer, pick(fdp, p.tensors), id, &bytes);
      miopenGetRNNLayerBiasSize(p.handle, r, layer, id, &bytes);
      miopenGetRNNLayerParamOffset(r, layer, pick(fdp, p.tensors), id, pick(fdp, p.tensors), &off);
      miopenGetRNNLayerBiasOffset(r, layer, pick(fdp, p.tensors), id, pick(fdp, p.tensors), &off);
      break;
    }
    case 7: {
      // Per-layer get/set against a weight buffer sized by the weight descriptor, and a layer
      // buffer sized by the parameter descriptor: only when both sizes are known and small.
      miopenTensorDescriptor_t x = pick(fdp, p.tensors), w = pick(fdp, p.tensors),
                               pd = pick(fdp, p.tensors);
      size_t wbytes = 0, pbytes = 0;
      if (miopenGetTensorNumBytes(w, &wbytes) != miopenStatusSuccess || wbytes > (1u << 20)) break;
      const int layer = hostile_int(fdp), id = hostile_int(fdp);
      std::vector<uint8_t> wbuf(wbytes + 1);
      const bool bias = fdp.ConsumeBool(), set = fdp.ConsumeBool();
      // The library may first resize paramDesc; the layer buffer is sized afterwards.
      if (bias) {
        miopenGetRNNLayerBias(p.handle, r, layer, x, w, wbuf.data(), id, pd, nullptr);
      } else {
        miopenGetRNNLayerParam(p.handle, r, layer, x, w, wbuf.data(), id, pd, nullptr);
      }
      if (miopenGetTensorNumBytes(pd, &pbytes) != miopenStatusSuccess || pbytes > (1u << 20)) break;
      std::vector<uint8_t> lbuf(pbytes + 1);
      if (bias && set)
        miopenSetRNNLayerBias(p.handle, r, layer, x, w, wbuf.data(), id, pd, lbuf.data());
      else if (bias)
        miopenGetRNNLayerBias(p.handle, r, layer, x, w, wbuf.data(), id, pd, lbuf.data());
      else if (set)
        miopenSetRNNLayerParam(p.handle, r, layer, x, w, wbuf.data(), id, pd, lbuf.data());
      else
        miopenGetRNNLayerParam(p.handle, r, layer, x, w, wbuf.data(), id, pd, lbuf.data());
      break;
    }
    case 8: {
      size_t ws = 0, rs = 0;
      miopenGetRNNTempSpaceSizes(p.handle, r, pick(fdp, p.seqs),
                                 enum_value<miopenRNNFWDMode_t>(fdp, 1), &ws,
                                 fdp.ConsumeBool() ? &rs : nullptr);
      break;
    }
    case 9: {
      miopenSeqTensorDescriptor_t s = pick(fdp, p.seqs);
      // Any max_len: a valid huge one once sized a table in the setter (gigabytes).
      const int max_len = size_int(fdp), batch = size_int(fdp), vec = size_int(fdp);
      // The length array holds `batch` entries (null when batch is out of range).
      const auto lens = int_array(fdp, batch);
      double marker = fdp.ConsumeFloatingPoint<double>();
      const bool null_lens = batch <= 0 || batch > 4096 || fdp.ConsumeIntegralInRange(0, 7) == 0;
      miopenSetRNNDataSeqTensorDescriptor(
          s, data_type(fdp), enum_value<miopenRNNBaseLayout_t>(fdp, 3), max_len, batch, vec,
          null_lens ? nullptr : lens.data(), fdp.ConsumeBool() ? &marker : nullptr);
      miopenDataType_t dt;
      miopenRNNBaseLayout_t layout;
      int a, b, c;
      const int limit = fdp.ConsumeIntegralInRange(-1, 16);
      std::vector<int> out(static_cast<size_t>(std::max(limit, 0)));
      std::array<uint8_t, 16> pad{};
      miopenGetRNNDataSeqTensorDescriptor(s, &dt, &layout, &a, &b, &c, limit,
                                          out.empty() ? nullptr : out.data(), pad.data());
      break;
    }
  }
}

void dropout_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenDropoutDescriptor_t d = pick(fdp, p.drops);
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
    case 1: {
      size_t need = 0;
      miopenDropoutGetStatesSize(p.handle, &need);
      // The states buffer really holds the size claimed; the claim may be short.
      const size_t claim =
          fdp.ConsumeBool() ? need : fdp.ConsumeIntegralInRange<size_t>(0, need + 64);
      p.dropout_states.emplace_back(claim);
      const float rate = fdp.ConsumeBool() ? fdp.ConsumeFloatingPointInRange(0.0f, 1.0f)
                                           : fdp.ConsumeFloatingPoint<float>();
      void* states =
          fdp.ConsumeIntegralInRange(0, 7) == 0 ? nullptr : p.dropout_states.back().data();
      const auto fn =
          fdp.ConsumeBool() ? miopenSetDropoutDescriptor : miopenRestoreDropoutDescriptor;
      fn(d, fdp.ConsumeBool() ? p.handle : nullptr, rate, states, claim,
         fdp.ConsumeIntegral<unsigned long long>(), fdp.ConsumeBool(), fdp.ConsumeBool(),
         enum_value<miopenRNGType_t>(fdp, 0));
      break;
    }
    case 2: {
      float rate;
      void* states;
      unsigned long long seed;
      bool mask, evo;
      miopenRNGType_t rng;
      miopenGetDropoutDescriptor(d, p.handle, &rate, &states, &seed, &mask, &evo,
                                 fdp.ConsumeBool() ? &rng : nullptr);
      break;
    }
  }
}

// LRN descriptors: Set with hostile values (any mode, lrnN, doubles), Get with null outputs,
// the workspace size of a pool tensor (maybe unset or null), destroy and recreate.
void lrn_op(FuzzedDataProvider& fdp, Pool& p) {
  const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, 1);
  miopenLRNDescriptor_t d = pick(fdp, p.lrns);
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0:
      miopenSetLRNDescriptor(d, enum_value<miopenLRNMode_t>(fdp, 1),
                             static_cast<unsigned>(hostile_int(fdp)),
                             fdp.ConsumeFloatingPoint<double>(), fdp.ConsumeFloatingPoint<double>(),
                             fdp.ConsumeFloatingPoint<double>());
      break;
    case 1: {
      miopenLRNMode_t mode;
      unsigned n;
      double a, b, k;
      miopenGetLRNDescriptor(d, fdp.ConsumeBool() ? &mode : nullptr, &n, &a, &b,
                             fdp.ConsumeBool() ? &k : nullptr);
      break;
    }
    case 2: {
      size_t bytes = 0;
      miopenLRNGetWorkSpaceSize(pick(fdp, p.tensors), fdp.ConsumeBool() ? &bytes : nullptr);
      break;
    }
    case 3:
      miopenDestroyLRNDescriptor(p.lrns[i]);
      p.lrns[i] = nullptr;
      miopenCreateLRNDescriptor(&p.lrns[i]);
      break;
  }
}

// The reduce-tensor descriptor's set / get and the two size queries on pool tensors (set or
// not, any shapes), with null out-parameters now and then.
void reduce_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenReduceTensorDescriptor_t d = pick(fdp, p.reds);
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
      miopenSetReduceTensorDescriptor(d, enum_value<miopenReduceTensorOp_t>(fdp, 7), data_type(fdp),
                                      enum_value<miopenNanPropagation_t>(fdp, 1),
                                      enum_value<miopenReduceTensorIndices_t>(fdp, 1),
                                      enum_value<miopenIndicesType_t>(fdp, 3));
      break;
    case 1: {
      miopenReduceTensorOp_t op;
      miopenDataType_t comp;
      miopenNanPropagation_t nan;
      miopenReduceTensorIndices_t idx;
      miopenIndicesType_t it;
      miopenGetReduceTensorDescriptor(d, fdp.ConsumeBool() ? &op : nullptr, &comp,
                                      fdp.ConsumeBool() ? &nan : nullptr, &idx,
                                      fdp.ConsumeBool() ? &it : nullptr);
      break;
    }
    case 2: {
      size_t bytes = 0;
      const auto fn =
          fdp.ConsumeBool() ? miopenGetReductionWorkspaceSize : miopenGetReductionIndicesSize;
      fn(fdp.ConsumeIntegralInRange(0, 7) == 0 ? nullptr : p.handle, d, pick(fdp, p.tensors),
         pick(fdp, p.tensors), fdp.ConsumeIntegralInRange(0, 7) == 0 ? nullptr : &bytes);
      break;
    }
  }
}

// Pooling descriptors: setters with hostile values and counts, getters (null out-pointers,
// requested counts that disagree with what is set), output lengths and workspace sizes
// against whatever the tensor pool holds.
void pooling_op(FuzzedDataProvider& fdp, Pool& p) {
  miopenPoolingDescriptor_t d = pick(fdp, p.pools);
  miopenTensorDescriptor_t t = pick(fdp, p.tensors);
  switch (fdp.ConsumeIntegralInRange(0, 7)) {
    case 0:
      miopenSet2dPoolingDescriptor(d, enum_value<miopenPoolingMode_t>(fdp, 2), size_int(fdp),
                                   size_int(fdp), hostile_int(fdp), hostile_int(fdp), size_int(fdp),
                                   size_int(fdp));
      break;
    case 1: {
      const int n = array_count(fdp);
      const auto win = int_array(fdp, n), pads = int_array(fdp, n), strides = int_array(fdp, n);
      miopenSetNdPoolingDescriptor(d, enum_value<miopenPoolingMode_t>(fdp, 2), n,
                                   n > 4096 ? nullptr : maybe_null(fdp, win),
                                   n > 4096 ? nullptr : maybe_null(fdp, pads),
                                   n > 4096 ? nullptr : maybe_null(fdp, strides));
      break;
    }
    case 2: {
      miopenPoolingMode_t mode;
      int a, b, c, e, f, g;
      miopenGet2dPoolingDescriptor(d, fdp.ConsumeBool() ? &mode : nullptr, &a, &b, &c, &e, &f,
                                   fdp.ConsumeBool() ? &g : nullptr);
      break;
    }
    case 3: {
      const int req = array_count(fdp);
      std::vector<int> win(static_cast<size_t>(std::clamp(req, 0, 4096))), pads(win.size()),
          strides(win.size());
      miopenPoolingMode_t mode;
      int nb = 0;
      const bool arrays = req <= 4096 && fdp.ConsumeIntegralInRange(0, 7) != 0;
      miopenGetNdPoolingDescriptor(d, req, fdp.ConsumeBool() ? &mode : nullptr,
                                   fdp.ConsumeBool() ? &nb : nullptr,
                                   arrays && !win.empty() ? win.data() : nullptr,
                                   arrays && !pads.empty() ? pads.data() : nullptr,
                                   arrays && !strides.empty() ? strides.data() : nullptr);
      break;
    }
    case 4: {
      miopenSetPoolingIndexType(d, enum_value<miopenIndexType_t>(fdp, 3));
      miopenIndexType_t it;
      miopenGetPoolingIndexType(d, fdp.ConsumeBool() ? &it : nullptr);
      break;
    }
    case 5: {
      miopenSetPoolingWorkSpaceIndexMode(d, enum_value<miopenPoolingWorkspaceIndexMode_t>(fdp, 1));
      miopenPoolingWorkspaceIndexMode_t m;
      miopenGetPoolingWorkSpaceIndexMode(d, fdp.ConsumeBool() ? &m : nullptr);
      break;
    }
    case 6: {
      int n, c, h, w;
      miopenGetPoolingForwardOutputDim(d, t, &n, &c, &h, fdp.ConsumeBool() ? &w : nullptr);
      const int dims = array_count(fdp);
      std::vector<int> out(static_cast<size_t>(std::clamp(dims, 0, 4096)));
      miopenGetPoolingNdForwardOutputDim(d, t, dims,
                                         dims > 4096 || out.empty() ? nullptr : out.data());
      break;
    }
    case 7: {
      size_t bytes = 0;
      miopenPoolingGetWorkSpaceSize(t, fdp.ConsumeBool() ? &bytes : nullptr);
      miopenPoolingGetWorkSpaceSizeV2(d, t, fdp.ConsumeBool() ? &bytes : nullptr);
      break;
    }
  }
}

// Destroys and recreates one slot (descriptor lifetimes interleave with use).
void recreate_op(FuzzedDataProvider& fdp, Pool& p) {
  const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, 1);
  switch (fdp.ConsumeIntegralInRange(0, 5)) {
    case 0:
      miopenDestroyTensorDescriptor(p.tensors[i]);
      p.tensors[i] = nullptr;
      miopenCreateTensorDescriptor(&p.tensors[i]);
      break;
    case 1:
      miopenDestroyConvolutionDescriptor(p.convs[i]);
      p.convs[i] = nullptr;
      miopenCreateConvolutionDescriptor(&p.convs[i]);
      break;
    case 2:
      miopenDestroyRNNDescriptor(p.rnns[i]);
      p.rnns[i] = nullptr;
      miopenCreateRNNDescriptor(&p.rnns[i]);
      break;
    case 3:
      // An RNN descriptor may still name this dropout descriptor: destroy it only while no RNN
      // descriptor could (recreate those first), as a caller must.
      break;
    case 4:
      miopenDestroySeqTensorDescriptor(p.seqs[i]);
      p.seqs[i] = nullptr;
      miopenCreateSeqTensorDescriptor(&p.seqs[i]);
      break;
    case 5:
      miopenDestroyReduceTensorDescriptor(p.reds[i]);
      p.reds[i] = nullptr;
      miopenCreateReduceTensorDescriptor(&p.reds[i]);
      break;
    case 6:
      miopenDestroyPoolingDescriptor(p.pools[i]);
      p.pools[i] = nullptr;
      miopenCreatePoolingDescriptor(&p.pools[i]);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Pool p;
  if (miopenCreate(&p.handle) != miopenStatusSuccess) return 0;
  for (auto& t : p.tensors)
    miopenCreateTensorDescriptor(&t);
  for (auto& c : p.convs)
    miopenCreateConvolutionDescriptor(&c);
  for (auto& r : p.rnns)
    miopenCreateRNNDescriptor(&r);
  for (auto& d : p.drops)
    miopenCreateDropoutDescriptor(&d);
  for (auto& s : p.seqs)
    miopenCreateSeqTensorDescriptor(&s);
  for (auto& l : p.lrns)
    miopenCreateLRNDescriptor(&l);
  for (auto& r : p.reds)
    miopenCreateReduceTensorDescriptor(&r);
  for (auto& d : p.pools)
    miopenCreatePoolingDescriptor(&d);
  // Null out-parameters of the creators.
  miopenCreateTensorDescriptor(nullptr);
  miopenCreateConvolutionDescriptor(nullptr);
  miopenCreateReduceTensorDescriptor(nullptr);

  for (int step = 0; step < 64 && fdp.remaining_bytes() > 0; ++step) {
    switch (fdp.ConsumeIntegralInRange(0, 8)) {
      case 0:
      case 1:
        tensor_op(fdp, p);
        break;
      case 2:
        conv_op(fdp, p);
        break;
      case 3:
        rnn_op(fdp, p);
        break;
      case 4:
        dropout_op(fdp, p);
        break;
      case 5:
        recreate_op(fdp, p);
        break;
      case 6:
        lrn_op(fdp, p);
        break;
      case 7:
        reduce_op(fdp, p);
        break;
      case 8:
        pooling_op(fdp, p);
        break;
    }
  }
  return 0;
}
