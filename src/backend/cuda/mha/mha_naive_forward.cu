// MhaNaiveForward (CUDA): the fallback, for layouts the GEMM solver cannot read in place (rows
// that are not contiguous). A warp per query row: each logit a dot product read element by
// element through the tensors' strides, the row softmax (as the GEMM solver's), the row of S in
// the workspace, then O's columns across the lanes. Workspace: S, the amax scratch.
#include "backend/cuda/mha/mha_cuda.cuh"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using namespace mha_cuda;

struct Views {
  Tensor4 q, k, v, o, bias, m, z;
};

template <class T, class B>
__global__ void __launch_bounds__(kBlock)
    naive_forward_kernel(Views t, float* s_ws, float* amax, mha::ScalarPtrs sp, float scale,
                         long long rows, long long sq, long long sk, long long d, long long dv,
                         long long heads, bool causal) {
  const mha::Scalars sc = mha::load_scalars(sp);
  const mha::Dropout drop = mha::make_dropout(sc);
  const mha::ForwardFactors f = mha::forward_factors(scale, sc, drop);
  const int lane = threadIdx.x & 31;
  float peak_s = 0.0f, peak_o = 0.0f;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows;
       row += static_cast<long long>(gridDim.x) * kWarps) {
    const long long nh = row / sq, i = row - nh * sq, n = nh / heads, h = nh - n * heads;
    float* sr = s_ws + row * sk;
    const long long vis = causal ? (i + 1 < sk ? i + 1 : sk) : sk;
    float mx = -INFINITY;
    for (long long j = lane; j < vis; j += 32) {
      float dot = 0.0f;
      for (long long e = 0; e < d; ++e)
        dot += ld<T>(t.q, n, h, i, e) * ld<T>(t.k, n, h, j, e);
      const float x = f.qk * dot + (t.bias.data != nullptr ? ld<B>(t.bias, n, h, i, j) : 0.0f);
      sr[j] = x;
      mx = fmaxf(mx, x);
    }
    mx = warp_max(mx);
    float sum = 0.0f;
    for (long long j = lane; j < vis; j += 32)
      sum += expf(sr[j] - mx);
    const float zinv = 1.0f / warp_sum(sum);
    for (long long j = lane; j < sk; j += 32) {
      float s = 0.0f;
      if (j < vis) {
        const float pr = expf(sr[j] - mx) * zinv;
        peak_s = fmaxf(peak_s, pr);
        s = mha::keep(drop, static_cast<uint64_t>(row * sk + j)) ? pr * f.s : 0.0f;
      }
      sr[j] = s;
    }
    __syncwarp();  // every lane reads the whole row of S below
    for (long long e = lane; e < dv; e += 32) {
      float acc = 0.0f;
      for (long long j = 0; j < sk; ++j)
        acc += sr[j] * ld<T>(t.v, n, h, j, e);
      const float val = f.o_pre * acc;
      peak_o = fmaxf(peak_o, fabsf(val));
      static_cast<T*>(t.o.data)[t.o.at(n, h, i, e)] = store<T>(val * f.scale_o);
    }
    if (lane == 0) {
      if (t.m.data != nullptr) static_cast<float*>(t.m.data)[t.m.at(n, h, i, 0)] = mx;
      if (t.z.data != nullptr) static_cast<float*>(t.z.data)[t.z.at(n, h, i, 0)] = zinv;
    }
    __syncwarp();  // the next row reuses nothing, but keep the lanes together
  }
  warp_amax(amax, peak_s);
  warp_amax(amax + 1, peak_o);
}

class MhaNaiveForwardCuda final : public MhaNaiveSpec {
 public:
  MhaNaiveForwardCuda() : MhaNaiveSpec(MhaDirection::Forward) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem& p) const override {
    Carver c(nullptr);
    c.take(static_cast<size_t>(p.batch_heads() * p.seq_q() * p.seq_k()));
    c.take(2);
    return c.used();
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const CudaBackend& be = backend_of(ctx);
    Carver c(workspace);
    float* s = c.take(static_cast<size_t>(p.batch_heads() * p.seq_q() * p.seq_k()));
    float* amax = c.take(2);
    check_cuda(cudaMemsetAsync(amax, 0, 2 * sizeof(float), be.cuda_stream()), "MHA amax reset");
    using T4 = MhaTensor;
    const Views v{tensor4(p, b, T4::Q),   tensor4(p, b, T4::K),    tensor4(p, b, T4::V),
                  tensor4(p, b, T4::O),   tensor4(p, b, T4::Bias), tensor4(p, b, T4::M),
                  tensor4(p, b, T4::ZInv)};
    const long long rows = p.batch_heads() * p.seq_q();
    const unsigned grid = grid_for(static_cast<size_t>((rows + kWarps - 1) / kWarps), 1);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      auto launch = [&](auto btag) {
        using B = decltype(btag);
        naive_forward_kernel<T, B><<<grid, kBlock, 0, be.cuda_stream()>>>(
            v, s, amax, b.scalars(), p.scale(), rows, p.seq_q(), p.seq_k(), p.head_dim(),
            p.value_dim(), p.heads(), b.causal());
      };
      if (p.has_bias() && p.desc(T4::Bias).type() == miopenFloat)
        launch(float{});
      else
        launch(T{});
    });
    ANYDNN_CUDA_LAUNCHED("MHA naive forward");
    copy_amaxes(be, b, amax, {T4::AmaxS, T4::AmaxO});
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_naive_forward<BackendKind::Cuda>() {
  return std::make_unique<cuda::MhaNaiveForwardCuda>();
}

}  // namespace anydnn
