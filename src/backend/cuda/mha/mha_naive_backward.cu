// MhaNaiveBackward (CUDA): the fallback, for layouts the GEMM solver cannot read in place. A
// warp per query row computes Di and, element by element through the tensors' strides, the
// row's Pd and dS into the workspace; then a thread per element of dQ (a sum over keys) and
// one per row element of dK and dV (sums over queries). Workspace: Pd, dS, the amax scratch.
#include <algorithm>
#include <tuple>

#include "backend/cuda/mha/mha_cuda.cuh"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using namespace mha_cuda;

struct Views {
  Tensor4 q, k, v, o, d_o, bias, m, z, dq, dk, dv;
};

struct Shape {
  long long sq, sk, d, dv, heads;
  bool causal;
};

template <class T, class B>
__global__ void __launch_bounds__(kBlock)
    naive_rows_kernel(Views t, float* pd, float* ds, float* amax, mha::ScalarPtrs sp, float scale,
                      long long rows, Shape s) {
  const mha::Scalars sc = mha::load_scalars(sp);
  const mha::Dropout drop = mha::make_dropout(sc);
  const mha::BackwardFactors f = mha::backward_factors(scale, sc);
  const int lane = threadIdx.x & 31;
  float peak = 0.0f;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows;
       row += static_cast<long long>(gridDim.x) * kWarps) {
    const long long nh = row / s.sq, i = row - nh * s.sq, n = nh / s.heads, h = nh - n * s.heads;
    float di = 0.0f;
    for (long long e = lane; e < s.dv; e += 32)
      di += ld<T>(t.d_o, n, h, i, e) * ld<T>(t.o, n, h, i, e);
    di = f.doo * warp_sum(di);
    const float mx = static_cast<const float*>(t.m.data)[t.m.at(n, h, i, 0)];
    const float zinv = static_cast<const float*>(t.z.data)[t.z.at(n, h, i, 0)];
    for (long long j = lane; j < s.sk; j += 32) {
      float pdv = 0.0f, dsv = 0.0f;
      if (mha::visible(s.causal, i, j)) {
        float dot = 0.0f, dpd = 0.0f;
        for (long long e = 0; e < s.d; ++e)
          dot += ld<T>(t.q, n, h, i, e) * ld<T>(t.k, n, h, j, e);
        for (long long e = 0; e < s.dv; ++e)
          dpd += ld<T>(t.d_o, n, h, i, e) * ld<T>(t.v, n, h, j, e);
        const float x = f.qk * dot + (t.bias.data != nullptr ? ld<B>(t.bias, n, h, i, j) : 0.0f);
        const float pr = expf(x - mx) * zinv;
        const bool kept = mha::keep(drop, static_cast<uint64_t>(row * s.sk + j));
        pdv = kept ? pr * drop.keep_scale : 0.0f;
        dsv = f.scale * pr * ((kept ? f.dov * dpd * drop.keep_scale : 0.0f) - di);
        peak = fmaxf(peak, fabsf(dsv));
      }
      pd[row * s.sk + j] = pdv;
      ds[row * s.sk + j] = dsv;
    }
  }
  warp_amax(amax + 3, peak);
}

// dQ[n, h, i, e] = dq * sum_j dS[i, j] K[j, e].
template <class T>
__global__ void __launch_bounds__(kBlock)
    naive_dq_kernel(Views t, const float* ds, float* amax, mha::ScalarPtrs sp, float scale,
                    long long total, Shape s) {
  const mha::BackwardFactors f = mha::backward_factors(scale, mha::load_scalars(sp));
  float peak = 0.0f;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long e = idx % s.d, row = idx / s.d, nh = row / s.sq, i = row - nh * s.sq;
    const long long n = nh / s.heads, h = nh - n * s.heads;
    float acc = 0.0f;
    for (long long j = 0; j < s.sk; ++j)
      acc += ds[row * s.sk + j] * ld<T>(t.k, n, h, j, e);
    const float v = f.dq * acc;
    peak = fmaxf(peak, fabsf(v));
    static_cast<T*>(t.dq.data)[t.dq.at(n, h, i, e)] = store<T>(v * f.scale_dq);
  }
  warp_amax(amax, peak);
}

// dK[n, h, j, e] = dk * sum_i dS[i, j] Q[i, e]; dV[n, h, j, e] = dv * sum_i Pd[i, j] dO[i, e].
template <class T>
__global__ void __launch_bounds__(kBlock)
    naive_dkv_kernel(Views t, const float* pd, const float* ds, float* amax, mha::ScalarPtrs sp,
                     float scale, long long total, Shape s) {
  const mha::BackwardFactors f = mha::backward_factors(scale, mha::load_scalars(sp));
  const long long width = s.d > s.dv ? s.d : s.dv;
  float peak_k = 0.0f, peak_v = 0.0f;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long e = idx % width, kr = idx / width, nh = kr / s.sk, j = kr - nh * s.sk;
    const long long n = nh / s.heads, h = nh - n * s.heads;
    const float* dsc = ds + nh * s.sq * s.sk + j;
    const float* pdc = pd + nh * s.sq * s.sk + j;
    if (e < s.d) {
      float acc = 0.0f;
      for (long long i = 0; i < s.sq; ++i)
        acc += dsc[i * s.sk] * ld<T>(t.q, n, h, i, e);
      const float v = f.dk * acc;
      peak_k = fmaxf(peak_k, fabsf(v));
      static_cast<T*>(t.dk.data)[t.dk.at(n, h, j, e)] = store<T>(v * f.scale_dk);
    }
    if (e < s.dv) {
      float acc = 0.0f;
      for (long long i = 0; i < s.sq; ++i)
        acc += pdc[i * s.sk] * ld<T>(t.d_o, n, h, i, e);
      const float v = f.dv * acc;
      peak_v = fmaxf(peak_v, fabsf(v));
      static_cast<T*>(t.dv.data)[t.dv.at(n, h, j, e)] = store<T>(v * f.scale_dv);
    }
  }
  warp_amax(amax + 1, peak_k);
  warp_amax(amax + 2, peak_v);
}

class MhaNaiveBackwardCuda final : public MhaNaiveSpec {
 public:
  MhaNaiveBackwardCuda() : MhaNaiveSpec(MhaDirection::Backward) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem& p) const override {
    Carver c(nullptr);
    carve(c, p);
    return c.used();
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const CudaBackend& be = backend_of(ctx);
    Carver c(workspace);
    float *pd, *ds, *amax;
    std::tie(pd, ds, amax) = carve(c, p);
    const cudaStream_t st = be.cuda_stream();
    check_cuda(cudaMemsetAsync(amax, 0, 4 * sizeof(float), st), "MHA amax reset");
    using T4 = MhaTensor;
    const Views v{tensor4(p, b, T4::Q),  tensor4(p, b, T4::K),    tensor4(p, b, T4::V),
                  tensor4(p, b, T4::O),  tensor4(p, b, T4::DO),   tensor4(p, b, T4::Bias),
                  tensor4(p, b, T4::M),  tensor4(p, b, T4::ZInv), tensor4(p, b, T4::DQ),
                  tensor4(p, b, T4::DK), tensor4(p, b, T4::DV)};
    const Shape s{p.seq_q(), p.seq_k(), p.head_dim(), p.value_dim(), p.heads(), b.causal()};
    const long long rows = p.batch_heads() * p.seq_q();
    const long long dq_total = rows * p.head_dim();
    const long long dkv_total = p.batch_heads() * p.seq_k() * std::max(p.head_dim(), p.value_dim());
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const unsigned grid = grid_for(static_cast<size_t>((rows + kWarps - 1) / kWarps), 1);
      if (p.has_bias() && p.desc(T4::Bias).type() == miopenFloat)
        naive_rows_kernel<T, float>
            <<<grid, kBlock, 0, st>>>(v, pd, ds, amax, b.scalars(), p.scale(), rows, s);
      else
        naive_rows_kernel<T, T>
            <<<grid, kBlock, 0, st>>>(v, pd, ds, amax, b.scalars(), p.scale(), rows, s);
      ANYDNN_CUDA_LAUNCHED("MHA naive backward rows");
      naive_dq_kernel<T><<<grid_for(static_cast<size_t>(dq_total), kBlock), kBlock, 0, st>>>(
          v, ds, amax, b.scalars(), p.scale(), dq_total, s);
      ANYDNN_CUDA_LAUNCHED("MHA naive dQ");
      naive_dkv_kernel<T><<<grid_for(static_cast<size_t>(dkv_total), kBlock), kBlock, 0, st>>>(
          v, pd, ds, amax, b.scalars(), p.scale(), dkv_total, s);
      ANYDNN_CUDA_LAUNCHED("MHA naive dK dV");
    });
    copy_amaxes(be, b, amax, {T4::AmaxDQ, T4::AmaxDK, T4::AmaxDV, T4::AmaxDS});
  }

 private:
  static std::tuple<float*, float*, float*> carve(Carver& c, const MhaProblem& p) {
    const auto n = static_cast<size_t>(p.batch_heads() * p.seq_q() * p.seq_k());
    float* pd = c.take(n);
    float* ds = c.take(n);
    float* amax = c.take(4);
    return {pd, ds, amax};
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_naive_backward<BackendKind::Cuda>() {
  return std::make_unique<cuda::MhaNaiveBackwardCuda>();
}

}  // namespace anydnn
