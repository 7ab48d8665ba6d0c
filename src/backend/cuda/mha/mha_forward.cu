// MhaForward (CUDA), MIOpen's algorithm: T = scale * Q K^T as one cuBLAS strided-batched GEMM
// over the (n, h) slices (fp32 accumulation; tensor cores for half / bfloat16), a warp per row
// for the softmax (descales, bias, causal mask, M and ZInv, dropout, amax S) writing S (fp32 in
// place, or the data type for the second GEMM's tensor cores), O' = S V as a second GEMM, and
// one pass that writes O with its amax. Workspace: T, S (16-bit data), O', the amax scratch.
#include "backend/cuda/mha/mha_cuda.cuh"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using namespace mha_cuda;

struct Pieces {
  float* t;
  void* s;  // null for float data (S overwrites T)
  float* o;
  float* amax;  // [S, O]
  size_t bytes;
};

Pieces carve(const MhaProblem& p, void* workspace) {
  const auto nh = static_cast<size_t>(p.batch_heads()), sq = static_cast<size_t>(p.seq_q()),
             sk = static_cast<size_t>(p.seq_k()), dv = static_cast<size_t>(p.value_dim());
  Carver c(workspace);
  Pieces w{};
  w.t = c.take(nh * sq * sk);
  if (p.data_type() != miopenFloat) w.s = c.take<char>(nh * sq * sk, data_type_size(p.data_type()));
  w.o = c.take(nh * sq * dv);
  w.amax = c.take(2);
  w.bytes = c.used();
  return w;
}

class MhaForwardCuda final : public MhaGemmSpec {
 public:
  MhaForwardCuda() : MhaGemmSpec(MhaDirection::Forward, /*strided_operands=*/false) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem& p) const override {
    return carve(p, nullptr).bytes;
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const CudaBackend& be = backend_of(ctx);
    const Pieces w = carve(p, workspace);
    const long long sq = p.seq_q(), sk = p.seq_k(), d = p.head_dim(), dv = p.value_dim();
    check_cuda(cudaMemsetAsync(w.amax, 0, 2 * sizeof(float), be.cuda_stream()), "MHA amax reset");
    gemm(be, p, false, true, sq, sk, d, p.scale(), gemm_operand(p, b, MhaTensor::Q),
         gemm_operand(p, b, MhaTensor::K), w.t);
    forward_rows(be, p, b, w.t, w.s, w.amax);
    const GemmOperand s = w.s != nullptr ? packed_operand(w.s, p.data_type(), p, sq, sk)
                                         : packed_operand(w.t, miopenFloat, p, sq, sk);
    gemm(be, p, false, false, sq, dv, sk, 1.0f, s, gemm_operand(p, b, MhaTensor::V), w.o);
    scaled_store(be, p, b, Output::O, w.o, w.amax + 1);
    copy_amaxes(be, b, w.amax, {MhaTensor::AmaxS, MhaTensor::AmaxO});
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_forward<BackendKind::Cuda>() {
  return std::make_unique<cuda::MhaForwardCuda>();
}

}  // namespace anydnn
