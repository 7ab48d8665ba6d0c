// The row kernels, scaled stores and GEMMs of the CUDA MHA GEMM solvers (mha_cuda.cuh). The
// arithmetic is mha/mha_math.hpp's (shared with the CPU solvers and the reference's dropout);
// the scalar tensors are read on the device, by every thread (they sit in cache), so nothing
// waits for the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "backend/cuda/mha/mha_cuda.cuh"

namespace anydnn::cuda::mha_cuda {

namespace {

cudaDataType cuda_type(miopenDataType_t t) {
  switch (t) {
    case miopenFloat:
      return CUDA_R_32F;
    case miopenHalf:
      return CUDA_R_16F;
    case miopenBFloat16:
      return CUDA_R_16BF;
    default:
      break;
  }
  ANYDNN_THROW(miopenStatusInternalError, "MHA GEMMs take float, half or bfloat16 data");
}

unsigned row_grid(long long rows) {
  return grid_for(static_cast<size_t>((rows + kWarps - 1) / kWarps), 1);
}

// Calls f(B{}) with B the bias storage type (float or the data type T); f(T{}) without a bias.
template <class T, class F>
void dispatch_bias(const MhaProblem& p, F&& f) {
  if (p.has_bias() && p.desc(MhaTensor::Bias).type() == miopenFloat)
    f(float{});
  else
    f(T{});
}

// --- forward rows: a warp per query row ---------------------------------------------------------

template <class T, class B>
__global__ void __launch_bounds__(kBlock)
    forward_rows_kernel(float* t, T* s_out, Tensor4 bias, Tensor4 m, Tensor4 z, float* amax,
                        mha::ScalarPtrs sp, float scale, long long rows, long long sq, long long sk,
                        long long heads, bool causal) {
  const mha::Scalars sc = mha::load_scalars(sp);
  const mha::Dropout drop = mha::make_dropout(sc);
  const mha::ForwardFactors f = mha::forward_factors(scale, sc, drop);
  const float descale = sc.descale_q * sc.descale_k;  // the GEMM applied `scale`
  const int lane = threadIdx.x & 31;
  float peak = 0.0f;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows;
       row += static_cast<long long>(gridDim.x) * kWarps) {
    const long long nh = row / sq, i = row - nh * sq, n = nh / heads, h = nh - n * heads;
    float* tr = t + row * sk;
    const long long vis = causal ? (i + 1 < sk ? i + 1 : sk) : sk;
    float mx = -INFINITY;
    for (long long j = lane; j < vis; j += 32) {
      float x = tr[j] * descale;
      if (bias.data != nullptr) x += ld<B>(bias, n, h, i, j);
      tr[j] = x;
      mx = fmaxf(mx, x);
    }
    mx = warp_max(mx);
    float sum = 0.0f;
    for (long long j = lane; j < vis; j += 32)
      sum += expf(tr[j] - mx);
    const float zinv = 1.0f / warp_sum(sum);
    const uint64_t first = static_cast<uint64_t>(row * sk);
    for (long long j = lane; j < sk; j += 32) {
      float v = 0.0f;
      if (j < vis) {
        const float pr = expf(tr[j] - mx) * zinv;
        peak = fmaxf(peak, pr);
        v = mha::keep(drop, first + static_cast<uint64_t>(j)) ? pr * f.s : 0.0f;
      }
      if (s_out != nullptr)
        s_out[row * sk + j] = store<T>(v);
      else
        tr[j] = v;
    }
    if (lane == 0) {
      if (m.data != nullptr) static_cast<float*>(m.data)[m.at(n, h, i, 0)] = mx;
      if (z.data != nullptr) static_cast<float*>(z.data)[z.at(n, h, i, 0)] = zinv;
    }
  }
  warp_amax(amax, peak);
}

// --- Di = doo * sum_e dO * O: a warp per query row ----------------------------------------------

template <class T>
__global__ void __launch_bounds__(kBlock)
    row_dots_kernel(Tensor4 d_o, Tensor4 o, float* di, mha::ScalarPtrs sp, long long rows,
                    long long sq, long long dv, long long heads) {
  const mha::Scalars sc = mha::load_scalars(sp);
  const float doo = sc.descale_o * sc.descale_do;
  const int lane = threadIdx.x & 31;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows;
       row += static_cast<long long>(gridDim.x) * kWarps) {
    const long long nh = row / sq, i = row - nh * sq, n = nh / heads, h = nh - n * heads;
    float acc = 0.0f;
    for (long long e = lane; e < dv; e += 32)
      acc += ld<T>(d_o, n, h, i, e) * ld<T>(o, n, h, i, e);
    acc = warp_sum(acc);
    if (lane == 0) di[row] = doo * acc;
  }
}

// --- backward elements: T -> Pd, dP -> dS -------------------------------------------------------

template <class T, class B>
__global__ void __launch_bounds__(kBlock)
    backward_elements_kernel(float* t, float* dp, const float* di, T* pd_out, T* ds_out,
                             Tensor4 bias, Tensor4 m, Tensor4 z, float* amax, mha::ScalarPtrs sp,
                             float scale, long long total, long long sq, long long sk,
                             long long heads, bool causal) {
  const mha::Scalars sc = mha::load_scalars(sp);
  const mha::Dropout drop = mha::make_dropout(sc);
  const mha::BackwardFactors f = mha::backward_factors(scale, sc);
  const float descale = sc.descale_q * sc.descale_k;  // the GEMM applied `scale`
  float peak = 0.0f;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = idx / sk, j = idx - row * sk;
    const long long nh = row / sq, i = row - nh * sq, n = nh / heads, h = nh - n * heads;
    float pd = 0.0f, ds = 0.0f;
    if (mha::visible(causal, i, j)) {
      float x = t[idx] * descale;
      if (bias.data != nullptr) x += ld<B>(bias, n, h, i, j);
      const float mx = static_cast<const float*>(m.data)[m.at(n, h, i, 0)];
      const float zinv = static_cast<const float*>(z.data)[z.at(n, h, i, 0)];
      const float pr = expf(x - mx) * zinv;
      const bool kept = mha::keep(drop, static_cast<uint64_t>(idx));
      pd = kept ? pr * drop.keep_scale : 0.0f;
      const float dprob = kept ? dp[idx] * f.dov * drop.keep_scale : 0.0f;
      ds = f.scale * pr * (dprob - di[row]);
      peak = fmaxf(peak, fabsf(ds));
    }
    if (pd_out != nullptr) {
      pd_out[idx] = store<T>(pd);
      ds_out[idx] = store<T>(ds);
    } else {
      t[idx] = pd;
      dp[idx] = ds;
    }
  }
  warp_amax(amax, peak);
}

// --- scaled stores ------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kBlock)
    scaled_store_kernel(const float* acc, Tensor4 out, float* amax, mha::ScalarPtrs sp, float scale,
                        Output which, long long total, long long rows, long long cols,
                        long long heads) {
  const mha::Scalars sc = mha::load_scalars(sp);
  float pre = 1.0f, post = 1.0f;
  if (which == Output::O) {
    const mha::ForwardFactors f = mha::forward_factors(scale, sc, mha::Dropout{});
    pre = f.o_pre;
    post = f.scale_o;
  } else {
    const mha::BackwardFactors f = mha::backward_factors(scale, sc);
    pre = which == Output::DQ ? f.dq : which == Output::DK ? f.dk : f.dv;
    post = which == Output::DQ ? f.scale_dq : which == Output::DK ? f.scale_dk : f.scale_dv;
  }
  float peak = 0.0f;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long c = idx % cols, rc = idx / cols, r = rc % rows, nh = rc / rows;
    const long long n = nh / heads, h = nh - n * heads;
    const float v = acc[idx] * pre;
    peak = fmaxf(peak, fabsf(v));
    static_cast<T*>(out.data)[out.at(n, h, r, c)] = store<T>(v * post);
  }
  warp_amax(amax, peak);
}

}  // namespace

GemmOperand gemm_operand(const MhaProblem& p, const MhaBuffers& b, MhaTensor t) {
  const TensorDescriptor& d = p.desc(t);
  const MhaStrides s = p.strides(t);
  const long long ld = d.lens()[2] == 1 ? static_cast<long long>(d.lens()[3])
                                        : static_cast<long long>(d.strides()[2]);
  return {b.get(t), d.type(), ld, s.n, s.h};
}

void gemm(const CudaBackend& be, const MhaProblem& p, bool a_trans, bool b_trans, long long m,
          long long n, long long k, float alpha, const GemmOperand& a, const GemmOperand& b,
          float* c) {
  const long long nb = p.batch(), heads = p.heads();
  const GemmOperand cc{c, miopenFloat, n, heads * m * n, m * n};
  // One call over all N * H slices when every operand steps through them with one stride;
  // else one call per batch element over its heads.
  auto slice_stride = [&](const GemmOperand& o) { return heads == 1 ? o.n_stride : o.h_stride; };
  auto uniform = [&](const GemmOperand& o) {
    return nb == 1 || heads == 1 || o.n_stride == heads * o.h_stride;
  };
  const bool one = uniform(a) && uniform(b);
  const long long calls = one ? 1 : nb, batch = one ? nb * heads : heads;
  const float beta = 0.0f;
  for (long long i = 0; i < calls; ++i) {
    const size_t ea = data_type_size(a.type), eb = data_type_size(b.type);
    const char* pa = static_cast<const char*>(a.data) + i * a.n_stride * static_cast<long long>(ea);
    const char* pb = static_cast<const char*>(b.data) + i * b.n_stride * static_cast<long long>(eb);
    float* pc = c + i * cc.n_stride;
    const long long sa = one ? slice_stride(a) : a.h_stride,
                    sb = one ? slice_stride(b) : b.h_stride;
    // cuBLAS is column-major: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    check_cublas(
        cublasGemmStridedBatchedEx(
            be.cublas(), b_trans ? CUBLAS_OP_T : CUBLAS_OP_N, a_trans ? CUBLAS_OP_T : CUBLAS_OP_N,
            static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, pb,
            cuda_type(b.type), static_cast<int>(b.ld), sb, pa, cuda_type(a.type),
            static_cast<int>(a.ld), sa, &beta, pc, CUDA_R_32F, static_cast<int>(n), m * n,
            static_cast<int>(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx (MHA)");
  }
}

void forward_rows(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* t,
                  void* s_out, float* amax) {
  const long long rows = p.batch_heads() * p.seq_q();
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    dispatch_bias<T>(p, [&](auto btag) {
      using B = decltype(btag);
      forward_rows_kernel<T, B><<<row_grid(rows), kBlock, 0, be.cuda_stream()>>>(
          t, static_cast<T*>(s_out), tensor4(p, b, MhaTensor::Bias), tensor4(p, b, MhaTensor::M),
          tensor4(p, b, MhaTensor::ZInv), amax, b.scalars(), p.scale(), rows, p.seq_q(), p.seq_k(),
          p.heads(), b.causal());
    });
  });
  ANYDNN_CUDA_LAUNCHED("MHA forward rows");
}

void row_dots(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* di) {
  const long long rows = p.batch_heads() * p.seq_q();
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    row_dots_kernel<T><<<row_grid(rows), kBlock, 0, be.cuda_stream()>>>(
        tensor4(p, b, MhaTensor::DO), tensor4(p, b, MhaTensor::O), di, b.scalars(), rows, p.seq_q(),
        p.value_dim(), p.heads());
  });
  ANYDNN_CUDA_LAUNCHED("MHA row dots");
}

void backward_elements(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* t,
                       float* dp, const float* di, void* pd_out, void* ds_out, float* amax) {
  const long long total = p.batch_heads() * p.seq_q() * p.seq_k();
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    dispatch_bias<T>(p, [&](auto btag) {
      using B = decltype(btag);
      backward_elements_kernel<T, B>
          <<<grid_for(static_cast<size_t>(total), kBlock), kBlock, 0, be.cuda_stream()>>>(
              t, dp, di, static_cast<T*>(pd_out), static_cast<T*>(ds_out),
              tensor4(p, b, MhaTensor::Bias), tensor4(p, b, MhaTensor::M),
              tensor4(p, b, MhaTensor::ZInv), amax, b.scalars(), p.scale(), total, p.seq_q(),
              p.seq_k(), p.heads(), b.causal());
    });
  });
  ANYDNN_CUDA_LAUNCHED("MHA backward elements");
}

void scaled_store(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, Output o,
                  const float* acc, float* amax) {
  const MhaTensor t = o == Output::O    ? MhaTensor::O
                      : o == Output::DQ ? MhaTensor::DQ
                      : o == Output::DK ? MhaTensor::DK
                                        : MhaTensor::DV;
  const auto& l = p.desc(t).lens();
  const long long rows = static_cast<long long>(l[2]), cols = static_cast<long long>(l[3]);
  const long long total = p.batch_heads() * rows * cols;
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    scaled_store_kernel<T>
        <<<grid_for(static_cast<size_t>(total), kBlock), kBlock, 0, be.cuda_stream()>>>(
            acc, tensor4(p, b, t), amax, b.scalars(), p.scale(), o, total, rows, cols, p.heads());
  });
  ANYDNN_CUDA_LAUNCHED("MHA scaled store");
}

void copy_amaxes(const CudaBackend& be, const MhaBuffers& b, const float* scratch,
                 std::initializer_list<MhaTensor> outputs) {
  int i = 0;
  for (const MhaTensor t : outputs) {
    if (void* dst = b.get(t))
      check_cuda(cudaMemcpyAsync(dst, scratch + i, sizeof(float), cudaMemcpyDeviceToDevice,
                                 be.cuda_stream()),
                 "MHA amax copy");
    ++i;
  }
}

}  // namespace anydnn::cuda::mha_cuda
