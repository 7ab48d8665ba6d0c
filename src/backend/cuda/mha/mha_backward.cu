// MhaBackward (CUDA), MIOpen's algorithm with the exact gradient through dropout: Di per row
// (a warp each), T = scale * Q K^T and dPd = dO V^T as cuBLAS strided-batched GEMMs, one
// elementwise pass turning them into Pd and dS (fp32 in place, or the data type for the next
// GEMMs' tensor cores), dQ' = dS K, dK' = dS^T Q, dV' = Pd^T dO as three more GEMMs, and the
// scaled stores with their amaxes. Workspace: T, dP, Di, Pd and dS (16-bit data), the three
// accumulators, the amax scratch.
#include "backend/cuda/mha/mha_cuda.cuh"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using namespace mha_cuda;

struct Pieces {
  float *t, *dp, *di;
  void *pd, *ds;  // null for float data (in place in t, dp)
  float *dq, *dk, *dv;
  float* amax;  // [dQ, dK, dV, dS]
  size_t bytes;
};

Pieces carve(const MhaProblem& p, void* workspace) {
  const auto nh = static_cast<size_t>(p.batch_heads()), sq = static_cast<size_t>(p.seq_q()),
             sk = static_cast<size_t>(p.seq_k()), d = static_cast<size_t>(p.head_dim()),
             dv = static_cast<size_t>(p.value_dim());
  Carver c(workspace);
  Pieces w{};
  w.t = c.take(nh * sq * sk);
  w.dp = c.take(nh * sq * sk);
  w.di = c.take(nh * sq);
  if (p.data_type() != miopenFloat) {
    w.pd = c.take<char>(nh * sq * sk, data_type_size(p.data_type()));
    w.ds = c.take<char>(nh * sq * sk, data_type_size(p.data_type()));
  }
  w.dq = c.take(nh * sq * d);
  w.dk = c.take(nh * sk * d);
  w.dv = c.take(nh * sk * dv);
  w.amax = c.take(4);
  w.bytes = c.used();
  return w;
}

class MhaBackwardCuda final : public MhaGemmSpec {
 public:
  MhaBackwardCuda() : MhaGemmSpec(MhaDirection::Backward, /*strided_operands=*/false) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem& p) const override {
    return carve(p, nullptr).bytes;
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const CudaBackend& be = backend_of(ctx);
    const Pieces w = carve(p, workspace);
    const long long sq = p.seq_q(), sk = p.seq_k(), d = p.head_dim(), dv = p.value_dim();
    check_cuda(cudaMemsetAsync(w.amax, 0, 4 * sizeof(float), be.cuda_stream()), "MHA amax reset");
    row_dots(be, p, b, w.di);
    const GemmOperand q = gemm_operand(p, b, MhaTensor::Q), k = gemm_operand(p, b, MhaTensor::K),
                      v = gemm_operand(p, b, MhaTensor::V), d_o = gemm_operand(p, b, MhaTensor::DO);
    gemm(be, p, false, true, sq, sk, d, p.scale(), q, k, w.t);
    gemm(be, p, false, true, sq, sk, dv, 1.0f, d_o, v, w.dp);
    backward_elements(be, p, b, w.t, w.dp, w.di, w.pd, w.ds, w.amax + 3);
    const bool half = w.pd != nullptr;
    const GemmOperand pd = half ? packed_operand(w.pd, p.data_type(), p, sq, sk)
                                : packed_operand(w.t, miopenFloat, p, sq, sk);
    const GemmOperand ds = half ? packed_operand(w.ds, p.data_type(), p, sq, sk)
                                : packed_operand(w.dp, miopenFloat, p, sq, sk);
    gemm(be, p, false, false, sq, d, sk, 1.0f, ds, k, w.dq);
    gemm(be, p, true, false, sk, d, sq, 1.0f, ds, q, w.dk);
    gemm(be, p, true, false, sk, dv, sq, 1.0f, pd, d_o, w.dv);
    scaled_store(be, p, b, Output::DQ, w.dq, w.amax);
    scaled_store(be, p, b, Output::DK, w.dk, w.amax + 1);
    scaled_store(be, p, b, Output::DV, w.dv, w.amax + 2);
    copy_amaxes(be, b, w.amax,
                {MhaTensor::AmaxDQ, MhaTensor::AmaxDK, MhaTensor::AmaxDV, MhaTensor::AmaxDS});
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_backward<BackendKind::Cuda>() {
  return std::make_unique<cuda::MhaBackwardCuda>();
}

}  // namespace anydnn
