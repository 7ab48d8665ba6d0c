// CTC loss through the C API with hostile values: the descriptor calls (any data type value,
// any blank id, null out-pointers, destroy and recreate), and the workspace query and
// miopenCTCLoss on [T, N, C] tensors (lengths <= 8 mostly, else hostile; sometimes strided,
// 4-D or of another type) with label and input lengths and label ids from the bytes (hostile
// included), null arrays, and a workspace of the queried size or smaller. With
// MIOPEN_ENABLE_LOGGING(_CMD)=1 so the logger formats the descriptor and the ctc line. Every
// buffer is as large as its descriptor says and the labels array holds as many labels as the
// lengths add up to (the library must reject any length that would make it read further).
#include <miopen/miopen.h>

#include <algorithm>
#include <array>
#include <vector>

#include "fuzz_common.hpp"

using anydnn::fuzz::data_type;
using anydnn::fuzz::enum_value;
using anydnn::fuzz::hostile_int;
using anydnn::fuzz::size_int;

namespace {

constexpr size_t kMaxBytes = 1 << 16;

struct Tensor {
  miopenTensorDescriptor_t desc = nullptr;
  std::vector<uint8_t> buf;
  Tensor() { miopenCreateTensorDescriptor(&desc); }
  ~Tensor() { miopenDestroyTensorDescriptor(desc); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  bool alloc() {
    size_t bytes = 0;
    if (miopenGetTensorNumBytes(desc, &bytes) != miopenStatusSuccess || bytes > kMaxBytes)
      return false;
    buf.assign(bytes + 1, 0x3c);
    return true;
  }
};

void compute(FuzzedDataProvider& fdp, miopenHandle_t h, miopenCTCLossDescriptor_t d) {
  std::array<int, 4> lens = {size_int(fdp), size_int(fdp), size_int(fdp), 1};
  const int nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? 4 : 3;
  Tensor probs, grads;
  for (Tensor* t : {&probs, &grads}) {
    const miopenDataType_t type =
        fdp.ConsumeIntegralInRange(0, 7) == 0 ? data_type(fdp) : miopenFloat;
    if (t == &grads && fdp.ConsumeIntegralInRange(0, 7) == 0) lens[2] = size_int(fdp);
    if (fdp.ConsumeIntegralInRange(0, 3) == 0) {
      std::array<int, 4> strides{};
      for (int i = 0; i < nd; ++i)
        strides[i] = fdp.ConsumeIntegralInRange(0, 7) == 0 ? hostile_int(fdp)
                                                           : fdp.ConsumeIntegralInRange(1, 64);
      miopenSetTensorDescriptor(t->desc, type, nd, lens.data(), strides.data());
    } else {
      miopenSetTensorDescriptor(t->desc, type, nd, lens.data(), nullptr);
    }
  }
  if (!probs.alloc() || !grads.alloc()) return;
  // The tensors' sizes bound N (and every sum of lengths the library may accept) by 65536.
  const int n = std::max(lens[1], 1);
  std::vector<int> label_len(n), input_len(n);
  long long total = 0;
  for (int b = 0; b < n; ++b) {
    input_len[b] =
        fdp.ConsumeIntegralInRange(0, 7) == 0 ? hostile_int(fdp) : fdp.ConsumeIntegralInRange(1, 8);
    label_len[b] =
        fdp.ConsumeIntegralInRange(0, 7) == 0 ? hostile_int(fdp) : fdp.ConsumeIntegralInRange(0, 4);
    total += std::max(label_len[b], 0);
  }
  // A label count past N * T (<= 65536 here) cannot pass the library's checks.
  std::vector<int> labels(static_cast<size_t>(std::min<long long>(total, 65536)) + 1);
  for (int& l : labels)
    l = fdp.ConsumeIntegralInRange(0, 15) == 0 ? hostile_int(fdp)
                                               : fdp.ConsumeIntegralInRange(0, 8);
  const auto algo = enum_value<miopenCTCLossAlgo_t>(fdp, 0);
  const int* lp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : labels.data();
  const int* llp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : label_len.data();
  const int* ilp = fdp.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : input_len.data();
  size_t ws = 0;
  if (miopenGetCTCLossWorkspaceSize(h, probs.desc, grads.desc, lp, llp, ilp, algo, d, &ws) !=
          miopenStatusSuccess ||
      ws > kMaxBytes * 4)
    ws = fdp.ConsumeIntegralInRange<size_t>(0, 4096);
  else if (fdp.ConsumeIntegralInRange(0, 7) == 0)
    ws = fdp.ConsumeIntegralInRange<size_t>(0, ws);
  std::vector<uint8_t> work(ws + 1);
  std::vector<float> losses(static_cast<size_t>(std::max(lens[1], 1)) + 1);
  miopenCTCLoss(h, probs.desc, probs.buf.data(), lp, llp, ilp, losses.data(), grads.desc,
                grads.buf.data(), algo, d, work.data(), ws);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  miopenHandle_t h = nullptr;
  if (miopenCreate(&h) != miopenStatusSuccess) return 0;
  std::array<miopenCTCLossDescriptor_t, 2> pool{};
  for (auto& c : pool)
    miopenCreateCTCLossDescriptor(&c);
  miopenCreateCTCLossDescriptor(nullptr);
  for (int step = 0; step < 16 && fdp.remaining_bytes() > 0; ++step) {
    const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, pool.size());
    miopenCTCLossDescriptor_t c = i < pool.size() ? pool[i] : nullptr;
    switch (fdp.ConsumeIntegralInRange(0, 4)) {
      case 0:
        miopenSetCTCLossDescriptor(c, enum_value<miopenDataType_t>(fdp, 9), hostile_int(fdp),
                                   fdp.ConsumeBool());
        break;
      case 1: {
        miopenDataType_t t;
        int blank;
        bool sm;
        miopenGetCTCLossDescriptor(c, fdp.ConsumeBool() ? &t : nullptr,
                                   fdp.ConsumeBool() ? &blank : nullptr,
                                   fdp.ConsumeBool() ? &sm : nullptr);
        break;
      }
      case 2:
      case 3:
        compute(fdp, h, c);
        break;
      case 4:
        if (i < pool.size()) {
          miopenDestroyCTCLossDescriptor(pool[i]);
          pool[i] = nullptr;
          miopenCreateCTCLossDescriptor(&pool[i]);
        }
        break;
    }
  }
  for (auto& c : pool)
    miopenDestroyCTCLossDescriptor(c);
  miopenDestroy(h);
  return 0;
}
