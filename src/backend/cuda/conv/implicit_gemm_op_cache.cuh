// The CUTLASS 2.x implicit-GEMM solvers' (implicit_gemm_tc_util.cuh) arguments for a problem and
// its operands' addresses (make_arguments), and OpCache: one invoker's CUTLASS operator, kept
// between calls.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <mutex>

#include "core/errors.hpp"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/conv/convolution.h"
#include "cutlass/cutlass.h"

namespace anydnn::cuda::tc {

// CUTLASS's arguments for packed NHWC operands at the given pointers; alpha 1, beta 0. Serial
// mode is only used with one slice (no semaphore workspace); parallel mode writes one fp32
// partial result per slice to c, one after another.
template <class Op>
typename Op::Arguments make_arguments(const cutlass::conv::Conv2dProblemSize& ps, const void* a,
                                      const void* b, void* c, cutlass::conv::SplitKMode mode) {
  using namespace cutlass::conv;
  constexpr Operator kOp = Op::kConvolutionalOperator;
  using EA = typename Op::ElementA;
  using EB = typename Op::ElementB;
  using EC = typename Op::ElementC;
  const typename Op::LayoutA la = Op::LayoutA::packed(implicit_gemm_tensor_a_extent(kOp, ps));
  const typename Op::LayoutB lb = Op::LayoutB::packed(implicit_gemm_tensor_b_extent(kOp, ps));
  const typename Op::LayoutC lc = Op::LayoutC::packed(implicit_gemm_tensor_c_extent(kOp, ps));
  auto* pc = static_cast<EC*>(c);
  return typename Op::Arguments(ps, {const_cast<EA*>(static_cast<const EA*>(a)), la},
                                {const_cast<EB*>(static_cast<const EB*>(b)), lb}, {pc, lc},
                                {pc, lc}, typename Op::EpilogueOutputOp::Params(1.0f, 0.0f), mode);
}

// One invoker's CUTLASS operator, kept between calls. CUTLASS's initialize() builds the kernel
// params, sets the kernel's shared-memory limit (cudaFuncSetAttribute) and, with several
// split-K slices, clears the whole workspace (cudaMemsetAsync: for parallel split-K a pass over
// every fp32 partial, which each slice overwrites anyway); doing that on every call cost the
// small layers most of their time. Here it runs on the first call only, and a call on other
// buffers only swaps the pointers (update()). Every launch of one invoker has the same Op (its
// problem's type and direction), so the state is created on the first call with that type.
// Shared by the copies of an invoker (std::function copies).
class OpCache {
 public:
  template <class Op>
  void run(const cutlass::conv::Conv2dProblemSize& ps, const void* a, const void* b, void* c,
           cutlass::conv::SplitKMode mode, void* workspace, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!state_) state_ = std::make_shared<State<Op>>();
    auto& st = *static_cast<State<Op>*>(state_.get());
    cutlass::Status s = cutlass::Status::kSuccess;
    if (!st.ready || a != st.a || b != st.b || c != st.c || workspace != st.workspace) {
      const auto args = make_arguments<Op>(ps, a, b, c, mode);
      s = st.ready ? st.op.update(args, workspace) : st.op.initialize(args, workspace, stream);
      st.ready = s == cutlass::Status::kSuccess;
      st.a = a;
      st.b = b;
      st.c = c;
      st.workspace = workspace;
    }
    if (s == cutlass::Status::kSuccess) s = st.op.run(stream);
    ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
                 "CUTLASS convolution failed: " << cutlass::cutlassGetStatusString(s) << " ("
                                                << cudaGetErrorString(cudaGetLastError()) << ")");
  }

 private:
  template <class Op>
  struct State {
    Op op;
    bool ready = false;
    const void* a = nullptr;
    const void* b = nullptr;
    void* c = nullptr;
    void* workspace = nullptr;
  };
  std::mutex mutex_;
  std::shared_ptr<void> state_;
};

}  // namespace anydnn::cuda::tc
