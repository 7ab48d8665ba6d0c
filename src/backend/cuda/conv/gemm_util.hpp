// Helpers shared by the CUDA GEMM solvers (the shapes and support checks are backend-agnostic,
// in conv/gemm_shape.hpp): a row-major strided-batched GEMM on cuBLAS (fp32 compute, default
// math: no TF32) and fp32 -> storage-type conversion. The column-matrix kernels are in im2col.hpp.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "backend/cuda/conv/cost_model.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv/gemm_shape.hpp"

namespace anydnn::cuda {

// One operand of a row-major GEMM: its storage type, row stride and batch stride (elements).
struct GemmOperand {
  const void* data;
  miopenDataType_t type;
  long long ld;
  long long batch_stride;
};

// Row-major C[m x n] = op(A) * op(B) + beta * C for `batch` problems, fp32 accumulation.
// a_trans: A is stored [k x m]; b_trans: B is stored [n x k]. beta = 0 never reads C.
// math (gemm_math): Tf32 lets cuBLAS round float operands to TF32 on tensor cores.
void gemm_rm(cublasHandle_t handle, bool a_trans, bool b_trans, int m, int n, int k,
             const GemmOperand& a, const GemmOperand& b, float beta, void* c,
             miopenDataType_t c_type, long long ldc, long long c_batch_stride, int batch,
             GemmMath math);

// The unit gemm_rm's cuBLAS call runs on: tensor cores for half / bfloat16 operands (fp32
// accumulation); for float, SIMT fp32, or TF32 tensor cores when the handle allows TF32
// (ANYDNN_CONV_ALLOW_TF32=1, as cuDNN's and PyTorch's allow_tf32 do for every algorithm).
inline GemmMath gemm_math(miopenDataType_t t, bool allow_tf32) {
  if (t != miopenFloat) return GemmMath::Tensor16;
  return allow_tf32 ? GemmMath::Tf32 : GemmMath::Fp32;
}

// Cost of im2col (or col2im, `factor` picks which) over one image: the image read, the column
// matrix of `column_elements` written (or read), in the given element sizes, plus
// column_buffer_ms for a column matrix too large to stay in L2 between the pass and the GEMM.
inline double column_pass_ms(const DeviceRates& r, double factor, double image_elements,
                             double image_bytes, double column_elements, double column_bytes) {
  const double column = column_elements * column_bytes;
  return factor * memory_ms(r, image_elements * image_bytes + column) + column_buffer_ms(column);
}

// dst[i] = src[i] rounded to `type` (float, half or bfloat16), i < n.
void store_from_float(miopenDataType_t type, const float* src, void* dst, size_t n,
                      cudaStream_t stream);

// dst[i] = sum over s < slices of src[s * slice_stride + i] (in slice order, the same bits every
// run), rounded to `type`, i < n: the split-K and per-image partials' sum (slice_stride >= n;
// the sm90 wgrad's slices are padded to whole row tiles).
void sum_float_slices(const float* src, size_t n, size_t slice_stride, int slices,
                      miopenDataType_t type, void* dst, cudaStream_t stream);

// Bytes of `elements` values of `type`, rounded up to 256 so that a buffer after it in the
// workspace stays aligned.
size_t aligned_bytes(miopenDataType_t type, size_t elements);

}  // namespace anydnn::cuda
